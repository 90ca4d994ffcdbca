package search

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
)

func records(t *testing.T) []*pipeline.Record {
	t.Helper()
	dir := t.TempDir()
	body := func(name, text string) string {
		p := filepath.Join(dir, name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: x\n---\n"+text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	recs := []*pipeline.Record{
		{Name: "pdf", Agent: "claude", Description: "Extract text and tables from PDF files.", File: body("pdf", "Use pdftotext for layout.\n")},
		{Name: "pdf-forms", Agent: "codex", Description: "Fill PDF forms.", File: body("pdf-forms", "Forms need fields.\n")},
		{Name: "commit-message", Agent: "agents", Description: "Write a commit message from the staged diff.", File: body("commit-message", "Run git diff --staged first.\n")},
		{Name: "example-skills:xlsx", Agent: "claude", Plugin: &pipeline.PluginInfo{Plugin: "example-skills"}, Description: "Spreadsheets: formulas and charts.", File: body("xlsx", "Charts are built with the chart API; the 文档 layer too.\n")},
	}
	pipeline.AssignIDs(recs)
	return recs
}

func ids(hits []Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Record.ID)
	}
	return out
}

func TestRank(t *testing.T) {
	recs := records(t)
	tests := []struct {
		query   string
		content bool
		want    []string
	}{
		{query: "pdf", want: []string{"claude:pdf", "codex:pdf-forms"}},             // exact name beats prefix
		{query: "PDF forms", want: []string{"codex:pdf-forms"}},                     // every token must match
		{query: "forms pdf", want: []string{"codex:pdf-forms"}},                     // token order does not matter
		{query: "comit", want: []string{"agents:commit-message"}},                   // a typo in a name word
		{query: "xlsx", want: []string{"claude:@example-skills:xlsx"}},              // plugin short name
		{query: "example-skills", want: []string{"claude:@example-skills:xlsx"}},    // plugin prefix
		{query: "staged", want: []string{"agents:commit-message"}},                  // description word
		{query: "pdftotext", want: []string{}},                                      // only in the body
		{query: "pdftotext", content: true, want: []string{"claude:pdf"}},           // body with --content
		{query: "文档", content: true, want: []string{"claude:@example-skills:xlsx"}}, // CJK body text
		{query: "   ", want: []string{}},
		{query: "nothing-like-it", want: []string{}},
	}
	for _, tc := range tests {
		hits, total := Rank(recs, tc.query, Options{Content: tc.content})
		if d := cmp.Diff(tc.want, ids(hits)); d != "" {
			t.Errorf("Rank(%q, content=%v) (-want +got):\n%s", tc.query, tc.content, d)
		}
		if total != len(hits) {
			t.Errorf("Rank(%q) total = %d, want %d", tc.query, total, len(hits))
		}
	}
}

func TestSnippet(t *testing.T) {
	recs := records(t)
	hits, _ := Rank(recs, "chart api", Options{Content: true, SnippetLen: 30})
	if len(hits) != 1 {
		t.Fatalf("hits = %d, want 1", len(hits))
	}
	s := hits[0].Snippet
	if s == "" || len([]rune(s)) > 31 || !strings.Contains(strings.ToLower(s), "chart") {
		t.Errorf("snippet %q: want about 30 characters around the first match", s)
	}
	if got := Snippet("abc", 10, 5, 10); got != "abc" { // offsets past the end are clamped
		t.Errorf("Snippet with a bad offset = %q", got)
	}
	// "four" sits in the middle of a 10-character window, cut on both sides.
	if got := Snippet("one two three four five six", 14, 4, 10); got != "…ee four fi…" {
		t.Errorf("Snippet = %q, want %q", got, "…ee four fi…")
	}
	// At the start there is nothing to cut before.
	if got := Snippet("four five six seven", 0, 4, 9); got != "four five…" {
		t.Errorf("Snippet at start = %q, want %q", got, "four five…")
	}
}

// countReads counts the body reads of the test.
func countReads(t *testing.T) *int {
	t.Helper()
	n := new(int)
	orig := readFile
	readFile = func(path string, limit int64) ([]byte, error) {
		*n++
		return orig(path, limit)
	}
	t.Cleanup(func() { readFile = orig })
	return n
}

