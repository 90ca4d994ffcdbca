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
)

// windsurfOptions are the options of a made-up provider that the registry
// does not hold: what a new provider package would declare.
type windsurfOptions struct {
	Home       string                     `koanf:"home" config:"path" doc:"Windsurf folder. Empty means <user dir>/.windsurf."`
	ExtraDirs  []string                   `koanf:"extra_dirs" config:"path" doc:"More skill folders."`
	Precedence providers.PrecedenceOption `koanf:"precedence" doc:"Which copy wins: user or project."`
	Rules      bool                       `koanf:"rules" doc:"Also read .windsurf/rules."`
	// Set by the engine, never by a user.
	Internal []string `koanf:"internal" config:"-"`
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
		New:     func(map[string]any) (providers.Provider, error) { return windsurfProvider{}, nil },
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

	want := Provider{Enabled: true, Options: map[string]any{
		"home": "", "extra_dirs": []any{"/opt/windsurf"}, "precedence": "project", "rules": true}}
	if d := cmp.Diff(want, defaults(reg).Providers["windsurf"]); d != "" {
		t.Errorf("defaults (-want +got):\n%s", d)
	}

	root := tempDir(t)
	home := mkdir(t, filepath.Join(root, "home"))
	file := write(t, filepath.Join(root, "proj", "ccski.yaml"), `
providers:
  windsurf:
    home: ~/cur
    extra_dirs: [rel]
`)
	o := Options{ConfigFile: file, Workspace: root, Home: home,
		Environ: func() []string { return []string{"CCSKI_PROVIDERS__WINDSURF__RULES=false"} }}
	l, err := load(o, reg)
	if err != nil {
		t.Fatal(err)
	}
	want.Options = map[string]any{"home": filepath.Join(home, "cur"),
		"extra_dirs": []any{filepath.Join(root, "proj", "rel")}, "precedence": "project", "rules": false}
	if d := cmp.Diff(want, l.Config.Providers["windsurf"]); d != "" {
		t.Errorf("loaded (-want +got):\n%s", d)
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
		sec.Properties["home"].Description != "Windsurf folder. Empty means <user dir>/.windsurf." {
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

	example, err := exampleFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"  # Windsurf: .windsurf/skills in the workspace and ~/.windsurf/skills.\n  windsurf:\n    enabled: true\n",
		"    # Windsurf folder. Empty means <user dir>/.windsurf.\n    home: \"\"\n",
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
	o := Options{Workspace: b.TempDir(), Home: b.TempDir(), Environ: func() []string { return nil }}
	for b.Loop() {
		if _, err := Load(o); err != nil {
			b.Fatal(err)
		}
	}
}
