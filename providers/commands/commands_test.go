package commands

import (
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
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
		{Name: "defaults", Options: defaultOptions(), Check: wantOptions(Options{Claude: true, Codex: true})},
		{Name: "codex off", Options: &Options{Claude: true}, Check: wantOptions(Options{Claude: true})},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.commands", "*commands.Options"}},
	})
}

func claudeRoot(path string, loc pipeline.Location, kind pipeline.Kind, depth int) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "claude", Provider: "commands", Location: loc,
		Kind: kind, Depth: depth, Optional: true, Type: pipeline.TypeCommand, Precedence: claude.Order.Default()}
}

func codexRoot(path string) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "codex", Provider: "commands",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true, Type: pipeline.TypeCommand, Flat: true,
		Precedence: codex.Order.Default()}
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
		options *Options
		env     map[string]string
		// homes and rules are Env.Homes and Env.Rules, as engine.New sets
		// them from the claude and codex providers' home and precedence
		// options (providers.Prepare).
		homes map[string]string
		rules map[string]*pipeline.Precedence
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
		{name: "the homes the claude and codex providers set beat the variables",
			env:   map[string]string{"CLAUDE_CONFIG_DIR": "/cfg", "CODEX_HOME": "/cx"},
			homes: map[string]string{claude.Name: "/claude-home", codex.Name: "/codex-home"},
			want: []pipeline.Root{
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/claude-home/commands", user, userKind, 0),
				codexRoot("/codex-home/prompts"),
			}},
		{name: "the rules the claude and codex providers set rank each host's commands",
			rules: map[string]*pipeline.Precedence{claude.Name: claude.Order.Precedence("project"), codex.Name: codex.Order.Precedence("user")},
			want: append(withRule(claude.Order.Precedence("project"),
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/u/.claude/commands", user, userKind, 0)),
				withRule(codex.Order.Precedence("user"), codexRoot("/u/.codex/prompts"))...)},
		{name: "claude off", options: &Options{Codex: true},
			want: []pipeline.Root{codexRoot("/u/.codex/prompts")}},
		{name: "codex off", options: &Options{Claude: true},
			want: []pipeline.Root{
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/u/.claude/commands", user, userKind, 0),
			}},
		{name: "both off: no roots", options: &Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.MustNew(t, New, tt.options)
			env := providertest.Env("/u", tt.env, "/r/app", "/r")
			env.Homes, env.Rules = map[string]string{}, tt.rules
			for name, dir := range tt.homes {
				env.Homes[name] = filepath.FromSlash(dir)
			}
			providertest.CheckRoots(t, tt.want, providertest.PlanRoots(t, p, env))
		})
	}
}