func TestScores(t *testing.T) {
	recs := records(t)
	tests := []struct {
		query string
		want  map[string]int
	}{
		// Exact name; the body also holds "pdf" but cannot add to it.
		{"pdf", map[string]int{"claude:pdf": scoreNameExact, "codex:pdf-forms": scoreNamePrefix}},
		// One token in the name, one only in the body.
		{"pdf layout", map[string]int{"claude:pdf": scoreNameExact + scoreBody}},
		// "chart" is a description word, "api" only in the body.
		{"chart api", map[string]int{"claude:@example-skills:xlsx": scoreDescWord + scoreBody}},
		// Both tokens only in the body.
		{"layer api", map[string]int{"claude:@example-skills:xlsx": 2 * scoreBody}},
		// A description word, and a token that is in the description and
		// the body: the description wins.
		{"staged diff", map[string]int{"agents:commit-message": 2 * scoreDescWord}},
	}
	for _, tc := range tests {
		hits, _ := Rank(recs, tc.query, Options{Content: true})
		got := map[string]int{}
		for _, h := range hits {
			got[h.Record.ID] = h.Score
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("Rank(%q) scores (-want +got):\n%s", tc.query, d)
		}
	}
}

// TestMetadataMatchReadsNoBody: a query every token of which matches the
// id, name or description of a record needs no body, so a record whose
// SKILL.md is gone is still found, and no body is read but for the
// snippets of the hits returned.
func TestMetadataMatchReadsNoBody(t *testing.T) {
	recs := records(t)[:2] // claude:pdf, codex:pdf-forms
	gone := &pipeline.Record{Name: "pdf-merge", Agent: "claude", Description: "Merge PDF files.",
		File: filepath.Join(t.TempDir(), "missing", "SKILL.md")}
	recs = append(recs, gone)
	pipeline.AssignIDs(recs)
	reads := countReads(t)

	hits, total := Rank(recs, "merge pdf", Options{Content: true})
	if d := cmp.Diff([]string{"claude:pdf-merge"}, ids(hits)); d != "" || total != 1 {
		t.Fatalf("merge pdf (-want +got):\n%s (total %d)", d, total)
	}
	if h := hits[0]; h.Snippet != "" || h.Score != scoreNameSub+scoreNamePrefix {
		t.Errorf("hit %+v: want no snippet (no body) and the name scores", h)
	}
	// The other two lack "merge" in their metadata: their bodies are
	// read to look for it; the hit's is tried once, for the snippet.
	if *reads != 3 {
		t.Errorf("%d body reads, want 3", *reads)
	}

	// Every record matches "pdf" by name: only the returned hit is read.
	*reads = 0
	hits, total = Rank(recs, "pdf", Options{Content: true, Limit: 1})
	if d := cmp.Diff([]string{"claude:pdf"}, ids(hits)); d != "" || total != 3 {
		t.Errorf("pdf limit 1 (-want +got):\n%s (total %d, want 3)", d, total)
	}
	if *reads != 1 {
		t.Errorf("%d body reads, want 1", *reads)
	}
	// The body of the exact match holds "pdf": its snippet shows it, as
	// before, although the body was not needed to match.
	if !strings.Contains(hits[0].Snippet, "pdftotext") {
		t.Errorf("snippet %q: want the body's match", hits[0].Snippet)
	}

	// Without Content no body is read at all.
	*reads = 0
	if hits, _ := Rank(recs, "pdf", Options{}); len(hits) != 3 || *reads != 0 {
		t.Errorf("pdf without content: %v, %d reads; want 3 hits and no read", ids(hits), *reads)
	}
}

// TestBodyNeeded: a token in no metadata reads the body of every record
// that lacks it there, once: the snippet comes from that read.
func TestBodyNeeded(t *testing.T) {
	recs := records(t)
	reads := countReads(t)
	hits, total := Rank(recs, "pdf layout", Options{Content: true, Limit: 5})
	if d := cmp.Diff([]string{"claude:pdf"}, ids(hits)); d != "" || total != 1 {
		t.Fatalf("pdf layout (-want +got):\n%s", d)
	}
	if *reads != len(recs) {
		t.Errorf("%d body reads, want %d (one per record)", *reads, len(recs))
	}
	// The snippet is around the first token, in query order, in the body.
	if s := hits[0].Snippet; !strings.HasPrefix(s, "Use pdftotext") {
		t.Errorf("snippet %q: want it around pdf", s)
	}

	// A body that cannot be read matches nothing.
	recs[1].File = filepath.Join(t.TempDir(), "missing")
	if hits, _ := Rank(recs, "fields", Options{Content: true}); len(hits) != 0 {
		t.Errorf("fields in an unreadable body found %v", ids(hits))
	}
}

