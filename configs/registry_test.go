package configs

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
	"github.com/ccski/ccski/providers/project"
)

// windsurfOptions are the options of a made-up provider that the registry
// does not hold: what a new provider package would declare.
type windsurfOptions struct {
	Home       string                     `koanf:"home" config:"path" trust:"user" doc:"Windsurf folder. Empty means <user dir>/.windsurf."`
	ExtraDirs  []string                   `koanf:"extra_dirs" config:"path" trust:"inside" doc:"More skill folders."`
	Precedence providers.PrecedenceOption `koanf:"precedence" trust:"project" doc:"Which copy wins: user or project."`
	Rules      bool                       `koanf:"rules" trust:"stricter=true<false" doc:"Also read .windsurf/rules."`
	// Dirs is the top-level skill_dirs key, not a key of its own.
	Dirs []string `koanf:"dirs" config:"from=skill_dirs"`
	// Not a key at all.
	Internal []string `koanf:"-"`
}

type windsurfProvider struct{}

func (windsurfProvider) Name() string { return "windsurf" }
func (windsurfProvider) Plan(context.Context, providers.Env) (providers.Plan, error) {
	return providers.Plan{}, nil
}

// withWindsurf is the built-in registry plus the made-up windsurf provider.
func withWindsurf() registry {
	reg := builtin()
	reg.providers = append(reg.providers, providers.Entry{
		Name: "windsurf",
		Doc:  "Windsurf: .windsurf/skills in the workspace and ~/.windsurf/skills.",
		Options: func() any {
			return &windsurfOptions{ExtraDirs: []string{"/opt/windsurf"}, Precedence: "project", Rules: true}
		},
		Labels:  []providers.Label{{Name: "windsurf"}},
		Folders: []string{".windsurf"},
		New:     func(any) (providers.Provider, error) { return windsurfProvider{}, nil },
	})
	return reg
}

