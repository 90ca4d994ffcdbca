package copilot

import (
	"context"
	"path/filepath"
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
// and gives the others its rule.
func TestNew(t *testing.T) {
	check := func(prefer pipeline.Location) func(testing.TB, providers.Provider) {
		return func(tb testing.TB, p providers.Provider) {
			if got := p.(providers.Ranker).Rule(); got.Prefer != prefer || *got != *Order.Precedence(providers.PrecedenceOption(prefer)) {
				tb.Errorf("Rule() = %+v, want Copilot's order preferring %s", *got, prefer)
			}
		}
	}
	providertest.CheckNew(t, New, Name, []providertest.NewCase{
		{Name: "nil options", Check: check(pipeline.LocationProject)},
		{Name: "every option", Options: &Options{Settings: false, UserSettings: []string{"/s.json"}, Precedence: "user"},
			Check: check(pipeline.LocationUser)},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.copilot", "*copilot.Options"}},
	})
}

// TestEntry checks what the registry learns from the package: New's name,
// the copilot label, the folders claimed from the dynamic agents (so that
// .github/skills and ~/.copilot/skills are this provider's, not agents
// "github" and "copilot" of the agents provider), and New's defaults.
func TestEntry(t *testing.T) {
	e := Entry()
	p := providertest.MustNew(t, e.New, nil)
	if e.Name != Name || p.Name() != Name {
		t.Errorf("Entry().Name %q, provider name %q, want %q", e.Name, p.Name(), Name)
	}
	if diff := cmp.Diff([]string{"copilot"}, e.LabelNames()); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".copilot", ".github"}, providers.Claimed([]providers.Entry{e})); diff != "" {
		t.Errorf("claimed folders (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(p.(*Provider).opts, *e.Options().(*Options)); diff != "" {
		t.Errorf("Entry().Options() differs from New's defaults (-new +entry):\n%s", diff)
	}
}

// projectFirst is Copilot's own rule.
var projectFirst = Order.Default()

func root(path string, loc pipeline.Location, kind pipeline.Kind, depth int, optional bool) pipeline.Root {
	return pipeline.Root{Path: path, Agent: "copilot", Provider: "copilot", Location: loc, Kind: kind,
		Depth: depth, Optional: optional, Precedence: projectFirst}
}

// TestPlanTree plans the testdata tree: a repository with .github/skills
// at its root and in a sub-folder (the workspace), a .vscode/settings.json
// with comments and trailing commas that adds a team folder and a folder
// in the home folder, and VS Code user settings that add another.
func TestPlanTree(t *testing.T) {
	base := providertest.CopyTree(t, "testdata/tree", "repo")
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	env := providertest.Env(abs("home"), nil, abs("repo/app"), abs("repo"))
	p := providertest.MustNew(t, New, nil)
	p.(*Provider).goos = "linux"
	plan := providertest.Plan(t, p, env)
	const (
		proj = pipeline.LocationProject
		user = pipeline.LocationUser
		wa   = pipeline.KindWorkspaceAgent
		ua   = pipeline.KindUserAgent
	)
	providertest.CheckRoots(t, []pipeline.Root{
		root(abs("repo/app/.github/skills"), proj, wa, 0, true),
		root(abs("repo/.github/skills"), proj, wa, 1, true),
		root(abs("repo/team-skills"), proj, wa, 0, false),
		root(abs("home/.copilot/skills"), user, ua, 0, true),
		root(abs("home/more-skills"), user, ua, 0, false),
		root(abs("home/shared-skills"), user, ua, 0, false),
	}, plan.Roots)
	if len(plan.Diagnostics) != 0 {
		t.Errorf("unexpected diagnostics: %v", plan.Diagnostics)
	}
	want := []string{abs("home/.config/Code/User/settings.json"), abs("home/.config/Code - Insiders/User/settings.json"),
		abs("repo/.vscode/settings.json"), abs("repo/app/.vscode/settings.json")}
	if diff := cmp.Diff(want, plan.Manifests); diff != "" {
		t.Errorf("manifests (-want +got):\n%s", diff)
	}

	res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())
	if len(res.Diagnostics) != 0 {
		t.Errorf("unexpected scan diagnostics: %v", res.Diagnostics)
	}
	pipeline.AssignIDs(res.Records)
	var ids []string
	for _, r := range res.Records {
		ids = append(ids, r.ID)
	}
	wantIDs := []string{"copilot:app-deploy", "copilot:pr-review", "copilot:webapp-testing", "copilot:release-notes",
		"copilot:commit-message", "copilot:standup", "copilot:incident"}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// TestPlanSameRootsAsDynamicAgent checks that without settings the
