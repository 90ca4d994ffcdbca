package claude

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
	providertest.CheckNew(t, New, "claude", []providertest.NewCase{
		{Name: "nil options"},
		{Name: "default options", Options: map[string]any{"home": ""}},
		{Name: "home set", Options: map[string]any{"home": "/h"}},
		{Name: "misspelt key", Options: map[string]any{"hom": "/h"},
			WantErr: []string{"providers.claude", `unknown key "hom"`, `did you mean "home"?`}},
		{Name: "option of another provider", Options: map[string]any{"system_dirs": []any{"/x"}},
			WantErr: []string{"providers.claude", `unknown key "system_dirs"`}},
		{Name: "precedence user", Options: map[string]any{"precedence": "user"}},
		{Name: "precedence project", Options: map[string]any{"precedence": "project"}},
		{Name: "unknown precedence", Options: map[string]any{"precedence": "personal"},
			WantErr: []string{"providers.claude.precedence", `invalid value "personal"`, "use user", "or project"}},
		{Name: "precedence not a string", Options: map[string]any{"precedence": []any{"user"}},
			WantErr: []string{"providers.claude", "precedence"}},
	})
}

// personal is Claude Code's own order, the rule of every root by default.
var personal = providers.ClaudeOrder.Default()

func wsRoot(path string, depth int) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "claude", Provider: "claude",
		Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceAgent, Depth: depth, Optional: true,
		Precedence: personal, Hosts: []string{HostName}}
}

func userRoot(path string) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "claude", Provider: "claude",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true, Precedence: personal,
		Hosts: []string{HostName}}
}

func TestPlan(t *testing.T) {
	wsDirs := []string{"/r/a/b", "/r/a", "/r"}
	tests := []struct {
		name    string
		options map[string]any
		dirs    []string // workspace folders, slash-separated, nearest first
		env     map[string]string
		home    string               // Env.ClaudeHome, slash-separated
		rule    *pipeline.Precedence // Env.ClaudePrecedence
		want    []pipeline.Root
	}{
		{
			name: "workspace roots nearest first, then the user root",
			dirs: wsDirs,
			want: []pipeline.Root{wsRoot("/r/a/b/.claude/skills", 0), wsRoot("/r/a/.claude/skills", 1),
				wsRoot("/r/.claude/skills", 2), userRoot("/u/.claude/skills")},
		},
		{
			name: "outside a repository",
			dirs: []string{"/w"},
			want: []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/u/.claude/skills")},
		},
		{
			name: "no workspace folders: the user root only",
			want: []pipeline.Root{userRoot("/u/.claude/skills")},
		},
		{
			name: "CLAUDE_CONFIG_DIR replaces ~/.claude",
			dirs: []string{"/w"},
			env:  map[string]string{"CLAUDE_CONFIG_DIR": filepath.FromSlash("/cfg")},
			want: []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/cfg/skills")},
		},
		{
			name: "Env.ClaudeHome beats CLAUDE_CONFIG_DIR",
			dirs: []string{"/w"},
			env:  map[string]string{"CLAUDE_CONFIG_DIR": filepath.FromSlash("/cfg")},
			home: "/alt",
			want: []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/alt/skills")},
		},
		{
			name: "Env.ClaudeHome without CLAUDE_CONFIG_DIR",
			dirs: []string{"/w"},
			home: "/alt",
			want: []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/alt/skills")},
		},
		{
			// engine.New puts the option in Env.ClaudeHome, so that the
			// commands and marketplace providers see it too.
			name:    "the home option is applied through Env, not by the provider",
			options: map[string]any{"home": filepath.FromSlash("/alt")},
			dirs:    []string{"/w"},
			home:    "/cfg",
			want:    []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/cfg/skills")},
		},
		{
			name:    "empty home option falls back",
			options: map[string]any{"home": ""},
			dirs:    []string{"/w"},
			env:     map[string]string{"CLAUDE_CONFIG_DIR": filepath.FromSlash("/cfg")},
			want:    []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/cfg/skills")},
		},
		{
			// engine.New puts the option in Env.ClaudePrecedence, so that
			// the commands provider ranks .claude/commands by it too.
			name:    "the precedence option is applied through Env, not by the provider",
			options: map[string]any{"precedence": "user"},
			dirs:    []string{"/w"},
			rule:    projectFirst,
			want: []pipeline.Root{withRule(wsRoot("/w/.claude/skills", 0), projectFirst),
				withRule(userRoot("/u/.claude/skills"), projectFirst)},
		},
		{
			name: "workspace roots do not move with CLAUDE_CONFIG_DIR",
			dirs: wsDirs[1:],
			env:  map[string]string{"CLAUDE_CONFIG_DIR": filepath.FromSlash("/cfg")},
			want: []pipeline.Root{wsRoot("/r/a/.claude/skills", 0), wsRoot("/r/.claude/skills", 1), userRoot("/cfg/skills")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.MustNew(t, New, tt.options)
			env := providertest.Env("/u", tt.env, tt.dirs...)
			env.ClaudeHome = filepath.FromSlash(tt.home)
			env.ClaudePrecedence = tt.rule
			roots := providertest.PlanRoots(t, p, env)
			providertest.CheckRoots(t, tt.want, roots)
			for _, r := range roots {
				if !r.Optional {
					t.Errorf("root %s is not Optional", r.Path)
				}
			}
		})
	}
}

