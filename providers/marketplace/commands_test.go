package marketplace

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
)

// cmdRoot is the command root expected for a plugin at a path relative
// to the base.
func (h *harness) cmdRoot(key, version, path string) pipeline.Root {
	plugin, market, _ := splitKey(key)
	return pipeline.Root{
		Path: h.abs(path), Agent: "claude", Provider: "marketplace",
		Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin, Prefix: plugin,
		Plugin: &pipeline.PluginInfo{Plugin: plugin, Marketplace: market, Version: version},
		Type:   pipeline.TypeCommand, Optional: true,
	}
}

// commandRoots returns the command roots of a plan.
func commandRoots(roots []pipeline.Root) []pipeline.Root {
	var out []pipeline.Root
	for _, r := range roots {
		if r.Type == pipeline.TypeCommand {
			out = append(out, r)
		}
	}
	return out
}

func TestPlanCommands(t *testing.T) {
	const (
		ins = pluginsDir + "/cache/acme/tools/1.0.0"
		mkt = pluginsDir + "/marketplaces/acme"
	)
	installUser := func(h *harness) {
		h.installed(map[string]any{"version": 2, "plugins": map[string]any{
			"tools@acme": []any{map[string]any{"scope": "user", "installPath": h.abs(ins), "version": "1.0.0"}}}})
	}
	tests := []struct {
		name    string
		setup   func(h *harness)
		options *Options
		want    func(h *harness) []pipeline.Root
		diags   func(h *harness) []diagKey
	}{
		{name: "the default commands/ folder",
			setup: func(h *harness) {
				installUser(h)
				h.write(ins+"/commands/review.md", "Review.")
			},
			want: func(h *harness) []pipeline.Root {
				return []pipeline.Root{h.cmdRoot("tools@acme", "1.0.0", ins+"/commands")}
			}},
		{name: "no commands/ folder: no command root",
			setup: func(h *harness) {
				installUser(h)
				h.skills(ins + "/skills/lint")
			},
			want: func(*harness) []pipeline.Root { return nil }},
		{name: "the commands option off",
			setup: func(h *harness) {
				installUser(h)
				h.write(ins+"/commands/review.md", "Review.")
			},
			options: with(func(o *Options) { o.Commands = false }),
			want:    func(*harness) []pipeline.Root { return nil }},
		{name: "plugin.json paths replace commands/: a folder and a file",
			setup: func(h *harness) {
				installUser(h)
				h.write(ins+"/commands/old.md", "Not read: the manifest lists its own paths.")
				h.write(ins+"/cmds/a.md", "A.")
				h.write(ins+"/extra/one.md", "One.")
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{
					"name": "tools", "version": "1.0.0", "commands": []any{"./cmds", "./extra/one.md", "./cmds/"}})
			},
			want: func(h *harness) []pipeline.Root {
				return []pipeline.Root{h.cmdRoot("tools@acme", "1.0.0", ins+"/cmds"),
					h.cmdRoot("tools@acme", "1.0.0", ins+"/extra/one.md")}
			}},
		{name: "plugin.json commands as one string",
			setup: func(h *harness) {
				installUser(h)
				h.write(ins+"/cmds/a.md", "A.")
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "commands": "./cmds"})
			},
			want: func(h *harness) []pipeline.Root {
				return []pipeline.Root{h.cmdRoot("tools@acme", "1.0.0", ins+"/cmds")}
			}},
		{name: "plugin.json without commands keeps commands/",
			setup: func(h *harness) {
				installUser(h)
				h.write(ins+"/commands/review.md", "Review.")
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "version": "2.0.0"})
			},
			want: func(h *harness) []pipeline.Root {
				return []pipeline.Root{h.cmdRoot("tools@acme", "2.0.0", ins+"/commands")}
			}},
		{name: "bad declared paths are reported and skipped",
			setup: func(h *harness) {
				installUser(h)
				h.write(ins+"/cmds/a.md", "A.")
				h.write(ins+"/notes.txt", "x")
				h.write(pluginsDir+"/cache/acme/outside.md", "Outside the plugin.")
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools",
					"commands": []any{"./../outside.md", "./missing", "./notes.txt", "./cmds"}})
			},
			want: func(h *harness) []pipeline.Root {
				return []pipeline.Root{h.cmdRoot("tools@acme", "1.0.0", ins+"/cmds")}
			},
			diags: func(h *harness) []diagKey {
				m := ins + "/.claude-plugin/plugin.json"
				return []diagKey{
					h.diag(pipeline.SeverityWarning, "command-path-outside-plugin", m),
					h.diag(pipeline.SeverityWarning, "plugin-command-missing", m),
					h.diag(pipeline.SeverityWarning, "plugin-command-missing", m),
				}
			}},
		{name: "commands that are not paths: Claude Code refuses the plugin",
			setup: func(h *harness) {
				installUser(h)
				h.write(ins+"/commands/review.md", "Review.")
				h.writeJSON(ins+"/.claude-plugin/plugin.json", map[string]any{"name": "tools", "commands": 7})
			},
			want: func(h *harness) []pipeline.Root { return nil },
			diags: func(h *harness) []diagKey {
				m := ins + "/.claude-plugin/plugin.json"
				return []diagKey{h.diag(pipeline.SeverityWarning, "plugin-manifest-invalid", m),
					h.diag(pipeline.SeverityWarning, "plugin-manifest-rejected", m)}
			}},
		{name: "a non-strict marketplace entry declares the commands",
			setup: func(h *harness) {
				h.installed(map[string]any{"version": 2, "plugins": map[string]any{
					"tools@acme": []any{map[string]any{"scope": "user", "installPath": h.abs(mkt), "version": "1.0.0"}}}})
				h.write(mkt+"/plugins/tools/commands/default.md", "Not read: the entry lists paths.")
				h.write(mkt+"/plugins/tools/ops/deploy.md", "Deploy.")
				h.writeJSON(mkt+"/.claude-plugin/marketplace.json", map[string]any{"name": "acme", "plugins": []any{
					map[string]any{"name": "tools", "source": "./plugins/tools", "strict": false, "commands": []any{"./ops"}}}})
			},
			want: func(h *harness) []pipeline.Root {
				return []pipeline.Root{h.cmdRoot("tools@acme", "1.0.0", mkt+"/plugins/tools/ops")}
			}},
		{name: "two plugins sharing one folder each get its commands",
			setup: func(h *harness) {
				h.installed(map[string]any{"version": 2, "plugins": map[string]any{
					"a@acme": []any{map[string]any{"scope": "user", "installPath": h.abs(mkt), "version": "1"}},
					"b@acme": []any{map[string]any{"scope": "user", "installPath": h.abs(mkt), "version": "1"}}}})
				h.write(mkt+"/commands/shared.md", "Shared.")
				h.writeJSON(mkt+"/.claude-plugin/marketplace.json", map[string]any{"name": "acme", "plugins": []any{
					map[string]any{"name": "a", "source": "./", "strict": false},
					map[string]any{"name": "b", "source": "./", "strict": false}}})
			},
			want: func(h *harness) []pipeline.Root {
				return []pipeline.Root{h.cmdRoot("a@acme", "1", mkt+"/commands"), h.cmdRoot("b@acme", "1", mkt+"/commands")}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.setup(h)
			plan := h.plan(tt.options)
			if d := cmp.Diff(tt.want(h), commandRoots(plan.Roots)); d != "" {
				t.Errorf("command roots (-want +got):\n%s", d)
			}
			var got []diagKey
			for _, d := range keysOf(plan.Diagnostics) {
				if d.Code != "installed-plugins-missing" {
					got = append(got, d)
				}
			}
			var want []diagKey
			if tt.diags != nil {
				want = tt.diags(h)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			// Every command root follows its plugin's skill root (or another
			// command root of the plugin).
			for i, r := range plan.Roots {
				if r.Type == pipeline.TypeCommand && (i == 0 || plan.Roots[i-1].Plugin.Plugin != r.Plugin.Plugin) {
					t.Errorf("command root %s does not follow a root of its plugin", r.Path)
				}
			}
		})
	}
}

func TestNewCommandsOption(t *testing.T) {
	for _, tt := range []struct {
		options *Options
		want    bool
	}{
		{nil, true},
		{with(func(o *Options) { o.Commands = true }), true},
		{with(func(o *Options) { o.Commands = false }), false},
	} {
		p, err := New(tt.options)
		if err != nil {
			t.Fatalf("New(%v): %v", tt.options, err)
		}
		if got := p.(*Marketplace).opts.Commands; got != tt.want {
			t.Errorf("New(%v): commands = %v, want %v", tt.options, got, tt.want)
		}
	}
}
