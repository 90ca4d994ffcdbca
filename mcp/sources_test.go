package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
)

func TestSourcesTool(t *testing.T) {
	base := t.TempDir()
	recs := makeRecords(t, base,
		skillSpec{provider: "claude", name: "pdf", desc: "PDF."},
		skillSpec{provider: "codex", name: "pdf", desc: "Another PDF."},
		skillSpec{provider: "codex", name: "review", desc: "Review."})
	claudeRoot, codexRoot := recs[0].Root, recs[1].Root
	cmd := &pipeline.Record{Type: pipeline.TypeCommand, Name: "deploy", Agent: "claude", Location: pipeline.LocationUser,
		File: filepath.Join(base, "commands", "deploy.md")}
	all := append(append([]*pipeline.Record{}, recs...), cmd)
	pipeline.AssignIDs(all)
	visible := []*pipeline.Record{recs[0], recs[2], cmd} // codex:pdf is hidden by the claude copy
	roots := []pipeline.RootReport{
		{Root: pipeline.Root{Path: claudeRoot, Agent: "claude", Provider: "claude", Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent}, Exists: true, Skills: 1},
		{Root: pipeline.Root{Path: codexRoot, Agent: "codex", Provider: "codex", Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent}, Exists: true, Skills: 2},
		{Root: pipeline.Root{Path: filepath.Join(base, "empty"), Agent: "gemini", Provider: "agents", Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent}, Exists: true},
		{Root: pipeline.Root{Path: filepath.Join(base, "nowhere"), Agent: "codex", Provider: "codex", Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceAgent}, Exists: false},
		{Root: pipeline.Root{Path: filepath.Join(base, "commands"), Agent: "claude", Provider: "commands", Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Type: pipeline.TypeCommand}, Exists: true, Skills: 1},
	}
	diags := []pipeline.Diagnostic{
		{Severity: pipeline.SeverityError, Code: "x", Path: filepath.Join(codexRoot, "broken", "SKILL.md"), Message: "bad"},
		{Severity: pipeline.SeverityWarning, Code: "y", Path: filepath.Join(codexRoot, "odd", "SKILL.md"), Message: "odd"},
		{Severity: pipeline.SeverityInfo, Code: "z", Path: filepath.Join(codexRoot, "fyi"), Message: "fyi"},
		{Severity: pipeline.SeverityWarning, Code: "w", Path: codexRoot + "-other/SKILL.md", Message: "a sibling folder"},
	}
	drops := []pipeline.Drop{{Record: recs[1], Stage: "priority", Reason: "a higher-priority copy", By: recs[0]}}
	snap := pipeline.NewSnapshot(all, visible, drops, roots, diags)
	srv := New(snap, Options{Logger: discard(), Tools: []string{ToolSources}})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			tool := listToolsByName(t, ctx, cs)[ToolSources]
			res := callNamed(t, ctx, cs, ToolSources, map[string]any{})
			got := structured[SourcesOutput](t, tool, res)
			if len(got.Roots) != len(roots) {
				t.Fatalf("%d roots, want %d", len(got.Roots), len(roots))
			}
			wantStatus := []string{StatusOK, StatusOK, StatusEmpty, StatusMissing, StatusOK}
			wantType := []pipeline.Type{"skill", "skill", "skill", "skill", "command"}
			for i, r := range got.Roots {
				if r.Path != roots[i].Path || r.Provider != roots[i].Agent || r.Exists != roots[i].Exists ||
					r.Skills != roots[i].Skills || r.Status != wantStatus[i] || r.Type != wantType[i] || r.Kind != roots[i].Kind {
					t.Errorf("root %d = %+v", i, r)
				}
			}
			if got.Roots[1].Problems != 2 || got.Roots[0].Problems != 0 {
				t.Errorf("problems %d and %d, want 0 for claude and 2 for codex (the sibling folder does not count)",
					got.Roots[0].Problems, got.Roots[1].Problems)
			}
			if got.Skills != (Counts{Discovered: 3, Visible: 2}) || got.Commands != (Counts{Discovered: 1, Visible: 1}) ||
				got.Hidden != 1 || got.Diagnostics != (DiagnosticCounts{Errors: 1, Warnings: 2, Infos: 1}) || got.Message != "" {
				t.Errorf("totals %+v %+v hidden %d diags %+v message %q", got.Skills, got.Commands, got.Hidden, got.Diagnostics, got.Message)
			}
			byName := map[string]SourceProvider{}
			for _, p := range got.Providers {
				byName[p.Name] = p
			}
			if byName["claude"] != (SourceProvider{Name: "claude", Roots: 2, Existing: 2, Skills: 1, Commands: 1}) ||
				byName["codex"] != (SourceProvider{Name: "codex", Roots: 2, Existing: 1, Skills: 1}) ||
				byName["gemini"] != (SourceProvider{Name: "gemini", Roots: 1, Existing: 1}) {
				t.Errorf("providers %+v", got.Providers)
			}
			text := resultText(t, res)
			for _, want := range []string{"5 roots searched (4 exist)", "2 of 3 skills visible", "1 of 1 commands", "1 copy hidden",
				"1 error, 2 warnings", "claude (1), codex (1)"} {
				if !strings.Contains(text, want) {
					t.Errorf("summary %q lacks %q", text, want)
				}
			}
		})
	}
}

