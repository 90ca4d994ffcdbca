package pipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommandsNeverCollideWithSkills checks that a command and a skill of
// the same name get distinct ids and dedupe keys, and that both resolve.
func TestCommandsNeverCollideWithSkills(t *testing.T) {
	recs := []*Record{
		{Name: "deploy", Provider: "claude", Location: LocationUser},
		{Name: "deploy", Provider: "claude", Location: LocationUser, Type: TypeCommand},
		{Name: "example:review", Provider: "claude", Location: LocationPlugin, Type: TypeCommand, Plugin: &PluginInfo{Plugin: "example"}},
	}
	AssignIDs(recs)
	got := []string{recs[0].ID, recs[1].ID, recs[2].ID}
	if d := cmp.Diff([]string{"claude:deploy", "claude:/deploy", "claude:/@example:review"}, got); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	if recs[0].DedupeKey() == recs[1].DedupeKey() {
		t.Errorf("skill and command share the dedupe key %q", recs[0].DedupeKey())
	}
	x := NewIndex(recs)
	for _, r := range recs {
		if got, err := x.Resolve(r.ID); err != nil || got != r {
			t.Errorf("Resolve(%q) = %v, %v", r.ID, got, err)
		}
	}
}
