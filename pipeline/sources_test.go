package pipeline

import (
	"encoding/json"
	"slices"
	"strings"
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
// type reported as skill, --kind filtering of roots, hidden copies,
// precedence rules and counts, and the JSON keys `ccski sources --json`
// prints.
func TestSnapshotSources(t *testing.T) {
	personal := &Precedence{Prefer: LocationUser, Option: "providers.claude.precedence", HostPrefers: LocationUser,
		HostRule: "Claude Code ranks personal over project"}
	// An equal rule from another provider plugin is the same rule.
	personalToo := *personal
	repo := &Precedence{Prefer: LocationProject, Option: "providers.codex.precedence", HostPrefers: LocationProject,
		HostRule: "Codex ranks repo over user"}
	skill := &Record{ID: "claude:pdf", File: "/u/pdf/SKILL.md"}
	skillCopy := &Record{ID: "codex:pdf", File: "/c/pdf/SKILL.md"}
	cmdRec := &Record{ID: "claude:/deploy", Type: TypeCommand, File: "/u/commands/deploy.md"}
	cmdCopy := &Record{ID: "claude@user:/deploy", Type: TypeCommand, File: "/h/commands/deploy.md"}
	roots := []RootReport{
		{Root: Root{Path: "/u", Agent: "claude", Provider: "claude", Location: LocationUser, Kind: KindUserAgent,
			Precedence: personal}, Exists: true, Skills: 1},
		{Root: Root{Path: "/c", Agent: "codex", Provider: "codex", Location: LocationUser, Kind: KindUserAgent, Type: TypeSkill,
			Precedence: repo}, Exists: true, Skills: 1},
		{Root: Root{Path: "/s", Agent: "codex", Provider: "codex", Location: LocationSystem, Kind: KindSystem}, Exists: true},
		{Root: Root{Path: "/u/commands", Agent: "claude", Provider: "commands", Location: LocationUser, Kind: KindUserAgent, Type: TypeCommand,
			Plugin: &PluginInfo{Plugin: "p", Marketplace: "m", Version: "1"}, Precedence: &personalToo}, Exists: false, Skills: 2},
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
		rules               []string
		discovered, visible int
	}{
		{"", []string{"/u", "/c", "/s", "/u/commands"}, []string{"codex:pdf", "claude@user:/deploy"},
			[]string{"claude: " + personal.Rule(), "codex: " + repo.Rule()}, 4, 2},
		{TypeSkill, []string{"/u", "/c", "/s"}, []string{"codex:pdf"},
			[]string{"claude: " + personal.Rule(), "codex: " + repo.Rule()}, 2, 1},
		{TypeCommand, []string{"/u/commands"}, []string{"claude@user:/deploy"}, []string{"claude: " + personal.Rule()}, 2, 1},
	} {
		rep := snap.Sources(tc.kind)
		var gotRules []string
		for _, r := range rep.Precedence {
			gotRules = append(gotRules, strings.Join(r.Providers, ", ")+": "+r.Rule)
		}
		if d := cmp.Diff(tc.rules, gotRules); d != "" {
			t.Errorf("kind %q precedence (-want +got):\n%s", tc.kind, d)
		}
		if d := cmp.Diff(DefaultPriority(), rep.Priority); d != "" {
			t.Errorf("kind %q: a snapshot without a priority reports the default (-want +got):\n%s", tc.kind, d)
		}
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
	want := `{"priority":["custom","project","workspace-agent","workspace-shared","workspace-root","user-agent",` +
		`"user-shared","system","plugin","remote"],"precedence":[{"providers":["claude"],"prefer":"user",` +
		`"option":"providers.claude.precedence","hostPrefers":"user","hostRule":"Claude Code ranks personal over project",` +
		`"rule":"Claude Code ranks personal over project (providers.claude.precedence: user)"}],` +
		`"roots":[{"path":"/u/commands","type":"command","provider":"claude","source":"commands","location":"user",` +
		`"kind":"user-agent","exists":false,"skills":2,"pluginInfo":{"pluginName":"p","marketplace":"m","version":"1"}}],` +
		`"diagnostics":[],"hidden":[{"id":"claude@user:/deploy","file":"/h/commands/deploy.md","stage":"filter","reason":"excluded"}],` +
		`"unlisted":[],"flagged":[],"changed":[],"switched":[],"notLoaded":[],"discovered":2,"visible":1}`
	if string(got) != want {
		t.Errorf("JSON:\n got %s\nwant %s", got, want)
	}
	snap.Priority = []Kind{KindPlugin, KindCustom}
	if got := snap.Sources("").Priority; !slices.Equal(got, snap.Priority) {
		t.Errorf("Priority = %v, want the snapshot's %v", got, snap.Priority)
	}
	got, _ = json.Marshal(snap.Sources(TypeSkill).Hidden)
	if want := `[{"id":"codex:pdf","file":"/c/pdf/SKILL.md","stage":"priority","reason":"shadowed","by":"claude:pdf"}]`; string(got) != want {
		t.Errorf("hidden JSON:\n got %s\nwant %s", got, want)
	}
}

func TestSourcesUnlisted(t *testing.T) {
	good, bad := r("claude", LocationUser, "pdf"), r("claude", LocationUser, "My Skill")
	all := []*Record{good, bad}
	AssignIDs(all)
	snap := NewSnapshot(all, all, nil, nil, nil)
	got := snap.Sources("").Unlisted
	if len(got) != 1 || got[0].ID != bad.ID || got[0].URI != "skill://claude/My%20Skill/SKILL.md" ||
		!strings.Contains(got[0].Reason, "Agent Skills names are") {
		t.Errorf("Unlisted = %+v, want only %s with the naming rule", got, bad.ID)
	}
	if got := snap.Sources(TypeCommand).Unlisted; len(got) != 0 {
		t.Errorf("Unlisted for commands = %+v, want none", got)
	}
}

// TestSourcesFlagged checks that the sources report lists the skills the
// security scan flagged (Snapshot.Security), in discovery order with their
// findings, and no command, and none for the command kind.
func TestSourcesFlagged(t *testing.T) {
	a := &Record{ID: "claude:a", File: "/s/a/SKILL.md"}
	b := &Record{ID: "codex:b", File: "/s/b/SKILL.md"}
	clean := &Record{ID: "codex:clean", File: "/s/clean/SKILL.md"}
	snap := NewSnapshot([]*Record{a, clean, b}, []*Record{a, clean, b}, nil, nil, nil)
	if got := snap.Sources("").Flagged; got == nil || len(got) != 0 {
		t.Errorf("without a scan, Flagged = %#v, want an empty list", got)
	}
	finding := Diagnostic{Severity: SeverityError, Code: "instruction-override", Path: a.File, Line: 3, Message: "m"}
	snap.Security = map[*Record][]Diagnostic{b: {finding}, a: {finding, finding}}
	got := snap.Sources("").Flagged
	if len(got) != 2 || got[0].ID != "claude:a" || len(got[0].Findings) != 2 || got[1].ID != "codex:b" {
		t.Errorf("Flagged = %+v, want claude:a (2 findings) then codex:b", got)
	}
	if got := snap.Sources(TypeCommand).Flagged; len(got) != 0 {
		t.Errorf("Flagged for commands = %+v, want none", got)
	}
}

// TestSourcesChanged checks that the sources report lists the skills whose
// files changed since the trust store recorded them, or could not be
// checked (Snapshot.Integrity), in discovery order, with a message naming
// ccski trust; recorded and trusted skills are not listed.
func TestSourcesChanged(t *testing.T) {
	a := &Record{ID: "claude:a", File: "/s/a/SKILL.md"}
	b := &Record{ID: "codex:b", File: "/s/b/SKILL.md"}
	ok := &Record{ID: "codex:ok", File: "/s/ok/SKILL.md"}
	fresh := &Record{ID: "codex:fresh", File: "/s/fresh/SKILL.md"}
	snap := NewSnapshot([]*Record{a, ok, fresh, b}, []*Record{a, ok, fresh, b}, nil, nil, nil)
	if got := snap.Sources("").Changed; got == nil || len(got) != 0 {
		t.Errorf("without a check, Changed = %#v, want an empty list", got)
	}
	snap.Integrity = map[*Record]Integrity{
		b:     {State: IntegrityUnknown, Error: "too many files"},
		a:     {State: IntegrityChanged, Accepted: true, Changed: []string{"SKILL.md", "x.md"}, Added: []string{"y.sh"}},
		ok:    {State: IntegrityTrusted, Accepted: true},
		fresh: {State: IntegrityNew},
	}
	got := snap.Sources("").Changed
	if len(got) != 2 || got[0].ID != "claude:a" || got[1].ID != "codex:b" {
		t.Fatalf("Changed = %+v, want claude:a then codex:b", got)
	}
	if want := "changed since trusted: 2 files changed, 1 added; review it, then run ccski trust claude:a"; got[0].Message != want {
		t.Errorf("message %q, want %q", got[0].Message, want)
	}
	if want := "integrity not checked: too many files"; got[1].Message != want {
		t.Errorf("message %q, want %q", got[1].Message, want)
	}
	if got := snap.Sources(TypeCommand).Changed; len(got) != 0 {
		t.Errorf("Changed for commands = %+v, want none", got)
	}
}
