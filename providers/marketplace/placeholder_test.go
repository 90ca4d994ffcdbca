package marketplace

import (
	"slices"
	"testing"
)

// TestPlanPlaceholderNotInstalled: a Claude Code session writes an entry
// into installed_plugins.json for a plugin the settings enable but nobody
// installed: version "unknown", an install folder that does not exist
// (Claude Code 2.1.332; see docs/hosts.md). The plugin is still enabled
// but not installed, and reported so; a real install is not.
func TestPlanPlaceholderNotInstalled(t *testing.T) {
	h := newHarness(t)
	const good = pluginsDir + "/cache/acme/good/1"
	h.installed(map[string]any{"version": 2, "plugins": map[string]any{
		"ghost@acme": []any{map[string]any{"scope": "user", "installPath": h.abs(pluginsDir + "/cache/acme/ghost/unknown"),
			"version": "unknown"}},
		"good@acme": []any{map[string]any{"scope": "user", "installPath": h.abs(good), "version": "1"}}}})
	h.skills(good + "/skills/g")
	h.writeJSON("home/.claude/settings.json", map[string]any{"enabledPlugins": map[string]any{"ghost@acme": true, "good@acme": true}})
	plan := h.plan(nil)
	want := h.diag("warning", "plugin-not-installed", "home/.claude/settings.json")
	if got := keysOf(plan.Diagnostics); !slices.Contains(got, want) {
		t.Errorf("diagnostics = %v, want %v", got, want)
	}
	if n := len(keysOf(plan.Diagnostics)); n != 1 {
		t.Errorf("diagnostics = %v: the real install is reported too", keysOf(plan.Diagnostics))
	}
}