// TestNewProviderNeedsNoConfigsEdit shows what a provider's entry alone
// gives it in the configuration, with no edit to this package: its
// section of the defaults, its keys (for files, CCSKI_ variables and
// Values), its path keys resolved, its valid values checked, and its part
// of the JSON Schema and of the example ccski.yaml.
func TestNewProviderNeedsNoConfigsEdit(t *testing.T) {
	t.Parallel()
	reg := withWindsurf()

	want := Provider{Enabled: true, Options: &windsurfOptions{ExtraDirs: []string{"/opt/windsurf"}, Precedence: "project", Rules: true}}
	if d := cmp.Diff(want, defaults(reg).Providers["windsurf"]); d != "" {
		t.Errorf("defaults (-want +got):\n%s", d)
	}

	root := tempDir(t)
	home := mkdir(t, filepath.Join(root, "home"))
	file := write(t, filepath.Join(root, "proj", "ccski.yaml"), `
skill_dirs: [team]
providers:
  windsurf:
    home: ~/cur
    extra_dirs: [rel, /elsewhere]
`)
	o := Options{ConfigFile: file, Workspace: root, Home: home,
		Environ: func() []string { return []string{"CCSKI_PROVIDERS__WINDSURF__RULES=false"} }}
	l, err := load(o, reg)
	if err != nil {
		t.Fatal(err)
	}
	// The trust levels of its tags hold: a project config may not move
	// the provider's home, and only names folders inside the project.
	want.Options = &windsurfOptions{ExtraDirs: []string{filepath.Join(root, "proj", "rel")}, Precedence: "project", Rules: false}
	if d := cmp.Diff(want, l.Config.Providers["windsurf"]); d != "" {
		t.Errorf("loaded (-want +got):\n%s", d)
	}
	var ignored []string
	for _, ig := range l.Ignored {
		ignored = append(ignored, ig.Key+": "+ig.Reason)
	}
	if d := cmp.Diff([]string{
		"providers.windsurf.extra_dirs: a project config may only name paths inside the project (" + filepath.Join(root, "proj") + ")",
		"providers.windsurf.home: a project config may not change it",
	}, ignored); d != "" {
		t.Errorf("ignored (-want +got):\n%s", d)
	}
	// The factory gets the decoded options, with dirs from skill_dirs.
	built, err := l.Config.ProviderOptions(reg.providers[len(reg.providers)-1])
	if err != nil {
		t.Fatal(err)
	}
	wantBuilt := *want.Options.(*windsurfOptions)
	wantBuilt.Dirs = []string{filepath.Join(root, "proj", "team")}
	if d := cmp.Diff(&wantBuilt, built); d != "" {
		t.Errorf("ProviderOptions (-want +got):\n%s", d)
	}
	if got := l.Sources["providers.windsurf.rules"]; got != "env CCSKI_PROVIDERS__WINDSURF__RULES" {
		t.Errorf("source of providers.windsurf.rules = %q", got)
	}

	for _, tt := range []struct{ doc, err string }{
		{"providers: {windsurf: {precedence: repo}}",
			`providers.windsurf.precedence: invalid value "repo"; valid values: user, project`},
		{"providers: {windsurf: {hme: x}}",
			`unknown key "providers.windsurf.hme": provider windsurf has no option "hme"; did you mean "providers.windsurf.home"?`},
		{"providers: {windsurf: {internal: [x]}}", `provider windsurf has no option "internal"`},
		{"providers: {windsurf: {dirs: [x]}}", `provider windsurf has no option "dirs"`},
		{"providers: {windsurf: {rules: maybe}}", `providers.windsurf.rules: want a boolean`},
	} {
		o.ConfigFile = write(t, filepath.Join(root, "bad", "ccski.yaml"), tt.doc)
		if _, err := load(o, reg); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want one containing %q", tt.doc, err, tt.err)
		}
	}

	schema, err := schemaFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	sec := schema.Properties["providers"].Properties["windsurf"]
	if sec == nil {
		t.Fatal("the schema has no providers.windsurf")
	}
	if got := sec.PropertyOrder; !slices.Equal(got, []string{"enabled", "home", "extra_dirs", "precedence", "rules"}) {
		t.Errorf("providers.windsurf keys in the schema = %q", got)
	}
	if got := sec.Properties["precedence"].Enum; !cmp.Equal(got, []any{"user", "project"}) {
		t.Errorf("providers.windsurf.precedence enum = %v", got)
	}
	if sec.Description != "Windsurf: .windsurf/skills in the workspace and ~/.windsurf/skills." ||
		sec.Properties["home"].Description != "Windsurf folder. Empty means <user dir>/.windsurf. A project config may not change it." {
		t.Errorf("providers.windsurf documentation: %q, %q", sec.Description, sec.Properties["home"].Description)
	}
	rs, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	var bad any
	_ = json.Unmarshal([]byte(`{"providers": {"windsurf": {"precedence": "repo"}}}`), &bad)
	if rs.Validate(bad) == nil {
		t.Error("the schema accepts providers.windsurf.precedence: repo")
	}

	if got := sec.Properties["dirs"]; got != nil {
		t.Errorf("the schema has providers.windsurf.dirs, which takes skill_dirs: %+v", got)
	}

	example, err := exampleFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"  # Windsurf: .windsurf/skills in the workspace and ~/.windsurf/skills.\n  windsurf:\n    enabled: true\n",
		"    # Windsurf folder. Empty means <user dir>/.windsurf.\n    # A project config may not change it.\n    home: \"\"\n",
		"    extra_dirs:\n      - /opt/windsurf\n",
	} {
		if !strings.Contains(string(example), line) {
			t.Errorf("the example lacks %q", line)
		}
	}
}

// TestProviderEntryErrors checks that a provider that describes itself
// badly fails every Load, naming the provider and what is wrong, rather
// than giving an undocumented or untyped key.
func TestProviderEntryErrors(t *testing.T) {
	t.Parallel()
	type undocumented struct {
		Home string `koanf:"home"`
	}
	type nested struct {
		Sub struct{ X string } `koanf:"sub" doc:"A section."`
	}
	type enabled struct {
		Enabled bool `koanf:"enabled" doc:"Shadows enabled."`
	}
	type fromNothing struct {
		Dirs []string `koanf:"dirs" config:"from=skill_dir"`
	}
	type fromInt struct {
		Depth string `koanf:"depth" config:"from=limits.max_depth"`
	}
	for _, tt := range []struct {
		name    string
		options func() any
		doc     string
		err     string
	}{
		{"an option without doc", func() any { return &undocumented{} }, "x", `providers.x.home: the option has no doc tag`},
		{"an option that is a section", func() any { return &nested{} }, "x", `providers.x.sub: an option may not be a section`},
		{"an option called enabled", func() any { return &enabled{} }, "x", `providers.x.enabled: an option may not be called enabled`},
		{"options that are no struct", func() any { return map[string]any{} }, "x", `provider x: Options returns map[string]interface {}`},
		{"a field taking no key", func() any { return &fromNothing{} }, "x", `provider x: field Dirs takes "skill_dir", which is no key`},
		{"a field taking a key of another type", func() any { return &fromInt{} }, "x", `provider x: field Depth is a string, but limits.max_depth is a int`},
		{"a provider without doc", nil, "", `key "providers.x" is not documented`},
	} {
		reg := builtin()
		reg.providers = append(reg.providers, providers.Entry{Name: "x", Doc: tt.doc, Options: tt.options})
		_, err := newSpec(reg)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: newSpec error %v, want one containing %q", tt.name, err, tt.err)
		}
	}
}

