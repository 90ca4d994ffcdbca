package codexplugins

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/codex"
)

func TestNew(t *testing.T) {
	providertest.CheckNew(t, New, Name, []providertest.NewCase{
		{Name: "nil options"},
		{Name: "both paths", Options: &Options{ConfigFile: "/c/config.toml", CacheDir: "/c/cache"}},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.codex_plugins", "*codexplugins.Options"}},
	})
}

// treeEnv is the Env of the testdata tree: the Codex folder codexhome,
// the user folder home and the repository repo.
func treeEnv(base string) providers.Env {
	env := providertest.Env(filepath.Join(base, "home"), nil, filepath.Join(base, "repo"))
	env = env.WithHome(codex.Name, filepath.Join(base, "codexhome"))
	return env
}

func pluginRoot(path, prefix, plugin, market, version string) pipeline.Root {
	return pipeline.Root{Path: path, Agent: "codex", Provider: Name, Location: pipeline.LocationPlugin,
		Kind: pipeline.KindPlugin, Prefix: prefix, Optional: true,
		Plugin: &pipeline.PluginInfo{Plugin: plugin, Marketplace: market, Version: version}}
}

// TestPlanTree plans the testdata tree, shaped like a real Codex folder:
// a plugin from the repository's marketplace (two versions cached), a
// plugin turned off in the /plugins picker, a versionless "local" install
// whose manifest is the Claude-style one and adds a skill folder, and a
// plugin enabled but never installed.
func TestPlanTree(t *testing.T) {
	base := providertest.CopyTree(t, "testdata/tree", "repo")
	cache := filepath.Join(base, "codexhome", "plugins", "cache")
	config := filepath.Join(base, "codexhome", "config.toml")
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), treeEnv(base))

	providertest.CheckRoots(t, []pipeline.Root{
		pluginRoot(filepath.Join(cache, "personal", "notes", "local", "extra", "skills"), "notes", "notes", "personal", "local"),
		pluginRoot(filepath.Join(cache, "personal", "notes", "local", "skills"), "notes", "notes", "personal", "local"),
		pluginRoot(filepath.Join(cache, "superpowers-dev", "superpowers", "6.2.0", "skills"), "superpowers",
			"superpowers", "superpowers-dev", "6.2.0"),
	}, plan.Roots)

	wantDisabled := []pipeline.DisabledPlugin{{Provider: "codex", Plugin: "linear", Marketplace: "openai-curated",
		Settings: config, Enable: config + `: [plugins."linear@openai-curated"] enabled = true`,
		Skills: []string{"triage"}}}
	if diff := cmp.Diff(wantDisabled, plan.Disabled); diff != "" {
		t.Errorf("disabled plugins mismatch (-want +got):\n%s", diff)
	}

	type diag struct{ Sev, Code, Path string }
	var got []diag
	for _, d := range plan.Diagnostics {
		got = append(got, diag{string(d.Severity), d.Code, providertest.Rel(t, base, d.Path)})
		if d.Provider != "codex" {
			t.Errorf("diagnostic %s has provider %q", d.Code, d.Provider)
		}
	}
	want := []diag{
		{"warning", "plugin-not-installed", "codexhome/config.toml"},
		{"info", "plugin-disabled", "codexhome/config.toml"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics mismatch (-want +got):\n%s", diff)
	}
	for _, d := range plan.Diagnostics {
		if d.Code == "plugin-not-installed" {
			for _, s := range []string{"ghost@superpowers-dev", "marketplace superpowers-dev",
				filepath.Join(base, "repo", ".agents", "plugins", "marketplace.json"), "does not list a plugin named ghost"} {
				if !strings.Contains(d.Message, s) {
					t.Errorf("message %q does not hold %q", d.Message, s)
				}
			}
		}
	}

	// The watcher needs config.toml and every manifest read, the
	// marketplaces included (read for the uninstalled plugin's hint).
	for _, f := range []string{
		config,
		filepath.Join(cache, "personal", "notes", "local", ".claude-plugin", "plugin.json"),
		filepath.Join(cache, "superpowers-dev", "superpowers", "6.2.0", ".codex-plugin", "plugin.json"),
		filepath.Join(base, "repo", ".agents", "plugins", "marketplace.json"),
		filepath.Join(base, "home", ".agents", "plugins", "marketplace.json"),
	} {
		if !contains(plan.Manifests, f) {
			t.Errorf("Manifests %v lack %s", plan.Manifests, f)
		}
	}
}

