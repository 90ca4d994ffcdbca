package pipeline

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPluginOffSkills: each skill and command of a disabled plugin gets
// the id its record would have, once per install, and search words match
// its id, name and plugin.
func TestPluginOffSkills(t *testing.T) {
	lint := DisabledPlugin{Provider: "claude", Plugin: "linter", Marketplace: "m", Settings: "/h/.claude/settings.json",
		Skills: []string{"lint-check", "lint-fix"}, Commands: []string{"fix:all"}}
	again := lint
	again.Settings = "/ws/.claude/settings.json" // off in two files: one install
	codex := DisabledPlugin{Provider: "codex", Plugin: "docs", Marketplace: "n", Enable: "config.toml", Skills: []string{"pdf"}}
	snap := NewSnapshot(nil, nil, nil, nil, nil)
	snap.Disabled = []DisabledPlugin{lint, again, codex}

	var ids []string
	for _, p := range snap.PluginOffSkills("") {
		ids = append(ids, p.ID)
	}
	want := []string{"claude:@linter:lint-check", "claude:@linter:lint-fix", "claude:/@linter:fix:all", "codex:@docs:pdf"}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	skills := snap.PluginOffSkills(TypeSkill)
	if len(skills) != 3 || skills[2].Name != "docs:pdf" {
		t.Errorf("skills: %+v", skills)
	}
	if r := skills[0].Reason(); !strings.Contains(r, "plugin linter is disabled") || !strings.Contains(r, "/h/.claude/settings.json") {
		t.Errorf("reason: %q", r)
	}
	for q, want := range map[string]bool{"lint": true, "LINT fix": true, "linter@m": true, "pdf lint": false, "": false} {
		if got := skills[1].Matches(q); got != want {
			t.Errorf("Matches(%q) = %v, want %v", q, got, want)
		}
	}
}
