package filters_test

import (
	"testing"

	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/internal/nametest"
	"github.com/ccski/ccski/pipeline"
)

// TestNamesAsTokens runs the shared table of names (package nametest)
// through --include: a name selects, as a token, the skills it resolves
// to as a name (a bare name in any provider or plugin, the winning copy
// of each), and a name that designates nothing is an error that says
// why, as Lookup's is.
func TestNamesAsTokens(t *testing.T) {
	nametest.Select(t, func(snap *pipeline.Snapshot, name string) ([]string, error) {
		stages, err := filters.Build(filters.Settings{State: filters.StateAll, Include: []string{name},
			Providers: []string{"claude", "codex"}, Disabled: snap.Disabled}, snap.All)
		if err != nil {
			return nil, err
		}
		kept, _ := pipeline.Run(stages, snap.All)
		var ids []string
		for _, r := range kept {
			ids = append(ids, r.ID)
		}
		return ids, nil
	})
}
