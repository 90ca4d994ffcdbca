package marketplace

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/claude"
)

// pluginsDir is the default plugins root, relative to the harness base.
const pluginsDir = "home/.claude/plugins"

// harness is a fake machine under t.TempDir(): the user folder is
// <base>/home and the workspace is <base>/repo/sub inside the repository
// <base>/repo.
type harness struct {
	t    *testing.T
	base string
	vars map[string]string
	// claudeHome is the Claude folder the claude provider set in the Env
	// (Env.Homes), absolute; "" leaves it to the variables, as a
	// hand-built Env does.
	claudeHome string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, base: t.TempDir(), vars: map[string]string{}}
	h.mkdir("home")
	h.mkdir("repo/sub")
	return h
}

// abs turns a slash path relative to the base into an absolute path.
func (h *harness) abs(rel string) string {
	return filepath.Join(h.base, filepath.FromSlash(rel))
}

func (h *harness) mkdir(rel string) {
	h.t.Helper()
	if err := os.MkdirAll(h.abs(rel), 0o755); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) write(rel, content string) {
	h.t.Helper()
	h.mkdir(filepath.ToSlash(filepath.Dir(filepath.FromSlash(rel))))
	if err := os.WriteFile(h.abs(rel), []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// writeJSON writes v as JSON; a string is written verbatim.
func (h *harness) writeJSON(rel string, v any) {
	h.t.Helper()
	if s, ok := v.(string); ok {
		h.write(rel, s)
		return
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		h.t.Fatal(err)
	}
	h.write(rel, string(data))
}

// skills creates a skill folder with a SKILL.md under each dir.
func (h *harness) skills(dirs ...string) {
	h.t.Helper()
	for _, d := range dirs {
		h.write(d+"/SKILL.md", "---\nname: "+filepath.Base(d)+"\ndescription: test skill\n---\n")
	}
}

// installed writes the default installed_plugins.json.
func (h *harness) installed(v any) { h.writeJSON(pluginsDir+"/installed_plugins.json", v) }

func (h *harness) env() providers.Env {
	env := providers.Env{
		UserDir:       h.abs("home"),
		Workspace:     h.abs("repo/sub"),
		WorkspaceDirs: []string{h.abs("repo/sub"), h.abs("repo")},
		Getenv:        func(k string) string { return h.vars[k] },
	}
	if h.claudeHome != "" {
		env = env.WithHome(claude.Name, h.claudeHome)
	}
	return env
}

// with returns the default options changed by set, as configs decodes a
// section that sets some keys.
func with(set func(o *Options)) *Options {
	o := defaultOptions()
	set(o)
	return o
}

func (h *harness) plan(options *Options) providers.Plan {
	h.t.Helper()
	p, err := New(options)
	if err != nil {
		h.t.Fatalf("New: %v", err)
	}
	plan, err := p.Plan(context.Background(), h.env())
	if err != nil {
		h.t.Fatalf("Plan: %v", err)
	}
	return plan
}

// root is the install-folder root expected for key with its install
// folder and declared skill folders, all relative to the base.
func (h *harness) root(key, version, path string, skills ...string) pipeline.Root {
	plugin, market, _ := splitKey(key)
	return pipeline.Root{
		Path: h.abs(path), Agent: "claude", Provider: "marketplace",
		Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin, Prefix: plugin,
		Plugin:      &pipeline.PluginInfo{Plugin: plugin, Marketplace: market, Version: version},
		Skills:      h.absAll(skills...),
		FolderNames: true,
	}
}

// walked is the root expected for key's default skills/ folder (relative
// to the base): the scanner walks it, flat, for its skill folders.
func (h *harness) walked(key, version, skillsDir string) pipeline.Root {
	plugin, market, _ := splitKey(key)
	return pipeline.Root{
		Path: h.abs(skillsDir), Agent: "claude", Provider: "marketplace",
		Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin, Prefix: plugin,
		Plugin:      &pipeline.PluginInfo{Plugin: plugin, Marketplace: market, Version: version},
		Flat:        true,
		FolderNames: true,
	}
}

// absAll turns slash paths relative to the base into absolute paths; the
// result is never nil.
func (h *harness) absAll(rels ...string) []string {
	out := []string{}
	for _, r := range rels {
		out = append(out, h.abs(r))
	}
	return out
}

// pluginKey is "plugin@marketplace" for a root.
func pluginKey(r pipeline.Root) string { return r.Plugin.Plugin + "@" + r.Plugin.Marketplace }

// credited scans the plan's skill roots as the engine does and returns,
// for every plugin with a skill root, the skill folders credited to it
// (the records' Dir) in scan order; a plugin planned without skills maps
// to an empty list. The fixtures hold well-formed skills only, so any
// diagnostic of the scan (a warning about a folder that is no skill, for
// instance) fails the test.
func (h *harness) credited(plan providers.Plan) map[string][]string {
	h.t.Helper()
	var roots []pipeline.Root
	out := map[string][]string{}
	for _, r := range plan.Roots {
		if r.Type == pipeline.TypeCommand {
			continue
		}
		roots = append(roots, r)
		if _, ok := out[pluginKey(r)]; !ok {
			out[pluginKey(r)] = []string{}
		}
	}
	res := scan.Scan(context.Background(), roots, scan.DefaultOptions())
	for _, rec := range res.Records {
		if rec.Plugin == nil {
			h.t.Errorf("record %s has no plugin", rec.Dir)
			continue
		}
		key := rec.Plugin.Plugin + "@" + rec.Plugin.Marketplace
		out[key] = append(out[key], rec.Dir)
	}
	for _, d := range res.Diagnostics {
		h.t.Errorf("scan diagnostic: %s %s %s: %s", d.Severity, d.Code, d.Path, d.Message)
	}
	return out
}

// checkCredited compares the skills credited to each plugin, by scanning
// the plan, with want (paths relative to the base).
func (h *harness) checkCredited(plan providers.Plan, want map[string][]string) {
	h.t.Helper()
	abs := map[string][]string{}
	for k, v := range want {
		abs[k] = h.absAll(v...)
	}
	if diff := cmp.Diff(abs, h.credited(plan)); diff != "" {
		h.t.Errorf("credited skills (-want +got):\n%s", diff)
	}
}

// diagKey is the part of a diagnostic the tests compare exactly.
type diagKey struct {
	Severity pipeline.Severity
	Code     string
	Path     string
}

func keysOf(diags []pipeline.Diagnostic) []diagKey {
	out := []diagKey{}
	for _, d := range diags {
		out = append(out, diagKey{d.Severity, d.Code, d.Path})
	}
	return out
}

func (h *harness) diag(sev pipeline.Severity, code, rel string) diagKey {
	return diagKey{sev, code, h.abs(rel)}
}

// pluginKeys lists "plugin@marketplace" for each root, in order.
func pluginKeys(roots []pipeline.Root) []string {
	out := []string{}
	for _, r := range roots {
		out = append(out, pluginKey(r))
	}
	return out
}

func TestNewOptions(t *testing.T) {
	providertest.CheckNew(t, New, "marketplace", []providertest.NewCase{
		{Name: "nil options"},
		{Name: "empty defaults", Options: defaultOptions()},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.marketplace", "*marketplace.Options"}},
	})
}

// TestPlanManifestShapes checks that both installed_plugins.json shapes and
// relative or absolute install paths plan the same root and credit the
// same skills.
func TestPlanManifestShapes(t *testing.T) {
	const install = pluginsDir + "/cache/acme/tools/1.2.0"
	tests := []struct {
		name  string
		entry func(h *harness) any // the value of "tools@acme"
		v     int
	}{
		{name: "v1 absolute", v: 1, entry: func(h *harness) any {
			return map[string]any{"installPath": h.abs(install), "version": "1.2.0", "isLocal": false}
		}},
		{name: "v1 relative", v: 1, entry: func(h *harness) any {
			return map[string]any{"installPath": "cache/acme/tools/1.2.0", "version": "1.2.0"}
		}},
		{name: "v2 user scope", v: 2, entry: func(h *harness) any {
			return []any{map[string]any{"scope": "user", "installPath": h.abs(install), "version": "1.2.0"}}
		}},
		{name: "v2 relative without scope", v: 2, entry: func(h *harness) any {
			return []any{map[string]any{"installPath": "./cache/acme/tools/1.2.0/", "version": "1.2.0"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.skills(install+"/skills/lint", install+"/skills/format")
			h.installed(map[string]any{"version": tt.v, "plugins": map[string]any{"tools@acme": tt.entry(h)}})
			plan := h.plan(nil)
			want := []pipeline.Root{h.walked("tools@acme", "1.2.0", install+"/skills")}
			if diff := cmp.Diff(want, plan.Roots); diff != "" {
				t.Errorf("roots (-want +got):\n%s", diff)
			}
			h.checkCredited(plan, map[string][]string{
				"tools@acme": {install + "/skills/format", install + "/skills/lint"}})
			if len(plan.Diagnostics) != 0 {
				t.Errorf("unexpected diagnostics: %+v", plan.Diagnostics)
			}
		})
	}
}

// TestPlanRootsSortedAndInstallFolderNeverWalked checks the root order and
// that the scanner never walks an install folder: a plugin without skills
// still gets a root with a non-nil, empty Skills list, and the only root
// walked is a plugin's skills/ folder, flat.
func TestPlanRootsSortedAndInstallFolderNeverWalked(t *testing.T) {
	h := newHarness(t)
	for _, p := range []string{"zeta/m", "alpha/n", "alpha/m", "hooks-only/m"} {
		h.mkdir(pluginsDir + "/cache/" + p)
	}
	h.skills(pluginsDir + "/cache/zeta/m/skills/z")
	// A SKILL.md nested deeper than skills/<name> is not a plugin skill.
	h.skills(pluginsDir + "/cache/hooks-only/m/docs/examples/nested")
	h.installed(map[string]any{"version": 1, "plugins": map[string]any{
		"zeta@m":       map[string]any{"installPath": "cache/zeta/m"},
		"alpha@n":      map[string]any{"installPath": "cache/alpha/n"},
		"hooks-only@m": map[string]any{"installPath": "cache/hooks-only/m"},
		"alpha@m":      map[string]any{"installPath": "cache/alpha/m"},
	}})
	plan := h.plan(nil)
	if diff := cmp.Diff([]string{"alpha@m", "alpha@n", "hooks-only@m", "zeta@m"}, pluginKeys(plan.Roots)); diff != "" {
		t.Fatalf("root order (-want +got):\n%s", diff)
	}
	for _, r := range plan.Roots {
		if r.Skills == nil && (!r.Flat || filepath.Base(r.Path) != "skills") {
			t.Errorf("%s: Skills is nil; the scanner would walk %s", r.Prefix, r.Path)
		}
		if r.Optional {
			t.Errorf("%s: root is optional", r.Prefix)
		}
		if r.Plugin.Version != "unknown" {
			t.Errorf("%s: version = %q, want unknown", r.Prefix, r.Plugin.Version)
		}
	}
	const cache = pluginsDir + "/cache/"
	want := []pipeline.Root{
		h.root("alpha@m", "unknown", cache+"alpha/m"),
		h.root("alpha@n", "unknown", cache+"alpha/n"),
		h.root("hooks-only@m", "unknown", cache+"hooks-only/m"),
		h.walked("zeta@m", "unknown", cache+"zeta/m/skills"),
	}
	if diff := cmp.Diff(want, plan.Roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	h.checkCredited(plan, map[string][]string{
		"alpha@m": {}, "alpha@n": {}, "hooks-only@m": {},
		"zeta@m": {cache + "zeta/m/skills/z"},
	})
}

func TestPlanEnablement(t *testing.T) {
	const (
		user        = "home/.claude/settings.json"
		proj        = "repo/sub/.claude/settings.json"
		local       = "repo/sub/.claude/settings.local.json"
		parentProj  = "repo/.claude/settings.json"
		parentLocal = "repo/.claude/settings.local.json"
	)
	off := map[string]any{"enabledPlugins": map[string]any{"tools@acme": false}}
	on := map[string]any{"enabledPlugins": map[string]any{"tools@acme": true}}
	tests := []struct {
		name      string
		files     map[string]any
		wantOn    bool
		wantDiags func(h *harness) []diagKey
	}{
		{name: "no settings means enabled", wantOn: true},
		{name: "other plugin disabled", wantOn: true,
			files: map[string]any{user: map[string]any{"enabledPlugins": map[string]any{"tools@other": false}}}},
		{name: "disabled in user settings", files: map[string]any{user: off},
			wantDiags: func(h *harness) []diagKey { return []diagKey{h.diag("info", "plugin-disabled", user)} }},
		{name: "user off, local on", wantOn: true, files: map[string]any{user: off, local: on}},
		{name: "user on, local off", files: map[string]any{user: on, local: off},
			wantDiags: func(h *harness) []diagKey { return []diagKey{h.diag("info", "plugin-disabled", local)} }},
		{name: "project off, local on", wantOn: true, files: map[string]any{proj: off, local: on}},
		{name: "project on, local off", files: map[string]any{proj: on, local: off},
			wantDiags: func(h *harness) []diagKey { return []diagKey{h.diag("info", "plugin-disabled", local)} }},
		{name: "user off, project on", wantOn: true, files: map[string]any{user: off, proj: on}},
		{name: "repo root off, nearer project on", wantOn: true, files: map[string]any{parentProj: off, proj: on}},
		{name: "repo root local on, nearer project off", files: map[string]any{parentLocal: on, proj: off},
			wantDiags: func(h *harness) []diagKey { return []diagKey{h.diag("info", "plugin-disabled", proj)} }},
		{name: "malformed user settings are ignored", wantOn: true, files: map[string]any{user: `{"enabledPlugins": {`},
			wantDiags: func(h *harness) []diagKey { return []diagKey{h.diag("warning", "settings-malformed", user)} }},
		{name: "malformed local settings keep user choice", files: map[string]any{user: off, local: `{,}`},
			wantDiags: func(h *harness) []diagKey {
				return []diagKey{h.diag("warning", "settings-malformed", local), h.diag("info", "plugin-disabled", user)}
			}},
		{name: "enabledPlugins not an object", wantOn: true,
			files:     map[string]any{user: map[string]any{"enabledPlugins": []string{"tools@acme"}}},
			wantDiags: func(h *harness) []diagKey { return []diagKey{h.diag("warning", "settings-invalid", user)} }},
		{name: "non-boolean value is ignored", files: map[string]any{user: off,
			proj: map[string]any{"enabledPlugins": map[string]any{"tools@acme": "yes"}}},
			wantDiags: func(h *harness) []diagKey {
				return []diagKey{h.diag("warning", "settings-invalid", proj), h.diag("info", "plugin-disabled", user)}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.skills(pluginsDir + "/cache/acme/tools/1/skills/lint")
			h.installed(map[string]any{"version": 2, "plugins": map[string]any{
				"tools@acme": []any{map[string]any{"scope": "user", "installPath": "cache/acme/tools/1"}},
			}})
			for rel, v := range tt.files {
				h.writeJSON(rel, v)
			}
			plan := h.plan(nil)
			if got := len(plan.Roots) == 1; got != tt.wantOn {
				t.Errorf("plugin loaded = %v, want %v (roots %v)", got, tt.wantOn, pluginKeys(plan.Roots))
			}
			want := []diagKey{}
			if tt.wantDiags != nil {
				want = tt.wantDiags(h)
			}
			if diff := cmp.Diff(want, keysOf(plan.Diagnostics)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			for _, d := range plan.Diagnostics {
				if d.Code == "plugin-disabled" && !strings.Contains(d.Message, "plugin tools@acme is disabled in "+d.Path) {
					t.Errorf("disabled message = %q", d.Message)
				}
			}
			// A disabled plugin is also reported as data, with the
			// settings file that turns it off and its skills' names, for
			// name lookups.
			var wantOff []pipeline.DisabledPlugin
			for _, k := range want {
				if k.Code == "plugin-disabled" {
					wantOff = append(wantOff, pipeline.DisabledPlugin{Provider: "claude", Plugin: "tools", Marketplace: "acme",
						Settings: k.Path, Skills: []string{"lint"}})
				}
			}
			if diff := cmp.Diff(wantOff, plan.Disabled); diff != "" {
				t.Errorf("disabled plugins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlanSharedMarketplaceFolder is the B16 case: two plugins installed
// in one marketplace clone are each credited only with the skills their
// marketplace.json entry lists, and an undeclared skill goes to neither.
func TestPlanSharedMarketplaceFolder(t *testing.T) {
	h := newHarness(t)
	if err := os.CopyFS(h.abs("home"), os.DirFS("testdata/anthropic")); err != nil {
		t.Fatal(err)
	}
	const mkt = pluginsDir + "/marketplaces/anthropic-agent-skills"
	plan := h.plan(nil)
	want := []pipeline.Root{
		h.root("document-skills@anthropic-agent-skills", "00756142ab04", mkt,
			mkt+"/skills/sheets", mkt+"/skills/letters"),
		h.root("example-skills@anthropic-agent-skills", "00756142ab04", mkt,
			mkt+"/skills/poster", mkt+"/skills/brand-voice", mkt+"/skills/sheets"),
	}
	if diff := cmp.Diff(want, plan.Roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	h.checkCredited(plan, map[string][]string{
		"document-skills@anthropic-agent-skills": {mkt + "/skills/sheets", mkt + "/skills/letters"},
		"example-skills@anthropic-agent-skills": {
			mkt + "/skills/poster", mkt + "/skills/brand-voice", mkt + "/skills/sheets"},
	})
	if len(plan.Diagnostics) != 0 {
		t.Errorf("unexpected diagnostics: %+v", plan.Diagnostics)
	}
}

// TestPlanSharedMarketplaceCacheCopies covers the v2 layout, where each
// plugin of a "./" marketplace has its own cached copy: the skills come
// from the active copy, not from the marketplace clone.
func TestPlanSharedMarketplaceCacheCopies(t *testing.T) {
	h := newHarness(t)
	if err := os.CopyFS(h.abs("home"), os.DirFS("testdata/anthropic")); err != nil {
		t.Fatal(err)
	}
	const (
		mkt  = pluginsDir + "/marketplaces/anthropic-agent-skills"
		doc  = pluginsDir + "/cache/anthropic-agent-skills/document-skills/abc123"
		exmp = pluginsDir + "/cache/anthropic-agent-skills/example-skills/abc123"
	)
	for _, dst := range []string{doc, exmp} {
		if err := os.CopyFS(h.abs(dst), os.DirFS(h.abs(mkt))); err != nil {
			t.Fatal(err)
		}
	}
	h.installed(map[string]any{"version": 2, "plugins": map[string]any{
		"document-skills@anthropic-agent-skills": []any{map[string]any{
			"scope": "user", "installPath": h.abs(doc), "version": "abc123"}},
		"example-skills@anthropic-agent-skills": []any{map[string]any{
			"scope": "user", "installPath": h.abs(exmp), "version": "abc123"}},
	}})
	plan := h.plan(nil)
	want := []pipeline.Root{
		h.root("document-skills@anthropic-agent-skills", "abc123", doc, doc+"/skills/sheets", doc+"/skills/letters"),
		h.root("example-skills@anthropic-agent-skills", "abc123", exmp,
			exmp+"/skills/poster", exmp+"/skills/brand-voice", exmp+"/skills/sheets"),
	}
	if diff := cmp.Diff(want, plan.Roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	h.checkCredited(plan, map[string][]string{
		"document-skills@anthropic-agent-skills": {doc + "/skills/sheets", doc + "/skills/letters"},
		"example-skills@anthropic-agent-skills": {
			exmp + "/skills/poster", exmp + "/skills/brand-voice", exmp + "/skills/sheets"},
	})
}

// TestPlanCredit covers the three crediting rules and their precedence.
func TestPlanCredit(t *testing.T) {
	const (
		mkt = pluginsDir + "/marketplaces/acme"
		ins = pluginsDir + "/cache/acme/tools/1.0.0"
	)
	type setup func(h *harness)
	tests := []struct {
		name        string
		setup       setup
		installPath string
		want        []string // skill folders relative to the base
		wantVersion string
		// walk is the skills/ folder left to the scanner, or "" when every
		// skill is listed in the install folder's root.
		walk string
	}{
		{
			name:        "default skills folder, sorted, hidden and non-skill folders skipped",
			installPath: ins, wantVersion: "1.0.0", walk: ins + "/skills",
			setup: func(h *harness) {
				h.skills(ins+"/skills/b", ins+"/skills/a", ins+"/skills/.hidden")
				h.write(ins+"/skills/off/.SKILL.md", "---\nname: off\ndescription: disabled skill\n---\n")
				h.mkdir(ins + "/skills/notes")
				h.write(ins+"/skills/README.md", "not a skill")
				h.skills(ins + "/skills/a/deeper")
			},
			want: []string{ins + "/skills/a", ins + "/skills/b", ins + "/skills/off"},
		},
		{
			name:        "plugin.json skills add to skills/, declared order first",
			installPath: ins, wantVersion: "2.1.0",
			setup: func(h *harness) {
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{
					"name": "tools", "version": "2.1.0",
					"skills": []string{"./extra/one", "./skills/b", "./collection"},
				})
				h.skills(ins+"/extra/one", ins+"/collection/y", ins+"/collection/x",
					ins+"/skills/b", ins+"/skills/a")
			},
			want: []string{ins + "/extra/one", ins + "/skills/b", ins + "/collection/x",
				ins + "/collection/y", ins + "/skills/a"},
		},
		{
			name:        "plugin.json skills outside skills/ come before it",
			installPath: ins, wantVersion: "1.0.0", walk: ins + "/skills",
			setup: func(h *harness) {
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "skills": "./extra/one"})
				h.skills(ins+"/extra/one", ins+"/skills/b", ins+"/skills/a")
			},
			want: []string{ins + "/extra/one", ins + "/skills/a", ins + "/skills/b"},
		},
		{
			name:        "plugin.json naming skills/ itself credits each skill once",
			installPath: ins, wantVersion: "1.0.0",
			setup: func(h *harness) {
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "skills": []string{"./skills"}})
				h.skills(ins+"/skills/b", ins+"/skills/a")
			},
			want: []string{ins + "/skills/a", ins + "/skills/b"},
		},
		{
			name:        "plugin.json skills as one string naming the plugin root",
			installPath: ins, wantVersion: "1.0.0",
			setup: func(h *harness) {
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "skills": "./"})
				h.skills(ins)
			},
			want: []string{ins},
		},
		{
			name:        "plugin.json without skills keeps the default scan",
			installPath: ins, wantVersion: "1.0.0", walk: ins + "/skills",
			setup: func(h *harness) {
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools"})
				h.skills(ins + "/skills/a")
			},
			want: []string{ins + "/skills/a"},
		},
		{
			name:        "single-skill plugin",
			installPath: ins, wantVersion: "1.0.0",
			setup: func(h *harness) { h.skills(ins) },
			want:  []string{ins},
		},
		{
			name:        "disabled single-skill plugin",
			installPath: ins, wantVersion: "1.0.0",
			setup: func(h *harness) { h.write(ins+"/.SKILL.md", "---\nname: tools\ndescription: disabled skill\n---\n") },
			want:  []string{ins},
		},
		{
			name:        "root SKILL.md ignored when skills/ exists",
			installPath: ins, wantVersion: "1.0.0", walk: ins + "/skills",
			setup: func(h *harness) {
				h.skills(ins, ins+"/skills/a")
			},
			want: []string{ins + "/skills/a"},
		},
		{
			name:        "a SKILL.md in skills/ itself is not a skill",
			installPath: ins, wantVersion: "1.0.0", walk: ins + "/skills",
			setup: func(h *harness) {
				h.skills(ins+"/skills", ins+"/skills/a")
			},
			want: []string{ins + "/skills/a"},
		},
		{
			name:        "root SKILL.md ignored when plugin.json declares skills",
			installPath: ins, wantVersion: "1.0.0",
			setup: func(h *harness) {
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "skills": []string{"./extra"}})
				h.skills(ins, ins+"/extra/e")
			},
			want: []string{ins + "/extra/e"},
		},
		{
			name:        "marketplace entry skills are the complete set",
			installPath: mkt, wantVersion: "1.0.0",
			setup: func(h *harness) {
				h.writeJSON(mkt+"/.claude-plugin/marketplace.json", map[string]any{"name": "acme", "plugins": []any{
					map[string]any{"name": "tools", "source": "./", "skills": []string{"./skills/b", "./skills/a/SKILL.md"}},
				}})
				h.skills(mkt+"/skills/a", mkt+"/skills/b", mkt+"/skills/c")
			},
			want: []string{mkt + "/skills/b", mkt + "/skills/a"},
		},
		{
			name:        "relative source inside the marketplace clone",
			installPath: mkt, wantVersion: "1.0.0", // the install record outranks the entry
			walk: mkt + "/plugins/tools/skills",
			setup: func(h *harness) {
				h.writeJSON(mkt+"/.claude-plugin/marketplace.json", map[string]any{"name": "acme", "plugins": []any{
					map[string]any{"name": "tools", "source": "./plugins/tools", "version": "0.3.0"},
					map[string]any{"name": "other", "source": "./plugins/other"},
				}})
				h.skills(mkt+"/plugins/tools/skills/t", mkt+"/plugins/other/skills/o", mkt+"/skills/root-level")
			},
			want: []string{mkt + "/plugins/tools/skills/t"},
		},
		{
			name:        "bare source under metadata.pluginRoot",
			installPath: mkt, wantVersion: "1.0.0", walk: mkt + "/plugins/tools/skills",
			setup: func(h *harness) {
				h.writeJSON(mkt+"/.claude-plugin/marketplace.json", map[string]any{
					"name": "acme", "metadata": map[string]any{"pluginRoot": "./plugins"},
					"plugins": []any{map[string]any{"name": "tools", "source": "tools"}},
				})
				h.skills(mkt + "/plugins/tools/skills/t")
			},
			want: []string{mkt + "/plugins/tools/skills/t"},
		},
		{
			name:        "skill path may leave the plugin folder but not the marketplace",
			installPath: mkt, wantVersion: "1.0.0",
			setup: func(h *harness) {
				h.writeJSON(mkt+"/.claude-plugin/marketplace.json", map[string]any{"name": "acme", "plugins": []any{
					map[string]any{"name": "tools", "source": "./plugins/tools", "skills": []string{"../../shared/s"}},
				}})
				h.skills(mkt + "/shared/s")
				h.mkdir(mkt + "/plugins/tools")
			},
			want: []string{mkt + "/shared/s"},
		},
		{
			name:        "object source: plugin lives in the install folder",
			installPath: ins, wantVersion: "1.0.0",
			setup: func(h *harness) {
				h.writeJSON(mkt+"/.claude-plugin/marketplace.json", map[string]any{"name": "acme", "plugins": []any{
					map[string]any{"name": "tools", "source": map[string]any{"source": "github", "repo": "acme/tools"},
						"skills": []string{"./skills/only"}},
				}})
				h.skills(ins+"/skills/only", ins+"/skills/other", mkt+"/skills/only")
			},
			want: []string{ins + "/skills/only"},
		},
		{
			name:        "plugin.json wins over a strict marketplace entry",
			installPath: ins, wantVersion: "1.0.0", walk: ins + "/skills",
			setup: func(h *harness) {
				h.writeJSON(mkt+"/.claude-plugin/marketplace.json", map[string]any{"name": "acme", "plugins": []any{
					map[string]any{"name": "tools", "source": "./", "skills": []string{"./skills/a"}},
				}})
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools"})
				h.skills(ins+"/skills/a", ins+"/skills/b")
			},
			want: []string{ins + "/skills/a", ins + "/skills/b"},
		},
		{
			name:        "non-strict marketplace entry wins over plugin.json",
			installPath: ins, wantVersion: "1.0.0",
			setup: func(h *harness) {
				h.writeJSON(mkt+"/.claude-plugin/marketplace.json", map[string]any{"name": "acme", "plugins": []any{
					map[string]any{"name": "tools", "source": "./", "strict": false, "skills": []string{"./skills/a"}},
				}})
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "version": "9",
					"skills": []string{"./extra"}})
				h.skills(ins+"/skills/a", ins+"/skills/b", ins+"/extra/e")
			},
			want: []string{ins + "/skills/a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.mkdir(tt.installPath)
			tt.setup(h)
			h.installed(map[string]any{"version": 1, "plugins": map[string]any{
				"tools@acme": map[string]any{"installPath": h.abs(tt.installPath), "version": "1.0.0"},
			}})
			plan := h.plan(nil)
			// The install folder's root lists the skills not found by
			// walking skills/; it is left out when that leaves none.
			var listed []string
			for _, s := range tt.want {
				if tt.walk == "" || path.Dir(s) != tt.walk {
					listed = append(listed, s)
				}
			}
			var want []pipeline.Root
			if tt.walk == "" || len(listed) > 0 {
				want = append(want, h.root("tools@acme", tt.wantVersion, tt.installPath, listed...))
			}
			if tt.walk != "" {
				want = append(want, h.walked("tools@acme", tt.wantVersion, tt.walk))
			}
			if diff := cmp.Diff(want, plan.Roots); diff != "" {
				t.Errorf("roots (-want +got):\n%s", diff)
			}
			h.checkCredited(plan, map[string][]string{"tools@acme": tt.want})
			if len(plan.Diagnostics) != 0 {
				t.Errorf("unexpected diagnostics: %+v", plan.Diagnostics)
			}
		})
	}
}

func TestPlanVersionFallback(t *testing.T) {
	const ins = pluginsDir + "/cache/acme/tools/dir"
	tests := []struct {
		name     string
		manifest any // plugin.json, or nil
		entry    any // marketplace.json entry version, or nil
		record   string
		want     string
	}{
		{name: "plugin.json version first", manifest: map[string]any{"name": "tools", "version": "3.0.0"}, record: "1.0.0", want: "3.0.0"},
		{name: "install record next", manifest: map[string]any{"name": "tools"}, record: "1.0.0", want: "1.0.0"},
		{name: "marketplace entry version", entry: "0.9.0", want: "0.9.0"},
		{name: "unknown", want: "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.skills(ins + "/skills/a")
			if tt.manifest != nil {
				h.writeJSON(ins+"/.claude-plugin/plugin.json", tt.manifest)
			}
			if tt.entry != nil {
				h.writeJSON(pluginsDir+"/marketplaces/acme/.claude-plugin/marketplace.json", map[string]any{
					"plugins": []any{map[string]any{"name": "tools", "source": map[string]any{"source": "npm"}, "version": tt.entry}},
				})
			}
			h.installed(map[string]any{"version": 1, "plugins": map[string]any{
				"tools@acme": map[string]any{"installPath": h.abs(ins), "version": tt.record},
			}})
			plan := h.plan(nil)
			if len(plan.Roots) != 1 {
				t.Fatalf("roots = %v, diagnostics %+v", plan.Roots, plan.Diagnostics)
			}
			if got := plan.Roots[0].Plugin.Version; got != tt.want {
				t.Errorf("version = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPlanActiveCachedVersionOnly checks that old cached versions beside
// the active one are not credited.
func TestPlanActiveCachedVersionOnly(t *testing.T) {
	h := newHarness(t)
	const cache = pluginsDir + "/cache/acme/tools"
	for _, v := range []string{"1.0.0", "1.1.0", "2.0.0-rc1"} {
		h.skills(cache+"/"+v+"/skills/lint", cache+"/"+v+"/skills/v"+v)
	}
	h.installed(map[string]any{"version": 2, "plugins": map[string]any{
		"tools@acme": []any{map[string]any{"scope": "user", "installPath": h.abs(cache + "/1.1.0"), "version": "1.1.0"}},
	}})
	plan := h.plan(nil)
	want := []pipeline.Root{h.walked("tools@acme", "1.1.0", cache+"/1.1.0/skills")}
	if diff := cmp.Diff(want, plan.Roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	h.checkCredited(plan, map[string][]string{
		"tools@acme": {cache + "/1.1.0/skills/lint", cache + "/1.1.0/skills/v1.1.0"}})
}

func TestPlanInstallScopes(t *testing.T) {
	type rec struct{ scope, project, dir string }
	tests := []struct {
		name     string
		installs []rec
		want     string // the install folder chosen, "" for none
	}{
		{name: "user", installs: []rec{{"user", "", "u"}}, want: "u"},
		{name: "missing scope counts as user", installs: []rec{{"", "", "u"}}, want: "u"},
		{name: "project of another folder is ignored", installs: []rec{{"project", "elsewhere", "p"}}},
		{name: "local of another folder is ignored", installs: []rec{{"local", "repo/other", "l"}}},
		{name: "project without projectPath is ignored", installs: []rec{{"project", "-", "p"}}},
		{name: "other project falls back to user",
			installs: []rec{{"project", "elsewhere", "p"}, {"user", "", "u"}}, want: "u"},
		{name: "project of repo root beats user",
			installs: []rec{{"user", "", "u"}, {"project", "repo", "p"}}, want: "p"},
		{name: "nearest workspace folder wins",
			installs: []rec{{"local", "repo", "l"}, {"project", "repo/sub", "p"}}, want: "p"},
		{name: "local beats project in one folder",
			installs: []rec{{"project", "repo/sub", "p"}, {"local", "repo/sub", "l"}}, want: "l"},
		{name: "projectPath is cleaned before comparing",
			installs: []rec{{"user", "", "u"}, {"project", "repo/sub/../sub/", "p"}}, want: "p"},
		{name: "first user install wins",
			installs: []rec{{"user", "", "u"}, {"user", "", "u2"}}, want: "u"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			var list []any
			for _, r := range tt.installs {
				dir := pluginsDir + "/cache/acme/tools/" + r.dir
				h.skills(dir + "/skills/s")
				e := map[string]any{"scope": r.scope, "installPath": h.abs(dir)}
				if r.project != "" && r.project != "-" {
					// Deliberately not cleaned, as Claude may write it.
					e["projectPath"] = h.base + string(filepath.Separator) + filepath.FromSlash(r.project)
				}
				list = append(list, e)
			}
			h.installed(map[string]any{"version": 2, "plugins": map[string]any{"tools@acme": list}})
			plan := h.plan(nil)
			if tt.want == "" {
				if len(plan.Roots) != 0 {
					t.Fatalf("roots = %v, want none", plan.Roots)
				}
				want := []diagKey{h.diag("info", "plugin-other-project", pluginsDir+"/installed_plugins.json")}
				if diff := cmp.Diff(want, keysOf(plan.Diagnostics)); diff != "" {
					t.Errorf("diagnostics (-want +got):\n%s", diff)
				}
				return
			}
			if len(plan.Roots) != 1 {
				t.Fatalf("roots = %v, diagnostics %+v", plan.Roots, plan.Diagnostics)
			}
			active := pluginsDir + "/cache/acme/tools/" + tt.want
			if got, want := plan.Roots[0].Path, h.abs(active+"/skills"); got != want || !plan.Roots[0].Flat {
				t.Errorf("active install: walked root %s (flat %v), want %s", got, plan.Roots[0].Flat, want)
			}
			h.checkCredited(plan, map[string][]string{"tools@acme": {active + "/skills/s"}})
		})
	}
}

// TestPlanClaudeConfigDir checks that the Claude configuration folder
// (the one the claude provider set, else CLAUDE_CONFIG_DIR) replaces
// ~/.claude for the
// plugins folder and the user settings, and that plugins_root still beats
// it for the plugins folder only.
func TestPlanClaudeConfigDir(t *testing.T) {
	tests := []struct {
		name string
		// setup points the harness at the folder cfg (relative to the
		// base) and returns the provider's options.
		setup func(h *harness) *Options
		cfg   string
		// plugins is the plugins folder used, relative to the base.
		plugins string
	}{
		{name: "CLAUDE_CONFIG_DIR", cfg: "cfg", plugins: "cfg/plugins",
			setup: func(h *harness) *Options { h.vars["CLAUDE_CONFIG_DIR"] = h.abs("cfg"); return nil }},
		{name: "relative CLAUDE_CONFIG_DIR is taken from the workspace", cfg: "repo/sub/cfg", plugins: "repo/sub/cfg/plugins",
			setup: func(h *harness) *Options { h.vars["CLAUDE_CONFIG_DIR"] = "cfg"; return nil }},
		{name: "the claude provider's home (providers.claude.home) beats CLAUDE_CONFIG_DIR", cfg: "opt", plugins: "opt/plugins",
			setup: func(h *harness) *Options {
				h.vars["CLAUDE_CONFIG_DIR"] = h.abs("cfg")
				h.claudeHome = h.abs("opt")
				return nil
			}},
		{name: "plugins_root beats the claude provider's home for plugins, not settings", cfg: "opt", plugins: "alt",
			setup: func(h *harness) *Options {
				h.claudeHome = h.abs("opt")
				return with(func(o *Options) { o.PluginsRoot = h.abs("alt") })
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			// Decoys in the default folder.
			h.skills(pluginsDir + "/cache/m/decoy/skills/d")
			h.installed(map[string]any{"version": 1, "plugins": map[string]any{
				"decoy@m": map[string]any{"installPath": "cache/m/decoy"},
			}})
			h.writeJSON("home/.claude/settings.json", map[string]any{"enabledPlugins": map[string]any{"real@m": false}})
			// The relocated configuration.
			opts := tt.setup(h)
			h.skills(tt.plugins+"/cache/m/real/skills/r", tt.plugins+"/cache/m/off/skills/o")
			h.writeJSON(tt.plugins+"/installed_plugins.json", map[string]any{"version": 1, "plugins": map[string]any{
				"real@m": map[string]any{"installPath": "cache/m/real", "version": "1"},
				"off@m":  map[string]any{"installPath": "cache/m/off", "version": "1"},
			}})
			h.writeJSON(tt.cfg+"/settings.json", map[string]any{"enabledPlugins": map[string]any{"off@m": false}})
			plan := h.plan(opts)
			want := []pipeline.Root{h.walked("real@m", "1", tt.plugins+"/cache/m/real/skills")}
			if diff := cmp.Diff(want, plan.Roots); diff != "" {
				t.Errorf("roots (-want +got):\n%s\ndiagnostics: %+v", diff, plan.Diagnostics)
			}
			h.checkCredited(plan, map[string][]string{"real@m": {tt.plugins + "/cache/m/real/skills/r"}})
			if diff := cmp.Diff([]diagKey{h.diag("info", "plugin-disabled", tt.cfg+"/settings.json")}, keysOf(plan.Diagnostics)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlanFIFONeverBlocks checks that a FIFO named like one of Claude's
// files is refused with a warning instead of stalling Plan on open (while
// the engine holds its lock).
func TestPlanFIFONeverBlocks(t *testing.T) {
	const market = pluginsDir + "/marketplaces/acme"
	tests := []struct {
		name string
		fifo string // relative to the base
		code string
		// planned says whether tools@acme is still planned.
		planned bool
	}{
		{name: "installed_plugins.json", fifo: pluginsDir + "/installed_plugins.json", code: "installed-plugins-unreadable"},
		{name: "user settings.json", fifo: "home/.claude/settings.json", code: "settings-unreadable", planned: true},
		{name: "workspace settings.local.json", fifo: "repo/sub/.claude/settings.local.json", code: "settings-unreadable", planned: true},
		{name: "known_marketplaces.json", fifo: pluginsDir + "/known_marketplaces.json", code: "known-marketplaces-unreadable", planned: true},
		{name: "marketplace.json", fifo: market + "/.claude-plugin/marketplace.json", code: "marketplace-manifest-unreadable", planned: true},
		{name: "plugin.json", fifo: market + "/.claude-plugin/plugin.json", code: "plugin-manifest-unreadable", planned: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.skills(market + "/skills/s")
			h.mkdir(market + "/.claude-plugin")
			h.mkdir("home/.claude")
			h.mkdir("repo/sub/.claude")
			if tt.fifo != pluginsDir+"/installed_plugins.json" {
				h.installed(map[string]any{"version": 1, "plugins": map[string]any{
					"tools@acme": map[string]any{"installPath": h.abs(market), "version": "1"},
				}})
			}
			if err := syscall.Mkfifo(h.abs(tt.fifo), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := New(nil)
			if err != nil {
				t.Fatal(err)
			}
			type result struct {
				plan providers.Plan
				err  error
			}
			done := make(chan result, 1)
			go func() {
				plan, err := p.Plan(context.Background(), h.env())
				done <- result{plan, err}
			}()
			var plan providers.Plan
			select {
			case r := <-done:
				if r.err != nil {
					t.Fatalf("Plan: %v", r.err)
				}
				plan = r.plan
			case <-time.After(10 * time.Second):
				t.Fatalf("Plan blocked on a FIFO named %s", tt.fifo)
			}
			found := false
			for _, d := range plan.Diagnostics {
				if d.Code == tt.code && d.Path == h.abs(tt.fifo) {
					found = true
					if d.Severity != pipeline.SeverityWarning || !strings.Contains(d.Message, "named pipe") ||
						!strings.Contains(d.Message, "not a regular file") {
						t.Errorf("diagnostic = %+v, want a warning saying the file is a named pipe", d)
					}
				}
			}
			if !found {
				t.Errorf("no %s diagnostic for the FIFO: %+v", tt.code, plan.Diagnostics)
			}
			if planned := len(plan.Roots) > 0; planned != tt.planned {
				t.Errorf("tools@acme planned = %v, want %v: roots %+v", planned, tt.planned, plan.Roots)
			}
		})
	}
}

func TestPlanPathOptions(t *testing.T) {
	tests := []struct {
		name    string
		options func(h *harness) *Options
		root    string // the plugins root used for relative install paths
	}{
		{name: "plugins_root", root: "alt",
			options: func(h *harness) *Options { return with(func(o *Options) { o.PluginsRoot = h.abs("alt") }) }},
		{name: "plugins_file beside the default root", root: pluginsDir,
			options: func(h *harness) *Options {
				return with(func(o *Options) { o.PluginsFile = h.abs("alt/installed_plugins.json") })
			}},
		{name: "relative plugins_root is taken from the workspace", root: "repo/sub/vendor/plugins",
			options: func(h *harness) *Options { return with(func(o *Options) { o.PluginsRoot = "vendor/plugins" }) }},
		{name: "tilde plugins_root", root: "home/alt",
			options: func(h *harness) *Options { return with(func(o *Options) { o.PluginsRoot = "~/alt" }) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			opts := tt.options(h)
			file := tt.root + "/installed_plugins.json"
			if f := opts.PluginsFile; f != "" {
				rel, _ := filepath.Rel(h.base, f)
				file = filepath.ToSlash(rel)
			}
			h.writeJSON(file, map[string]any{"version": 1, "plugins": map[string]any{
				"tools@acme": map[string]any{"installPath": "cache/acme/tools/1"},
			}})
			h.skills(tt.root + "/cache/acme/tools/1/skills/s")
			plan := h.plan(opts)
			want := []pipeline.Root{h.walked("tools@acme", "unknown", tt.root+"/cache/acme/tools/1/skills")}
			if diff := cmp.Diff(want, plan.Roots); diff != "" {
				t.Errorf("roots (-want +got):\n%s\ndiagnostics: %+v", diff, plan.Diagnostics)
			}
			h.checkCredited(plan, map[string][]string{"tools@acme": {tt.root + "/cache/acme/tools/1/skills/s"}})
		})
	}
}

func TestPlanMissingPluginsFile(t *testing.T) {
	h := newHarness(t)
	// Broken settings do not matter while nothing is installed.
	h.write("home/.claude/settings.json", "{")
	h.write("repo/.claude/settings.json", `{"enabledPlugins": {"ghost@acme": true, "off@acme": false}}`)
	plan := h.plan(nil)
	if len(plan.Roots) != 0 {
		t.Errorf("roots = %v, want none", plan.Roots)
	}
	// A plugin the settings enable is not loaded: Claude Code says
	// nothing of it, ccski does.
	notInstalled := h.diag("warning", "plugin-not-installed", "repo/.claude/settings.json")
	want := []diagKey{h.diag("info", "installed-plugins-missing", pluginsDir+"/installed_plugins.json"), notInstalled}
	if diff := cmp.Diff(want, keysOf(plan.Diagnostics)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if msg := plan.Diagnostics[len(plan.Diagnostics)-1].Message; !strings.Contains(msg, "ghost@acme") ||
		strings.Contains(msg, "off@acme") {
		t.Errorf("message %q should name ghost@acme only", msg)
	}

	plan = h.plan(with(func(o *Options) { o.PluginsFile = h.abs("nowhere.json") }))
	want = []diagKey{h.diag("warning", "installed-plugins-missing", "nowhere.json"), notInstalled}
	if diff := cmp.Diff(want, keysOf(plan.Diagnostics)); diff != "" {
		t.Errorf("explicit file diagnostics (-want +got):\n%s", diff)
	}
}

// TestPlanMalformedFiles checks that every broken file yields a diagnostic
// naming it, and that the healthy plugin good@acme still loads.
func TestPlanMalformedFiles(t *testing.T) {
	const (
		installedFile = pluginsDir + "/installed_plugins.json"
		knownFile     = pluginsDir + "/known_marketplaces.json"
		mkt           = pluginsDir + "/marketplaces/acme"
		mktFile       = mkt + "/.claude-plugin/marketplace.json"
		good          = pluginsDir + "/cache/acme/good/1"
		bad           = pluginsDir + "/cache/acme/bad/1"
		badManifest   = bad + "/.claude-plugin/plugin.json"
	)
	goodEntry := func(h *harness) any { return map[string]any{"installPath": h.abs(good), "version": "1"} }
	badEntry := func(h *harness) any { return map[string]any{"installPath": h.abs(bad), "version": "1"} }
	withBad := func(bad func(h *harness) any) func(h *harness) {
		return func(h *harness) {
			h.installed(map[string]any{"version": 1, "plugins": map[string]any{"good@acme": goodEntry(h), "bad@acme": bad(h)}})
		}
	}
	tests := []struct {
		name      string
		setup     func(h *harness)
		wantDiags []diagKey // paths relative to the base
		wantGood  bool
		// wantBad lists the skills credited to bad@acme (relative to
		// bad), or nil when bad@acme must not be planned.
		wantBad []string
		// inMessage must appear in the first diagnostic's message.
		inMessage string
	}{
		{name: "installed_plugins.json not JSON",
			setup:     func(h *harness) { h.installed(`{"version": 1, "plugins": {`) },
			wantDiags: []diagKey{{"warning", "installed-plugins-malformed", installedFile}},
			inMessage: "not valid JSON"},
		{name: "installed_plugins.json is an array",
			setup:     func(h *harness) { h.installed(`[{"plugins": {}}]`) },
			wantDiags: []diagKey{{"warning", "installed-plugins-invalid", installedFile}}},
		{name: "installed_plugins.json is null",
			setup:     func(h *harness) { h.installed(`null`) },
			wantDiags: []diagKey{{"warning", "installed-plugins-invalid", installedFile}}},
		{name: "plugins is not an object",
			setup:     func(h *harness) { h.installed(`{"version": 2, "plugins": ["good@acme"]}`) },
			wantDiags: []diagKey{{"warning", "installed-plugins-invalid", installedFile}},
			inMessage: `"plugins"`},
		{name: "v1 entry is not an object", wantGood: true,
			setup:     withBad(func(h *harness) any { return 42 }),
			wantDiags: []diagKey{{"warning", "plugin-entry-invalid", installedFile}},
			inMessage: `"bad@acme"`},
		{name: "v1 entry is null", wantGood: true,
			setup:     withBad(func(h *harness) any { return nil }),
			wantDiags: []diagKey{{"warning", "plugin-entry-invalid", installedFile}},
			inMessage: `"bad@acme"`},
		{name: "v2 array with a bad install keeps the good one", wantGood: true, wantBad: []string{"skills/b"},
			setup: withBad(func(h *harness) any {
				return []any{"oops", map[string]any{"scope": "user", "installPath": h.abs(bad)}}
			}),
			wantDiags: []diagKey{{"warning", "plugin-entry-invalid", installedFile}},
			inMessage: `"bad@acme" (install 1)`},
		{name: "entry without installPath", wantGood: true,
			setup:     withBad(func(h *harness) any { return map[string]any{"version": "1"} }),
			wantDiags: []diagKey{{"warning", "plugin-install-path-missing", installedFile}},
			inMessage: `"bad@acme"`},
		{name: "installPath is not a string", wantGood: true,
			setup:     withBad(func(h *harness) any { return map[string]any{"installPath": []string{"x"}} }),
			wantDiags: []diagKey{{"warning", "plugin-install-path-missing", installedFile}}},
		{name: "key without marketplace", wantGood: true,
			setup: func(h *harness) {
				h.installed(map[string]any{"version": 1, "plugins": map[string]any{"good@acme": goodEntry(h), "bad": badEntry(h)}})
			},
			wantDiags: []diagKey{{"warning", "plugin-key-invalid", installedFile}},
			inMessage: `"bad"`},
		{name: "key with empty sides", wantGood: true,
			setup: func(h *harness) {
				h.installed(map[string]any{"version": 1, "plugins": map[string]any{
					"good@acme": goodEntry(h), "@acme": badEntry(h), "bad@": badEntry(h)}})
			},
			wantDiags: []diagKey{{"warning", "plugin-key-invalid", installedFile},
				{"warning", "plugin-key-invalid", installedFile}}},
		{name: "install folder missing", wantGood: true,
			setup: withBad(func(h *harness) any {
				return map[string]any{"installPath": h.abs(pluginsDir + "/cache/acme/bad/gone")}
			}),
			wantDiags: []diagKey{{"warning", "plugin-install-missing", pluginsDir + "/cache/acme/bad/gone"}},
			inMessage: "bad@acme"},
		{name: "known_marketplaces.json not JSON", wantGood: true, wantBad: []string{"skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.write(knownFile, "{oops")
			},
			wantDiags: []diagKey{{"warning", "known-marketplaces-malformed", knownFile}}},
		{name: "known marketplace entry not an object", wantGood: true, wantBad: []string{"skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.writeJSON(knownFile, map[string]any{"acme": "github:acme/market"})
			},
			wantDiags: []diagKey{{"warning", "known-marketplaces-invalid", knownFile}},
			inMessage: `"acme"`},
		{name: "marketplace.json not JSON falls back to skills/", wantGood: true, wantBad: []string{"skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.write(mktFile, `{"plugins": [}`)
			},
			wantDiags: []diagKey{{"warning", "marketplace-manifest-malformed", mktFile}}},
		{name: "marketplace.json plugins not an array", wantGood: true, wantBad: []string{"skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.writeJSON(mktFile, map[string]any{"plugins": map[string]any{"bad": map[string]any{}}})
			},
			wantDiags: []diagKey{{"warning", "marketplace-manifest-invalid", mktFile}}},
		{name: "marketplace entry without a name", wantGood: true, wantBad: []string{"skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.writeJSON(mktFile, map[string]any{"plugins": []any{map[string]any{"source": "./"}, 7}})
			},
			wantDiags: []diagKey{{"warning", "marketplace-manifest-invalid", mktFile},
				{"warning", "marketplace-manifest-invalid", mktFile}},
			inMessage: "plugins[0]"},
		{name: "marketplace entry skills of the wrong type", wantGood: true, wantBad: []string{"skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.writeJSON(mktFile, map[string]any{"plugins": []any{map[string]any{
					"name": "bad", "source": map[string]any{"source": "npm"}, "skills": map[string]any{"x": 1}}}})
			},
			wantDiags: []diagKey{{"warning", "marketplace-manifest-invalid", mktFile}},
			inMessage: `"bad"`},
		{name: "plugin.json not JSON falls back to skills/", wantGood: true, wantBad: []string{"skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.write(badManifest, `{"name": "bad",, }`)
			},
			wantDiags: []diagKey{{"warning", "plugin-manifest-malformed", badManifest}}},
		{name: "plugin.json is not an object", wantGood: true, wantBad: []string{"skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.write(badManifest, `"bad"`)
			},
			wantDiags: []diagKey{{"warning", "plugin-manifest-invalid", badManifest}}},
		// Claude Code refuses a manifest whose skills are not paths, and
		// loads none of the plugin's skills.
		{name: "plugin.json skills of the wrong type", wantGood: true,
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.writeJSON(badManifest, map[string]any{"name": "bad", "skills": 3})
			},
			wantDiags: []diagKey{{"warning", "plugin-manifest-invalid", badManifest},
				{"warning", "plugin-manifest-rejected", badManifest}},
			inMessage: "bad@acme"},
		{name: "declared skill missing", wantGood: true, wantBad: []string{"extra/e", "skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.skills(bad + "/extra/e")
				h.writeJSON(badManifest, map[string]any{"name": "bad", "skills": []string{"./gone", "./extra/e"}})
			},
			wantDiags: []diagKey{{"warning", "plugin-skill-missing", badManifest}},
			inMessage: `plugin bad@acme declares skill path "./gone"`},
		{name: "declared folder without skills", wantGood: true, wantBad: []string{"skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.mkdir(bad + "/empty/sub")
				h.writeJSON(badManifest, map[string]any{"name": "bad", "skills": "./empty"})
			},
			wantDiags: []diagKey{{"warning", "plugin-skill-missing", badManifest}},
			inMessage: `"./empty"`},
		{name: "skill path escaping the plugin", wantGood: true, wantBad: []string{"skills/b"},
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.writeJSON(badManifest, map[string]any{"name": "bad", "skills": []string{"./../../good/1/skills/g"}})
			},
			wantDiags: []diagKey{{"warning", "skill-path-outside-plugin", badManifest}},
			inMessage: `"./../../good/1/skills/g"`},
		// Claude Code's schema wants "./" before every path: it refuses
		// the plugin.
		{name: "absolute skill path", wantGood: true,
			setup: func(h *harness) {
				withBad(badEntry)(h)
				h.writeJSON(badManifest, map[string]any{"name": "bad", "skills": []string{h.abs(good + "/skills/g")}})
			},
			wantDiags: []diagKey{{"warning", "skill-path-invalid", badManifest},
				{"warning", "plugin-manifest-rejected", badManifest}}},
		{name: "marketplace skill path escaping the marketplace", wantGood: true, wantBad: []string{},
			setup: func(h *harness) {
				h.installed(map[string]any{"version": 1, "plugins": map[string]any{
					"good@acme": goodEntry(h), "bad@acme": map[string]any{"installPath": h.abs(mkt)}}})
				h.skills(pluginsDir + "/marketplaces/evil/skills/x")
				h.writeJSON(mktFile, map[string]any{"plugins": []any{map[string]any{
					"name": "bad", "source": "./", "skills": []string{"./../evil/skills/x"}}}})
			},
			wantDiags: []diagKey{{"warning", "skill-path-outside-plugin", mktFile}}},
		{name: "marketplace source escaping the marketplace", wantGood: true, wantBad: []string{},
			setup: func(h *harness) {
				h.installed(map[string]any{"version": 1, "plugins": map[string]any{
					"good@acme": goodEntry(h), "bad@acme": map[string]any{"installPath": h.abs(mkt)}}})
				h.skills(pluginsDir + "/marketplaces/evil/skills/x")
				h.writeJSON(mktFile, map[string]any{"plugins": []any{map[string]any{
					"name": "bad", "source": "../evil"}}})
			},
			wantDiags: []diagKey{{"warning", "plugin-source-outside-marketplace", mktFile}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.skills(good+"/skills/g", bad+"/skills/b")
			h.mkdir(mkt)
			tt.setup(h)
			plan := h.plan(nil)

			want := []diagKey{}
			for _, d := range tt.wantDiags {
				want = append(want, h.diag(d.Severity, d.Code, d.Path))
			}
			if diff := cmp.Diff(want, keysOf(plan.Diagnostics)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if tt.inMessage != "" && len(plan.Diagnostics) > 0 && !strings.Contains(plan.Diagnostics[0].Message, tt.inMessage) {
				t.Errorf("message %q does not contain %q", plan.Diagnostics[0].Message, tt.inMessage)
			}
			for _, d := range plan.Diagnostics {
				if d.Provider != "claude" || d.Message == "" {
					t.Errorf("diagnostic %+v lacks provider or message", d)
				}
			}

			credited := h.credited(plan)
			if g, ok := credited["good@acme"]; ok != tt.wantGood {
				t.Errorf("good@acme planned = %v, want %v", ok, tt.wantGood)
			} else if ok && !slices.Equal(g, []string{h.abs(good + "/skills/g")}) {
				t.Errorf("good@acme skills = %v", g)
			}
			b, ok := credited["bad@acme"]
			switch {
			case tt.wantBad == nil && ok:
				t.Errorf("bad@acme planned with %v, want no root", b)
			case tt.wantBad != nil && !ok:
				t.Errorf("bad@acme not planned, want skills %v", tt.wantBad)
			case ok:
				want := []string{}
				for _, s := range tt.wantBad {
					want = append(want, h.abs(bad+"/"+s))
				}
				if diff := cmp.Diff(want, b); diff != "" {
					t.Errorf("bad@acme skills (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestPlanCancelled(t *testing.T) {
	h := newHarness(t)
	h.installed(map[string]any{"version": 1, "plugins": map[string]any{}})
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Plan(ctx, h.env()); !errors.Is(err, context.Canceled) {
		t.Errorf("Plan error = %v, want context.Canceled", err)
	}
}

func TestSplitKey(t *testing.T) {
	tests := []struct {
		key, plugin, market string
		ok                  bool
	}{
		{"tools@acme", "tools", "acme", true},
		{"@scope/tools@acme", "@scope/tools", "acme", true},
		{"tools", "", "", false},
		{"@acme", "", "", false},
		{"tools@", "", "", false},
	}
	for _, tt := range tests {
		p, m, ok := splitKey(tt.key)
		if p != tt.plugin || m != tt.market || ok != tt.ok {
			t.Errorf("splitKey(%q) = %q, %q, %v; want %q, %q, %v", tt.key, p, m, ok, tt.plugin, tt.market, tt.ok)
		}
	}
}

// TestPlanPluginNameMismatch checks that the install key, not plugin.json,
// names the plugin (its roots and the skills credited to it), and that a
// differing manifest name is reported.
func TestPlanPluginNameMismatch(t *testing.T) {
	h := newHarness(t)
	const ins = pluginsDir + "/cache/acme/tools/1"
	h.skills(ins + "/skills/a")
	h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tooling", "version": "1"})
	h.installed(map[string]any{"version": 1, "plugins": map[string]any{
		"tools@acme": map[string]any{"installPath": h.abs(ins)},
	}})
	plan := h.plan(nil)
	want := []pipeline.Root{h.walked("tools@acme", "1", ins+"/skills")}
	if diff := cmp.Diff(want, plan.Roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	h.checkCredited(plan, map[string][]string{"tools@acme": {ins + "/skills/a"}})
	wantDiags := []diagKey{h.diag("info", "plugin-name-mismatch", ins+"/.claude-plugin/plugin.json")}
	if diff := cmp.Diff(wantDiags, keysOf(plan.Diagnostics)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}
