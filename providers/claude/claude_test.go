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

// TestNew checks that the provider takes its decoded options as they are
// and gives the others its rule, its folder and its host.
func TestNew(t *testing.T) {
	providertest.CheckNew(t, New, "claude", []providertest.NewCase{
		{Name: "nil options: Claude Code's own order and folder", Check: want(personal, "/u/.claude")},
		{Name: "default options", Options: defaultOptions(), Check: want(personal, "/u/.claude")},
		{Name: "home set", Options: &Options{Home: "/h"}, Check: want(personal, "/h")},
		{Name: "precedence project", Options: &Options{Precedence: "project"}, Check: want(projectFirst, "/u/.claude")},
		{Name: "options of another provider", Options: &struct{ Home string }{},
			WantErr: []string{"providers.claude", "want a *claude.Options"}},
	})
}

// want checks the rule, the home folder in an Env with user folder /u, and
// the host of a provider New built.
func want(rule *pipeline.Precedence, home string) func(testing.TB, providers.Provider) {
	return func(tb testing.TB, p providers.Provider) {
		tb.Helper()
		if got := p.(providers.Ranker).Rule(); *got != *rule {
			tb.Errorf("Rule() = %+v, want %+v", *got, *rule)
		}
		if got := p.(providers.HomeOwner).Home(providertest.Env("/u", nil)); got != filepath.FromSlash(home) {
			tb.Errorf("Home() = %q, want %q", got, home)
		}
		if h := p.(providers.HostOwner).Host(); h.Name != HostName || h.Title != Title || h.Switcher == nil {
			tb.Errorf("Host() = %+v", h)
		}
	}
}

// personal is Claude Code's own order, the rule of every root by default.
var personal = Order.Default()

func wsRoot(path string, depth int) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "claude", Provider: "claude",
		Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceAgent, Depth: depth, Optional: true,
		Precedence: personal, Hosts: []string{HostName}, FolderNames: true}
}

func userRoot(path string) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "claude", Provider: "claude",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true, Precedence: personal,
		Hosts: []string{HostName}, FolderNames: true}
}

func TestPlan(t *testing.T) {
	wsDirs := []string{"/r/a/b", "/r/a", "/r"}
	tests := []struct {
		name    string
		options *Options
		dirs    []string // workspace folders, slash-separated, nearest first
		env     map[string]string
		homes   map[string]string // Env.Homes, as engine.New sets them
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
			name:    "the home option beats CLAUDE_CONFIG_DIR",
			options: &Options{Home: filepath.FromSlash("/alt")},
			dirs:    []string{"/w"},
			env:     map[string]string{"CLAUDE_CONFIG_DIR": filepath.FromSlash("/cfg")},
			want:    []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/alt/skills")},
		},
		{
			name:    "a relative home option is taken from the workspace",
			options: &Options{Home: "alt"},
			dirs:    []string{"/w"},
			want:    []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/w/alt/skills")},
		},
		{
			// The provider's own option decides its folder; Env.Homes is
			// what the readers of Claude's files see, set by engine.New
			// from that same option.
			name:    "the provider plans its own home, whatever Env.Homes holds",
			options: &Options{Home: filepath.FromSlash("/alt")},
			dirs:    []string{"/w"},
			homes:   map[string]string{"claude": filepath.FromSlash("/other")},
			want:    []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/alt/skills")},
		},
		{
			name:    "empty home option falls back",
			options: &Options{Home: ""},
			dirs:    []string{"/w"},
			env:     map[string]string{"CLAUDE_CONFIG_DIR": filepath.FromSlash("/cfg")},
			want:    []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/cfg/skills")},
		},
		{
			name:    "the precedence option is every root's rule",
			options: &Options{Precedence: "project"},
			dirs:    []string{"/w"},
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
			env.Homes = tt.homes
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
		options func(base string) *Options
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
			name:    "home option",
			options: func(base string) *Options { return &Options{Home: filepath.Join(base, "alt")} },
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
			p := providertest.MustNew(t, New, providertest.InTree(tt.options, base))
			m := providertest.InTree(tt.env, base)
			env := providers.NewEnv(filepath.Join(base, "home"), filepath.Join(base, "repo", "sub"), providertest.Vars(m))
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