// projectFirst is the rule of providers.claude.precedence: project.
var projectFirst = &pipeline.Precedence{Prefer: pipeline.LocationProject, Option: "providers.claude.precedence",
	HostPrefers: pipeline.LocationUser, HostRule: "Claude Code ranks personal over project"}

func withRule(r pipeline.Root, rule *pipeline.Precedence) pipeline.Root {
	r.Precedence = rule
	return r
}

// TestPlanReadsEnvNotProcess checks that CLAUDE_CONFIG_DIR is read through
// env.Getenv only.
func TestPlanReadsEnvNotProcess(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.FromSlash("/from-process"))
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), providertest.Env("/u", nil))
	providertest.CheckRoots(t, []pipeline.Root{userRoot("/u/.claude/skills")}, plan.Roots)
}

// found is the part of a scanned record the scan test compares.
type found struct {
	Name     string
	Location pipeline.Location
	Kind     pipeline.Kind
	Depth    int
	Root     string // relative to the tree
}

// TestPlanScan plans the testdata tree and scans it: the workspace repo/sub
// sits in the repository repo; the tree root above it also holds a
// .claude/skills that must never be planned.
func TestPlanScan(t *testing.T) {
	tests := []struct {
		name    string
		options func(base string) map[string]any
		env     func(base string) map[string]string
		want    []found
	}{
		{
			name: "default user folder",
			want: []found{
				{"sub-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 0, "repo/sub/.claude/skills"},
				{"repo-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"shared", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"shared", pipeline.LocationUser, pipeline.KindUserAgent, 0, "home/.claude/skills"},
				{"user-skill", pipeline.LocationUser, pipeline.KindUserAgent, 0, "home/.claude/skills"},
			},
		},
		{
			name: "CLAUDE_CONFIG_DIR",
			env: func(base string) map[string]string {
				return map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(base, "cfg")}
			},
			want: []found{
				{"sub-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 0, "repo/sub/.claude/skills"},
				{"repo-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"shared", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"cfg-skill", pipeline.LocationUser, pipeline.KindUserAgent, 0, "cfg/skills"},
			},
		},
		{
			name:    "home option, applied as engine.New does",
			options: func(base string) map[string]any { return map[string]any{"home": filepath.Join(base, "alt")} },
			env: func(base string) map[string]string {
				return map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(base, "cfg")}
			},
			want: []found{
				{"sub-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 0, "repo/sub/.claude/skills"},
				{"repo-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"shared", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"alt-skill", pipeline.LocationUser, pipeline.KindUserAgent, 0, "alt/skills"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := providertest.CopyTree(t, "testdata/tree", "repo")
			opts := providertest.InTree(tt.options, base)
			p := providertest.MustNew(t, New, opts)
			m := providertest.InTree(tt.env, base)
			env := providers.NewEnv(filepath.Join(base, "home"), filepath.Join(base, "repo", "sub"), providertest.Vars(m))
			home, _ := opts["home"].(string)
			env = providers.ResolveHomes(env, home, "")
			plan := providertest.Plan(t, p, env)
			res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())
			if len(res.Diagnostics) != 0 {
				t.Errorf("unexpected diagnostics: %v", res.Diagnostics)
			}
			var got []found
			for _, r := range res.Records {
				if r.Agent != "claude" {
					t.Errorf("record %s has provider %q", r.Name, r.Agent)
				}
				got = append(got, found{r.Name, r.Location, r.Kind, r.Depth, providertest.Rel(t, base, r.Root)})
			}
			// Records come in root order, then path order within a root;
			// the skill above the repository root is never planned.
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
