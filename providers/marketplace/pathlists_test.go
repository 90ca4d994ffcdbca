package marketplace

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlanInvalidPathLists checks the warnings for "skills" and "commands"
// lists that are neither a path nor an array of paths, in a plugin.json
// and in a marketplace.json entry: the code names the file's kind, the
// message the key, the plugin and what is done instead.
func TestPlanInvalidPathLists(t *testing.T) {
	const (
		ins = pluginsDir + "/cache/acme/tools/1.0.0"
		mkt = pluginsDir + "/marketplaces/acme"
	)
	type warning struct{ Code, Path, Message string }
	tests := []struct {
		name  string
		setup func(h *harness)
		want  func(h *harness) []warning
	}{
		{name: "plugin.json",
			setup: func(h *harness) {
				h.installed(map[string]any{"version": 2, "plugins": map[string]any{
					"tools@acme": []any{map[string]any{"scope": "user", "installPath": h.abs(ins), "version": "1.0.0"}}}})
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "skills": true, "commands": 7})
			},
			want: func(h *harness) []warning {
				file := h.abs(ins + "/.claude-plugin/plugin.json")
				return []warning{
					{"plugin-manifest-invalid", file,
						`"skills" of plugin tools@acme must be a path or an array of paths; only skills/ is used`},
					{"plugin-manifest-invalid", file,
						`"commands" of plugin tools@acme must be a path or an array of paths; only commands/ is used`},
				}
			}},
		{name: "marketplace.json entry",
			setup: func(h *harness) {
				h.installed(map[string]any{"version": 2, "plugins": map[string]any{
					"tools@acme": []any{map[string]any{"scope": "user", "installPath": h.abs(mkt), "version": "1.0.0"}}}})
				h.writeJSON(mkt+"/.claude-plugin/marketplace.json", map[string]any{"name": "acme", "plugins": []any{
					map[string]any{"name": "tools", "source": "./plugins/tools", "strict": false,
						"skills": 7, "commands": map[string]any{"path": "./ops"}}}})
			},
			want: func(h *harness) []warning {
				file := h.abs(mkt + "/.claude-plugin/marketplace.json")
				return []warning{
					{"marketplace-manifest-invalid", file,
						`"skills" of plugin "tools" must be a path or an array of paths; ignored`},
					{"marketplace-manifest-invalid", file,
						`"commands" of plugin "tools" must be a path or an array of paths; ignored`},
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.setup(h)
			var got []warning
			for _, d := range h.plan(nil).Diagnostics {
				if d.Code == "plugin-manifest-invalid" || d.Code == "marketplace-manifest-invalid" {
					got = append(got, warning{d.Code, d.Path, d.Message})
				}
			}
			if d := cmp.Diff(tt.want(h), got); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}
