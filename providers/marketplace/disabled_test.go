package marketplace

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
)

// TestPlanDisabledPluginNames checks that a disabled plugin is reported
// with the names its skills and commands would have, worked out from the
// same manifests and folders as an enabled plugin's roots, and that the
// problems met on the way are not reported for a plugin that is not
// loaded.
func TestPlanDisabledPluginNames(t *testing.T) {
	const (
		mkt   = pluginsDir + "/marketplaces/anthropic-agent-skills"
		cache = pluginsDir + "/cache/acme/tools/1"
	)
	skill := "---\nname: x\ndescription: test skill\n---\n"
	tests := []struct {
		name    string
		key     string // the disabled plugin
		install string // its install folder, relative to the plugins root
		files   map[string]any
		options *Options
		wantOff pipeline.DisabledPlugin
	}{
		{
			name: "declared skills of a shared marketplace folder", key: "claude-api@anthropic-agent-skills",
			install: "marketplaces/anthropic-agent-skills",
			files: map[string]any{
				mkt + "/.claude-plugin/marketplace.json": map[string]any{"name": "anthropic-agent-skills", "plugins": []any{
					map[string]any{"name": "document-skills", "source": "./", "strict": false, "skills": []string{"./skills/docx"}},
					map[string]any{"name": "claude-api", "source": "./", "strict": false, "skills": []string{"./skills/claude-api"}},
				}},
				mkt + "/skills/claude-api/SKILL.md": skill,
				mkt + "/skills/docx/SKILL.md":       skill,
				mkt + "/skills/pdf/SKILL.md":        skill,
			},
			wantOff: pipeline.DisabledPlugin{Plugin: "claude-api", Marketplace: "anthropic-agent-skills",
				Skills: []string{"claude-api"}},
		},
		{
			name: "default skills and commands folders", key: "tools@acme", install: "cache/acme/tools/1",
			files: map[string]any{
				cache + "/.claude-plugin/plugin.json":  map[string]any{"name": "tools", "version": "1"},
				cache + "/skills/lint/SKILL.md":        skill,
				cache + "/skills/fmt/SKILL.md":         skill,
				cache + "/skills/old/.SKILL.md":        skill,
				cache + "/skills/.hidden/SKILL.md":     skill,
				cache + "/skills/notes/README.md":      "no skill here",
				cache + "/commands/setup.md":           "Set up.",
				cache + "/commands/frontend/review.md": "Review.",
				cache + "/commands/.draft.md":          "Hidden.",
				cache + "/commands/notes.txt":          "Not a command.",
			},
			wantOff: pipeline.DisabledPlugin{Plugin: "tools", Marketplace: "acme",
				Skills: []string{"fmt", "lint", "old"}, Commands: []string{"frontend:review", "setup"}},
		},
		{
			name: "paths declared in plugin.json", key: "tools@acme", install: "cache/acme/tools/1",
			files: map[string]any{
				cache + "/.claude-plugin/plugin.json": map[string]any{"name": "tools",
					"skills": []string{"./extra/deploy"}, "commands": []string{"./cmds/ship.md", "./tasks"}},
				cache + "/extra/deploy/SKILL.md": skill,
				cache + "/skills/lint/SKILL.md":  skill,
				cache + "/commands/ignored.md":   "Replaced by the declared paths.",
				cache + "/cmds/ship.md":          "Ship.",
				cache + "/tasks/plan.md":         "Plan.",
			},
			wantOff: pipeline.DisabledPlugin{Plugin: "tools", Marketplace: "acme",
				Skills: []string{"deploy", "lint"}, Commands: []string{"plan", "ship"}},
		},
		{
			name: "a plugin that is one skill has the plugin's name", key: "tools@acme", install: "cache/acme/tools/1",
			files:   map[string]any{cache + "/SKILL.md": skill},
			wantOff: pipeline.DisabledPlugin{Plugin: "tools", Marketplace: "acme", Skills: []string{"tools"}},
		},
		{
			name: "broken declarations are not reported", key: "tools@acme", install: "cache/acme/tools/1",
			files: map[string]any{
				cache + "/.claude-plugin/plugin.json": map[string]any{"name": "other",
					"skills": []string{"../outside", "./missing"}, "commands": []string{"/abs.md", "./gone.md"}},
				cache + "/skills/lint/SKILL.md": skill,
			},
			wantOff: pipeline.DisabledPlugin{Plugin: "tools", Marketplace: "acme", Skills: []string{"lint"}},
		},
		{
			name: "a missing install folder gives no names", key: "tools@acme", install: "cache/acme/tools/1",
			wantOff: pipeline.DisabledPlugin{Plugin: "tools", Marketplace: "acme"},
		},
		{
			name: "no command names when commands are off", key: "tools@acme", install: "cache/acme/tools/1",
			options: with(func(o *Options) { o.Commands = false }),
			files: map[string]any{
				cache + "/skills/lint/SKILL.md": skill,
				cache + "/commands/setup.md":    "Set up.",
			},
			wantOff: pipeline.DisabledPlugin{Plugin: "tools", Marketplace: "acme", Skills: []string{"lint"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			for rel, v := range tt.files {
				h.writeJSON(rel, v)
			}
			h.installed(map[string]any{"version": 2, "plugins": map[string]any{
				tt.key: []any{map[string]any{"scope": "user", "installPath": tt.install}},
			}})
			settings := "home/.claude/settings.json"
			h.writeJSON(settings, map[string]any{"enabledPlugins": map[string]any{tt.key: false}})
			plan := h.plan(tt.options)
			want := tt.wantOff
			want.Provider, want.Settings = "claude", h.abs(settings)
			if diff := cmp.Diff([]pipeline.DisabledPlugin{want}, plan.Disabled); diff != "" {
				t.Errorf("disabled plugins (-want +got):\n%s", diff)
			}
			if len(plan.Roots) != 0 {
				t.Errorf("a disabled plugin has roots: %v", plan.Roots)
			}
			if diff := cmp.Diff([]diagKey{h.diag("info", "plugin-disabled", settings)}, keysOf(plan.Diagnostics)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlanDisabledNamesKeepSharedProblems checks that the problems of a
// marketplace manifest that an enabled plugin shares with a disabled one
// are still reported, whichever plugin's key sorts first.
func TestPlanDisabledNamesKeepSharedProblems(t *testing.T) {
	const mkt = pluginsDir + "/marketplaces/shared"
	h := newHarness(t)
	h.writeJSON(mkt+"/.claude-plugin/marketplace.json", `{"name": "shared", "plugins": [
		{"name": "b-on", "source": "./", "strict": false, "skills": ["./skills/two"]},
		{"name": "a-off", "source": "./", "strict": false, "skills": ["./skills/one"]},
		{"source": "./"}]}`)
	h.skills(mkt+"/skills/one", mkt+"/skills/two")
	install := []any{map[string]any{"scope": "user", "installPath": "marketplaces/shared"}}
	h.installed(map[string]any{"version": 2, "plugins": map[string]any{"a-off@shared": install, "b-on@shared": install}})
	h.writeJSON("home/.claude/settings.json", map[string]any{"enabledPlugins": map[string]any{"a-off@shared": false}})
	plan := h.plan(nil)
	want := []diagKey{
		h.diag("info", "plugin-disabled", "home/.claude/settings.json"),
		h.diag("warning", "marketplace-manifest-invalid", mkt+"/.claude-plugin/marketplace.json"),
	}
	if diff := cmp.Diff(want, keysOf(plan.Diagnostics)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if len(plan.Disabled) != 1 || !cmp.Equal(plan.Disabled[0].Skills, []string{"one"}) {
		t.Errorf("disabled = %+v, want a-off with the skill one", plan.Disabled)
	}
}
