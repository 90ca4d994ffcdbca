package hostedit

import (
	"errors"
	"strings"
	"testing"
)

// A settings file as people leave them: unknown keys, odd spacing, keys
// in no order, unicode and escapes.
const oddSettings = `{
    "model":"opus" ,
  "permissions": {"allow": ["Bash(ls:*)"],   "deny": []},
	"env": { "A": "1\"2", "B": "é" },
  "enabledPlugins": {
      "docs@market": true
  }
}
`

func TestJSONSet(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		path   []string
		value  any
		want   string
		jsoncc bool
	}{
		{
			name: "new object in an odd file", in: oddSettings,
			path: []string{"skillOverrides", "pdf"}, value: "off",
			want: `{
    "model":"opus" ,
  "permissions": {"allow": ["Bash(ls:*)"],   "deny": []},
	"env": { "A": "1\"2", "B": "é" },
  "enabledPlugins": {
      "docs@market": true
  },
  "skillOverrides": {
    "pdf": "off"
  }
}
`,
		},
		{
			name: "existing member's value only", in: oddSettings,
			path: []string{"enabledPlugins", "docs@market"}, value: false,
			want: strings.Replace(oddSettings, `"docs@market": true`, `"docs@market": false`, 1),
		},
		{
			name: "member added to an existing object, in its indent", in: oddSettings,
			path: []string{"enabledPlugins", "new@m"}, value: false,
			want: strings.Replace(oddSettings, `"docs@market": true`, "\"docs@market\": true,\n      \"new@m\": false", 1),
		},
		{
			name: "inline object stays inline", in: `{"a": {"x": 1}}`,
			path: []string{"a", "y"}, value: "on", want: `{"a": {"x": 1, "y": "on"}}`,
		},
		{
			name: "inline compact object", in: `{"a":{"x":1,"z":2}}`,
			path: []string{"a", "y"}, value: true, want: `{"a":{"x":1,"z":2,"y":true}}`,
		},
		{name: "empty file", in: "", path: []string{"skillOverrides", "pdf"}, value: "off",
			want: "{\n  \"skillOverrides\": {\n    \"pdf\": \"off\"\n  }\n}\n"},
		{name: "empty object", in: "{}\n", path: []string{"k"}, value: "v", want: "{\n  \"k\": \"v\"\n}\n"},
		{name: "tab-indented file", in: "{\n\t\"a\": 1\n}\n", path: []string{"o", "k"}, value: "v",
			want: "{\n\t\"a\": 1,\n\t\"o\": {\n\t\t\"k\": \"v\"\n\t}\n}\n"},
		{name: "CRLF", in: "{\r\n  \"a\": 1\r\n}\r\n", path: []string{"b"}, value: true,
			want: "{\r\n  \"a\": 1,\r\n  \"b\": true\r\n}\r\n"},
		{name: "byte order mark kept", in: "\xef\xbb\xbf{\"a\": 1}", path: []string{"b"}, value: true,
			want: "\xef\xbb\xbf{\"a\": 1, \"b\": true}"},
		{name: "unchanged value", in: oddSettings, path: []string{"model"}, value: "opus", want: oddSettings},
		{name: "comment after the last member stays with it", jsoncc: true,
			in:   "{\n  \"a\": 1 // one\n}\n",
			path: []string{"b"}, value: true, want: "{\n  \"a\": 1, // one\n  \"b\": true\n}\n"},
		{name: "trailing comma kept", jsoncc: true, in: "{\n  \"a\": 1,\n}\n", path: []string{"b"}, value: true,
			want: "{\n  \"a\": 1,\n  \"b\": true,\n}\n"},
		{name: "html characters not escaped", in: "{}", path: []string{"k"}, value: "<a&b>",
			want: "{\n  \"k\": \"<a&b>\"\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSON{Comments: tt.jsoncc}.Set([]byte(tt.in), tt.path, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// Setting a key and deleting it again (pruning emptied objects) gives the
// file back byte for byte.
func TestJSONSetDeleteRoundTrip(t *testing.T) {
	files := []string{
		oddSettings,
		"{}\n",
		"{\n  \"skillOverrides\": {\n    \"other\": \"name-only\"\n  }\n}\n",
		"{\n  \"a\": 1 // c\n}\n",
		`{"a": {"x": 1}}`,
		"{\r\n  \"a\": 1\r\n}\r\n",
		"{\n  // settings\n  \"a\": [1, 2],\n  /* block */ \"b\": null\n}",
		// Objects the user left empty stay. (Not when a set would have
		// written them the same way: "{\n  \"o\": {}\n}\n" and "{}\n"
		// both become "{\n  \"o\": {\n    \"k\": \"off\"\n  }\n}\n", and a
		// delete cannot tell which it was; it gives "{}\n".)
		`{"skillOverrides":{}}`,
		"{\n  \"skillOverrides\": {\n    // mine\n  }\n}\n",
		// Comments in an object that is otherwise empty.
		"{ // c\n}",
		"{\n  // only a comment\n}\n",
	}
	for _, f := range files {
		for _, path := range [][]string{{"skillOverrides", "pdf"}, {"a", "b", "c"}, {"top"}} {
			j := JSON{Comments: true}
			on, err := j.Set([]byte(f), path, "off")
			if err != nil {
				if _, ok := err.(*EditError); ok {
					continue // "a" is no object in some files
				}
				t.Fatalf("%q %v: %v", f, path, err)
			}
			back, err := j.Delete(on, path, true)
			if err != nil {
				t.Fatalf("%q %v: %v", f, path, err)
			}
			want := f
			if f == "{}\n" && len(path) > 0 {
				want = "{}\n"
			}
			if string(back) != want {
				t.Errorf("%v on %q: after set\n%s\nafter delete\n%q", path, f, on, back)
			}
		}
	}
}

func TestJSONDelete(t *testing.T) {
	tests := []struct {
		name, in string
		path     []string
		prune    bool
		want     string
	}{
		{"first of several", "{\n  \"o\": {\n    \"a\": 1,\n    \"b\": 2\n  }\n}", []string{"o", "a"}, true,
			"{\n  \"o\": {\n    \"b\": 2\n  }\n}"},
		{"middle, inline", `{"a":1, "b":2, "c":3}`, []string{"b"}, false, `{"a":1, "c":3}`},
		{"last keeps the comment of the one before", "{\n  \"a\": 1, // one\n  \"b\": 2\n}", []string{"b"}, false,
			"{\n  \"a\": 1 // one\n}"},
		{"only member without prune leaves an empty object", "{\"o\": {\"a\": 1}, \"z\": 0}", []string{"o", "a"}, false,
			"{\"o\": {}, \"z\": 0}"},
		{"prune what a set would write back", "{\"z\": 0, \"o\": {\"a\": 1}}", []string{"o", "a"}, true, "{\"z\": 0}"},
		{"keep the user's object where a set would not write it", "{\"o\": {\"a\": 1}, \"z\": 0}", []string{"o", "a"}, true,
			"{\"o\": {}, \"z\": 0}"},
		{"missing", oddSettings, []string{"nope", "x"}, true, oddSettings},
		// The comments around a removed member stay, whether on lines
		// of their own, before it on its line, or after its comma.
		{"comment line before the last member", "{\n\"a\":\"off\",\n// \"x\":\"off\",\n\"b\":\"off\"\n}", []string{"b"}, false,
			"{\n\"a\":\"off\"\n// \"x\":\"off\",\n}"},
		{"block comment before the member on its line", "{\n\"a\":\"off\",\n/* keep */ \"b\":\"off\"\n}", []string{"b"}, false,
			"{\n\"a\":\"off\"\n/* keep */\n}"},
		{"comment after the removed member's comma", "{\n  \"a\": 1, // about a\n  \"b\": 2\n}", []string{"a"}, false,
			"{\n  // about a\n  \"b\": 2\n}"},
		{"middle member with a comment after it", "{\n  \"a\": 1,\n  \"b\": 2, // why\n  \"c\": 3\n}", []string{"b"}, false,
			"{\n  \"a\": 1,\n  // why\n  \"c\": 3\n}"},
		{"comment between value and comma", "{\n  \"a\": 1 /* one */,\n  \"b\": 2\n}", []string{"a"}, false,
			"{\n  /* one */\n  \"b\": 2\n}"},
		{"last, inline", `{"a":1, "b":2}`, []string{"b"}, false, `{"a":1}`},
		{"last, inline, trailing comma", `{"a":1, "b":2,}`, []string{"b"}, false, `{"a":1,}`},
		{"last, CRLF", "{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n", []string{"b"}, false, "{\r\n  \"a\": 1\r\n}\r\n"},
		{"only member among comments", "{\n  // mine\n  \"a\": 1\n}", []string{"a"}, true, "{\n  // mine\n}"},
		{"repeated key", `{"a": 1, "b": 2, "a": 3}`, []string{"a"}, false, `{"b": 2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSON{Comments: true}.Delete([]byte(tt.in), tt.path, tt.prune)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestJSONStrings(t *testing.T) {
	gemini := `{
  // Gemini settings
  "general": {"vimMode": true,},
  "skills": {
    "disabled": [
      "old", // keep off
    ],
  },
}
`
	j := JSON{Comments: true}
	on, err := j.AddString([]byte(gemini), []string{"skills", "disabled"}, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(gemini, `"old", // keep off`, "\"old\", // keep off\n      \"pdf\",", 1)
	if string(on) != want {
		t.Fatalf("add: got\n%s\nwant\n%s", on, want)
	}
	again, err := j.AddString(on, []string{"skills", "disabled"}, "pdf")
	if err != nil || string(again) != string(on) {
		t.Fatalf("adding twice changed the file: %v\n%s", err, again)
	}
	back, err := j.RemoveString(on, []string{"skills", "disabled"}, "pdf", true)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := j.Get(back, []string{"skills", "disabled"}); len(v.([]any)) != 1 {
		t.Fatalf("remove: %s", back)
	}
	if !strings.Contains(string(back), "// Gemini settings") || !strings.Contains(string(back), `"general": {"vimMode": true,}`) {
		t.Errorf("remove lost unrelated bytes:\n%s", back)
	}

	// A new list, then removed with pruning: the file comes back.
	plain := "{\n  \"ui\": {\"theme\": \"dark\"}\n}\n"
	on, err = j.AddString([]byte(plain), []string{"skills", "disabled"}, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"ui\": {\"theme\": \"dark\"},\n  \"skills\": {\n    \"disabled\": [\"pdf\"]\n  }\n}\n"; string(on) != want {
		t.Fatalf("new list: got\n%s\nwant\n%s", on, want)
	}
	back, err = j.RemoveString(on, []string{"skills", "disabled"}, "pdf", true)
	if err != nil || string(back) != plain {
		t.Fatalf("round trip: %v\n%q", err, back)
	}
	// Inline arrays grow inline.
	on, err = j.AddString([]byte(`{"skills": {"disabled": ["a"]}}`), []string{"skills", "disabled"}, "b")
	if err != nil || string(on) != `{"skills": {"disabled": ["a", "b"]}}` {
		t.Fatalf("inline: %v %s", err, on)
	}
}

func TestJSONErrors(t *testing.T) {
	tests := []struct {
		name, in     string
		comments     bool
		line, column int
		shape        bool
	}{
		{name: "missing comma", in: "{\n  \"a\": 1\n  \"b\": 2\n}", line: 3, column: 3},
		{name: "comment in strict JSON", in: "{\n  // no\n  \"a\": 1\n}", line: 2, column: 3},
		{name: "trailing comma in strict JSON", in: "{\n  \"a\": 1,\n}", line: 2, column: 9},
		{name: "unterminated string", in: "{\n  \"a\": \"x\n}", line: 2, column: 10},
		{name: "top-level array", in: "[1]", line: 1, column: 1},
		{name: "garbage after", in: "{} x", line: 1, column: 4},
		{name: "unclosed", in: "{\"a\": {", comments: true, line: 1, column: 7},
		{name: "overrides is an array", in: `{"skillOverrides": ["pdf"]}`, shape: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := JSON{Comments: tt.comments}.Set([]byte(tt.in), []string{"skillOverrides", "pdf"}, "off")
			if tt.shape {
				var ee *EditError
				if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "skillOverrides") {
					t.Fatalf("got %v, want an EditError naming the key", err)
				}
				return
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a SyntaxError", err)
			}
			if se.Line != tt.line || se.Column != tt.column {
				t.Errorf("at %d:%d (%s), want %d:%d", se.Line, se.Column, se.Msg, tt.line, tt.column)
			}
		})
	}
}

// Adding a string and removing it again (with pruning) gives the file
// back byte for byte, including lists and objects the user left empty.
func TestJSONStringsRoundTrip(t *testing.T) {
	files := []string{
		"{}\n",
		`{"skills":{"disabled":[]}}`,
		"{\n  \"skills\": {\"disabled\": []}\n}\n",
		`{"skills": {"disabled": ["x"]}}`,
		"{\n  \"skills\": {\n    \"disabled\": [\n      // mine\n    ]\n  }\n}\n",
		"{\n  // Gemini\n  \"ui\": {\"theme\": \"dark\",},\n}\n",
		"{\n  \"skills\": {\n    \"enabled\": true\n  }\n}\n",
		"{\r\n  \"a\": 1\r\n}\r\n",
		`{"skills": {"disabled": [/* none */]}}`,
	}
	j := JSON{Comments: true}
	path := []string{"skills", "disabled"}
	for _, f := range files {
		on, err := j.AddString([]byte(f), path, "pdf")
		if err != nil {
			t.Fatalf("%q: %v", f, err)
		}
		back, err := j.RemoveString(on, path, "pdf", true)
		if err != nil {
			t.Fatalf("%q: %v", f, err)
		}
		if string(back) != f {
			t.Errorf("%q: after add\n%s\nafter remove %q", f, on, back)
		}
	}
}
