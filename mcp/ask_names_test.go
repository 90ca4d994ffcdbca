package mcp

import (
	"testing"

	"github.com/ccski/ccski/internal/nametest"
	"github.com/ccski/ccski/pipeline"
)

// TestAskNames runs the shared table of names (package nametest) through
// the ask tool's sources: a skill name chooses the skill it resolves to
// for the skill tool, hidden copies included, and an ambiguous, disabled
// or unknown name is an error that says so.
func TestAskNames(t *testing.T) {
	nametest.Resolve(t, func(snap *pipeline.Snapshot, name string) ([]string, error) {
		recs, err := resolveSources(snap, []string{name})
		var ids []string
		for _, r := range recs {
			ids = append(ids, r.ID)
		}
		return ids, err
	})
}
