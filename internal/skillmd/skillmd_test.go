package skillmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// headSummary is the part of a Head a golden file records. Raw and Body are
// Go-quoted so that CR, tabs and invalid UTF-8 survive the JSON round trip
// byte for byte.
type headSummary struct {
	Raw          string `json:"raw"`
	StartLine    int    `json:"startLine"`
	BodyOffset   int    `json:"bodyOffset"`
	BOM          bool   `json:"bom"`
	CRLF         bool   `json:"crlf"`
	LeadingBlank int    `json:"leadingBlank"`
	// Body is the file from BodyOffset on; it proves BodyOffset is right.
	Body string `json:"body"`
}

// golden is what one testdata/<case>.golden.json holds.
type golden struct {
	// Error is the ReadHead error, if any; Decode is not run then.
	Error    string       `json:"error,omitempty"`
	Head     *headSummary `json:"head,omitempty"`
	Front    *Front       `json:"front,omitempty"`
	Problems []Problem    `json:"problems"`
}

func summarize(t *testing.T, content []byte) golden {
	t.Helper()
	h, err := ReadHead(bytes.NewReader(content))
	if err != nil {
		if h != nil {
			t.Errorf("ReadHead returned a Head together with error %v", err)
		}
		return golden{Error: err.Error(), Problems: []Problem{}}
	}
	if h.BodyOffset < 0 || h.BodyOffset > len(content) {
		t.Fatalf("BodyOffset %d outside the file (%d bytes)", h.BodyOffset, len(content))
	}
	f, probs := Decode(h)
	if probs == nil {
		probs = []Problem{}
	}
	return golden{
		Head: &headSummary{
			Raw: strconv.Quote(string(h.Raw)), StartLine: h.StartLine, BodyOffset: h.BodyOffset,
			BOM: h.BOM, CRLF: h.CRLF, LeadingBlank: h.LeadingBlank,
			Body: strconv.Quote(string(content[h.BodyOffset:])),
		},
		Front:    &f,
		Problems: probs,
	}
}

