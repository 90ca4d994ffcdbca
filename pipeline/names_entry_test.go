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
	snap := nametest.Snapshot(t.TempDir())
	for _, c := range nametest.Cases {
		f, err := snap.Lookup(c.Name, pipeline.TypeSkill)
		var ids []string
		if err == nil {
			ids = []string{f.Record.ID}
		}
		c.CheckResolved(t, ids, err)
		if r, err := snap.Load(c.Name, pipeline.TypeSkill); err == nil {
			c.CheckResolved(t, []string{r.ID}, nil)
		} else {
			c.CheckResolved(t, nil, err)
		}
	}
}
