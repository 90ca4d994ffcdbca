package pipeline

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTypeOrSkill(t *testing.T) {
	for in, want := range map[Type]Type{"": TypeSkill, TypeSkill: TypeSkill, TypeCommand: TypeCommand} {
		if got := in.OrSkill(); got != want {
			t.Errorf("Type(%q).OrSkill() = %q, want %q", in, got, want)
		}
	}
}

// TestSnapshotSources checks the sources report: the zero root and record
// type reported as skill, --kind filtering of roots, hidden copies and
// counts, and the JSON keys `ccski sources --json` prints.
func TestSnapshotSources(t *testing.T) {
	skill := &Record{ID: "claude:pdf", File: "/u/pdf/SKILL.md"}
	skillCopy := &Record{ID: "codex:pdf", File: "/c/pdf/SKILL.md"}
	cmdRec := &Record{ID: "claude:/deploy", Type: TypeCommand, File: "/u/commands/deploy.md"}
	cmdCopy := &Record{ID: "claude@user:/deploy", Type: TypeCommand, File: "/h/commands/deploy.md"}
	roots := []RootReport{
		{Root: Root{Path: "/u", Provider: "claude", Source: "claude", Location: LocationUser, Kind: KindUserAgent}, Exists: true, Skills: 1},
		{Root: Root{Path: "/c", Provider: "codex", Source: "codex", Location: LocationUser, Kind: KindUserAgent, Type: TypeSkill}, Exists: true, Skills: 1},
		{Root: Root{Path: "/u/commands", Provider: "claude", Source: "commands", Location: LocationUser, Kind: KindUserAgent, Type: TypeCommand,
			Plugin: &PluginInfo{Plugin: "p", Marketplace: "m", Version: "1"}}, Exists: false, Skills: 2},
	}
	drops := []Drop{
		{Record: skillCopy, Stage: "priority", Reason: "shadowed", By: skill},
		{Record: cmdCopy, Stage: "filter", Reason: "excluded"},
	}
	snap := NewSnapshot([]*Record{skill, skillCopy, cmdRec, cmdCopy}, []*Record{skill, cmdRec}, drops, roots, nil)

	skills, commands := snap.Tally()
	if skills != (Counts{Discovered: 2, Visible: 1}) || commands != (Counts{Discovered: 2, Visible: 1}) {
		t.Errorf("Tally() = %+v, %+v", skills, commands)
	}

	for _, tc := range []struct {
		kind                Type
		roots               []string
		hidden              []string
		discovered, visible int
	}{
		{"", []string{"/u", "/c", "/u/commands"}, []string{"codex:pdf", "claude@user:/deploy"}, 4, 2},
		{TypeSkill, []string{"/u", "/c"}, []string{"codex:pdf"}, 2, 1},
		{TypeCommand, []string{"/u/commands"}, []string{"claude@user:/deploy"}, 2, 1},
	} {
		rep := snap.Sources(tc.kind)
		var gotRoots, gotHidden []string
		for _, r := range rep.Roots {
			gotRoots = append(gotRoots, r.Path)
			if r.Type == "" {
				t.Errorf("kind %q: root %s has the zero type", tc.kind, r.Path)
			}
		}
		for _, h := range rep.Hidden {
			gotHidden = append(gotHidden, h.ID)
		}
		if d := cmp.Diff(tc.roots, gotRoots); d != "" {
			t.Errorf("kind %q roots (-want +got):\n%s", tc.kind, d)
		}
		if d := cmp.Diff(tc.hidden, gotHidden); d != "" {
			t.Errorf("kind %q hidden (-want +got):\n%s", tc.kind, d)
		}
		if rep.Discovered != tc.discovered || rep.Visible != tc.visible {
			t.Errorf("kind %q: %d discovered, %d visible; want %d, %d", tc.kind, rep.Discovered, rep.Visible, tc.discovered, tc.visible)
		}
	}

	got, err := json.Marshal(snap.Sources(TypeCommand))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"roots":[{"path":"/u/commands","type":"command","provider":"claude","source":"commands","location":"user",` +
		`"kind":"user-agent","exists":false,"skills":2,"pluginInfo":{"pluginName":"p","marketplace":"m","version":"1"}}],` +
		`"diagnostics":[],"hidden":[{"id":"claude@user:/deploy","file":"/h/commands/deploy.md","stage":"filter","reason":"excluded"}],` +
		`"discovered":2,"visible":1}`
	if string(got) != want {
		t.Errorf("JSON:\n got %s\nwant %s", got, want)
	}
	got, _ = json.Marshal(snap.Sources(TypeSkill).Hidden)
	if want := `[{"id":"codex:pdf","file":"/c/pdf/SKILL.md","stage":"priority","reason":"shadowed","by":"claude:pdf"}]`; string(got) != want {
		t.Errorf("hidden JSON:\n got %s\nwant %s", got, want)
	}
}