// TestPlanTreeScan scans the planned roots: every skill is namespaced by
// its plugin, as Codex names it, labelled codex and credited to its
// plugin; superseded versions and the repository's working copy are not
// read.
func TestPlanTreeScan(t *testing.T) {
	base := providertest.CopyTree(t, "testdata/tree", "repo")
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), treeEnv(base))
	res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())
	if len(res.Diagnostics) != 0 {
		t.Errorf("unexpected scan diagnostics: %v", res.Diagnostics)
	}
	type rec struct {
		Name, Agent, Plugin, Version string
		Location                     pipeline.Location
		Kind                         pipeline.Kind
	}
	var got []rec
	for _, r := range res.Records {
		got = append(got, rec{r.Name, r.Agent, r.Plugin.Plugin, r.Plugin.Version, r.Location, r.Kind})
	}
	p, k := pipeline.LocationPlugin, pipeline.KindPlugin
	want := []rec{
		{"notes:jot", "codex", "notes", "local", p, k},
		{"notes:review-notes", "codex", "notes", "local", p, k},
		{"superpowers:brainstorming", "codex", "superpowers", "6.2.0", p, k},
		{"superpowers:systematic-debugging", "codex", "superpowers", "6.2.0", p, k},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s", diff)
	}
}

// TestPlanActiveVersion checks which cached version is active: "local"
// over every numbered one, else the greatest name in byte order (as Codex
// sorts, "6.9.0" over "6.10.0"); files, symlinks and names Codex refuses
// are not versions.
func TestPlanActiveVersion(t *testing.T) {
	tests := []struct {
		name     string
		versions []string // folders; "->x" entries are symlinks to x, "f:x" files
		want     string   // "" when nothing is installed
	}{
		{"one version", []string{"1.0.0"}, "1.0.0"},
		{"local wins over greater names", []string{"9.9.9", "local", "zzz"}, "local"},
		{"byte order, not semver", []string{"6.10.0", "6.9.0"}, "6.9.0"},
		{"a git sha", []string{"3f2a9c1e", "1f00aa00"}, "3f2a9c1e"},
		{"a symlink is no version", []string{"1.0.0", "->2.0.0"}, "1.0.0"},
		{"a file is no version", []string{"1.0.0", "f:2.0.0"}, "1.0.0"},
		{"names Codex refuses are skipped", []string{"1.0.0", "2.0 beta", "3.0~rc"}, "1.0.0"},
		{"nothing usable", []string{"f:1.0.0"}, ""},
		{"no plugin folder at all", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := testfs.TempDir(t)
			files := map[string]string{"config.toml": "[plugins.\"p@m\"]\n"}
			target := filepath.Join(home, "elsewhere")
			testfs.Write(t, home, map[string]string{"elsewhere/.codex-plugin/plugin.json": `{"name":"p"}`,
				"elsewhere/skills/": ""})
			for _, v := range tt.versions {
				switch {
				case strings.HasPrefix(v, "->"):
					files["plugins/cache/m/p/"+v[2:]] = "-> " + target
				case strings.HasPrefix(v, "f:"):
					files["plugins/cache/m/p/"+v[2:]] = "not a folder"
				default:
					files["plugins/cache/m/p/"+v+"/.codex-plugin/plugin.json"] = `{"name":"p"}`
					files["plugins/cache/m/p/"+v+"/skills/"] = ""
				}
			}
			testfs.Write(t, home, files)
			env := providertest.Env(filepath.Join(home, "user"), nil, filepath.Join(home, "ws"))
			env = env.WithHome(codex.Name, home)
			plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
			if tt.want == "" {
				if len(plan.Roots) != 0 || !hasCode(plan.Diagnostics, "plugin-not-installed") {
					t.Errorf("roots %v, diagnostics %v; want none and plugin-not-installed", plan.Roots, plan.Diagnostics)
				}
				return
			}
			if len(plan.Roots) != 1 {
				t.Fatalf("roots = %v, diagnostics %v; want one", plan.Roots, plan.Diagnostics)
			}
			if got := plan.Roots[0].Plugin.Version; got != tt.want {
				t.Errorf("active version %q, want %q", got, tt.want)
			}
			if want := filepath.Join(home, "plugins", "cache", "m", "p", tt.want, "skills"); plan.Roots[0].Path != want {
				t.Errorf("root %s, want %s", plan.Roots[0].Path, want)
			}
		})
	}
}