func TestSourcesNothingFound(t *testing.T) {
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "exists"), 0o755); err != nil {
		t.Fatal(err)
	}
	root := func(dir string, exists bool) pipeline.RootReport {
		return pipeline.RootReport{Root: pipeline.Root{Path: filepath.Join(base, dir), Agent: "claude",
			Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent}, Exists: exists}
	}
	hidden := makeRecords(t, base, skillSpec{provider: "codex", name: "x", desc: "X."})
	for _, tc := range []struct {
		name string
		snap *pipeline.Snapshot
		want string
	}{
		{"no roots", pipeline.NewSnapshot(nil, nil, nil, nil, nil), "No sources are configured"},
		{"none exists", pipeline.NewSnapshot(nil, nil, nil, []pipeline.RootReport{root("a", false), root("b", false)}, nil),
			"none of the 2 folders searched exists"},
		{"empty folders", pipeline.NewSnapshot(nil, nil, nil, []pipeline.RootReport{root("exists", true), root("b", false)}, nil),
			"1 of the 2 folders searched exist, but none holds a skill"},
		{"all filtered", pipeline.NewSnapshot(hidden, nil, nil, []pipeline.RootReport{root("exists", true)}, nil),
			"filters hide every one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := New(tc.snap, Options{Logger: discard(), Tools: []string{ToolSources}})
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, "", nil)
			res := callNamed(t, ctx, cs, ToolSources, nil)
			got := structured[SourcesOutput](t, listToolsByName(t, ctx, cs)[ToolSources], res)
			if !strings.Contains(got.Message, tc.want) || resultText(t, res) != got.Message {
				t.Errorf("message %q (text %q), want it to say %q", got.Message, resultText(t, res), tc.want)
			}
		})
	}
}

// TestSourcesEngine runs the tool over a real discovery.
func TestSourcesEngine(t *testing.T) {
	tr := newTree(t)
	writeFile(t, tr.userSkill("alpha"), skillMD("alpha", "Alpha."))
	srv := New(snapshot(t, newEngine(t, tr.home, tr.ws)), Options{Logger: discard(), Tools: []string{ToolSources}})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "2025-11-25", nil)
	got := structured[SourcesOutput](t, listToolsByName(t, ctx, cs)[ToolSources], callNamed(t, ctx, cs, ToolSources, nil))
	found := false
	for _, r := range got.Roots {
		if r.Path == filepath.Join(tr.home, ".claude", "skills") {
			found = r.Exists && r.Skills == 1 && r.Status == StatusOK && r.Provider == "claude" && r.Type == "skill"
		}
	}
	if !found || got.Skills.Visible != 1 {
		t.Errorf("the claude user root is not reported with its skill: %+v", got.Roots)
	}
	// The ranking rules are reported as `ccski sources` states them, and
	// Codex's bundled skills are a system root.
	rules := map[string]string{}
	for _, r := range got.Precedence {
		rules[strings.Join(r.Providers, ",")] = r.Rule
	}
	if want := "Claude Code ranks personal over project (providers.claude.precedence: user)"; rules["claude"] != want {
		t.Errorf("claude rule = %q, want %q (rules %v)", rules["claude"], want, rules)
	}
	if want := "Codex ranks repo over user (providers.codex.precedence: project)"; rules["codex"] != want {
		t.Errorf("codex rule = %q, want %q (rules %v)", rules["codex"], want, rules)
	}
	if len(got.Priority) == 0 || got.Priority[0] != pipeline.KindCustom {
		t.Errorf("priority = %v, want the kind order from custom down", got.Priority)
	}
	system := false
	for _, r := range got.Roots {
		if r.Path == filepath.Join(tr.home, ".codex", "skills", ".system") {
			system = r.Location == pipeline.LocationSystem && r.Kind == pipeline.KindSystem
		}
	}
	if !system {
		t.Errorf("no system root for ~/.codex/skills/.system: %+v", got.Roots)
	}
}
