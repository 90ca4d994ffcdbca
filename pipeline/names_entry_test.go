package pipeline_test

import (
	"testing"

	"github.com/ccski/ccski/internal/nametest"
	"github.com/ccski/ccski/pipeline"
)

// TestNamesLookup runs the shared table of names (package nametest)
// through Lookup, which info, enable, disable and trust use, and Load,
// which the skill tool uses: each name resolves to the skill the table
// says, hidden copies included. The filter tokens, install, toggle and
// the ask tool run the same table.
func TestNamesLookup(t *testing.T) {
	nametest.Resolve(t, func(snap *pipeline.Snapshot, name string) ([]string, error) {
		f, err := snap.Lookup(name, pipeline.TypeSkill)
		if err != nil {
			return nil, err
		}
		return []string{f.Record.ID}, nil
	})
	nametest.Resolve(t, func(snap *pipeline.Snapshot, name string) ([]string, error) {
		r, err := snap.Load(name, pipeline.TypeSkill)
		if err != nil {
			return nil, err
		}
		return []string{r.ID}, nil
	})
}
