package pipeline

import (
	"errors"
	"strings"
	"testing"
)

// TestDisabledPluginEnableHint checks where the error for a disabled
// plugin tells the user to turn it on: in Claude's enabledPlugins by
// default, or where the plugin's own host keeps its switch.
func TestDisabledPluginEnableHint(t *testing.T) {
	claude := DisabledPlugin{Provider: "claude", Plugin: "superpowers", Marketplace: "m",
		Settings: "/h/.claude/settings.json", Skills: []string{"brainstorming"}}
	codex := DisabledPlugin{Provider: "codex", Plugin: "linear", Marketplace: "openai-curated",
		Settings: "/h/.codex/config.toml", Enable: `/h/.codex/config.toml: [plugins."linear@openai-curated"] enabled = true`,
		Skills: []string{"triage"}}
	tests := []struct {
		name   string
		plugin DisabledPlugin
		query  string
		want   string
		absent string
	}{
		{"claude settings by default", claude, "superpowers:brainstorming",
			`plugin superpowers is disabled (enable it in /h/.claude/settings.json enabledPlugins: "superpowers@m": true)`, ""},
		{"the host's own switch when the provider names it", codex, "linear:triage",
			`plugin linear is disabled (enable it in /h/.codex/config.toml: [plugins."linear@openai-curated"] enabled = true)`,
			"enabledPlugins"},
		{"a bare name of the plugin's skill", codex, "triage",
			`it names the skill linear:triage, but plugin linear is disabled (enable it in /h/.codex/config.toml:`,
			"enabledPlugins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSnapshot(nil, nil, nil, nil, nil)
			s.Disabled = []DisabledPlugin{tt.plugin}
			_, err := s.Load(tt.query, TypeSkill)
			var off *PluginDisabledError
			if !errors.As(err, &off) {
				t.Fatalf("Load(%q) error = %v, want a *PluginDisabledError", tt.query, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not hold %q", err, tt.want)
			}
			if tt.absent != "" && strings.Contains(err.Error(), tt.absent) {
				t.Errorf("error %q holds %q", err, tt.absent)
			}
		})
	}
}

// TestDisabledReasonGroupsPluginsByName checks that one plugin disabled in
// two places, its name spelled in two cases, is one part of the reason
// naming both places, as the filters' reason always said.
func TestDisabledReasonGroupsPluginsByName(t *testing.T) {
	got := DisabledReason([]DisabledPlugin{
		{Provider: "claude", Plugin: "Docs", Marketplace: "m", Settings: "/h/.claude/settings.json"},
		{Provider: "claude", Plugin: "docs", Marketplace: "m", Settings: "/w/.claude/settings.json"},
		{Provider: "claude", Plugin: "other", Marketplace: "m", Settings: "/h/.claude/settings.json"},
	})
	if n := strings.Count(got, "is disabled"); n != 2 {
		t.Fatalf("DisabledReason = %q: %d parts, want 2 (Docs and docs are one plugin)", got, n)
	}
	if !strings.Contains(got, "/h/.claude/settings.json") || !strings.Contains(got, "/w/.claude/settings.json") {
		t.Errorf("DisabledReason = %q: want both settings files named for the one plugin", got)
	}
}
