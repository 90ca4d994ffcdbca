package skillmd

import (
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// quickCases are frontmatters near the edge of what quick accepts.
var quickCases = []string{
	"name: pdf\ndescription: Read PDFs.\n",
	"name: pdf\r\ndescription: Read PDFs.\r\n",
	"name: \"pdf\"\ndescription: 'Read: PDFs.'\n",
	"name: pdf\ndescription: x\nallowed-tools: Bash(git:*) Read\nlicense: MIT\n",
	"name: pdf\ndescription: \"Use when: x\"\n",
	"name: pdf\ndescription: Use when: x\n",
	"name: pdf\ndescription: a # comment\n",
	"name: pdf\ndescription: a#b\n",
	"name: pdf\ndescription: \"esc \\\" aped\"\n",
	"name: pdf\ndescription: 'it''s'\n",
	"name: 123\ndescription: x\n",
	"name: 1e3\ndescription: x\n",
	"name: pdf\ndescription: true\n",
	"name: pdf\ndescription: Yes\n",
	"name: pdf\ndescription: ~\n",
	"name: pdf\ndescription: null\n",
	"name: pdf\ndescription: .inf\n",
	"name: pdf\ndescription: -x\n",
	"name: pdf\ndescription: - x\n",
	"name: pdf\ndescription: [a, b]\n",
	"name: pdf\ndescription: {a: b}\n",
	"name: pdf\ndescription: &a x\n",
	"name: pdf\ndescription: *a\n",
	"name: pdf\ndescription: !!str 5\n",
	"name: pdf\ndescription: >-\n  folded\n",
	"name: pdf\ndescription: x\nname: other\n",
	"name: pdf\ndescription: x\nmetadata:\n  a: b\n",
	"name: pdf\ndescription: x\n# comment\n",
	"name: pdf\ndescription: x \n",
	"name: pdf\ndescription:\tx\n",
	"name: pdf\ndescription: x\tx\n",
	"name: pdf\ndescription:  two spaces\n",
	"name: pdf\ndescription: 文档 and データ\n",
	"name: pdf\ndescription: ends with colon:\n",
	"name: pdf\ndescription: a:b c\n",
	"name: pdf\ndescription: x\nversion: 1.0\n",
	"name: pdf\ndescription: \"\"\n",
	"name: pdf\ndescription: ''\n",
	"name: pdf\ndescription: \"unclosed\n",
	"name: pdf\ndescription: @mention\n",
	"name: pdf\ndescription: `tick`\n",
	"name: pdf\ndescription: %pct\n",
	"name: pdf\ndescription: x\n...\n",
	"name: pdf\ndescription: x\n---\n",
	" name: pdf\ndescription: x\n",
	"name : pdf\ndescription: x\n",
	"\"name\": pdf\ndescription: x\n",
	"name: pdf\ndescription: x\nk1: a\nk2: a\nk3: a\nk4: a\nk5: a\nk6: a\nk7: a\n",
}

// agree checks that when quick answers, it answers like the YAML parser.
func agree(t *testing.T, raw string) {
	t.Helper()
	if !utf8.ValidString(raw) {
		return // Decode rejects invalid UTF-8 before it calls quick
	}
	h := &Head{Raw: []byte(raw), StartLine: 2}
	f, ok := quick(h.Raw)
	if !ok {
		return
	}
	wantF, wantP := decodeYAML(h)
	if d := cmp.Diff(wantF, f); d != "" {
		t.Errorf("quick disagrees with YAML on %q (-yaml +quick):\n%s", raw, d)
	}
	if d := cmp.Diff(wantP, checkFields(f, h.StartLine, nil)); d != "" {
		t.Errorf("quick's problems differ from YAML's on %q (-yaml +quick):\n%s", raw, d)
	}
}

func TestQuickAgreesWithYAML(t *testing.T) {
	for _, raw := range quickCases {
		agree(t, raw)
	}
	// The fast path must actually take the common cases.
	for _, raw := range quickCases[:4] {
		if _, ok := quick([]byte(raw)); !ok {
			t.Errorf("quick declined the common frontmatter %q", raw)
		}
	}
	// And decline what it cannot be sure of.
	for _, raw := range []string{quickCases[5], quickCases[8], quickCases[10], quickCases[12], quickCases[24], quickCases[25]} {
		if _, ok := quick([]byte(raw)); ok {
			t.Errorf("quick accepted %q, which needs the YAML parser", raw)
		}
	}
}

// FuzzQuick compares quick with the YAML parser on arbitrary input. The
// seed corpus runs with the ordinary tests; `go test -fuzz FuzzQuick`
// explores further.
func FuzzQuick(f *testing.F) {
	for _, c := range quickCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, raw string) { agree(t, raw) })
}

func TestFoldSpaceFastPath(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "",
		"a b":                    "a b",
		" a":                     "a",
		"a ":                     "a",
		"a  b":                   "a b",
		"a\tb":                   "a b",
		"a\nb\r\nc":              "a b c",
		"文档 and データ":             "文档 and データ",
		"文档\u3000データ":            "文档 データ",
		"x\u00a0y":               "x y",
		"  lots   of\n\n space ": "lots of space",
	} {
		if got := FoldSpace(in); got != want {
			t.Errorf("FoldSpace(%q) = %q, want %q", in, got, want)
		}
	}
}
