package all

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/providers"
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

// TestLabelsCoverPlans checks that every root a registered provider plans
// carries one of the entry's Labels, so that ProviderNames, which filter
// tokens read, names every provider a record can have (dynamic agents
// aside: the user folder here holds none).
func TestLabelsCoverPlans(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	env := providers.NewEnv(home, ws, func(string) string { return "" })
	defaults := configs.Default().Providers
	for _, e := range Registry() {
		if len(e.Labels) == 0 {
			t.Errorf("%s has no Labels", e.Name)
			continue
		}
		opts := map[string]any{}
		for k, v := range defaults[e.Name].Options {
			opts[k] = v
		}
		if e.Name == "custom" || e.Name == "project" {
			opts["dirs"] = []any{filepath.Join(ws, "extra")}
		}
		p, err := e.New(opts)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		plan, err := p.Plan(context.Background(), env)
		if err != nil {
			t.Fatalf("%s: Plan: %v", e.Name, err)
		}
		for _, r := range plan.Roots {
			if !slices.Contains(e.Labels, r.Agent) {
				t.Errorf("%s plans root %s with provider %q, not one of its Labels %q", e.Name, r.Path, r.Agent, e.Labels)
			}
		}
	}
	want := []string{"custom", "project", "claude", "codex", "agents", "gemini", "openclaw"}
	if d := cmp.Diff(want, ProviderNames()); d != "" {
		t.Errorf("ProviderNames (-want +got):\n%s", d)
	}
}