// BenchmarkLoad measures a Load of the defaults alone, which every command
// runs once: the key tree and the defaults are derived from the registry
// on each call.
func BenchmarkLoad(b *testing.B) {
	o := Options{Workspace: b.TempDir(), Home: b.TempDir(), Environ: func() []string { return nil }, Registry: all.Registry()}
	for b.Loop() {
		if _, err := Load(o); err != nil {
			b.Fatal(err)
		}
	}
}

// TestProviderOptions checks what a provider's factory receives: the
// options Load decoded, as a copy; the project provider's dirs from
// skill_dirs; the defaults for a Config built by hand without them; and an
// error naming the provider for options of another provider.
func TestProviderOptions(t *testing.T) {
	t.Parallel()
	entry := func(name string) providers.Entry {
		for _, e := range all.Registry() {
			if e.Name == name {
				return e
			}
		}
		t.Fatalf("no provider %s", name)
		return providers.Entry{}
	}
	ws := tempDir(t)
	file := write(t, filepath.Join(ws, "ccski.yaml"), "skill_dirs: [team]\nproviders: {claude: {precedence: project}}\n")
	o := options(t, ws)
	o.ConfigFile = file
	c := mustLoad(t, o).Config

	got, err := c.ProviderOptions(entry("claude"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&claude.Options{Precedence: "project"}, got); d != "" {
		t.Errorf("claude options (-want +got):\n%s", d)
	}
	if got == c.Providers["claude"].Options {
		t.Error("ProviderOptions returned the Config's own options, not a copy")
	}

	got, err = c.ProviderOptions(entry("project"))
	if err != nil {
		t.Fatal(err)
	}
	wantDirs := []string{filepath.Join(ws, "team")}
	if d := cmp.Diff(&project.Options{Dirs: wantDirs}, got); d != "" {
		t.Errorf("project options (-want +got):\n%s", d)
	}
	got.(*project.Options).Dirs[0] = "changed"
	if c.SkillDirs[0] != wantDirs[0] {
		t.Error("the project provider's dirs share the Config's skill_dirs")
	}

	hand := Config{SkillDirs: []string{"/a"}, Providers: map[string]Provider{"project": {Enabled: true}}}
	if got, err := hand.ProviderOptions(entry("codex")); err != nil || got.(*codex.Options).SystemDirs[0] != codex.DefaultSystemDir {
		t.Errorf("options left out: %+v, %v; want codex's defaults", got, err)
	}
	if got, err := hand.ProviderOptions(entry("project")); err != nil || !cmp.Equal(got.(*project.Options).Dirs, []string{"/a"}) {
		t.Errorf("project options of a hand-built Config: %+v, %v; want skill_dirs", got, err)
	}
	hand.Providers["claude"] = Provider{Enabled: true, Options: &codex.Options{}}
	if _, err := hand.ProviderOptions(entry("claude")); err == nil ||
		!strings.Contains(err.Error(), "providers.claude") || !strings.Contains(err.Error(), "*codex.Options") {
		t.Errorf("options of another provider: error %v", err)
	}
}

// TestProviderValueCheck checks that a provider's own check of a value
// (a named string type with a Check method: custom.Folder) runs here, once,
// for each layer, so that the error names the file and the key. The JSON
// Schema cannot say it, so the file is no testdata file.
func TestProviderValueCheck(t *testing.T) {
	t.Parallel()
	ws := tempDir(t)
	o := options(t, ws)
	o.ConfigFile = write(t, filepath.Join(ws, "ccski.yaml"), "providers:\n  custom:\n    dirs: [ok, \"team?scope=a:b\"]\n")
	_, err := loadBuiltin(o)
	want := "configs: project config " + o.ConfigFile + `: providers.custom.dirs: custom: skill folder "team?scope=a:b": scope "a:b" must not contain`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one holding %q", err, want)
	}
}
