package pipeline

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAmbiguousListsEveryMatch checks that an ambiguous name lists every
// record it answers to, including those that match only by short name.
func TestAmbiguousListsEveryMatch(t *testing.T) {
	recs := []*Record{
		{Name: "pdf", Agent: "claude", Location: LocationUser},
		{Name: "pdf", Agent: "codex", Location: LocationUser},
		{Name: "docs:pdf", Agent: "custom", Location: LocationCustom},
		{Name: "pdf-tools", Agent: "agents", Location: LocationUser},
	}
	AssignIDs(recs)
	_, err := NewIndex(recs).Resolve("PDF")
	var amb *AmbiguousError
	if !errors.As(err, &amb) {
		t.Fatalf("Resolve(PDF) = %v, want an AmbiguousError", err)
	}
	if d := cmp.Diff([]string{"claude:pdf", "codex:pdf", "custom:docs:pdf"}, amb.Candidates); d != "" {
		t.Errorf("candidates (-want +got):\n%s", d)
	}
	// A name only one record has in full still wins over short-name matches.
	recs = recs[1:]
	AssignIDs(recs)
	r, err := NewIndex(recs).Resolve("pdf")
	if err != nil || r.ID != "codex:pdf" {
		t.Errorf("Resolve(pdf) = %v, %v; want codex:pdf", r, err)
	}
}