// installed is a config.toml enabling p@m and its install at version 1.
func installed(manifest string, extra map[string]string) map[string]string {
	files := map[string]string{
		"codex/config.toml": "[plugins.\"p@m\"]\nenabled = true\n",
		"codex/plugins/cache/m/p/1/.codex-plugin/plugin.json": manifest,
		"codex/plugins/cache/m/p/1/skills/s/SKILL.md":         "---\nname: s\ndescription: d\n---\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

// TestPlanBrokenFiles checks every problem Codex's files can have: each
// is a diagnostic naming the file (and its line where there is one) and
// saying what Codex does about it, never an error or a crash.
func TestPlanBrokenFiles(t *testing.T) {
	const good = `{"name": "p", "skills": "./skills"}`
	skills := "codex/plugins/cache/m/p/1/skills"
	tests := []struct {
		name  string
		files map[string]string
		// roots are the planned root folders, relative to the tree.
		roots []string
		code  string // the diagnostic expected; "" for none
		path  string // its path, relative to the tree
		line  int
		has   []string
	}{
		{name: "no config.toml: no plugin, no problem", files: map[string]string{"codex/plugins/cache/m/p/1/skills/": ""}},
		{name: "no [plugins] table", files: map[string]string{"codex/config.toml": "model = \"o3\"\n"}},
		{name: "malformed TOML names its line",
			files: map[string]string{"codex/config.toml": "model = \"o3\"\n\n[plugins.\"p@m\"\nenabled = true\n"},
			code:  "codex-config-malformed", path: "codex/config.toml", line: 3,
			has: []string{"config.toml is not valid TOML", "line 3", "Codex loads no plugin"}},
		{name: "a bad value names its line",
			files: map[string]string{"codex/config.toml": "# plugins\n\n[plugins.\"p@m\"]\nenabled = yes\n"},
			code:  "codex-config-malformed", path: "codex/config.toml", line: 4, has: []string{"line 4"}},
		{name: "config.toml is a folder", files: map[string]string{"codex/config.toml/": ""},
			code: "codex-config-unreadable", path: "codex/config.toml", has: []string{"folder"}},
		{name: "plugins feature off", files: installed(good, map[string]string{
			"codex/config.toml": "[features]\nplugins = false\n\n[plugins.\"p@m\"]\nenabled = true\n"}),
			code: "codex-plugins-off", path: "codex/config.toml", has: []string{"[features] plugins = false"}},
		{name: "plugins feature not a boolean", files: installed(good, map[string]string{
			"codex/config.toml": "[features]\nplugins = \"yes\"\n\n[plugins.\"p@m\"]\n"}),
			code: "codex-config-invalid", path: "codex/config.toml", has: []string{`not the string "yes"`}},
		{name: "plugins feature on explicitly", files: installed(good, map[string]string{
			"codex/config.toml": "[features]\nplugins = true\n\n[plugins.\"p@m\"]\n"}), roots: []string{skills}},
		{name: "plugins is no table", files: installed(good, map[string]string{"codex/config.toml": "plugins = 3\n"}),
			code: "codex-config-invalid", has: []string{"must be a table", "the number 3"}, path: "codex/config.toml"},
		{name: "one bad enabled value loses every plugin", files: installed(good, map[string]string{
			"codex/config.toml": "[plugins.\"p@m\"]\nenabled = true\n[plugins.\"q@m\"]\nenabled = \"yes\"\n"}),
			code: "codex-config-invalid", path: "codex/config.toml",
			has: []string{`[plugins."q@m"]`, `enabled must be true or false, not the string "yes"`, "ignores every [plugins] table"}},
		{name: "an entry that is no table loses every plugin", files: installed(good, map[string]string{
			"codex/config.toml": "[plugins]\n\"p@m\" = true\n"}),
			code: "codex-config-invalid", path: "codex/config.toml", has: []string{"must be a table, not a boolean"}},
		{name: "unknown keys in a plugin table are ignored", files: installed(good, map[string]string{
			"codex/config.toml": "[plugins.\"p@m\"]\nenabled = true\npinned = \"1\"\n"}), roots: []string{skills}},
		{name: "a key without a marketplace loses only itself", files: installed(good, map[string]string{
			"codex/config.toml": "[plugins.\"p@m\"]\n[plugins.\"orphan\"]\n"}),
			roots: []string{skills}, code: "plugin-key-invalid", path: "codex/config.toml",
			has: []string{`[plugins."orphan"]`, "expected <plugin>@<marketplace>"}},
		{name: "a key with a path in it is refused", files: installed(good, map[string]string{
			"codex/config.toml": "[plugins.\"../p@m\"]\n"}),
			code: "plugin-key-invalid", path: "codex/config.toml", has: []string{`invalid plugin name "../p"`}},
		{name: "the last @ splits the key", files: map[string]string{
			"codex/config.toml": "[plugins.\"a@b@m\"]\n"},
			code: "plugin-key-invalid", path: "codex/config.toml", has: []string{`invalid plugin name "a@b"`}},
		{name: "no manifest", files: map[string]string{
			"codex/config.toml":                 "[plugins.\"p@m\"]\n",
			"codex/plugins/cache/m/p/1/skills/": ""},
			code: "plugin-manifest-missing", path: "codex/plugins/cache/m/p/1",
			has: []string{"plugin p@m has no .codex-plugin/plugin.json", "reinstall"}},
		{name: "malformed manifest names its line", files: installed("{\n  \"name\": \"p\",\n  \"skills\": ./skills\n}", nil),
			code: "plugin-manifest-malformed", path: "codex/plugins/cache/m/p/1/.codex-plugin/plugin.json", line: 3,
			has: []string{"not valid JSON", "line 3", "Codex does not load the plugin"}},
		{name: "manifest name of the wrong type", files: installed(`{"name": 3}`, nil),
			code: "plugin-manifest-malformed", path: "codex/plugins/cache/m/p/1/.codex-plugin/plugin.json",
			has: []string{`"name"`, "must be a string"}},
		{name: "the Codex manifest wins over the Claude one", files: installed(good, map[string]string{
			"codex/plugins/cache/m/p/1/.claude-plugin/plugin.json": "not JSON"}), roots: []string{skills}},
		{name: "skills of the wrong type keep skills/", files: installed(`{"name": "p", "skills": {"dir": "x"}}`, nil),
			roots: []string{skills}, code: "plugin-manifest-invalid",
			path: "codex/plugins/cache/m/p/1/.codex-plugin/plugin.json", has: []string{"must be a path or a list of paths"}},
		{name: "a skills path without ./", files: installed(`{"name": "p", "skills": ["extra"]}`, nil),
			roots: []string{skills}, code: "plugin-manifest-invalid",
			path: "codex/plugins/cache/m/p/1/.codex-plugin/plugin.json", has: []string{`"extra"`, `must start with "./"`}},
		{name: "a skills path leaving the plugin", files: installed(`{"name": "p", "skills": "./../other"}`, nil),
			roots: []string{skills}, code: "plugin-manifest-invalid",
			path: "codex/plugins/cache/m/p/1/.codex-plugin/plugin.json", has: []string{`must not contain ".."`}},
		{name: "the plugin folder itself is no skills path", files: installed(`{"name": "p", "skills": "./"}`, nil),
			roots: []string{skills}, code: "plugin-manifest-invalid",
			path: "codex/plugins/cache/m/p/1/.codex-plugin/plugin.json", has: []string{`not "./" itself`}},
		{name: "a skills path that is not there", files: installed(`{"name": "p", "skills": "./more"}`, nil),
			roots: []string{skills}, code: "plugin-skills-missing", path: "codex/plugins/cache/m/p/1/more",
			has: []string{"plugin p@m names this skill folder"}},
		{name: "manifest paths add to skills/, each once", files: installed(
			`{"name": "p", "skills": ["./skills/", "./more/", "./more"]}`,
			map[string]string{"codex/plugins/cache/m/p/1/more/": ""}),
			roots: []string{"codex/plugins/cache/m/p/1/more", skills}},
		{name: "no skills/ and no skills field: no root", files: map[string]string{
			"codex/config.toml": "[plugins.\"p@m\"]\n",
			"codex/plugins/cache/m/p/1/.codex-plugin/plugin.json": `{"name": "p"}`}},
		{name: "a malformed marketplace is reported when read", files: map[string]string{
			"codex/config.toml":                     "[plugins.\"p@m\"]\n",
			"home/.agents/plugins/marketplace.json": "{\"name\": \"m\",\n\"plugins\": [}"},
			code: "plugin-not-installed", path: "codex/config.toml",
			has: []string{"no marketplace named m was found", ".agents/plugins/marketplace.json"}},
		{name: "an added marketplace that lists the plugin", files: map[string]string{
			"codex/config.toml": "[plugins.\"p@m\"]\n",
			"codex/.tmp/marketplaces/m/.agents/plugins/marketplace.json": `{"name": "m", "plugins": [{"name": "p"}]}`},
			code: "plugin-not-installed", path: "codex/config.toml",
			has: []string{"install it from marketplace m", "codex plugin add p@m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, tt.files)
			env := providertest.Env(filepath.Join(base, "home"), nil, filepath.Join(base, "ws"))
			env = env.WithHome(codex.Name, filepath.Join(base, "codex"))
			plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
			var roots []string
			for _, r := range plan.Roots {
				roots = append(roots, providertest.Rel(t, base, r.Path))
			}
			if diff := cmp.Diff(tt.roots, roots); diff != "" {
				t.Errorf("roots mismatch (-want +got):\n%s", diff)
			}
			var found *pipeline.Diagnostic
			for i, d := range plan.Diagnostics {
				if d.Code == tt.code {
					found = &plan.Diagnostics[i]
				} else if d.Code != "marketplace-malformed" {
					t.Errorf("unexpected diagnostic %s: %s", d.Code, d.Message)
				}
			}
			if tt.code == "" {
				return
			}
			if found == nil {
				t.Fatalf("no %s diagnostic in %v", tt.code, plan.Diagnostics)
			}
			if got := providertest.Rel(t, base, found.Path); got != tt.path {
				t.Errorf("diagnostic path %s, want %s", got, tt.path)
			}
			if found.Line != tt.line {
				t.Errorf("diagnostic line %d, want %d", found.Line, tt.line)
			}
			for _, s := range tt.has {
				if !strings.Contains(found.Message, s) {
					t.Errorf("message %q does not hold %q", found.Message, s)
				}
			}
		})
	}
}

// TestPlanMalformedMarketplaceReported checks that a marketplace read for
// a hint and found malformed is reported with its line.
func TestPlanMalformedMarketplaceReported(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"codex/config.toml":                     "[plugins.\"p@m\"]\n",
		"home/.agents/plugins/marketplace.json": "{\"name\": \"m\",\n\"plugins\": [}",
	})
	env := providertest.Env(filepath.Join(base, "home"), nil, filepath.Join(base, "ws"))
	env = env.WithHome(codex.Name, filepath.Join(base, "codex"))
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
	for _, d := range plan.Diagnostics {
		if d.Code == "marketplace-malformed" {
			if d.Line != 2 || d.Path != filepath.Join(base, "home", ".agents", "plugins", "marketplace.json") {
				t.Errorf("diagnostic %+v, want line 2 of the personal marketplace", d)
			}
			return
		}
	}
	t.Errorf("no marketplace-malformed diagnostic in %v", plan.Diagnostics)
}

