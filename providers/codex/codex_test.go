package codex

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

func TestNew(t *testing.T) {
	providertest.CheckNew(t, New, "codex", []providertest.NewCase{
		{Name: "nil options"},
		{Name: "default options", Options: map[string]any{"home": "", "system_dirs": []any{"/etc/codex/skills"}}},
		{Name: "system_dirs from an environment variable", Options: map[string]any{"system_dirs": "/a,/b"}},
		{Name: "misspelt key", Options: map[string]any{"system_dir": []any{"/x"}},
			WantErr: []string{"providers.codex", `unknown key "system_dir"`, `did you mean "system_dirs"?`}},
		{Name: "misspelt home", Options: map[string]any{"hmoe": "/x"},
			WantErr: []string{"providers.codex", `unknown key "hmoe"`, `did you mean "home"?`}},
		{Name: "precedence user", Options: map[string]any{"precedence": "user"}},
		{Name: "unknown precedence", Options: map[string]any{"precedence": "repo"},
			WantErr: []string{"providers.codex.precedence", `invalid value "repo"`, "use user", "or project"}},
	})
}

// repoFirst is Codex's own order, the rule of its workspace and user roots
// by default.
var repoFirst = providers.CodexOrder.Default()

func root(path string, loc pipeline.Location, kind pipeline.Kind, depth int) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "codex", Provider: "codex",
		Location: loc, Kind: kind, Depth: depth, Optional: true, Hosts: []string{HostName}}
}

func wsRoot(path string, depth int) pipeline.Root {
	r := root(path, pipeline.LocationProject, pipeline.KindWorkspaceAgent, depth)
	r.Precedence = repoFirst
	return r
}

// userRoots are the user root, skills/ in the Codex folder home, and the
// root of Codex's bundled skills below it.
func userRoots(home string) []pipeline.Root {
	r := root(home+"/skills", pipeline.LocationUser, pipeline.KindUserAgent, 0)
	r.Precedence = repoFirst
	return []pipeline.Root{r, sysRoot(home + "/skills/.system")}
}

func sysRoot(path string) pipeline.Root {
	return root(path, pipeline.LocationSystem, pipeline.KindSystem, 0)
}

// defaultSys is the root of the system_dirs option's default.
var defaultSys = sysRoot(DefaultSystemDir)

// roots joins single roots and lists of roots.
func roots(parts ...any) []pipeline.Root {
	var out []pipeline.Root
	for _, p := range parts {
		switch p := p.(type) {
		case pipeline.Root:
			out = append(out, p)
		case []pipeline.Root:
			out = append(out, p...)
		}
	}
	return out
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name    string
		options map[string]any
		dirs    []string
		env     map[string]string
		home    string               // Env.CodexHome
		rule    *pipeline.Precedence // Env.CodexPrecedence
		want    []pipeline.Root
	}{
		{
			// An option left out keeps its default (the Entry's), so the
			// machine-wide folder is planned without options too.
			name: "no options: workspace roots nearest first, the user root, the bundled skills, /etc/codex/skills",
			dirs: []string{"/r/a", "/r"},
			want: roots(wsRoot("/r/a/.codex/skills", 0), wsRoot("/r/.codex/skills", 1), userRoots("/u/.codex"), defaultSys),
		},
		{
			name:    "default options plan /etc/codex/skills last",
			options: map[string]any{"home": "", "system_dirs": []any{"/etc/codex/skills"}},
			dirs:    []string{"/w"},
			want:    roots(wsRoot("/w/.codex/skills", 0), userRoots("/u/.codex"), sysRoot("/etc/codex/skills")),
		},
		{
			name: "CODEX_HOME replaces ~/.codex, bundled skills included",
			dirs: []string{"/w"},
			env:  map[string]string{"CODEX_HOME": "/ch"},
			want: roots(wsRoot("/w/.codex/skills", 0), userRoots("/ch"), defaultSys),
		},
		{
			name: "Env.CodexHome beats CODEX_HOME",
			dirs: []string{"/w"},
			env:  map[string]string{"CODEX_HOME": "/ch"},
			home: "/alt",
			want: roots(wsRoot("/w/.codex/skills", 0), userRoots("/alt"), defaultSys),
		},
		{
			// engine.New puts the option in Env.CodexHome, so that the
			// commands provider sees it too.
			name:    "the home option is applied through Env, not by the provider",
			options: map[string]any{"home": "/alt"},
			dirs:    []string{"/w"},
			home:    "/ch",
			want:    roots(wsRoot("/w/.codex/skills", 0), userRoots("/ch"), defaultSys),
		},
		{
			name:    "empty home option falls back to CODEX_HOME",
			options: map[string]any{"home": ""},
			dirs:    []string{"/w"},
			env:     map[string]string{"CODEX_HOME": "/ch"},
			want:    roots(wsRoot("/w/.codex/skills", 0), userRoots("/ch"), defaultSys),
		},
		{
			name:    "several system dirs in order, from an environment-style string",
			options: map[string]any{"system_dirs": "/s1,/s2"},
			dirs:    []string{"/w"},
			want:    roots(wsRoot("/w/.codex/skills", 0), userRoots("/u/.codex"), sysRoot("/s1"), sysRoot("/s2")),
		},
		{
			name:    "empty system dirs",
			options: map[string]any{"system_dirs": []any{}},
			want:    userRoots("/u/.codex"),
		},
		{
			// engine.New puts the option in Env.CodexPrecedence, so that
			// the commands provider ranks Codex prompts by it too; system
			// roots carry no rule.
			name:    "the precedence option is applied through Env, not by the provider",
			options: map[string]any{"precedence": "project", "system_dirs": []any{"/s"}},
			dirs:    []string{"/w"},
			rule:    userFirst,
			want: func() []pipeline.Root {
				rs := roots(wsRoot("/w/.codex/skills", 0), userRoots("/u/.codex"), sysRoot("/s"))
				rs[0].Precedence, rs[1].Precedence = userFirst, userFirst
				return rs
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.MustNew(t, New, tt.options)
			env := providertest.Env("/u", tt.env, tt.dirs...)
			env.CodexHome = filepath.FromSlash(tt.home)
			env.CodexPrecedence = tt.rule
			providertest.CheckRoots(t, tt.want, providertest.PlanRoots(t, p, env))
		})
	}
}

