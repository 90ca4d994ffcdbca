package agents

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// TestNew checks that the provider takes its decoded options as they are
// and gives the others its rule and Gemini CLI as its host.
func TestNew(t *testing.T) {
	check := func(prefer pipeline.Location) func(testing.TB, providers.Provider) {
		return func(tb testing.TB, p providers.Provider) {
			if got := p.(providers.Ranker).Rule(); got.Prefer != prefer || got.HostPrefers != Order.Prefers {
				tb.Errorf("Rule() = %+v, want one preferring %s", *got, prefer)
			}
			if h := p.(providers.HostOwner).Host(); h.Name != GeminiHost || h.Title != GeminiTitle {
				tb.Errorf("Host() = %+v", h)
			}
		}
	}
	providertest.CheckNew(t, New, "agents", []providertest.NewCase{
		{Name: "nil options", Check: check(pipeline.LocationProject)},
		{Name: "precedence user", Options: &Options{Dynamic: true, Precedence: "user"}, Check: check(pipeline.LocationUser)},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.agents", "*agents.Options"}},
	})
}

// TestPlanLayout checks every root of a two-level workspace and the user
// folder, in order, with kinds, locations and depths.
func TestPlanLayout(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{
		"repo/.git/":               "",
		"repo/sub/":                "",
		"repo/.roo/skills/":        "",
		"repo/sub/.cursor/skills/": "",
		"home/.zed/skills/":        "",
	})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	rule := Order.Default()
	r := func(rel, provider string, loc pipeline.Location, kind pipeline.Kind, depth int) pipeline.Root {
		root := pipeline.Root{Path: abs(rel), Agent: provider, Provider: "agents", Location: loc, Kind: kind,
			Depth: depth, Optional: true, Precedence: rule}
		// Codex and Gemini CLI read .agents/skills; Gemini CLI .gemini/skills.
		switch {
		case strings.HasSuffix(rel, "/.agents/skills"):
			root.Hosts = []string{"codex", "gemini"}
		case strings.HasSuffix(rel, "/.gemini/skills"):
			root.Hosts = []string{"gemini"}
		}
		return root
	}
	const (
		proj = pipeline.LocationProject
		user = pipeline.LocationUser
	)
	fixed := func(ws string, depth int) []pipeline.Root {
		return []pipeline.Root{
			r(ws+"/.gemini/skills", "gemini", proj, pipeline.KindWorkspaceAgent, depth),
			r(ws+"/.openclaw/skills", "openclaw", proj, pipeline.KindWorkspaceAgent, depth),
		}
	}
	shared := func(ws string, depth int) []pipeline.Root {
		return []pipeline.Root{
			r(ws+"/.agents/skills", "agents", proj, pipeline.KindWorkspaceShared, depth),
			r(ws+"/.agent/skills", "agents", proj, pipeline.KindWorkspaceShared, depth),
			r(ws+"/skills", "agents", proj, pipeline.KindWorkspaceRoot, depth),
		}
	}
	var dynamicOn, dynamicOff []pipeline.Root
	dynamicOn = append(dynamicOn, fixed("repo/sub", 0)...)
	dynamicOn = append(dynamicOn, r("repo/sub/.cursor/skills", "cursor", proj, pipeline.KindWorkspaceAgent, 0))
	dynamicOn = append(dynamicOn, shared("repo/sub", 0)...)
	dynamicOn = append(dynamicOn, fixed("repo", 1)...)
	dynamicOn = append(dynamicOn, r("repo/.roo/skills", "roo", proj, pipeline.KindWorkspaceAgent, 1))
	dynamicOn = append(dynamicOn, shared("repo", 1)...)
	dynamicOn = append(dynamicOn,
		r("home/.gemini/skills", "gemini", user, pipeline.KindUserAgent, 0),
		r("home/.openclaw/skills", "openclaw", user, pipeline.KindUserAgent, 0),
		r("home/.zed/skills", "zed", user, pipeline.KindUserAgent, 0),
		r("home/.agents/skills", "agents", user, pipeline.KindUserShared, 0),
		r("home/.agent/skills", "agents", user, pipeline.KindUserShared, 0))
	for _, x := range dynamicOn {
		if x.Agent != "cursor" && x.Agent != "roo" && x.Agent != "zed" {
			dynamicOff = append(dynamicOff, x)
		}
	}
	// precedence user gives every root, dynamic ones included, the
	// reversed rule.
	userFirst := &pipeline.Precedence{Prefer: pipeline.LocationUser, Option: "providers.agents.precedence",
		HostPrefers: pipeline.LocationProject, HostRule: "Codex, Gemini CLI and OpenClaw rank project over user"}
	var dynamicUser []pipeline.Root
	for _, x := range dynamicOn {
		x.Precedence = userFirst
		dynamicUser = append(dynamicUser, x)
	}

	env := providers.NewEnv(abs("home"), abs("repo/sub"), providertest.Vars(nil))
	tests := []struct {
		name    string
		options *Options
		want    []pipeline.Root
	}{
		{"dynamic by default", nil, dynamicOn},
		{"dynamic true", &Options{Dynamic: true}, dynamicOn},
		{"dynamic false", &Options{Dynamic: false}, dynamicOff},
		{"precedence user", &Options{Dynamic: true, Precedence: "user"}, dynamicUser},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.MustNew(t, New, tt.options)
			got := providertest.PlanRoots(t, p, env)
			providertest.CheckRoots(t, tt.want, got)
			if again := providertest.PlanRoots(t, p, env); !cmp.Equal(got, again) {
				t.Errorf("a second Plan differs:\n%s", cmp.Diff(got, again))
			}
		})
	}
}