// TestPlanPathOptions checks that config_file and cache_dir replace the
// paths below the Codex folder, "~" standing for the user folder and a
// relative path taken from the workspace.
func TestPlanPathOptions(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"home/alt.toml": "[plugins.\"p@m\"]\n",
		"ws/cache/m/p/2/.codex-plugin/plugin.json": `{"name": "p"}`,
		"ws/cache/m/p/2/skills/":                   "",
		"codex/config.toml":                        "[plugins.\"q@m\"]\n",
	})
	env := providertest.Env(filepath.Join(base, "home"), nil, filepath.Join(base, "ws"))
	env = env.WithHome(codex.Name, filepath.Join(base, "codex"))
	p := providertest.MustNew(t, New, &Options{ConfigFile: "~/alt.toml", CacheDir: "cache"})
	roots := providertest.PlanRoots(t, p, env)
	want := []pipeline.Root{pluginRoot(filepath.Join(base, "ws", "cache", "m", "p", "2", "skills"), "p", "p", "m", "2")}
	providertest.CheckRoots(t, want, roots)
}

// TestPlanNamespaceFromManifest checks that the manifest's name
// namespaces the skills, and the key's plugin name when it is blank.
func TestPlanNamespaceFromManifest(t *testing.T) {
	for _, tt := range []struct{ manifest, want string }{
		{`{"name": "Super Powers"}`, "Super Powers"},
		{`{"name": "  "}`, "p"},
		{`{}`, "p"},
	} {
		base := testfs.TempDir(t)
		testfs.Write(t, base, installed(tt.manifest, nil))
		env := providertest.Env(filepath.Join(base, "home"), nil, filepath.Join(base, "ws"))
		env = env.WithHome(codex.Name, filepath.Join(base, "codex"))
		roots := providertest.PlanRoots(t, providertest.MustNew(t, New, nil), env)
		if len(roots) != 1 || roots[0].Prefix != tt.want || roots[0].Plugin.Plugin != "p" {
			t.Errorf("manifest %s: roots %+v, want prefix %q for plugin p", tt.manifest, roots, tt.want)
		}
	}
}

func TestPlanCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := providertest.MustNew(t, New, nil).Plan(ctx, providertest.Env("/u", nil, "/w"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Plan error = %v, want context.Canceled", err)
	}
}

func hasCode(ds []pipeline.Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// TestEntry checks what the registry learns from the package: the name
// New's provider answers to, the codex label, plugin kinds, and options
// whose defaults are New's.
func TestEntry(t *testing.T) {
	e := Entry()
	p := providertest.MustNew(t, e.New, nil)
	if e.Name != Name || p.Name() != Name {
		t.Errorf("Entry().Name %q, provider name %q, want %q", e.Name, p.Name(), Name)
	}
	if diff := cmp.Diff([]string{"codex"}, e.LabelNames()); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]pipeline.Kind{pipeline.KindPlugin}, e.Kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if got := e.Options().(*Options); *got != p.(*Provider).opts {
		t.Errorf("Entry().Options() = %+v, New(nil) uses %+v", *got, p.(*Provider).opts)
	}
}
