package marketplace

import (
	"slices"
	"strings"
	"testing"
)

// TestClaudeRefuses checks the manifest rules against what `claude plugin
// validate` (Claude Code 2.1.332) says of each manifest; a refused
// manifest makes `claude plugin list` say "failed to load" and Claude Code
// list none of the plugin's skills.
func TestClaudeRefuses(t *testing.T) {
	tests := []struct {
		manifest string
		want     []string
	}{
		{`{"name": "x"}`, nil},
		{`{"name": "x", "unknown": 1}`, nil},
		{`{"name": "x", "skills": "."}`, nil},
		{`{"name": "x", "skills": ["./a", "./b"], "agents": "./a/b.md", "commands": {"a": {"source": "./c.md"}}}`, nil},
		{`{"name": "x", "agents": ["./agents/ag"]}`, []string{`agents.0: Invalid string: must end with ".md"`}},
		{`{"name": "x", "agents": 3}`, []string{"agents: Invalid input"}},
		{`{"name": "x", "skills": "skills/a"}`, []string{`skills: Invalid string: must start with "./"`}},
		{`{"name": "x", "commands": ["cmd/a.md"]}`, []string{`commands.0: Invalid string: must start with "./"`}},
		{`{"name": "x", "outputStyles": "styles"}`, []string{`outputStyles: Invalid string: must start with "./"`}},
		{`{"version": "1"}`, []string{"name: Invalid input: expected string"}},
		{`{"name": ""}`, []string{"name: Plugin name cannot be empty"}},
		{`{"name": "x y"}`, []string{"name: Plugin name cannot contain spaces"}},
	}
	for _, tt := range tests {
		obj, ok := asObject([]byte(tt.manifest))
		if !ok {
			t.Fatalf("bad test manifest %s", tt.manifest)
		}
		if got := claudeRefuses(obj); !slices.Equal(got, tt.want) {
			t.Errorf("claudeRefuses(%s) = %q, want %q", tt.manifest, got, tt.want)
		}
	}
}

// TestPlanRefusedManifest checks that a plugin whose manifest Claude Code
// refuses gives no roots, is listed among the plugins that load nothing
// with the names of its skills and why, and is reported.
func TestPlanRefusedManifest(t *testing.T) {
	const (
		good = pluginsDir + "/cache/acme/good/1"
		bad  = pluginsDir + "/cache/acme/bad/1"
	)
	h := newHarness(t)
	h.installed(map[string]any{"version": 1, "plugins": map[string]any{
		"good@acme": map[string]any{"installPath": h.abs(good), "version": "1"},
		"bad@acme":  map[string]any{"installPath": h.abs(bad), "version": "1"}}})
	h.skills(good+"/skills/g", bad+"/skills/b1", bad+"/skills/b2")
	h.writeJSON(good+"/.claude-plugin/plugin.json", map[string]any{"name": "good", "agents": []string{"./agents/a.md"}})
	h.writeJSON(bad+"/.claude-plugin/plugin.json", map[string]any{"name": "bad", "agents": []string{"./agents/a"}})
	plan := h.plan(nil)

	credited := h.credited(plan)
	if _, ok := credited["bad@acme"]; ok {
		t.Errorf("bad@acme planned: %v", credited["bad@acme"])
	}
	if _, ok := credited["good@acme"]; !ok {
		t.Errorf("good@acme not planned")
	}
	if len(plan.Disabled) != 1 {
		t.Fatalf("Disabled = %+v, want bad@acme", plan.Disabled)
	}
	d := plan.Disabled[0]
	if d.Key() != "bad@acme" || !slices.Equal(d.Skills, []string{"b1", "b2"}) ||
		d.Settings != h.abs(bad+"/.claude-plugin/plugin.json") || !strings.Contains(d.Refused, `agents.0: Invalid string: must end with ".md"`) {
		t.Errorf("Disabled[0] = %+v", d)
	}
	want := []diagKey{h.diag("warning", "plugin-manifest-rejected", bad+"/.claude-plugin/plugin.json")}
	if got := keysOf(plan.Diagnostics); !slices.Equal(got, want) {
		t.Errorf("diagnostics = %v, want %v", got, want)
	}
}
