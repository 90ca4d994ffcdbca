package toggle

import (
	"errors"
	"testing"

	"github.com/ccski/ccski/internal/nametest"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// TestNamesSwitch runs the shared table of names (package nametest)
// through ccski disable: each name switches the skill it resolves to
// elsewhere (hidden copies too), an ambiguous or unknown name fails
// naming the candidates or a close name, and a name of a disabled
// plugin's skill is already off through its plugin.
func TestNamesSwitch(t *testing.T) {
	nametest.Resolve(t, func(snap *pipeline.Snapshot, name string) (ids []string, err error) {
		tg := New(providers.Env{}, snap, nil)
		tg.Skill(name, Request{})
		for _, res := range tg.Plan().Results {
			switch {
			case snap.ByID(res.Skill) != nil: // resolved, whether or not it can be switched
				ids = append(ids, res.Skill)
			case res.Error != "":
				err = errors.New(res.Error)
			default:
				err = errors.New(res.Note) // a disabled plugin's skill: already off
			}
		}
		return ids, err
	})
}