// dyn is a dynamic root: its provider and its path relative to the tree.
type dyn struct {
	Provider string
	Path     string
	Location pipeline.Location
	Kind     pipeline.Kind
}

// registryClaims is what engine.New puts in Env.Claimed from the built-in
// registry besides this provider's own folders and names (all.Claimed;
// this package's tests cannot import the registry, which imports it).
var registryClaims = []string{".claude", ".codex", ".commands", ".custom", ".marketplace", ".project"}

// TestDynamic checks which hidden children become dynamic agents, in a
// workspace "ws" (outside any repository) and a user folder "home", with
// Env.Claimed holding registryClaims unless a case says otherwise.
func TestDynamic(t *testing.T) {
	wsAgent := func(provider, path string) dyn {
		return dyn{provider, path, pipeline.LocationProject, pipeline.KindWorkspaceAgent}
	}
	userAgent := func(provider, path string) dyn {
		return dyn{provider, path, pipeline.LocationUser, pipeline.KindUserAgent}
	}
	tests := []struct {
		name    string
		tree    map[string]string
		claimed []string // Env.Claimed when not nil
		want    []dyn
	}{
		{
			name: "a .cursor/skills folder is the cursor agent",
			tree: map[string]string{"ws/.cursor/skills/": ""},
			want: []dyn{wsAgent("cursor", "ws/.cursor/skills")},
		},
		{
			name: "the provider name is lower-cased",
			tree: map[string]string{"ws/.Cursor/skills/": "", "home/.WindSurf/skills/": ""},
			want: []dyn{wsAgent("cursor", "ws/.Cursor/skills"), userAgent("windsurf", "home/.WindSurf/skills")},
		},
		{
			name: "reserved folders are never dynamic agents",
			tree: map[string]string{
				"ws/.git/skills/": "", "ws/.hg/skills/": "", "ws/.svn/skills/": "", "ws/.cache/skills/": "",
				"ws/.npm/skills/": "", "ws/.yarn/skills/": "", "ws/.pnpm-store/skills/": "", "ws/.local/skills/": "",
				"ws/.venv/skills/": "", "ws/.tox/skills/": "", "ws/.idea/skills/": "",
				"ws/.agents/skills/": "", "ws/.agent/skills/": "", "ws/.claude/skills/": "", "ws/.codex/skills/": "",
				"ws/.gemini/skills/": "", "ws/.openclaw/skills/": "", "ws/.Trash/skills/": "",
				"home/.claude/skills/": "", "home/.codex/skills/": "", "home/.cache/skills/": "", "home/.local/skills/": "",
			},
		},
		{
			name: "reserved names match whatever their case",
			tree: map[string]string{
				"ws/.Claude/skills/": "", "ws/.GIT/skills/": "", "ws/.Codex/skills/": "", "ws/.AGENTS/skills/": "",
				"home/.Gemini/skills/": "", "home/.trash/skills/": "",
			},
		},
		{
			name: "names that would pose as another provider or a filter keyword",
			tree: map[string]string{
				"ws/.project/skills/": "", "ws/.custom/skills/": "", "ws/.file/skills/": "",
				"ws/.marketplace/skills/": "", "ws/.all/skills/": "", "home/.Auto/skills/": "",
			},
		},
		{
			name:    "a folder the registry claims is no dynamic agent, whatever its case",
			tree:    map[string]string{"ws/.cursor/skills/": "", "home/.Cursor/skills/": "", "ws/.zed/skills/": ""},
			claimed: append(slices.Clone(registryClaims), ".cursor"),
			want:    []dyn{wsAgent("zed", "ws/.zed/skills")},
		},
		{
			name:    "this provider's own folders are reserved without any claim",
			tree:    map[string]string{"ws/.agents/skills/": "", "ws/.Agent/skills/": "", "home/.gemini/skills/": "", "home/.openclaw/skills/": ""},
			claimed: []string{},
		},
		{
			name: "a hidden child without skills/ is not planned",
			tree: map[string]string{"ws/.vscode/settings.json": "{}", "ws/.empty/": "", "ws/.other/skill/": ""},
		},
		{
			name: "a file named skills is not planned",
			tree: map[string]string{"ws/.filey/skills": "not a folder", "home/.notes/skills": ""},
		},
		{
			name: "visible folders and bad names are not agents",
			tree: map[string]string{"ws/visible/skills/": "", "ws/.1password/skills/": "", "ws/..x/skills/": "",
				"ws/.a.b/skills/": "", "ws/.-dash/skills/": ""},
		},
		{
			name: "names with digits, dashes and underscores",
			tree: map[string]string{"ws/.my-agent_2/skills/": ""},
			want: []dyn{wsAgent("my-agent_2", "ws/.my-agent_2/skills")},
		},
		{
			name: "a symlinked skills folder counts; a dangling one does not",
			tree: map[string]string{
				"target/": "", "ws/.linked/skills": "-> ../../target",
				"ws/.dangling/skills": "-> ../../nowhere",
			},
			want: []dyn{wsAgent("linked", "ws/.linked/skills")},
		},
		{
			name: "sorted by agent name at each level, workspace before user",
			tree: map[string]string{
				"ws/.zeta/skills/": "", "ws/.alpha/skills/": "", "ws/.Beta/skills/": "",
				"home/.yak/skills/": "", "home/.cursor/skills/": "",
			},
			want: []dyn{
				wsAgent("alpha", "ws/.alpha/skills"), wsAgent("beta", "ws/.Beta/skills"), wsAgent("zeta", "ws/.zeta/skills"),
				userAgent("cursor", "home/.cursor/skills"), userAgent("yak", "home/.yak/skills"),
			},
		},
		{
			name: "only immediate children are looked at",
			tree: map[string]string{"ws/sub/.cursor/skills/": "", "ws/.cursor/nested/.deep/skills/": ""},
		},
		{
			name: "missing user folder",
			tree: map[string]string{"ws/.cursor/skills/": "", "home": "-> nowhere"},
			want: []dyn{wsAgent("cursor", "ws/.cursor/skills")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			testfs.Write(t, base, map[string]string{"ws/": "", "home/": ""})
			if _, ok := tt.tree["home"]; ok {
				if err := os.Remove(filepath.Join(base, "home")); err != nil {
					t.Fatal(err)
				}
			}
			testfs.Write(t, base, tt.tree)
			env := providertest.Env(filepath.Join(base, "home"), nil, filepath.Join(base, "ws"))
			env.Claimed = registryClaims
			if tt.claimed != nil {
				env.Claimed = tt.claimed
			}

			// With dynamic off only the fixed roots are planned: gemini,
			// openclaw, .agents, .agent and skills/ in the workspace, and
			// all but skills/ in the user folder.
			fixed := providertest.PlanRoots(t, providertest.MustNew(t, New, &Options{}), env)
			if len(fixed) != 9 {
				t.Errorf("dynamic: false planned %d roots, want the 9 fixed ones: %v", len(fixed), fixed)
			}
			isFixed := map[string]bool{}
			for _, r := range fixed {
				isFixed[r.Path] = true
			}

			on := providertest.PlanRoots(t, providertest.MustNew(t, New, nil), env)
			var got []dyn
			var rest []pipeline.Root
			for _, r := range on {
				if isFixed[r.Path] {
					rest = append(rest, r)
					continue
				}
				got = append(got, dyn{r.Agent, providertest.Rel(t, base, r.Path), r.Location, r.Kind})
				if r.Provider != "agents" || !r.Optional || r.Depth != 0 {
					t.Errorf("dynamic root %+v: want Source agents, Optional, Depth 0", r)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("dynamic roots mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(fixed, rest); diff != "" {
				t.Errorf("fixed roots differ with dynamic on (-off +on):\n%s", diff)
			}
		})
	}
}

type found struct {
	Name     string
	Provider string
	Location pipeline.Location
	Kind     pipeline.Kind
}

// TestPlanScan scans the planned roots over the testdata tree: repo is the
// workspace and repository root, home the user folder.
func TestPlanScan(t *testing.T) {
	base := providertest.CopyTree(t, "testdata/tree", "repo")
	const (
		proj = pipeline.LocationProject
		user = pipeline.LocationUser
	)
	tests := []struct {
		name    string
		options *Options
		want    []found
	}{
		{
			name: "dynamic on",
			want: []found{
				{"ws-gemini", "gemini", proj, pipeline.KindWorkspaceAgent},
				{"ws-openclaw", "openclaw", proj, pipeline.KindWorkspaceAgent},
				{"ws-cursor", "cursor", proj, pipeline.KindWorkspaceAgent},
				{"ws-shared", "agents", proj, pipeline.KindWorkspaceShared},
				{"ws-legacy", "agents", proj, pipeline.KindWorkspaceShared},
				{"ws-root", "agents", proj, pipeline.KindWorkspaceRoot},
				{"user-gemini", "gemini", user, pipeline.KindUserAgent},
				{"user-openclaw", "openclaw", user, pipeline.KindUserAgent},
				{"user-windsurf", "windsurf", user, pipeline.KindUserAgent},
				{"user-shared", "agents", user, pipeline.KindUserShared},
				{"user-legacy", "agents", user, pipeline.KindUserShared},
			},
		},
		{
			name:    "dynamic off",
			options: &Options{Dynamic: false},
			want: []found{
				{"ws-gemini", "gemini", proj, pipeline.KindWorkspaceAgent},
				{"ws-openclaw", "openclaw", proj, pipeline.KindWorkspaceAgent},
				{"ws-shared", "agents", proj, pipeline.KindWorkspaceShared},
				{"ws-legacy", "agents", proj, pipeline.KindWorkspaceShared},
				{"ws-root", "agents", proj, pipeline.KindWorkspaceRoot},
				{"user-gemini", "gemini", user, pipeline.KindUserAgent},
				{"user-openclaw", "openclaw", user, pipeline.KindUserAgent},
				{"user-shared", "agents", user, pipeline.KindUserShared},
				{"user-legacy", "agents", user, pipeline.KindUserShared},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := providers.NewEnv(filepath.Join(base, "home"), filepath.Join(base, "repo"), providertest.Vars(nil))
			env.Claimed = registryClaims // as engine.New sets it
			roots := providertest.PlanRoots(t, providertest.MustNew(t, New, tt.options), env)
			res := scan.Scan(context.Background(), roots, scan.DefaultOptions())
			if len(res.Diagnostics) != 0 {
				t.Errorf("unexpected diagnostics: %v", res.Diagnostics)
			}
			var got []found
			for _, r := range res.Records {
				got = append(got, found{r.Name, r.Agent, r.Location, r.Kind})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
