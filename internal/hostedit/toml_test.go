package hostedit

import (
	"errors"
	"strings"
	"testing"
)

// A config.toml as people keep it: comments everywhere, odd spacing, a
// multi-line string that looks like a table header, dotted keys and a
// date.
const codexConfig = `# Codex config
model = "gpt-5"   # the default
approval_policy="on-request"
notes = """
[[skills.config]]
not a table
"""
released = 1979-05-27 07:32:00Z

[features]
plugins = true

# Turned off last week.
[[skills.config]]
path = "/home/u/.codex/skills/old/SKILL.md"   # by path
enabled = false

[plugins."docs@market"]
  enabled = true # indented
  mcp_servers = { a = { command = "x" } }

[mcp_servers.files]
command = "npx"
args = [
  "-y", # flag
  "server",
]
`

func TestTOMLAppendAndRemove(t *testing.T) {
	files := []string{codexConfig, "", "model = \"o3\"", "model = \"o3\"\n", "a = 1\r\nb = 2\r\n",
		"a = 1", "a = 1\n\n", "a = 1\r\n\r\n", "a = 1\r\n\r\n\r\n", "# only a comment", "[t]\nx = 1\n\n# tail\n",
		"s = \"\"\"\r\nx\r\n\"\"\"\nb = 2\n"}
	entry := []KV{{"name", "pdf"}, {"enabled", false}}
	for _, f := range files {
		tm := TOML{}
		on, err := tm.AppendToArray([]byte(f), []string{"skills", "config"}, entry)
		if err != nil {
			t.Fatalf("%q: %v", f, err)
		}
		if !strings.HasPrefix(string(on), strings.TrimRight(f, "\n")) {
			t.Errorf("append changed the existing text:\n%s", on)
		}
		entries, err := tm.ArrayEntries(on, []string{"skills", "config"})
		if err != nil {
			t.Fatal(err)
		}
		last := entries[len(entries)-1]
		if last["name"] != "pdf" || last["enabled"] != false {
			t.Fatalf("appended entry reads back as %v", last)
		}
		back, err := tm.RemoveFromArray(on, []string{"skills", "config"}, len(entries)-1)
		if err != nil {
			t.Fatal(err)
		}
		if want := f; string(back) != want {
			t.Errorf("round trip of %q gave %q (appended: %q)", f, back, on)
		}
	}
	// The appended table in full: after a blank line, in the file's line
	// endings (those outside multi-line strings), ending as the file did.
	appended := []struct{ in, want string }{
		{"model = \"o3\"\n", "model = \"o3\"\n\n[[skills.config]]\nname = \"pdf\"\nenabled = false\n"},
		{"model = \"o3\"", "model = \"o3\"\n\n[[skills.config]]\nname = \"pdf\"\nenabled = false"},
		{"a = 1\r\n", "a = 1\r\n\r\n[[skills.config]]\r\nname = \"pdf\"\r\nenabled = false\r\n"},
		{"s = \"\"\"\r\nx\r\n\"\"\"\n", "s = \"\"\"\r\nx\r\n\"\"\"\n\n[[skills.config]]\nname = \"pdf\"\nenabled = false\n"},
	}
	for _, tt := range appended {
		on, err := TOML{}.AppendToArray([]byte(tt.in), []string{"skills", "config"}, entry)
		if err != nil || string(on) != tt.want {
			t.Errorf("append to %q: got %q (%v), want %q", tt.in, on, err, tt.want)
		}
	}
}