// provider plans ~/.copilot/skills as the dynamic agents provider did
// (same label, location, kind and depth, hence the same ids), now with
// Copilot's precedence rule.
func TestPlanSameRootsAsDynamicAgent(t *testing.T) {
	p := providertest.MustNew(t, New, &Options{Settings: false})
	roots := providertest.PlanRoots(t, p, providertest.Env("/u", nil, "/w"))
	providertest.CheckRoots(t, []pipeline.Root{
		root(filepath.FromSlash("/w/.github/skills"), pipeline.LocationProject, pipeline.KindWorkspaceAgent, 0, true),
		root(filepath.FromSlash("/u/.copilot/skills"), pipeline.LocationUser, pipeline.KindUserAgent, 0, true),
	}, roots)
}

// TestPlanSettings checks how chat.agentSkillsLocations is read and
// merged, and that every broken settings file is a diagnostic naming the
// file, and its line where there is one.
func TestPlanSettings(t *testing.T) {
	const userFile = "home/.config/Code/User/settings.json"
	const wsFile = "repo/.vscode/settings.json"
	tests := []struct {
		name  string
		files map[string]string
		// roots are the planned roots, relative to the tree, with "u:"
		// before a user-level one.
		roots []string
		code  string
		path  string
		line  int
		has   []string
	}{
		{name: "no settings files",
			roots: []string{"repo/.github/skills", "u:home/.copilot/skills"}},
		{name: "the workspace turns .github/skills off",
			files: map[string]string{wsFile: `{"chat.agentSkillsLocations": {"./.github/skills/": false}}`},
			roots: []string{"u:home/.copilot/skills"}},
		{name: "the user turns ~/.copilot/skills off",
			files: map[string]string{userFile: `{"chat.agentSkillsLocations": {"~/.copilot/skills": false}}`},
			roots: []string{"repo/.github/skills"}},
		{name: "the workspace wins over the user, key by key",
			files: map[string]string{
				userFile: `{"chat.agentSkillsLocations": {".github/skills": false, "x": true}}`,
				wsFile:   `{"chat.agentSkillsLocations": {".github/skills": true, "x": false}}`},
			roots: []string{"repo/.github/skills", "u:home/.copilot/skills"}},
		{name: "user folders relative to the workspace folder, level from the file",
			files: map[string]string{userFile: `{"chat.agentSkillsLocations": {"team": true, "/abs/skills": true}}`},
			roots: []string{"repo/.github/skills", "u:home/.copilot/skills", "u:/abs/skills", "u:repo/team"}},
		{name: "other providers' folders are left to them",
			files: map[string]string{wsFile: `{"chat.agentSkillsLocations": {".agents/skills": true, ".claude/skills": true, "~/.claude/skills": true}}`},
			roots: []string{"repo/.github/skills", "u:home/.copilot/skills"}},
		{name: "the home folder itself is a user-level folder",
			files: map[string]string{wsFile: `{"chat.agentSkillsLocations": {"~/": true}}`},
			roots: []string{"repo/.github/skills", "u:home/.copilot/skills", "u:home"}},
		{name: "a folder named twice is planned once",
			files: map[string]string{wsFile: `{"chat.agentSkillsLocations": {"team": true, "./team/": true}}`},
			roots: []string{"repo/.github/skills", "repo/team", "u:home/.copilot/skills"}},
		{name: "malformed settings name their line",
			files: map[string]string{wsFile: "{\n  // skills\n  \"chat.agentSkillsLocations\": {\"team\": true}\n  \"x\": 1\n}"},
			roots: []string{"repo/.github/skills", "u:home/.copilot/skills"},
			code:  "vscode-settings-malformed", path: wsFile, line: 4,
			has: []string{"settings.json is not valid JSON with comments", "line 4"}},
		{name: "the setting as an array",
			files: map[string]string{wsFile: `{"chat.agentSkillsLocations": ["team"]}`},
			roots: []string{"repo/.github/skills", "u:home/.copilot/skills"},
			code:  "vscode-settings-invalid", path: wsFile, has: []string{"must be an object mapping folders to true or false"}},
		{name: "a value that is no boolean",
			files: map[string]string{wsFile: `{"chat.agentSkillsLocations": {"team": "yes", "more": true}}`},
			roots: []string{"repo/.github/skills", "repo/more", "u:home/.copilot/skills"},
			code:  "vscode-settings-invalid", path: wsFile, has: []string{`the value of "team" must be true or false`}},
		{name: "a glob is no folder",
			files: map[string]string{wsFile: `{"chat.agentSkillsLocations": {"skills/**": true}}`},
			roots: []string{"repo/.github/skills", "u:home/.copilot/skills"},
			code:  "vscode-settings-invalid", path: wsFile, has: []string{`"skills/**" is a glob`}},
		{name: "a settings file that is a folder",
			files: map[string]string{wsFile + "/": ""},
			roots: []string{"repo/.github/skills", "u:home/.copilot/skills"},
			code:  "vscode-settings-unreadable", path: wsFile, has: []string{"folder"}},
		{name: "a settings file that is no object",
			files: map[string]string{userFile: `[1, 2]`},
			roots: []string{"repo/.github/skills", "u:home/.copilot/skills"},
			code:  "vscode-settings-invalid", path: userFile, has: []string{"must hold a JSON object of settings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, map[string]string{"repo/.git/": "", "home/": ""})
			testfs.Write(t, base, tt.files)
			env := providertest.Env(filepath.Join(base, "home"), nil, filepath.Join(base, "repo"))
			p := providertest.MustNew(t, New, nil)
			p.(*Provider).goos = "linux"
			plan := providertest.Plan(t, p, env)
			var roots []string
			for _, r := range plan.Roots {
				rel := r.Path
				if strings.HasPrefix(r.Path, base) {
					rel = providertest.Rel(t, base, r.Path)
				} else {
					rel = filepath.ToSlash(rel)
				}
				if r.Location == pipeline.LocationUser {
					rel = "u:" + rel
				}
				roots = append(roots, rel)
			}
			if diff := cmp.Diff(tt.roots, roots); diff != "" {
				t.Errorf("roots (-want +got):\n%s", diff)
			}
			if tt.code == "" {
				if len(plan.Diagnostics) != 0 {
					t.Errorf("unexpected diagnostics: %v", plan.Diagnostics)
				}
				return
			}
			if len(plan.Diagnostics) != 1 {
				t.Fatalf("diagnostics %v, want one %s", plan.Diagnostics, tt.code)
			}
			d := plan.Diagnostics[0]
			if d.Code != tt.code || providertest.Rel(t, base, d.Path) != tt.path || d.Line != tt.line ||
				d.Provider != "copilot" || d.Severity != pipeline.SeverityWarning {
				t.Errorf("diagnostic %+v, want warning %s on %s line %d", d, tt.code, tt.path, tt.line)
			}
			for _, s := range tt.has {
				if !strings.Contains(d.Message, s) {
					t.Errorf("message %q does not hold %q", d.Message, s)
				}
			}
		})
	}
}

