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

// TestLoadsIsLoad checks Snapshot.Loads against Load over the shared name
// table: for every visible skill and every name in the table, plus the
// skill's own names, Loads holds exactly when Load returns that skill.
func TestLoadsIsLoad(t *testing.T) {
	snap := nametest.Snapshot(t.TempDir())
	names := []string{}
	for _, c := range nametest.Cases {
		names = append(names, c.Name)
	}
	for _, r := range snap.All {
		names = append(names, r.ID, r.Name, r.ShortName(), r.Agent+":"+r.ShortName(), r.Agent+":"+r.Name, "@"+r.Name)
	}
	for _, r := range snap.Skills() {
		for _, n := range names {
			got, err := snap.Load(n, pipeline.TypeSkill)
			if want := err == nil && got == r; snap.Loads(n, r) != want {
				t.Errorf("Loads(%q, %s) = %v, but Load gives %v (error %v)", n, r.ID, !want, got, err)
			}
		}
	}
}
