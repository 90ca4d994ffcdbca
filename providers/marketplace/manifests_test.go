package marketplace

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlanManifests checks that a plan names every file the provider read
// or looked for: a watcher watches them, so that enabling, installing or
// changing a plugin is seen without a periodic rescan, and a settings file
// that does not exist yet is seen when it is created.
func TestPlanManifests(t *testing.T) {
	const (
		cache  = pluginsDir + "/cache/acme/tools/1"
		market = pluginsDir + "/marketplaces/acme"
	)
	install := func(h *harness, key, path string) []any {
		return []any{map[string]any{"scope": "user", "installPath": h.abs(path), "version": "1"}}
	}
	// The settings files of the harness's workspace, <base>/repo/sub in
	// the repository <base>/repo: the user's, then each folder's project
	// and local files, farthest first.
	settings := []string{"home/.claude/settings.json",
		"repo/.claude/settings.json", "repo/.claude/settings.local.json",
		"repo/sub/.claude/settings.json", "repo/sub/.claude/settings.local.json"}
	tests := []struct {
		name  string
		setup func(h *harness)
		want  []string // relative to the base
	}{
		{"nothing installed: the plugins file and the settings files, looked for", func(*harness) {},
			append([]string{pluginsDir + "/installed_plugins.json"}, settings...)},
		{"an enabled plugin: bookkeeping, every settings file, both manifests", func(h *harness) {
			h.installed(map[string]any{"version": 2, "plugins": map[string]any{"tools@acme": install(h, "tools@acme", cache)}})
			h.writeJSON(pluginsDir+"/known_marketplaces.json", map[string]any{"acme": map[string]any{"installLocation": h.abs(market)}})
			h.writeJSON(market+"/.claude-plugin/marketplace.json", map[string]any{"name": "acme",
				"plugins": []any{map[string]any{"name": "tools", "source": "./tools"}}})
			h.writeJSON(cache+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "version": "1"})
			h.skills(cache + "/skills/lint")
			h.writeJSON("home/.claude/settings.json", map[string]any{"enabledPlugins": map[string]any{"tools@acme": true}})
		}, append([]string{pluginsDir + "/installed_plugins.json", pluginsDir + "/known_marketplaces.json",
			market + "/.claude-plugin/marketplace.json", cache + "/.claude-plugin/plugin.json"}, settings...)},
		{"a disabled plugin: its manifests are read for its names", func(h *harness) {
			h.installed(map[string]any{"version": 2, "plugins": map[string]any{"tools@acme": install(h, "tools@acme", cache)}})
			h.writeJSON(cache+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "version": "1"})
			h.skills(cache + "/skills/lint")
			h.writeJSON("repo/.claude/settings.local.json", map[string]any{"enabledPlugins": map[string]any{"tools@acme": false}})
		}, append([]string{pluginsDir + "/installed_plugins.json", pluginsDir + "/known_marketplaces.json",
			market + "/.claude-plugin/marketplace.json", cache + "/.claude-plugin/plugin.json"}, settings...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.setup(h)
			plan := h.plan(nil)
			got := slices.Clone(plan.Manifests)
			slices.Sort(got)
			got = slices.Compact(got)
			want := h.absAll(tt.want...)
			slices.Sort(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Manifests (-want +got):\n%s", d)
			}
		})
	}
}