func TestTOMLSetInArray(t *testing.T) {
	tm := TOML{}
	got, err := tm.SetInArray([]byte(codexConfig), []string{"skills", "config"}, 0, "enabled", true)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(codexConfig, "# by path\nenabled = false", "# by path\nenabled = true", 1)
	if string(got) != want {
		t.Errorf("got\n%s", got)
	}
	// A key the table lacks goes after its last key.
	got, err = tm.SetInArray([]byte(codexConfig), []string{"skills", "config"}, 0, "name", "old")
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(codexConfig, "enabled = false\n", "enabled = false\nname = \"old\"\n", 1)
	if string(got) != want {
		t.Errorf("got\n%s", got)
	}
	// Removing the user's own table keeps the comment above it.
	got, err = tm.RemoveFromArray([]byte(codexConfig), []string{"skills", "config"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(codexConfig, "[[skills.config]]\npath = \"/home/u/.codex/skills/old/SKILL.md\"   # by path\nenabled = false\n", "", 1)
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTOMLSetInTable(t *testing.T) {
	tm := TOML{}
	key := []string{"plugins", "docs@market"}
	got, err := tm.SetInTable([]byte(codexConfig), key, "enabled", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(codexConfig, "  enabled = true # indented", "  enabled = false # indented", 1); string(got) != want {
		t.Errorf("got\n%s", got)
	}
	// A new table at the end.
	got, err = tm.SetInTable([]byte(codexConfig), []string{"plugins", "new@m"}, "enabled", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := codexConfig + "\n[plugins.\"new@m\"]\nenabled = false\n"; string(got) != want {
		t.Errorf("got\n%s", got)
	}
	// A key added in the table's indent.
	in := "[plugins.\"a@m\"]\n  mcp_servers = {}\n\n[other]\nx = 1\n"
	got, err = tm.SetInTable([]byte(in), []string{"plugins", "a@m"}, "enabled", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[plugins.\"a@m\"]\n  mcp_servers = {}\n  enabled = true\n\n[other]\nx = 1\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTOMLErrors(t *testing.T) {
	tm := TOML{}
	_, err := tm.SetInTable([]byte("a = 1\nb = = 2\n"), []string{"plugins", "x@y"}, "enabled", true)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 {
		t.Fatalf("got %v, want a syntax error on line 2", err)
	}
	// An inline array of tables cannot take a [[table]] more.
	inline := "[skills]\nconfig = [{ name = \"a\", enabled = false }]\n"
	_, err = tm.AppendToArray([]byte(inline), []string{"skills", "config"}, []KV{{"name", "b"}})
	var ee *EditError
	if !errors.As(err, &ee) {
		t.Fatalf("append to an inline array: got %v, want an EditError", err)
	}
	_, err = tm.SetInArray([]byte(inline), []string{"skills", "config"}, 0, "enabled", true)
	if !errors.As(err, &ee) {
		t.Fatalf("set in an inline array: got %v, want an EditError", err)
	}
	// The plugin's table written as an inline table cannot take a key.
	inlineTable := "[plugins]\n\"x@y\" = { other = 1 }\n"
	_, err = tm.SetInTable([]byte(inlineTable), []string{"plugins", "x@y"}, "enabled", false)
	if !errors.As(err, &ee) {
		t.Fatalf("inline table: got %v, want an EditError", err)
	}
	// A file that defines a table twice (which BurntSushi/toml accepts,
	// and Codex does not) is refused with the line of the second one.
	twice := "[plugins]\n\"x@y\".other = 1\n[plugins.\"x@y\"]\nenabled = true\n"
	_, err = tm.SetInTable([]byte(twice), []string{"plugins", "x@y"}, "enabled", false)
	if !errors.As(err, &se) || se.Line != 3 {
		t.Fatalf("a table defined twice: got %v, want a syntax error on line 3", err)
	}
}

// TestTOMLSetInTableDotted: a table defined with dotted keys gets its key
// as one more dotted key, never a [table] header that would define it a
// second time; the output passes the strict check.
func TestTOMLSetInTableDotted(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"dotted in the parent table", "[plugins]\n\"p@m\".other = 1\n",
			"[plugins]\n\"p@m\".other = 1\n\"p@m\".enabled = false\n"},
		{"dotted at the top", "plugins.\"p@m\".other = 1\n\n[x]\ny = 2\n",
			"plugins.\"p@m\".other = 1\nplugins.\"p@m\".enabled = false\n\n[x]\ny = 2\n"},
		{"value changed in place", "[plugins]\n  \"p@m\".enabled = true # mine\n  \"p@m\".x = 1\n",
			"[plugins]\n  \"p@m\".enabled = false # mine\n  \"p@m\".x = 1\n"},
		{"indent kept, no final newline", "[plugins]\n  \"p@m\".other = 1",
			"[plugins]\n  \"p@m\".other = 1\n  \"p@m\".enabled = false"},
		{"CRLF", "[plugins]\r\n\"p@m\".other = 1\r\n",
			"[plugins]\r\n\"p@m\".other = 1\r\n\"p@m\".enabled = false\r\n"},
		{"a sub-table only: a header is fine", "[plugins.\"p@m\".sub]\nx = 1\n",
			"[plugins.\"p@m\".sub]\nx = 1\n\n[plugins.\"p@m\"]\nenabled = false\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TOML{}.SetInTable([]byte(tt.in), []string{"plugins", "p@m"}, "enabled", false)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			d, err := scanTOML(got)
			if err != nil {
				t.Fatal(err)
			}
			if err := strictTOML(d); err != nil {
				t.Errorf("the output is not strict TOML: %v", err)
			}
		})
	}
}

// TestTOMLSetInTableCRLF: a CRLF file gets CRLF lines, without a stray
// carriage return, whether the table exists or is new; a LF file with a
// CRLF inside a multi-line string stays LF.
func TestTOMLSetInTableCRLF(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"new table", "a = 1\r\n", "a = 1\r\n\r\n[plugins.\"p@m\"]\r\nenabled = false\r\n"},
		{"existing table", "[plugins.\"p@m\"]\r\nx = 1\r\n\r\n[y]\r\n",
			"[plugins.\"p@m\"]\r\nx = 1\r\nenabled = false\r\n\r\n[y]\r\n"},
		{"existing empty table at the end", "[plugins.\"p@m\"]\r\n", "[plugins.\"p@m\"]\r\nenabled = false\r\n"},
		{"LF file, CRLF in a string", "s = '''\r\nx'''\n", "s = '''\r\nx'''\n\n[plugins.\"p@m\"]\nenabled = false\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TOML{}.SetInTable([]byte(tt.in), []string{"plugins", "p@m"}, "enabled", false)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestStrictTOML checks the "defined twice" rule against cases whose
// verdict Python's tomllib gives (BurntSushi/toml accepts all of them).
func TestStrictTOML(t *testing.T) {
	tests := []struct {
		in   string
		line int // 0: valid
	}{
		{"[plugins]\n\"p@m\".other = 1\n[plugins.\"p@m\"]\nenabled = false\n", 3},
		{"plugins.\"p@m\".other = 1\n[plugins.\"p@m\"]\nenabled = false\n", 2},
		{"[fruit]\napple.color = 1\n[fruit.apple.texture]\nx = 1\n", 0},
		{"skills.x = 1\n[[skills.config]]\nname = \"a\"\n", 0},
		{"a.b.c = 1\n[a]\nd = 1\n", 2},
		{"[a.b.c]\nx = 1\n[a]\nb.y = 1\n", 0},
		{"[a.b.c]\nx = 1\n[a]\nb.c.z = 1\n", 4},
		{"[a.b]\nx = 1\n[a]\ny = 1\n", 0},
		{"a.b = 1\n[x]\n[a]\nc = 1\n", 3},
		{"[p]\n\"q\".o = 1\n\"q\".e = false\n", 0},
		{"[[s.c]]\nn = 1\n[s.c.sub]\nx = 1\n", 0},
		{"[[s.c]]\nn = 1\ns.c.x = 1\n", 0},
		{"a.b.c = 1\n[a.b.d]\nx = 1\n", 0},
		{"a.b.c = 1\n[a.b]\n", 2},
		{"[a.b.c]\n[a.b.d]\n[a.b]\n", 0},
	}
	for _, tt := range tests {
		if _, err := decodeTOML([]byte(tt.in)); err != nil {
			t.Fatalf("%q: BurntSushi refuses it: %v", tt.in, err)
		}
		d, err := scanTOML([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		err = strictTOML(d)
		var se *SyntaxError
		switch {
		case tt.line == 0 && err != nil:
			t.Errorf("%q: %v, want no error", tt.in, err)
		case tt.line != 0 && (!errors.As(err, &se) || se.Line != tt.line):
			t.Errorf("%q: %v, want an error on line %d", tt.in, err, tt.line)
		}
	}
}
