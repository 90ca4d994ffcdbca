package geminiext

import (
	"context"
	"encoding/json"
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
)

func TestNew(t *testing.T) {
	providertest.CheckNew(t, New, Name, []providertest.NewCase{
		{Name: "nil options"},
		{Name: "every option", Options: &Options{ExtensionsDir: "~/x", Namespace: false}},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.gemini_extensions", "*geminiext.Options"}},
	})
}

// TestEntry checks what the registry learns from the package.
func TestEntry(t *testing.T) {
	e := Entry()
	p := providertest.MustNew(t, e.New, nil)
	if e.Name != Name || p.Name() != Name {
		t.Errorf("Entry().Name %q, provider name %q, want %q", e.Name, p.Name(), Name)
	}
	if diff := cmp.Diff([]string{"gemini"}, e.LabelNames()); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]pipeline.Kind{pipeline.KindPlugin}, e.Kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if got := *e.Options().(*Options); got != p.(*Provider).opts {
		t.Errorf("Entry().Options() = %+v, New(nil) uses %+v", got, p.(*Provider).opts)
	}
}

// tree copies the testdata tree and writes what holds absolute paths: the
// linked extension's install metadata, pointing at dev/my-tools, and
// extension-enablement.json, which disables superpowers in the workspace
// repo and below it, and enables conductor everywhere but elsewhere.
func tree(t *testing.T) (base string, env providers.Env) {
	t.Helper()
	base = providertest.CopyTree(t, "testdata/tree", "repo")
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	write := func(rel string, v any) {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		testfs.Write(t, base, map[string]string{rel: string(data)})
	}
	write("home/.gemini/extensions/my-tools/.gemini-extension-install.json",
		map[string]string{"source": abs("dev/my-tools"), "type": "link"})
	write("home/.gemini/extensions/extension-enablement.json", map[string]any{
		"superpowers": map[string]any{"overrides": []string{"!" + filepath.ToSlash(abs("repo")) + "/*"}},
		"conductor":   map[string]any{"overrides": []string{"!/somewhere/else/*"}},
	})
	return base, providertest.Env(abs("home"), nil, abs("repo"))
}

