package commands

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

func TestNew(t *testing.T) {
	// wantOptions checks the options New decoded.
	wantOptions := func(want Options) func(testing.TB, providers.Provider) {
		return func(tb testing.TB, p providers.Provider) {
			if got := p.(*Commands).opts; got != want {
				tb.Errorf("options = %+v, want %+v", got, want)
			}
		}
	}
	providertest.CheckNew(t, New, "commands", []providertest.NewCase{
		{Name: "nil options: both on", Check: wantOptions(Options{Claude: true, Codex: true})},
		{Name: "defaults", Options: map[string]any{"claude": true, "codex": true},
			Check: wantOptions(Options{Claude: true, Codex: true})},
		{Name: "codex off", Options: map[string]any{"codex": false}, Check: wantOptions(Options{Claude: true})},
		{Name: "claude off from an environment string", Options: map[string]any{"claude": "false"},
			Check: wantOptions(Options{Codex: true})},
		{Name: "misspelt key", Options: map[string]any{"claud": true},
			WantErr: []string{"providers.commands", `unknown key "claud"`, `did you mean "claude"?`}},
		{Name: "option of another provider", Options: map[string]any{"home": "/x"},
			WantErr: []string{"providers.commands", `unknown key "home"`}},
		{Name: "not a boolean", Options: map[string]any{"codex": "sometimes"},
			WantErr: []string{"providers.commands", "codex"}},
	})
}

func claudeRoot(path string, loc pipeline.Location, kind pipeline.Kind, depth int) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "claude", Provider: "commands", Location: loc,
		Kind: kind, Depth: depth, Optional: true, Type: pipeline.TypeCommand, Precedence: providers.ClaudeOrder.Default()}
}

func codexRoot(path string) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "codex", Provider: "commands",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true, Type: pipeline.TypeCommand, Flat: true,
		Precedence: providers.CodexOrder.Default()}
}

// withRule returns rs with every root's precedence set to rule.
func withRule(rule *pipeline.Precedence, rs ...pipeline.Root) []pipeline.Root {
	for i := range rs {
		rs[i].Precedence = rule
	}
	return rs
}

func TestPlan(t *testing.T) {
	proj, user := pipeline.LocationProject, pipeline.LocationUser
	wsKind, userKind := pipeline.KindWorkspaceAgent, pipeline.KindUserAgent
	tests := []struct {
		name    string
		options map[string]any
		env     map[string]string
		// homes are Env.ClaudeHome and Env.CodexHome, as engine.New sets
		// them from providers.claude.home and providers.codex.home, and
		// rules Env.ClaudePrecedence and Env.CodexPrecedence, set from
		// the precedence options.
		homes [2]string
		rules [2]*pipeline.Precedence
		want  []pipeline.Root
	}{
		{name: "workspace folders nearest first, then the user folder, then Codex prompts",
			want: []pipeline.Root{
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/u/.claude/commands", user, userKind, 0),
				codexRoot("/u/.codex/prompts"),
			}},
		{name: "CLAUDE_CONFIG_DIR and CODEX_HOME move the user roots",
			env: map[string]string{"CLAUDE_CONFIG_DIR": "/cfg", "CODEX_HOME": "/cx"},
			want: []pipeline.Root{
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/cfg/commands", user, userKind, 0),
				codexRoot("/cx/prompts"),
			}},
		{name: "Env.ClaudeHome and Env.CodexHome (the home options) beat the variables",
			env:   map[string]string{"CLAUDE_CONFIG_DIR": "/cfg", "CODEX_HOME": "/cx"},
			homes: [2]string{"/claude-home", "/codex-home"},
			want: []pipeline.Root{
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/claude-home/commands", user, userKind, 0),
				codexRoot("/codex-home/prompts"),
			}},
		{name: "the precedence options (through Env) rank each host's commands",
			rules: [2]*pipeline.Precedence{mustRule(t, providers.ClaudeOrder, "project"), mustRule(t, providers.CodexOrder, "user")},
			want: append(withRule(mustRule(t, providers.ClaudeOrder, "project"),
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/u/.claude/commands", user, userKind, 0)),
				withRule(mustRule(t, providers.CodexOrder, "user"), codexRoot("/u/.codex/prompts"))...)},
		{name: "claude off", options: map[string]any{"claude": false},
			want: []pipeline.Root{codexRoot("/u/.codex/prompts")}},
		{name: "codex off", options: map[string]any{"codex": false},
			want: []pipeline.Root{
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/u/.claude/commands", user, userKind, 0),
			}},
		{name: "both off: no roots", options: map[string]any{"claude": false, "codex": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.MustNew(t, New, tt.options)
			env := providertest.Env("/u", tt.env, "/r/app", "/r")
			env.ClaudeHome, env.CodexHome = filepath.FromSlash(tt.homes[0]), filepath.FromSlash(tt.homes[1])
			env.ClaudePrecedence, env.CodexPrecedence = tt.rules[0], tt.rules[1]
			providertest.CheckRoots(t, tt.want, providertest.PlanRoots(t, p, env))
		})
	}
}

func mustRule(t *testing.T, order providers.HostOrder, value string) *pipeline.Precedence {
	t.Helper()
	p, err := order.Precedence(value)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanAndScan plans over testdata/tree and scans the roots: nested
// Claude commands get folder names, Codex prompts are read top-level only,
// and the environment variables pick the user folders.
func TestPlanAndScan(t *testing.T) {
	tree, err := filepath.Abs(filepath.Join("testdata", "tree"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		want []string // "<provider> <location> <name>: <description>" in scan order
	}{
		{name: "default folders", want: []string{
			"claude project deploy: Deploy the app (nearer copy). [<env>]",
			"claude project frontend:review: Review the frontend",
			"claude project deploy: Deploy from the repository root.",
			"claude user user-only: A command only the user has.",
			"codex user sp.specify: Write a feature specification.",
		}},
		{name: "environment variables", env: map[string]string{
			"CLAUDE_CONFIG_DIR": filepath.Join(tree, "cfg"), "CODEX_HOME": filepath.Join(tree, "codexhome")},
			want: []string{
				"claude project deploy: Deploy the app (nearer copy). [<env>]",
				"claude project frontend:review: Review the frontend",
				"claude project deploy: Deploy from the repository root.",
				"claude user from-config-dir: Found through CLAUDE_CONFIG_DIR.",
				"codex user from-codex-home: Found through CODEX_HOME.",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := providertest.Env(filepath.Join(tree, "home"), tt.env, filepath.Join(tree, "repo", "app"), filepath.Join(tree, "repo"))
			plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
			res := scan.Scan(context.Background(), plan.Roots, scan.Options{})
			var got []string
			for _, r := range res.Records {
				if !r.IsCommand() {
					t.Errorf("%s is not a command", r.Name)
				}
				s := r.Agent + " " + string(r.Location) + " " + r.Name + ": " + r.Description
				if r.ArgumentHint != "" {
					s += " [" + r.ArgumentHint + "]"
				}
				got = append(got, s)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("commands (-want +got):\n%s", d)
			}
			if len(res.Diagnostics) != 0 {
				t.Errorf("diagnostics: %+v", res.Diagnostics)
			}
		})
	}
}