// userFirst is the rule of providers.codex.precedence: user.
var userFirst = &pipeline.Precedence{Prefer: pipeline.LocationUser, Option: "providers.codex.precedence",
	HostPrefers: pipeline.LocationProject, HostRule: "Codex ranks repo over user"}

func TestPlanReadsEnvNotProcess(t *testing.T) {
	t.Setenv("CODEX_HOME", "/from-process")
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), providertest.Env("/u", nil))
	providertest.CheckRoots(t, roots(userRoots("/u/.codex"), defaultSys), plan.Roots)
}

type found struct {
	Name     string
	Location pipeline.Location
	Kind     pipeline.Kind
	Root     string // relative to the tree
}

// TestPlanScan scans the planned roots over the testdata tree. The bundled
// skills in .system are found once, by their own root, as system skills;
// system dirs give system records too.
func TestPlanScan(t *testing.T) {
	tests := []struct {
		name    string
		options func(base string) map[string]any
		env     func(base string) map[string]string
		want    []found
	}{
		{
			name: "default home and two system dirs, one missing",
			options: func(base string) map[string]any {
				return map[string]any{"system_dirs": []any{
					filepath.Join(base, "etc", "codex", "skills"),
					filepath.Join(base, "missing"),
					filepath.Join(base, "opt", "codex", "skills"),
				}}
			},
			want: []found{
				{"repo-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, "repo/.codex/skills"},
				{"nested", pipeline.LocationUser, pipeline.KindUserAgent, "home/.codex/skills"},
				{"my-skill", pipeline.LocationUser, pipeline.KindUserAgent, "home/.codex/skills"},
				{"bundled", pipeline.LocationSystem, pipeline.KindSystem, "home/.codex/skills/.system"},
				{"skill-creator", pipeline.LocationSystem, pipeline.KindSystem, "home/.codex/skills/.system"},
				{"sys-skill", pipeline.LocationSystem, pipeline.KindSystem, "etc/codex/skills"},
				{"opt-skill", pipeline.LocationSystem, pipeline.KindSystem, "opt/codex/skills"},
			},
		},
		{
			name: "CODEX_HOME",
			env: func(base string) map[string]string {
				return map[string]string{"CODEX_HOME": filepath.Join(base, "codexhome")}
			},
			want: []found{
				{"repo-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, "repo/.codex/skills"},
				{"env-skill", pipeline.LocationUser, pipeline.KindUserAgent, "codexhome/skills"},
				{"bundled", pipeline.LocationSystem, pipeline.KindSystem, "codexhome/skills/.system"},
			},
		},
		{
			name:    "home option, applied as engine.New does",
			options: func(base string) map[string]any { return map[string]any{"home": filepath.Join(base, "alt")} },
			env: func(base string) map[string]string {
				return map[string]string{"CODEX_HOME": filepath.Join(base, "codexhome")}
			},
			want: []found{
				{"repo-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, "repo/.codex/skills"},
				{"alt-skill", pipeline.LocationUser, pipeline.KindUserAgent, "alt/skills"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := providertest.CopyTree(t, "testdata/tree", "repo")
			opts := providertest.InTree(tt.options, base)
			p := providertest.MustNew(t, New, opts)
			m := providertest.InTree(tt.env, base)
			env := providers.NewEnv(filepath.Join(base, "home"), filepath.Join(base, "repo"), providertest.Vars(m))
			home, _ := opts["home"].(string)
			env = providers.ResolveHomes(env, "", home)
			plan := providertest.Plan(t, p, env)
			res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())
			if len(res.Diagnostics) != 0 {
				t.Errorf("unexpected diagnostics (a missing optional root is no problem): %v", res.Diagnostics)
			}
			var got []found
			for _, r := range res.Records {
				if r.Agent != "codex" {
					t.Errorf("record %s has provider %q", r.Name, r.Agent)
				}
				if strings.Contains(r.Dir, SystemFolder) && filepath.Base(r.Root) != SystemFolder {
					t.Errorf("bundled skill %s at %s was found by the walk of %s, not by its own root", r.Name, r.Dir, r.Root)
				}
				got = append(got, found{r.Name, r.Location, r.Kind, providertest.Rel(t, base, r.Root)})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
