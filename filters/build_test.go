package filters

import (
	"errors"
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
	"github.com/google/go-cmp/cmp"
)

func TestBuildStages(t *testing.T) {
	stages, err := Build(Settings{}, scan())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range stages {
		names = append(names, s.Name())
	}
	if diff := cmp.Diff([]string{"state", "exclude", "include", "path-dedupe"}, names); diff != "" {
		t.Errorf("stage order (-want +got):\n%s", diff)
	}
	out, dropped := pipeline.Run(stages, scan())
	if diff := cmp.Diff(autoWinners, ids(out)); diff != "" {
		t.Errorf("default settings keep (-want +got):\n%s", diff)
	}
	if len(dropped) != 3 {
		t.Errorf("default settings drop %d records, want the 3 shadowed copies", len(dropped))
	}
}

// TestBuildRun runs every stage over records that each stage has work on,
// and checks that every drop names its stage, its reason and its winner.
func TestBuildRun(t *testing.T) {
	records := append(scan(),
		&pipeline.Record{ID: "claude:old", Name: "old", Agent: "claude", Kind: pipeline.KindUserAgent, Disabled: true,
			Dir: "/home/u/.claude/skills/old"},
		// A symlink to the custom pdf folder, found under ~/.agents/skills.
		&pipeline.Record{ID: "agents:pdf", Name: "pdf", Agent: "agents", Kind: pipeline.KindUserShared,
			Dir: "/home/u/.agents/skills/pdf", RealDir: "/opt/docs/pdf"},
	)
	for _, r := range records {
		if r.RealDir == "" {
			r.RealDir = r.Dir
		}
	}
	cfg := Settings{State: "enabled", Include: []string{"all:pdf", "auto"},
		Exclude: []string{"claude:@document-skills:docx,review"}}
	stages, err := Build(cfg, records)
	if err != nil {
		t.Fatal(err)
	}
	out, dropped := pipeline.Run(stages, records)
	want := []string{"claude:pdf", "codex:PDF", "claude:@example-skills:pdf", "custom:docs:pdf", "claude:foo", "gemini:codex"}
	if diff := cmp.Diff(want, ids(out)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	// The exclude filter runs before the dedupes: the bare name review
	// removes both copies, neither of which met the other in a dedupe.
	wantDrops := []drop{
		{ID: "claude:old", Stage: "state", Reason: `disabled (its file is .SKILL.md); use state "disabled" or "all" to see it`},
		{ID: "claude:@document-skills:docx", Stage: "exclude", Reason: "excluded by --exclude claude:@document-skills:docx"},
		{ID: "cursor:review", Stage: "exclude", Reason: "excluded by --exclude review"},
		{ID: "agents:review", Stage: "exclude", Reason: "excluded by --exclude review"},
		{ID: "codex:foo", Stage: "include", By: "claude:foo", Reason: "shadowed by claude:foo (higher priority: workspace-agent over user-agent)"},
		{ID: "agents:pdf", Stage: "path-dedupe", By: "custom:docs:pdf", Reason: "same folder as custom:docs:pdf"},
	}
	if diff := cmp.Diff(wantDrops, drops(dropped)); diff != "" {
		t.Errorf("drops (-want +got):\n%s", diff)
	}
	checkPartition(t, records, out, dropped)
}

// TestBuildRecordIDs checks that every id AssignIDs produces, including
// located and numbered ones, works as a token for exactly its record.
func TestBuildRecordIDs(t *testing.T) {
	records := []*pipeline.Record{
		{Name: "x", Agent: "codex", Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceAgent, Dir: "/repo/.codex/skills/x"},
		{Name: "x", Agent: "codex", Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceAgent, Depth: 1, Dir: "/.codex/skills/x"},
		{Name: "x", Agent: "codex", Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Dir: "/home/u/.codex/skills/x"},
		{Name: "pdf", Agent: "claude", Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Dir: "/home/u/.claude/skills/pdf"},
		{Name: "example-skills:pdf", Agent: "claude", Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin,
			Plugin: &pipeline.PluginInfo{Plugin: "example-skills"}, Dir: "/p/a/pdf"},
		{Name: "example-skills:pdf", Agent: "claude", Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin,
			Plugin: &pipeline.PluginInfo{Plugin: "example-skills"}, Dir: "/p/b/pdf"},
	}
	pipeline.AssignIDs(records)
	wantIDs := []string{"codex@project:x", "codex@project:x#2", "codex@user:x", "claude:pdf",
		"claude@plugin:@example-skills:pdf", "claude@plugin:@example-skills:pdf#2"}
	if diff := cmp.Diff(wantIDs, ids(records)); diff != "" {
		t.Fatalf("fixture ids (-want +got):\n%s", diff)
	}
	for _, r := range records {
		for _, tok := range []string{r.ID, "  " + r.ID + " "} {
			stages, err := Build(Settings{Include: []string{tok}}, records)
			if err != nil {
				t.Fatalf("Build(--include %q): %v", tok, err)
			}
			out, _ := pipeline.Run(stages, records)
			if diff := cmp.Diff([]string{r.ID}, ids(out)); diff != "" {
				t.Errorf("--include %q keeps (-want +got):\n%s", tok, diff)
			}
		}
		stages, err := Build(Settings{Include: []string{"all"}, Exclude: []string{r.ID}}, records)
		if err != nil {
			t.Fatalf("Build(--exclude %q): %v", r.ID, err)
		}
		out, dropped := pipeline.Run(stages, records)
		if len(out) != len(records)-1 || len(dropped) != 1 || dropped[0].Record != r {
			t.Errorf("--exclude %q dropped %v, want only that record", r.ID, drops(dropped))
		}
	}
}

// TestBuildProvidersFromScan checks that Build reads provider names from
// the whole scan: a provider whose only records are disabled is still a
// provider, so excluding it cannot remove a skill of the same name.
func TestBuildProvidersFromScan(t *testing.T) {
	records := []*pipeline.Record{
		{ID: "cursor:review", Name: "review", Agent: "cursor", Kind: pipeline.KindWorkspaceAgent, Disabled: true},
		{ID: "claude:cursor", Name: "cursor", Agent: "claude", Kind: pipeline.KindUserAgent},
	}
	stages, err := Build(Settings{Exclude: []string{"cursor"}}, records)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := pipeline.Run(stages, records)
	if diff := cmp.Diff([]string{"claude:cursor"}, ids(out)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	// Used alone, the stage only knows the providers of its input, in
	// which cursor is then a skill name.
	out, _ = Exclude(mustParse(t, "cursor")).Apply(records[1:])
	if len(out) != 0 {
		t.Errorf("a standalone Exclude without a cursor record must read cursor as a name; kept %v", ids(out))
	}
}

func TestBuildPriority(t *testing.T) {
	records := []*pipeline.Record{
		{ID: "claude:pdf", Name: "pdf", Agent: "claude", Kind: pipeline.KindWorkspaceAgent, ModTime: t0},
		{ID: "codex:pdf", Name: "pdf", Agent: "codex", Kind: pipeline.KindUserAgent, ModTime: t0.Add(-time.Hour)},
	}
	for _, tt := range []struct {
		priority []string
		want     string
	}{
		{nil, "claude:pdf"},
		{[]string{"user-agent"}, "codex:pdf"},
	} {
		stages, err := Build(Settings{Priority: tt.priority}, records)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := pipeline.Run(stages, records)
		if diff := cmp.Diff([]string{tt.want}, ids(out)); diff != "" {
			t.Errorf("priority %q keeps (-want +got):\n%s", tt.priority, diff)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Settings
		msg   string
		token bool // the error wraps a *TokenError
	}{
		{"state", Settings{State: "some"}, `unknown state "some"; valid states: enabled, disabled, all`, false},
		{"priority", Settings{Priority: []string{"global"}},
			`unknown priority kind "global"; valid kinds: custom, project, workspace-agent, workspace-shared, workspace-root, user-agent, user-shared, system, plugin, remote`, false},
		{"include", Settings{Include: []string{"codex:@plugins"}},
			`include: invalid filter token "codex:@plugins": only the claude provider has plugins; use @plugins or claude:@plugins`, true},
		{"exclude", Settings{Exclude: []string{"pdf,"}},
			`exclude: empty filter token: token 2 of "pdf," is empty; separate tokens with single commas`, true},
	}
	for _, tt := range tests {
		stages, err := Build(tt.cfg, scan())
		if err == nil || err.Error() != tt.msg {
			t.Errorf("%s: Build = %v, %v; want error %q", tt.name, stages, err, tt.msg)
			continue
		}
		var te *TokenError
		if errors.As(err, &te) != tt.token {
			t.Errorf("%s: errors.As(*TokenError) = %v, want %v", tt.name, !tt.token, tt.token)
		}
	}
}

// TestBuildFollowsStages checks that Build returns one stage per entry of
// Stages, in that order, so that the list describes what runs.
func TestBuildFollowsStages(t *testing.T) {
	built, err := Build(Settings{Providers: registered}, scan())
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, s := range built {
		got = append(got, s.Name())
	}
	for _, s := range Stages() {
		if s.Doc == "" {
			t.Errorf("stage %s has no Doc", s.Name)
		}
		want = append(want, s.Name)
	}
	if d := cmp.Diff([]string{"state", "exclude", "include", "path-dedupe"}, want); d != "" {
		t.Errorf("Stages (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Build's stages differ from Stages (-Stages +Build):\n%s", d)
	}
}

// TestStatesAreAccepted checks that NewState accepts every value of
// States, the valid values of the state key, and that the first is the
// default.
func TestStatesAreAccepted(t *testing.T) {
	for _, s := range States() {
		if _, err := NewState(s); err != nil {
			t.Errorf("NewState(%q): %v", s, err)
		}
	}
	def, _ := NewState("")
	first, _ := NewState(States()[0])
	if def != first {
		t.Errorf("the default state is %v, not States()[0] %v", def, first)
	}
}