// TestGolden runs ReadHead and Decode over every testdata/*.md file and
// compares the result with testdata/<case>.golden.json. Run with -update to
// rewrite the golden files, then review the diff.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("found only %d testdata cases", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".md")
		t.Run(name, func(t *testing.T) {
			content, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := summarize(t, content)
			gotJSON, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			gotJSON = append(gotJSON, '\n')
			goldenFile := strings.TrimSuffix(file, ".md") + ".golden.json"
			if *update {
				if err := os.WriteFile(goldenFile, gotJSON, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantJSON, err := os.ReadFile(goldenFile)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			var want golden
			if err := json.Unmarshal(wantJSON, &want); err != nil {
				t.Fatalf("%s: %v", goldenFile, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", goldenFile, diff)
			}
		})
	}
}

// TestGoldenExpectations pins the facts the golden files must show, so that
// a careless -update cannot bless a regression in the cases that matter.
func TestGoldenExpectations(t *testing.T) {
	type want struct {
		err   error  // ReadHead error
		name  string // Front.Name
		desc  string // Front.Description
		codes []string
		lines []int // Problem.Line, one per code
		fatal bool  // any problem fatal
	}
	tests := map[string]want{
		"minimal-valid":                  {name: "pdf", desc: "Extract text and tables from PDF files."},
		"crlf":                           {name: "pdf", desc: "Read PDFs."},
		"crlf-colon-in-description":      {name: "pdf", desc: "Use when: the user has a PDF", codes: []string{"unquoted-colon"}, lines: []int{4}},
		"bom":                            {name: "pdf", desc: "Read PDFs."},
		"leading-blank-line":             {name: "pdf", desc: "Read PDFs."},
		"trailing-spaces-on-delimiters":  {name: "pdf", desc: "Read PDFs."},
		"no-frontmatter":                 {err: ErrNoFrontmatter},
		"indented-delimiter":             {err: ErrNoFrontmatter},
		"empty-file":                     {err: ErrNoFrontmatter},
		"unterminated":                   {err: ErrUnterminated},
		"delimiter-only":                 {err: ErrUnterminated},
		"empty-block":                    {codes: []string{"empty-frontmatter"}, lines: []int{2}, fatal: true},
		"whitespace-block":               {codes: []string{"empty-frontmatter"}, lines: []int{2}, fatal: true},
		"dashes-in-value-and-body":       {name: "pdf", desc: "before --- after"},
		"closing-at-eof-without-newline": {name: "pdf", desc: "Read PDFs."},
		"colon-in-description":           {name: "pdf", desc: "Use when: the user has a PDF", codes: []string{"unquoted-colon"}, lines: []int{3}},
		"colon-after-leading-blank":      {name: "pdf", desc: "Use when: the user has a PDF and wants tables", codes: []string{"unquoted-colon"}, lines: []int{6}},
		"colon-with-block-scalar":        {name: "pdf: tools", desc: "Extract text from PDFs.", codes: []string{"unquoted-colon"}, lines: []int{2}},
		"invalid-yaml-unrecoverable":     {codes: []string{"yaml-syntax"}, lines: []int{2}, fatal: true},
		"broken-flow-not-recovered":      {codes: []string{"yaml-syntax"}, lines: []int{2}, fatal: true},
		"unclosed-quote-not-recovered":   {codes: []string{"yaml-syntax"}, lines: []int{3}, fatal: true},
		"reserved-character":             {name: "pdf", desc: "`pdf` helper", codes: []string{"yaml-syntax"}, lines: []int{3}},
		"list-document":                  {codes: []string{"not-a-mapping"}, lines: []int{2}, fatal: true},
		"scalar-document":                {codes: []string{"not-a-mapping"}, lines: []int{2}, fatal: true},
		"comment-only":                   {codes: []string{"not-a-mapping"}, lines: []int{2}, fatal: true},
		"typed-scalars":                  {name: "123", desc: "true", codes: []string{"typed-scalar", "typed-scalar"}, lines: []int{2, 3}},
		"quoted-typed-scalars":           {name: "123", desc: "true"},
		"name-missing":                   {desc: "Read PDFs.", codes: []string{"name-missing"}, lines: []int{2}},
		"name-null":                      {desc: "Read PDFs.", codes: []string{"name-empty"}, lines: []int{2}},
		"description-missing":            {name: "pdf", codes: []string{"description-missing"}, lines: []int{2}, fatal: true},
		"description-empty":              {name: "pdf", codes: []string{"description-empty"}, lines: []int{2}, fatal: true},
		"description-whitespace":         {name: "pdf", desc: "   ", codes: []string{"description-empty"}, lines: []int{2}, fatal: true},
		"description-list":               {name: "pdf", codes: []string{"wrong-type"}, lines: []int{3}, fatal: true},
		"name-mapping":                   {desc: "Read PDFs.", codes: []string{"wrong-type"}, lines: []int{2}, fatal: true},
		"block-scalar-folded":            {name: "pdf", desc: "Extract text and tables from PDF files.\nUse when: a PDF is attached."},
		"block-scalar-literal":           {name: "pdf", desc: "Line one: with colon\nLine two\n"},
		"anchors-aliases":                {name: "pdf", desc: "Read PDFs."},
		"tab-indentation":                {codes: []string{"yaml-tab-indent"}, lines: []int{3}, fatal: true},
		"tab-after-colon":                {name: "pdf", desc: "Read PDFs."},
		"invalid-utf8":                   {codes: []string{"invalid-utf8"}, lines: []int{2}, fatal: true},
		"duplicate-keys":                 {name: "second", desc: "Read PDFs."},
		"other-keys":                     {name: "pdf", desc: "Read PDFs."},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	if len(files) != len(tests) {
		t.Errorf("%d testdata cases but %d expectations: keep them in step", len(files), len(tests))
	}
	for name, w := range tests {
		t.Run(name, func(t *testing.T) {
			content, err := os.ReadFile(filepath.Join("testdata", name+".md"))
			if err != nil {
				t.Fatal(err)
			}
			h, err := ReadHead(bytes.NewReader(content))
			if !errors.Is(err, w.err) {
				t.Fatalf("ReadHead error = %v, want %v", err, w.err)
			}
			if err != nil {
				return
			}
			f, probs := Decode(h)
			var codes []string
			var lines []int
			fatal := false
			for _, p := range probs {
				codes, lines = append(codes, p.Code), append(lines, p.Line)
				fatal = fatal || p.Fatal
				if p.Message == "" {
					t.Errorf("problem %s has no message", p.Code)
				}
			}
			if !fatal && (f.Name != w.name || f.Description != w.desc) {
				t.Errorf("front = %q / %q, want %q / %q", f.Name, f.Description, w.name, w.desc)
			}
			if diff := cmp.Diff(w.codes, codes); diff != "" {
				t.Errorf("problem codes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(w.lines, lines); diff != "" {
				t.Errorf("problem lines (-want +got):\n%s", diff)
			}
			if fatal != w.fatal {
				t.Errorf("fatal = %v, want %v", fatal, w.fatal)
			}
		})
	}
}

// TestHints checks that the fix-it hint appended to a YAML error matches
// the actual cause.
func TestHints(t *testing.T) {
	tests := []struct {
		name, content, want, notWant string
	}{
		{"colon", "---\nname: a\ndescription: Use when: x\n---\n", `quote values that contain ": "`, "tabs"},
		{"tab-violates-indentation", "---\nname: a\n\tdescription: x\n---\n", "indent with spaces, not tabs", "quote"},
		{"tab-cannot-start-token", "---\n\tname: a\ndescription: x\n---\n", "indent with spaces, not tabs", "quote"},
		{"backtick", "---\nname: a\ndescription: `a` tool\n---\n", "quote values that start with @ or `", "tabs"},
		{"at-sign", "---\nname: a\ndescription: @mention\n---\n", "quote values that start with @ or `", "tabs"},
		{"tab-in-value-only", "---\nname:\ta\ndescription: @x\n---\n", "quote values that start with @ or `", "tabs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ReadHead(strings.NewReader(tc.content))
			if err != nil {
				t.Fatal(err)
			}
			_, probs := Decode(h)
			if len(probs) == 0 {
				t.Fatal("no problems")
			}
			msg := probs[0].Message
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.notWant) {
				t.Errorf("message %q: want it to contain %q and not %q", msg, tc.want, tc.notWant)
			}
		})
	}
}

var errTrap = errors.New("trap: read past the end of the frontmatter")

// trapReader serves data up to limit and fails any read beyond it.
type trapReader struct {
	data    []byte
	off     int
	limit   int
	tripped bool
}

func (r *trapReader) Read(p []byte) (int, error) {
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	if r.off >= r.limit {
		r.tripped = true
		return 0, errTrap
	}
	n := copy(p, r.data[r.off:min(len(r.data), r.limit)])
	r.off += n
	return n, nil
}

// TestReadHeadStopsAtClosingDelimiter proves the body is never read: the
// body is 16 KiB and the reader fails on any read 8.5 KiB past the closing
// delimiter, which leaves room for bufio's 4 KiB read-ahead.
func TestReadHeadStopsAtClosingDelimiter(t *testing.T) {
	body := "# Body\n---\nname: evil\ndescription: from the body\n---\n" +
		strings.Repeat("body line that must not be read\n", 512) // 16 KiB
	long := strings.Repeat("x", 6000)
	tests := []struct {
		name, front, desc string
	}{
		{"lf", "---\nname: pdf\ndescription: Read PDFs.\n---\n", "Read PDFs."},
		{"crlf", "---\r\nname: pdf\r\ndescription: Read PDFs.\r\n---\r\n", "Read PDFs."},
		{"bom-and-blank", "\ufeff\n---\nname: pdf\ndescription: Read PDFs.\n--- \n", "Read PDFs."},
		{"dashes-in-value", "---\nname: pdf\ndescription: 'a --- b'\n---\n", "a --- b"},
		{"long-line", "---\nname: pdf\ndescription: " + long + "\n---\n", long},
		{"closing-line-longer-than-buffer", "---\nname: pdf\ndescription: d\n---" + strings.Repeat(" ", 5000) + "\n", "d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &trapReader{data: []byte(tc.front + body), limit: len(tc.front) + 8<<10 + 512}
			h, err := ReadHead(r)
			if err != nil {
				t.Fatalf("ReadHead: %v", err)
			}
			if r.tripped {
				t.Fatalf("ReadHead read past offset %d (frontmatter is %d bytes)", r.limit, len(tc.front))
			}
			if h.BodyOffset != len(tc.front) {
				t.Errorf("BodyOffset = %d, want %d", h.BodyOffset, len(tc.front))
			}
			f, probs := Decode(h)
			if len(probs) != 0 {
				t.Errorf("problems: %+v", probs)
			}
			if f.Name != "pdf" || f.Description != tc.desc {
				t.Errorf("front = %q / %.40q", f.Name, f.Description)
			}
		})
	}

	// Control: the trap works, and a read failure is reported as itself,
	// not as a framing problem.
	for _, limit := range []int{0, 2, 10} {
		front := "---\nname: pdf\ndescription: Read PDFs.\n---\n"
		r := &trapReader{data: []byte(front + body), limit: limit}
		if _, err := ReadHead(r); !errors.Is(err, errTrap) {
			t.Errorf("limit %d: ReadHead error = %v, want the reader's error", limit, err)
		}
	}
}

