package all

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
)

// TestRegistryMatchesDefaults checks that every registered provider has a
// section in the built-in configuration (and so in ccski.yaml and the
// schema), that no section names an unregistered provider, and that every
// provider builds from its default options.
func TestRegistryMatchesDefaults(t *testing.T) {
	defaults := configs.Default().Providers
	var registered, configured []string
	for _, e := range Registry() {
		registered = append(registered, e.Name)
		pc, ok := defaults[e.Name]
		if !ok {
			continue
		}
		opts := map[string]any{}
		for k, v := range pc.Options {
			opts[k] = v
		}
		p, err := e.New(opts)
		if err != nil {
			t.Errorf("%s: New with the default options: %v", e.Name, err)
			continue
		}
		if p.Name() != e.Name {
			t.Errorf("registered as %q but Name() is %q", e.Name, p.Name())
		}
		if e.Doc == "" {
			t.Errorf("%s has no Doc", e.Name)
		}
	}
	for name := range defaults {
		configured = append(configured, name)
	}
	sort.Strings(registered)
	sort.Strings(configured)
	if d := cmp.Diff(registered, configured); d != "" {
		t.Errorf("registered providers vs configured sections (-registered +configured):\n%s", d)
	}
}

// TestRegistryRejectsUnknownOptions checks that each provider decodes its
// options strictly.
func TestRegistryRejectsUnknownOptions(t *testing.T) {
	for _, e := range Registry() {
		if _, err := e.New(map[string]any{"no_such_option": true}); err == nil {
			t.Errorf("%s accepted an unknown option", e.Name)
		}
	}
}