// TestPlanTree plans the testdata tree, shaped like a real
// ~/.gemini/extensions: a git install, a GitHub release that
// extension-enablement.json disables for the workspace, and a linked
// extension read from its source folder.
func TestPlanTree(t *testing.T) {
	base, env := tree(t)
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
	root := func(path, ext, version string) pipeline.Root {
		return pipeline.Root{Path: abs(path), Agent: "gemini", Provider: Name, Location: pipeline.LocationPlugin,
			Kind: pipeline.KindPlugin, Optional: true, Flat: true, Prefix: ext,
			Plugin: &pipeline.PluginInfo{Plugin: ext, Marketplace: Marketplace, Version: version}}
	}
	providertest.CheckRoots(t, []pipeline.Root{
		root("home/.gemini/extensions/conductor/skills", "conductor", "0.3.1"),
		root("dev/my-tools/skills", "my-tools", "0.0.1"),
	}, plan.Roots)
	enableFile := abs("home/.gemini/extensions/extension-enablement.json")
	wantOff := []pipeline.DisabledPlugin{{Provider: "gemini", Plugin: "superpowers", Marketplace: Marketplace,
		Settings: enableFile, Enable: "`gemini extensions enable superpowers` (" + enableFile + ")",
		Skills: []string{"brainstorming", "test-driven-development"}}}
	if diff := cmp.Diff(wantOff, plan.Disabled); diff != "" {
		t.Errorf("disabled (-want +got):\n%s", diff)
	}
	if len(plan.Diagnostics) != 1 || plan.Diagnostics[0].Code != "extension-disabled" ||
		plan.Diagnostics[0].Severity != pipeline.SeverityInfo {
		t.Errorf("diagnostics %v, want one extension-disabled info", plan.Diagnostics)
	}
	for _, f := range []string{enableFile, abs("dev/my-tools/gemini-extension.json"),
		abs("home/.gemini/extensions/my-tools/.gemini-extension-install.json"),
		abs("home/.gemini/extensions/conductor/gemini-extension.json")} {
		if !slicesContains(plan.Manifests, f) {
			t.Errorf("Manifests %v lack %s", plan.Manifests, f)
		}
	}

	res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())
	if len(res.Diagnostics) != 0 {
		t.Errorf("unexpected scan diagnostics: %v", res.Diagnostics)
	}
	var names []string
	for _, r := range res.Records {
		names = append(names, r.Agent+" "+r.Name)
	}
	want := []string{"gemini conductor:review", "gemini conductor:setup", "gemini my-tools:jot"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// TestPlanNoNamespace checks the namespace option off: plain names, no
// plugin, kind plugin still, as Gemini CLI lists extension skills.
func TestPlanNoNamespace(t *testing.T) {
	_, env := tree(t)
	plan := providertest.Plan(t, providertest.MustNew(t, New, &Options{Namespace: false}), env)
	res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())
	var names []string
	for _, r := range res.Records {
		if r.Plugin != nil || r.Kind != pipeline.KindPlugin {
			t.Errorf("record %s: plugin %v, kind %s; want no plugin, kind plugin", r.Name, r.Plugin, r.Kind)
		}
		names = append(names, r.Name)
	}
	if diff := cmp.Diff([]string{"review", "setup", "jot"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

}

// TestEnabled checks Gemini CLI's override rules: a trailing * takes the
// folder and every folder below it, ! disables, and the last rule that
// matches decides.
func TestEnabled(t *testing.T) {
	tests := []struct {
		name   string
		rules  []string
		folder string
		want   bool
	}{
		{"no rule", nil, "/w", true},
		{"disabled in the folder and below", []string{"!/w/*"}, "/w/a/b", false},
		{"the folder itself", []string{"!/w/*"}, "/w", false},
		{"a sibling with the same prefix is another folder", []string{"!/w/*"}, "/work", true},
		{"without *, only the folder", []string{"!/w/"}, "/w/a", true},
		{"without *, the folder", []string{"!/w/"}, "/w", false},
		{"the last matching rule wins", []string{"!/*", "/w/*"}, "/w/x", true},
		{"a later rule that does not match changes nothing", []string{"!/*", "/v/*"}, "/w/x", false},
		{"disabled everywhere", []string{"!/*"}, "/anything", false},
		{"regular expression characters are literal", []string{"!/a.b+c/*"}, "/aXb+c", true},
		{"non-ASCII folders", []string{"!/höme/dév/*"}, "/höme/dév/proj", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := enablement{rules: map[string][]string{"x": tt.rules}}
			if got := e.enabled("x", filepath.FromSlash(tt.folder)); got != tt.want {
				t.Errorf("enabled = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPlanBrokenFiles checks that every problem with an extension's files
// is a diagnostic naming the file, and its line where there is one, while
// the other extensions still load.
func TestPlanBrokenFiles(t *testing.T) {
	const ext = "home/.gemini/extensions/"
	good := map[string]string{
		ext + "good/gemini-extension.json": `{"name": "good", "version": "1.0.0"}`,
		ext + "good/skills/s/SKILL.md":     "---\nname: s\ndescription: d\n---\n",
	}
	tests := []struct {
		name  string
		files map[string]string
		roots []string // extension names planned
		code  string
		path  string
		line  int
		has   []string
	}{
		{name: "no extensions folder", files: map[string]string{"home/": ""}},
		{name: "an extension without skills/", files: map[string]string{
			ext + "plain/gemini-extension.json": `{"name": "plain", "version": "1"}`}},
		{name: "no manifest", files: map[string]string{ext + "empty/README.md": "hi"},
			roots: []string{"good"}, code: "extension-manifest-missing", path: ext + "empty",
			has: []string{"no gemini-extension.json", "Gemini CLI skips it"}},
		{name: "malformed manifest names its line", files: map[string]string{
			ext + "bad/gemini-extension.json": "{\n  \"name\": \"bad\",\n  \"version\": 1.0.0\n}"},
			roots: []string{"good"}, code: "extension-manifest-malformed", path: ext + "bad/gemini-extension.json",
			line: 3, has: []string{"not valid JSON", "line 3"}},
		{name: "no version", files: map[string]string{ext + "nov/gemini-extension.json": `{"name": "nov"}`},
			roots: []string{"good"}, code: "extension-manifest-invalid", path: ext + "nov/gemini-extension.json",
			has: []string{`no "version" string`}},
		{name: "a name Gemini CLI refuses", files: map[string]string{
			ext + "sp/gemini-extension.json": `{"name": "has space", "version": "1"}`},
			roots: []string{"good"}, code: "extension-manifest-invalid", path: ext + "sp/gemini-extension.json",
			has: []string{`"has space" may hold only letters, digits and dashes`}},
		{name: "two folders with one name", files: map[string]string{
			ext + "good-copy/gemini-extension.json": `{"name": "good", "version": "2"}`},
			roots: []string{"good"}, code: "extension-duplicate", path: ext + "good-copy/gemini-extension.json",
			has: []string{"extension good is also installed in"}},
		{name: "a link to a folder without a manifest", files: map[string]string{
			ext + "lnk/.gemini-extension-install.json": `{"source": "/nowhere/at/all", "type": "link"}`},
			roots: []string{"good"}, code: "extension-manifest-missing", path: ext + "lnk",
			has: []string{"looked in /nowhere/at/all"}},
		{name: "malformed install metadata falls back to the folder", files: map[string]string{
			ext + "meta/.gemini-extension-install.json": "{oops",
			ext + "meta/gemini-extension.json":          `{"name": "meta", "version": "1"}`,
			ext + "meta/skills/m/SKILL.md":              "---\nname: m\ndescription: d\n---\n"},
			roots: []string{"good", "meta"}, code: "extension-install-malformed",
			path: ext + "meta/.gemini-extension-install.json", has: []string{"its own folder is used"}},
		{name: "malformed enablement enables everything", files: map[string]string{
			ext + "extension-enablement.json": "{\n\"good\": {\"overrides\": [\"!/*\"]},,\n}"},
			roots: []string{"good"}, code: "extension-enablement-malformed", path: ext + "extension-enablement.json",
			line: 2, has: []string{"counts every extension as enabled"}},
		{name: "an enablement entry of the wrong shape is ignored", files: map[string]string{
			ext + "extension-enablement.json": `{"good": {"overrides": "!/*"}}`},
			roots: []string{"good"}, code: "extension-enablement-invalid", path: ext + "extension-enablement.json",
			has: []string{"the entry of extension good must be"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			if tt.code != "" || tt.roots != nil {
				testfs.Write(t, base, good)
			}
			testfs.Write(t, base, tt.files)
			env := providertest.Env(filepath.Join(base, "home"), nil, filepath.Join(base, "ws"))
			plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
			var roots []string
			for _, r := range plan.Roots {
				roots = append(roots, r.Prefix)
			}
			if diff := cmp.Diff(tt.roots, roots); diff != "" {
				t.Errorf("extensions planned (-want +got):\n%s", diff)
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
			if d.Code != tt.code || providertest.Rel(t, base, d.Path) != tt.path || d.Line != tt.line || d.Provider != "gemini" {
				t.Errorf("diagnostic %+v, want %s on %s line %d", d, tt.code, tt.path, tt.line)
			}
			for _, s := range tt.has {
				if !strings.Contains(d.Message, s) {
					t.Errorf("message %q does not hold %q", d.Message, s)
				}
			}
		})
	}
}

// TestExtensionsDir checks where the extensions are looked for:
// $GEMINI_CLI_HOME replaces the home folder, and the option replaces both.
func TestExtensionsDir(t *testing.T) {
	env := providertest.Env("/u", map[string]string{"GEMINI_CLI_HOME": "/g"}, "/w")
	if got := ExtensionsDir(env); got != filepath.FromSlash("/g/.gemini/extensions") {
		t.Errorf("ExtensionsDir with GEMINI_CLI_HOME = %s", got)
	}
	if got := ExtensionsDir(providertest.Env("/u", nil, "/w")); got != filepath.FromSlash("/u/.gemini/extensions") {
		t.Errorf("ExtensionsDir = %s", got)
	}
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"alt/x/gemini-extension.json": `{"name": "x", "version": "1"}`,
		"alt/x/skills/":               "",
	})
	p := providertest.MustNew(t, New, &Options{ExtensionsDir: filepath.Join(base, "alt"), Namespace: true})
	roots := providertest.PlanRoots(t, p, providertest.Env(filepath.Join(base, "home"), nil, filepath.Join(base, "w")))
	if len(roots) != 1 || roots[0].Path != filepath.Join(base, "alt", "x", "skills") {
		t.Errorf("roots %v, want alt/x/skills", roots)
	}
}

func TestPlanCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := providertest.MustNew(t, New, nil).Plan(ctx, providertest.Env("/u", nil, "/w")); !errors.Is(err, context.Canceled) {
		t.Errorf("Plan error = %v, want context.Canceled", err)
	}
}

func slicesContains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
