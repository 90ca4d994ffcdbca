package install

import (
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/nametest"
	"github.com/ccski/ccski/pipeline"
)

// TestNamesSelect runs the shared table of names (package nametest)
// through install's skill arguments, over a source that offers the
// table's visible skills: each name chooses the skill it resolves to
// elsewhere, an ambiguous one is refused naming each skill, and an
// unknown one suggests a close name.
func TestNamesSelect(t *testing.T) {
	snap := nametest.Snapshot(t.TempDir())
	o := &Offer{}
	original := map[*pipeline.Record]*pipeline.Record{} // the offer's copy -> the table's record
	for _, r := range snap.Skills() {
		own := *r // the offer gives its records their own ids
		original[&own] = r
		c := Candidate{Name: r.ShortName(), Dir: r.Dir, record: &own}
		if r.Plugin != nil {
			c.Plugin = r.Plugin.Plugin
		}
		o.Candidates = append(o.Candidates, c)
	}
	for _, c := range nametest.Cases {
		if c.Hidden || len(c.IDs) == 0 && c.Error[0] == "off-plugin" {
			continue // a source offers no hidden copy and no disabled plugin
		}
		got, err := Select("src", o, Selection{Names: []string{c.Name}})
		var ids []string
		for _, cand := range got {
			ids = append(ids, original[cand.record].ID)
		}
		if len(c.IDs) > 1 {
			// install names the skills as the user gives them: by
			// plugin:name, not by id.
			if err == nil || !strings.Contains(err.Error(), "ambiguous") {
				t.Errorf("%q chose %v (error %v), want it refused as ambiguous", c.Name, ids, err)
				continue
			}
			for _, id := range c.IDs {
				if n := snap.ByID(id).Name; !strings.Contains(err.Error(), n) {
					t.Errorf("%q: error %q does not name %s", c.Name, err, n)
				}
			}
			continue
		}
		c.CheckResolved(t, ids, err)
	}
}
