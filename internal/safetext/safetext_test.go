package safetext

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	tests := []struct {
		in, want string
		found    []rune
	}{
		{"plain-name", "plain-name", nil},
		{"héllo wörld ✓", "héllo wörld ✓", nil},
		{"evil\x1b]0;pwned\x07\x1b[2Jx", "evil\uFFFD]0;pwned\uFFFD\uFFFD[2Jx", []rune{0x1b, 0x07}},
		{"a\bb\rc\x7fd", "a\uFFFDb\uFFFDc\uFFFDd", []rune{0x08, '\r', 0x7f}},
		{"tab\there\nnewline", "tab\uFFFDhere\uFFFDnewline", []rune{'\t', '\n'}},
		{"c1\u0085\u009b2J", "c1\uFFFD\uFFFD2J", []rune{0x85, 0x9b}},
		{"bidi \u202eevil\u202c \u2066x\u2069", "bidi \uFFFDevil\uFFFD \uFFFDx\uFFFD", []rune{0x202e, 0x202c, 0x2066, 0x2069}},
		{"bad \xff\xfe utf8", "bad \uFFFD\uFFFD utf8", []rune{utf8.RuneError}},
		{"nul\x00", "nul\uFFFD", []rune{0}},
		// U+FFFD itself, U+200B (zero-width) and U+2028 are not controls.
		{"\uFFFD\u200b\u2028", "\uFFFD\u200b\u2028", nil},
	}
	for _, tt := range tests {
		got, found := Clean(tt.in)
		if got != tt.want || !slices.Equal(found, tt.found) {
			t.Errorf("Clean(%q) = %q, %U; want %q, %U", tt.in, got, found, tt.want, tt.found)
		}
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		found []rune
		want  string
	}{
		{nil, ""},
		{[]rune{0x1b}, "U+001B"},
		{[]rune{0x1b, 0x7}, "U+001B and U+0007"},
		{[]rune{0x1b, 0x202e, utf8.RuneError}, "U+001B, U+202E and a byte that is not UTF-8"},
	}
	for _, tt := range tests {
		if got := Describe(tt.found); got != tt.want {
			t.Errorf("Describe(%U) = %q, want %q", tt.found, got, tt.want)
		}
	}
}

// unsafeBytes reports the first byte sequence a terminal would act on.
func unsafeBytes(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || Control(r) && r != '\n' && r != '\t' {
			return s[i:min(len(s), i+size)]
		}
		i += size
	}
	return ""
}