// TestPlanUserSettingsOption checks that user_settings replaces the
// system's VS Code settings files, with "~" for the user folder.
func TestPlanUserSettingsOption(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"home/.config/Code/User/settings.json": `{"chat.agentSkillsLocations": {"~/ignored": true}}`,
		"home/cursor-settings.json":            `{"chat.agentSkillsLocations": {"~/picked": true}}`,
	})
	env := providertest.Env(filepath.Join(base, "home"), nil, filepath.Join(base, "ws"))
	p := providertest.MustNew(t, New, &Options{Settings: true, UserSettings: []string{"~/cursor-settings.json"}})
	plan := providertest.Plan(t, p, env)
	last := plan.Roots[len(plan.Roots)-1]
	if last.Path != filepath.Join(base, "home", "picked") {
		t.Errorf("roots %v, want ~/picked last", plan.Roots)
	}
	for _, r := range plan.Roots {
		if strings.HasSuffix(r.Path, "ignored") {
			t.Errorf("the system settings were read: %v", plan.Roots)
		}
	}
}

func TestDefaultUserSettings(t *testing.T) {
	tests := []struct {
		goos string
		vars map[string]string
		want []string
	}{
		{"linux", nil, []string{"/u/.config/Code/User/settings.json", "/u/.config/Code - Insiders/User/settings.json"}},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "/x"},
			[]string{"/x/Code/User/settings.json", "/x/Code - Insiders/User/settings.json"}},
		{"freebsd", map[string]string{"XDG_CONFIG_HOME": "relative"},
			[]string{"/u/.config/Code/User/settings.json", "/u/.config/Code - Insiders/User/settings.json"}},
		{"darwin", nil, []string{"/u/Library/Application Support/Code/User/settings.json",
			"/u/Library/Application Support/Code - Insiders/User/settings.json"}},
		{"windows", map[string]string{"APPDATA": "/appdata"},
			[]string{"/appdata/Code/User/settings.json", "/appdata/Code - Insiders/User/settings.json"}},
		{"windows", nil, []string{"/u/AppData/Roaming/Code/User/settings.json",
			"/u/AppData/Roaming/Code - Insiders/User/settings.json"}},
	}
	for _, tt := range tests {
		got := DefaultUserSettings(providertest.Env("/u", tt.vars), tt.goos)
		for i := range got {
			got[i] = filepath.ToSlash(got[i])
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %v (-want +got):\n%s", tt.goos, tt.vars, diff)
		}
	}
}

// TestPlanPrecedence checks that the precedence option stamps every root.
func TestPlanPrecedence(t *testing.T) {
	p := providertest.MustNew(t, New, &Options{Precedence: "user", Settings: false})
	for _, r := range providertest.PlanRoots(t, p, providertest.Env("/u", nil, "/w")) {
		if r.Precedence == nil || r.Precedence.Prefer != pipeline.LocationUser ||
			r.Precedence.Option != "providers.copilot.precedence" || r.Precedence.HostPrefers != pipeline.LocationProject {
			t.Errorf("root %s precedence %+v, want user over project set by providers.copilot.precedence", r.Path, r.Precedence)
		}
	}
}
