package hostedit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestDecode reads JSON with comments and plain JSON into Go values, and
// names the line of every problem in the file as written.
func TestDecode(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		comments bool
		want     map[string]any
		errLine  int // 0: no error
		errHas   string
	}{
		{name: "plain JSON", in: `{"a": true}`, comments: true, want: map[string]any{"a": true}},
		{name: "line and block comments", in: "{\n  // a comment\n  \"a\": /* inline */ true /* after */\n}", comments: true,
			want: map[string]any{"a": true}},
		{name: "trailing commas in objects and arrays", in: "{\"a\": [1, 2,],\n \"b\": {\"c\": 1,},\n}", comments: true,
			want: map[string]any{"a": []any{1.0, 2.0}, "b": map[string]any{"c": 1.0}}},
		{name: "a trailing comma before a comment", in: "{\"a\": 1, // last\n}", comments: true, want: map[string]any{"a": 1.0}},
		{name: "comment markers inside strings are text", in: `{"url": "http://x/*y*/", "p": "a,}"}`, comments: true,
			want: map[string]any{"url": "http://x/*y*/", "p": "a,}"}},
		{name: "escaped quote in a string", in: `{"q": "say \"//hi\"", "n": 1,}`, comments: true,
			want: map[string]any{"q": `say "//hi"`, "n": 1.0}},
		{name: "byte order mark", in: "\ufeff{\"a\": 1}", comments: true, want: map[string]any{"a": 1.0}},
		{name: "byte order mark in plain JSON", in: "\ufeff{\"a\": 1}", want: map[string]any{"a": 1.0}},
		{name: "an empty file is an empty object, as the editor reads it", in: " \n// nothing yet\n", comments: true,
			want: map[string]any{}},
		{name: "a syntax error names its line", in: "{\n  // fine\n  \"a\": 1\n  \"b\": 2\n}", comments: true, errLine: 4,
			errHas: "expected ','"},
		{name: "unterminated comment", in: "{\"a\": 1 /* open", comments: true, errLine: 1, errHas: "unterminated"},
		{name: "a lone comma is still an error", in: "{,}", comments: true, errLine: 1},
		{name: "a comma after a comment after a brace is still an error", in: "[ /* c */ , 1]", comments: true, errLine: 1},
		{name: "a value, a comment, then a trailing comma", in: "{\"a\": [1 /* c */ , ]}", comments: true,
			want: map[string]any{"a": []any{1.0}}},
		{name: "comments in plain JSON", in: "{\n// no\n\"a\": 1}", errLine: 2},
		{name: "a trailing comma in plain JSON", in: "{\"a\": 1,\n}", errLine: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got map[string]any
			err := JSON{Comments: tt.comments}.Decode([]byte(tt.in), &got)
			if tt.errLine != 0 {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("Decode error = %v, want a *SyntaxError", err)
				}
				if se.Line != tt.errLine || !strings.Contains(se.Msg, tt.errHas) {
					t.Errorf("error %v, want line %d holding %q", se, tt.errLine, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDecodeTypeError names the line of a value of the wrong type for
// the destination, counted in the file as written.
func TestDecodeTypeError(t *testing.T) {
	var v map[string][]string
	err := JSON{Comments: true}.Decode([]byte("{\n /* a\n comment */\n \"a\": [\"x\", 1]}"), &v)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 4 || !strings.Contains(se.Msg, "cannot unmarshal number") {
		t.Errorf("Decode error = %v, want a *SyntaxError on line 4", err)
	}
}

// TestDecodeReadsWhatTheEditorReads checks that a settings file means the
// same to the reader as to the editor: a document Decode refuses, Get
// refuses too, and one it reads, Get reads to the same value.
func TestDecodeReadsWhatTheEditorReads(t *testing.T) {
	docs := []string{
		"", "{}", "{\"a\": 1, /* c */ }", "{\"a\": [1,, 2]}", "{\"a\": 1} // end", "{\"a\": \"x\ny\"}",
		"{\"a\": 01}", "{\"a\": {\"b\": [true, null, \"s\",],},}", "{\"a\": 1 /* open", "{\"k\": \"//\", \"k\": 2}",
		"\ufeff{\"a\": -1.5e3}",
	}
	for _, comments := range []bool{true, false} {
		j := JSON{Comments: comments}
		for _, doc := range docs {
			var read map[string]any
			rerr := j.Decode([]byte(doc), &read)
			edited, _, gerr := j.Get([]byte(doc), nil)
			if doc == "" && !comments {
				continue // plain JSON: the editor writes into an empty file, encoding/json reads none
			}
			if (rerr == nil) != (gerr == nil) {
				t.Errorf("comments %v, %q: Decode error %v, editor error %v", comments, doc, rerr, gerr)
				continue
			}
			if rerr == nil && !reflect.DeepEqual(normal(edited), normal(read)) {
				t.Errorf("comments %v, %q: Decode read %v, the editor %v", comments, doc, read, edited)
			}
		}
	}
}

// normal makes the numbers of a decoded value float64, as encoding/json
// decodes them into any.
func normal(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = normal(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normal(x)
		}
		return out
	case interface{ Float64() (float64, error) }:
		f, _ := v.Float64()
		return f
	}
	return v
}
