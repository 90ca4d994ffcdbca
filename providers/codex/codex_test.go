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

// with returns the default options changed by set, as configs decodes a
// section that sets some keys.
func with(set func(o *Options)) *Options {
	o := defaultOptions()
	set(o)
	return o
}

// TestNew checks that the provider takes its decoded options as they are
// and gives the others its rule, its folder and its host.
func TestNew(t *testing.T) {
	check := func(rule *pipeline.Precedence, home string) func(testing.TB, providers.Provider) {
		return func(tb testing.TB, p providers.Provider) {
			if got := p.(providers.Ranker).Rule(); *got != *rule {
				tb.Errorf("Rule() = %+v, want %+v", *got, *rule)
			}
			if got := p.(providers.HomeOwner).Home(providertest.Env("/u", nil)); got != filepath.FromSlash(home) {
				tb.Errorf("Home() = %q, want %q", got, home)
			}
			if h := p.(providers.HostOwner).Host(); h.Name != HostName || h.Switcher == nil {
				tb.Errorf("Host() = %+v", h)
			}
		}
	}
	providertest.CheckNew(t, New, "codex", []providertest.NewCase{
		{Name: "nil options", Check: check(repoFirst, "/u/.codex")},
		{Name: "home set", Options: with(func(o *Options) { o.Home = "/h" }), Check: check(repoFirst, "/h")},
		{Name: "precedence user", Options: with(func(o *Options) { o.Precedence = "user" }), Check: check(userFirst, "/u/.codex")},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.codex", "*codex.Options"}},
	})
}

// repoFirst is Codex's own order, the rule of its workspace and user roots
// by default.
var repoFirst = Order.Default()

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
		options *Options
		dirs    []string
		env     map[string]string
		homes   map[string]string // Env.Homes, as engine.New sets them
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
			options: defaultOptions(),
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
			name:    "the home option beats CODEX_HOME",
			options: with(func(o *Options) { o.Home = "/alt" }),
			dirs:    []string{"/w"},
			env:     map[string]string{"CODEX_HOME": "/ch"},
			want:    roots(wsRoot("/w/.codex/skills", 0), userRoots("/alt"), defaultSys),
		},
		{
			// The provider's own option decides its folder; Env.Homes is
			// what the readers of Codex's files see.
			name:    "the provider plans its own home, whatever Env.Homes holds",
			options: with(func(o *Options) { o.Home = "/alt" }),
			dirs:    []string{"/w"},
			homes:   map[string]string{"codex": "/other"},
			want:    roots(wsRoot("/w/.codex/skills", 0), userRoots("/alt"), defaultSys),
		},
		{
			name:    "empty home option falls back to CODEX_HOME",
			options: with(func(o *Options) { o.Home = "" }),
			dirs:    []string{"/w"},
			env:     map[string]string{"CODEX_HOME": "/ch"},
			want:    roots(wsRoot("/w/.codex/skills", 0), userRoots("/ch"), defaultSys),
		},
		{
			name:    "several system dirs in order",
			options: with(func(o *Options) { o.SystemDirs = []string{"/s1", "/s2"} }),
			dirs:    []string{"/w"},
			want:    roots(wsRoot("/w/.codex/skills", 0), userRoots("/u/.codex"), sysRoot("/s1"), sysRoot("/s2")),
		},
		{
			name:    "empty system dirs",
			options: with(func(o *Options) { o.SystemDirs = []string{} }),
			want:    userRoots("/u/.codex"),
		},
		{
			// System roots carry no rule.
			name:    "the precedence option is the rule of the workspace and user roots",
			options: with(func(o *Options) { o.Precedence = "user"; o.SystemDirs = []string{"/s"} }),
			dirs:    []string{"/w"},
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
			env.Homes = tt.homes
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
		options func(base string) *Options
		env     func(base string) map[string]string
		want    []found
	}{
		{
			name: "default home and two system dirs, one missing",
			options: func(base string) *Options {
				return with(func(o *Options) {
					o.SystemDirs = []string{
						filepath.Join(base, "etc", "codex", "skills"),
						filepath.Join(base, "missing"),
						filepath.Join(base, "opt", "codex", "skills"),
					}
				})
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
			name:    "home option",
			options: func(base string) *Options { return with(func(o *Options) { o.Home = filepath.Join(base, "alt") }) },
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
			p := providertest.MustNew(t, New, providertest.InTree(tt.options, base))
			m := providertest.InTree(tt.env, base)
			env := providers.NewEnv(filepath.Join(base, "home"), filepath.Join(base, "repo"), providertest.Vars(m))
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