func TestWriterEscapes(t *testing.T) {
	tests := []struct {
		name  string
		color bool
		in    string
		want  string
	}{
		{"plain text passes", false, "list:\n\tpdf — ✓ done\n", "list:\n\tpdf — ✓ done\n"},
		{"title and clear", false, "evil\x1b]0;pwned\x07\x1b[2Jx", `evil\u001b]0;pwned\u0007\u001b[2Jx`},
		{"CR, backspace, DEL", false, "a\rb\bc\x7f", `a\u000db\u0008c\u007f`},
		{"C1 and bidi", false, "x\u009b2J\u202ey", `x\u009b2J\u202ey`},
		{"invalid UTF-8", false, "a\xffb\xc3", `a\xffb\xc3`},
		{"colour off escapes SGR", false, "\x1b[1mbold\x1b[0m", `\u001b[1mbold\u001b[0m`},
		{"colour on passes ccski's SGR", true, "\x1b[1;4mh\x1b[0m \x1b[2md\x1b[0m \x1b[1;31me\x1b[0m \x1b[36mc\x1b[m",
			"\x1b[1;4mh\x1b[0m \x1b[2md\x1b[0m \x1b[1;31me\x1b[0m \x1b[36mc\x1b[m"},
		{"colour on escapes concealed text", true, "\x1b[8mhidden\x1b[0m", "\\u001b[8mhidden\x1b[0m"},
		{"colour on escapes black text", true, "\x1b[30mhidden", "\\u001b[30mhidden"},
		{"colour on escapes a background", true, "\x1b[1;40mx", "\\u001b[1;40mx"},
		{"colour on escapes cursor moves", true, "\x1b[2J\x1b[H\x1b]0;t\x07", `\u001b[2J\u001b[H\u001b]0;t\u0007`},
		{"colour on escapes a long parameter run", true, "\x1b[" + strings.Repeat("1;", 20) + "m",
			`\u001b[` + strings.Repeat("1;", 20) + "m"},
		{"colour on escapes a lone ESC at the end", true, "x\x1b", `x\u001b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			w := NewWriter(&b)
			w.SetColor(tt.color)
			n, err := w.Write([]byte(tt.in))
			if err != nil || n != len(tt.in) {
				t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(tt.in))
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("wrote %q, want %q", b.String(), tt.want)
			}
		})
	}
}

// TestWriterSplitWrites: a character or colour sequence split across
// writes (a small bufio.Writer) comes out as one write of it would.
func TestWriterSplitWrites(t *testing.T) {
	in := strings.Repeat("héllo ✓ \x1b[1;31merr\x1b[0m \x1b]0;x\x07 \u202e\u0085 𝄞\n", 40)
	for _, color := range []bool{false, true} {
		var whole bytes.Buffer
		w := NewWriter(&whole)
		w.SetColor(color)
		w.Write([]byte(in))
		w.Flush()
		for size := 16; size <= 64; size += 7 {
			var got bytes.Buffer
			sw := NewWriter(&got)
			sw.SetColor(color)
			bw := bufio.NewWriterSize(sw, size)
			for i := 0; i < len(in); i += 3 {
				bw.WriteString(in[i:min(len(in), i+3)])
			}
			bw.Flush()
			sw.Flush()
			if got.String() != whole.String() {
				t.Errorf("colour %v, %d-byte buffer: split writes give\n%q\nwant\n%q", color, size, got.String(), whole.String())
			}
			if bad := unsafeBytes(strings.NewReplacer("\x1b[1;31m", "", "\x1b[0m", "").Replace(got.String())); bad != "" {
				t.Errorf("colour on lets %q through", bad)
			}
		}
	}
}

// TestWriterKeepsJSON: JSON with every kind of unsafe character inside its
// strings is still valid JSON with the same value once escaped.
func TestWriterKeepsJSON(t *testing.T) {
	v := map[string]string{"name": "evil\x1b]0;x\x07", "desc": "del\x7f c1\u0085\u009b bidi\u202e\u2066 ok ✓"}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Write(raw)
	if bad := unsafeBytes(b.String()); bad != "" {
		t.Errorf("escaped JSON still holds %q: %s", bad, b.String())
	}
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("escaped JSON does not parse: %v\n%s", err, b.String())
	}
	if back["name"] != v["name"] || back["desc"] != v["desc"] {
		t.Errorf("escaped JSON reads back as %q, want %q", back, v)
	}
}

// FuzzWriter: whatever is written, in whatever pieces, nothing a terminal
// acts on comes out (colour off), and the escaped text does not depend on
// how it was split.
func FuzzWriter(f *testing.F) {
	f.Add([]byte("evil\x1b]0;pwned\x07\x1b[2Jx"), uint8(3))
	f.Add([]byte("\xe2\x80\xae bidi \xc2\x9b c1 \xff"), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		var whole bytes.Buffer
		w := NewWriter(&whole)
		w.Write(in)
		w.Flush()
		if bad := unsafeBytes(whole.String()); bad != "" {
			t.Fatalf("%q came out with %q raw: %q", in, bad, whole.String())
		}
		var split bytes.Buffer
		sw := NewWriter(&split)
		n := int(step%16) + 1
		for i := 0; i < len(in); i += n {
			sw.Write(in[i:min(len(in), i+n)])
		}
		sw.Flush()
		if split.String() != whole.String() {
			t.Fatalf("%q in %d-byte pieces gives %q, whole %q", in, n, split.String(), whole.String())
		}
	})
}