// countingReader counts the bytes handed out.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestReadHeadLimits(t *testing.T) {
	fill := func(n int) string { // n bytes of valid YAML comment lines
		var b strings.Builder
		for b.Len() < n {
			b.WriteString("# " + strings.Repeat("c", 60) + "\n")
		}
		return b.String()
	}
	longDesc := strings.Repeat("word ", 2000) // 10000 bytes on one line
	huge := strings.Repeat("y", 1<<20)
	tests := []struct {
		name    string
		content string
		wantErr error
		desc    string
		maxRead int // if > 0, ReadHead may not consume more bytes
	}{
		{"long-line-in-frontmatter", "---\nname: pdf\ndescription: " + longDesc + "\n---\nbody", nil, strings.TrimSpace(longDesc), 0},
		{"long-first-line", strings.Repeat("-", 10000) + "\n---\nname: pdf\n---\n", ErrNoFrontmatter, "", 0},
		{"just-under-limit", "---\n" + fill(MaxFrontmatter-200) + "name: pdf\ndescription: d\n---\n", nil, "d", 0},
		{"over-limit-closed", "---\n" + fill(MaxFrontmatter+10) + "name: pdf\ndescription: d\n---\n", ErrTooLarge, "", 0},
		{"over-limit-unterminated", "---\n" + fill(MaxFrontmatter+10), ErrTooLarge, "", 0},
		{"single-huge-line", "---\ndescription: " + huge + "\n---\n", ErrTooLarge, "", MaxFrontmatter + 3*4096},
		{"many-huge-lines", "---\n" + strings.Repeat(huge[:5000]+"\n", 200), ErrTooLarge, "", MaxFrontmatter + 3*4096},
		{"64-leading-blank-lines", strings.Repeat("\n", 64) + "---\nname: pdf\ndescription: d\n---\n", nil, "d", 0},
		{"65-leading-blank-lines", strings.Repeat("\n", 65) + "---\nname: pdf\ndescription: d\n---\n", ErrNoFrontmatter, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cr := &countingReader{r: strings.NewReader(tc.content)}
			h, err := ReadHead(cr)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("ReadHead error = %v, want %v", err, tc.wantErr)
			}
			if tc.maxRead > 0 && cr.n > tc.maxRead {
				t.Errorf("read %d bytes, want at most %d", cr.n, tc.maxRead)
			}
			if err != nil {
				return
			}
			f, probs := Decode(h)
			if len(probs) != 0 {
				t.Errorf("problems: %+v", probs)
			}
			if f.Description != tc.desc {
				t.Errorf("description = %.40q..., want %.40q...", f.Description, tc.desc)
			}
		})
	}
}

