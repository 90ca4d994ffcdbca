package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/trust"
	"github.com/ccski/ccski/pipeline"
)

// TestSetTrust checks the trust check in discovery: off by default; with a
// store it records project and plugin skills only; with Require it drops
// an unaccepted project skill before the filters (so the next copy wins,
// also in a workspace engine), keeps plugin skills, and serves the project
// copy once it is accepted.
func TestSetTrust(t *testing.T) {
	m := newMachine(t)
	store := filepath.Join(t.TempDir(), "trust.json")
	projectShared := m.abs("repo/.agents/skills/shared/SKILL.md")
	winner := func(snap *pipeline.Snapshot, name string) string {
		t.Helper()
		r, err := snap.Load(name, pipeline.TypeSkill)
		if err != nil {
			t.Fatalf("Load(%s): %v", name, err)
		}
		return r.File
	}
	state := func(snap *pipeline.Snapshot, file string) (pipeline.IntegrityState, bool) {
		for r, in := range snap.Integrity {
			if r.File == file {
				return in.State, true
			}
		}
		return "", false
	}

	snap, _ := snapshot(t, m.engine(t, m.config()))
	if snap.Integrity != nil {
		t.Fatalf("Integrity = %v without SetTrust, want nil", snap.Integrity)
	}

	e := m.engine(t, m.config())
	e.SetTrust(TrustOptions{File: store})
	snap, _ = snapshot(t, e)
	if st, _ := state(snap, projectShared); st != pipeline.IntegrityNew {
		t.Errorf("project skill: state %q, want new", st)
	}
	if st, _ := state(snap, m.abs(pluginDir+"/skills/plugin-only/SKILL.md")); st != pipeline.IntegrityNew {
		t.Errorf("plugin skill: state %q, want new", st)
	}
	if st, ok := state(snap, m.abs("home/.claude/skills/user-only/SKILL.md")); ok {
		t.Errorf("user skill: state %q, want none", st)
	}
	if got := winner(snap, "shared"); got != projectShared {
		t.Fatalf("shared is %s without Require, want the project copy", got)
	}

	e.SetTrust(TrustOptions{File: store, Require: true})
	for _, eng := range []*Engine{e, forWorkspace(t, e, m.ws)} {
		snap, _ = snapshot(t, eng)
		if got := winner(snap, "shared"); got == projectShared {
			t.Fatalf("shared is the unaccepted project copy under Require")
		}
		var reason string
		for _, d := range snap.Drops {
			if d.Stage == trust.StageName && d.Record.File == projectShared {
				reason = d.Reason
			}
		}
		if !strings.Contains(reason, "never accepted") || !strings.Contains(reason, "run ccski trust agents@project:shared") {
			t.Errorf("the drop reason does not name ccski trust: %q", reason)
		}
		if _, err := snap.Load("plugin-only", pipeline.TypeSkill); err != nil {
			t.Errorf("a recorded plugin skill is hidden under Require: %v", err)
		}
		checkInvariants(t, snap)
	}

	var recs []*pipeline.Record
	for _, r := range snap.All {
		if r.File == projectShared {
			recs = append(recs, r)
		}
	}
	c := trust.Checker{Path: store}
	if _, err := trust.Accept(store, c.Manifests(context.Background(), recs), time.Now()); err != nil {
		t.Fatal(err)
	}
	snap, _ = snapshot(t, e)
	if got := winner(snap, "shared"); got != projectShared {
		t.Errorf("shared is %s once accepted, want the project copy", got)
	}
}