func TestLimit(t *testing.T) {
	recs := records(t)
	for _, tc := range []struct {
		limit int
		want  []string
	}{
		{0, []string{"claude:pdf", "codex:pdf-forms"}},
		{1, []string{"claude:pdf"}},
		{2, []string{"claude:pdf", "codex:pdf-forms"}},
		{5, []string{"claude:pdf", "codex:pdf-forms"}},
	} {
		for _, content := range []bool{false, true} {
			hits, total := Rank(recs, "pdf", Options{Content: content, Limit: tc.limit})
			if d := cmp.Diff(tc.want, ids(hits)); d != "" || total != 2 {
				t.Errorf("limit %d content %v (-want +got):\n%s (total %d, want 2)", tc.limit, content, d, total)
			}
			for _, h := range hits {
				if (h.Snippet != "") != (content && h.Record.ID == "claude:pdf") {
					t.Errorf("limit %d content %v: %s snippet %q", tc.limit, content, h.Record.ID, h.Snippet)
				}
			}
		}
	}
}

// TestBodyCap: only the first MaxBody bytes of a SKILL.md are searched,
// and a cut in the middle of a character leaves no broken one behind.
func TestBodyCap(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "SKILL.md")
	head := "---\nname: big\ndescription: d\n---\n"
	text := head + "early " + strings.Repeat("x", MaxBody-len(head)-len("early ")-1) + "é late\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	recs := []*pipeline.Record{{Name: "big", Agent: "claude", Description: "d", File: file}}
	pipeline.AssignIDs(recs)
	if hits, _ := Rank(recs, "early", Options{Content: true}); len(hits) != 1 {
		t.Errorf("early: %v, want the skill", ids(hits))
	}
	if hits, _ := Rank(recs, "late", Options{Content: true}); len(hits) != 0 {
		t.Errorf("late, past the cap: %v, want nothing", ids(hits))
	}
	if got := readBody(file); !strings.HasSuffix(got, "x") || !utf8.ValidString(got) {
		t.Errorf("body ends %q, want the x before the cut character", got[max(0, len(got)-4):])
	}
}

// TestBOMBody: a body with a byte order mark and no frontmatter is
// searched without the mark.
func TestBOMBody(t *testing.T) {
	file := filepath.Join(t.TempDir(), "SKILL.md")
	if err := os.WriteFile(file, []byte("\ufeffalpha beta"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs := []*pipeline.Record{{Name: "bom", Agent: "claude", File: file}}
	pipeline.AssignIDs(recs)
	hits, _ := Rank(recs, "alpha", Options{Content: true})
	if len(hits) != 1 || hits[0].Snippet != "alpha beta" {
		t.Errorf("hits %+v, want one with snippet %q", hits, "alpha beta")
	}
}

// TestFirstMatch checks that lower-casing a body only up to its first
// match finds the snippet lower-casing all of it finds: matches that
// straddle the chunks lower-cased, runes whose lower case is longer (İ),
// invalid bytes, and tokens found late or not at all.
func TestFirstMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	words := append(slices.Clone(vocabulary), "İİİ", "\xff\xfe", "ß", "Ω")
	var bodies []string
	for n := range 40 {
		var b strings.Builder
		for b.Len() < n*700 {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString(spaces[rng.IntN(len(spaces))])
		}
		bodies = append(bodies, b.String())
	}
	// A token across the first chunk's end, after runes that grow.
	for _, pad := range []int{4090, 4093, 4095, 4096, 4097} {
		bodies = append(bodies, strings.Repeat("İ", 10)+strings.Repeat("x", pad)+"NEEDLE"+strings.Repeat("y", 9000)+"late")
	}
	for _, body := range bodies {
		for _, q := range append(slices.Clone(queries), "needle", "xneedle", "late", "needle late", "nothing late", "ß") {
			toks := tokens(q)
			want := snippet(body, strings.ToLower(body), toks, 80)
			if got := firstMatch(body, toks, 80); got != want {
				t.Fatalf("query %q over a body of %d bytes: snippet %q, want %q", q, len(body), got, want)
			}
		}
	}
}

// TestSnippetMatchesOld checks Snippet, which decodes only up to the end
// of the snippet, against the whole-text version it replaced, at every
// offset of texts with multi-byte runes, invalid bytes and white space.
func TestSnippetMatchesOld(t *testing.T) {
	texts := []string{"", "a", "héllo wörld\t\tfoo", "x\xffy\xe6\x96 文档\n\nİstanbul  naïve", strings.Repeat("ab文 ", 30)}
	for _, text := range texts {
		for i := -1; i <= len(text)+1; i++ {
			for _, n := range []int{0, 1, 3, 200} {
				for _, width := range []int{1, 5, 12, 300} {
					if got, want := Snippet(text, i, n, width), refSnippetText(text, i, n, width); got != want {
						t.Fatalf("Snippet(%q, %d, %d, %d) = %q, want %q", text, i, n, width, got, want)
					}
				}
			}
		}
	}
}