func TestReadHeadReadErrors(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name   string
		prefix string // served before the error
	}{
		{"at-start", ""},
		{"after-blank-line", "\n"},
		{"in-opening-delimiter", "--"},
		{"after-opening-delimiter", "---\n"},
		{"in-frontmatter", "---\nname: pdf\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := io.MultiReader(strings.NewReader(tc.prefix), iotest.ErrReader(boom))
			h, err := ReadHead(r)
			if !errors.Is(err, boom) {
				t.Errorf("ReadHead = %v, %v; want the read error", h, err)
			}
		})
	}
}

// TestDecodeLineOffset checks that problem lines are file lines: the
// frontmatter's own line numbers shifted by StartLine.
func TestDecodeLineOffset(t *testing.T) {
	raw := []byte("license: MIT\nname: 7\ndescription: Use when: x\n")
	for _, start := range []int{2, 10} {
		_, probs := Decode(&Head{Raw: raw, StartLine: start})
		want := []Problem{{Code: "unquoted-colon", Line: start + 2}}
		if diff := cmp.Diff(want, probs, cmp.Comparer(func(a, b Problem) bool {
			return a.Code == b.Code && a.Line == b.Line && a.Fatal == b.Fatal
		})); diff != "" {
			t.Errorf("start %d (-want +got):\n%s", start, diff)
		}
	}
	_, probs := Decode(&Head{Raw: []byte("x: 1\nname: 7\ndescription: ok\n"), StartLine: 10})
	if len(probs) != 1 || probs[0].Code != "typed-scalar" || probs[0].Line != 11 {
		t.Errorf("typed scalar problems = %+v, want one on line 11", probs)
	}
}

func TestFoldSpace(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"one", "one"},
		{"  one  two  ", "one two"},
		{"one\ntwo\r\nthree\tfour", "one two three four"},
		{"line one\n\nline two\n", "line one line two"},
		{"a\u00a0b\u2003c", "a b c"},
		{"keep: colons -- and dashes", "keep: colons -- and dashes"},
	}
	for _, tc := range tests {
		if got := FoldSpace(tc.in); got != tc.want {
			t.Errorf("FoldSpace(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
