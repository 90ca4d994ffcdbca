package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		{Name: "pdf", Provider: "claude", Description: "Extract text and tables from PDF files.", File: body("pdf", "Use pdftotext for layout.\n")},
		{Name: "pdf-forms", Provider: "codex", Description: "Fill PDF forms.", File: body("pdf-forms", "Forms need fields.\n")},
		{Name: "commit-message", Provider: "agents", Description: "Write a commit message from the staged diff.", File: body("commit-message", "Run git diff --staged first.\n")},
		{Name: "example-skills:xlsx", Provider: "claude", Plugin: &pipeline.PluginInfo{Plugin: "example-skills"}, Description: "Spreadsheets: formulas and charts.", File: body("xlsx", "Charts are built with the chart API; the 文档 layer too.\n")},
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
		got := ids(Rank(recs, tc.query, Options{Content: tc.content}))
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("Rank(%q, content=%v) (-want +got):\n%s", tc.query, tc.content, d)
		}
	}
}

func TestSnippet(t *testing.T) {
	recs := records(t)
	hits := Rank(recs, "chart api", Options{Content: true, SnippetLen: 30})
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
