package mcp

import (
	"testing"

	"github.com/ccski/ccski/internal/nametest"
)

// TestAskNames runs the shared table of names (package nametest) through
// the ask tool's sources: a skill name chooses the skill it resolves to
// for the skill tool, hidden copies included, and an ambiguous, disabled
// or unknown name is an error that says so.
func TestAskNames(t *testing.T) {
	snap := nametest.Snapshot(t.TempDir())
	for _, c := range nametest.Cases {
		recs, err := resolveSources(snap, []string{c.Name})
		var ids []string
		for _, r := range recs {
			ids = append(ids, r.ID)
		}
		c.CheckResolved(t, ids, err)
	}
}
