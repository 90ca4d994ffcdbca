package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
)

// TestSkillHeaderDrift: the skill tool's header says a skill's files
// changed since first seen or trusted, from the snapshot when discovery
// checked them, else from Options.Drift, and says nothing of a skill that
// did not change.
func TestSkillHeaderDrift(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", loc: pipeline.LocationProject, name: "guide", desc: "A guide"},
		skillSpec{provider: "claude", loc: pipeline.LocationProject, name: "notes", desc: "Notes"},
		skillSpec{provider: "claude", loc: pipeline.LocationUser, name: "mine", desc: "Mine"})
	guide, notes := recs[0], recs[1] // recs[2], a user skill, is never checked
	changed := pipeline.Integrity{State: pipeline.IntegrityChanged, Changed: []string{"SKILL.md"}, Added: []string{"x.md"}}
	trusted := changed
	trusted.Accepted = true
	drift := func(r *pipeline.Record) (pipeline.Integrity, bool) {
		switch r {
		case guide:
			return changed, true
		case notes:
			return pipeline.Integrity{State: pipeline.IntegrityRecorded}, true
		}
		return pipeline.Integrity{}, false
	}
	checked := snapOf(recs)
	checked.Integrity = map[*pipeline.Record]pipeline.Integrity{notes: trusted}
	const (
		firstSeen = "Integrity: changed since first seen (1 file changed, 1 added): the user has not reviewed the change\n"
		since     = "Integrity: changed since trusted (1 file changed, 1 added): the user has not reviewed the change\n"
	)
	tests := []struct {
		name  string
		snap  *pipeline.Snapshot
		drift func(*pipeline.Record) (pipeline.Integrity, bool)
		want  map[*pipeline.Record]string // the drift line; "" for none
	}{
		{"from Options.Drift", snapOf(recs), drift, map[*pipeline.Record]string{guide: firstSeen}},
		{"from the snapshot, which wins", checked, drift, map[*pipeline.Record]string{notes: since}},
		{"without either", snapOf(recs), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(tt.snap, Options{Drift: tt.drift})
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, "", nil)
			for _, r := range recs {
				res, err := call(ctx, cs, map[string]any{"name": r.ID})
				if err != nil {
					t.Fatal(err)
				}
				text := resultText(t, res)
				want := wantLoad(t, r)
				if line := tt.want[r]; line != "" {
					head, body, _ := strings.Cut(want, "\n\n")
					want = head + "\n" + line + "\n" + body
				}
				if text != want {
					t.Errorf("%s: got\n%s\nwant\n%s", r.ID, text, want)
				}
			}
		})
	}
}
