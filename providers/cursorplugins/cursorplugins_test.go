package cursorplugins

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

func TestNew(t *testing.T) {
	providertest.CheckNew(t, New, Name, []providertest.NewCase{
		{Name: "nil options"},
		{Name: "every option", Options: &Options{PluginsDir: "~/p"}},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.cursor_plugins", "*cursorplugins.Options"}},
	})
}

func skill(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nDo it.\n"
}

// TestPlan plans ~/.cursor/plugins shaped as Cursor keeps it: a Cursor
// plugin in local/ whose "skills" field replaces skills/, an Agent Plugin
// in local/ read unchanged, a marketplace install in cache/ with two
// versions (the greater loads), a manifest pointing out of its plugin,
// and a folder with no manifest.
func TestPlan(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"home/.cursor/plugins/local/team-kit/.cursor-plugin/plugin.json": `{"name": "team-kit", "version": "0.3.0",
			"description": "CI and review", "skills": "./custom-skills", "rules": "./rules"}`,
		"home/.cursor/plugins/local/team-kit/custom-skills/ship/SKILL.md": skill("ship"),
		"home/.cursor/plugins/local/team-kit/skills/ignored/SKILL.md":     skill("ignored"),
		"home/.cursor/plugins/local/portable/plugin.json": `{"$schema": "` + providers.AgentPluginsSchema +
			`", "name": "portable", "version": "1.0.0"}`,
		"home/.cursor/plugins/local/portable/skills/greet/SKILL.md":                                   skill("greet"),
		"home/.cursor/plugins/cache/cursor-public/stripe/1.1.0/.cursor-plugin/plugin.json":            `{"name": "stripe", "version": "1.1.0"}`,
		"home/.cursor/plugins/cache/cursor-public/stripe/1.1.0/skills/old/SKILL.md":                   skill("old"),
		"home/.cursor/plugins/cache/cursor-public/stripe/1.5.0/.cursor-plugin/plugin.json":            `{"name": "stripe", "version": "1.5.0"}`,
		"home/.cursor/plugins/cache/cursor-public/stripe/1.5.0/skills/stripe-best-practices/SKILL.md": skill("stripe-best-practices"),
		"home/.cursor/plugins/local/escape/.cursor-plugin/plugin.json":                                `{"name": "escape", "skills": ["../../x", "/etc", "./ok"]}`,
		"home/.cursor/plugins/local/escape/ok/fine/SKILL.md":                                          skill("fine"),
		"home/.cursor/plugins/local/no-manifest/skills/n/SKILL.md":                                    skill("n"),
	})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), providertest.Env(abs("home"), nil))
	root := func(path, plugin, market, version string, skills ...string) pipeline.Root {
		return pipeline.Root{Path: abs(path), Agent: Label, Provider: Name, Location: pipeline.LocationPlugin,
			Kind: pipeline.KindPlugin, Optional: true, Prefix: plugin, Skills: skills,
			Plugin: &pipeline.PluginInfo{Plugin: plugin, Marketplace: market, Version: version, NoSwitch: noSwitch}}
	}
	providertest.CheckRoots(t, []pipeline.Root{
		root("home/.cursor/plugins/local/escape/ok", "escape", "local", "", "fine"),
		root("home/.cursor/plugins/local/portable/skills", "portable", "local", "1.0.0", "greet"),
		root("home/.cursor/plugins/local/team-kit/custom-skills", "team-kit", "local", "0.3.0", "ship"),
		root("home/.cursor/plugins/cache/cursor-public/stripe/1.5.0/skills", "stripe", "cursor-public", "1.5.0", "stripe-best-practices"),
	}, plan.Roots)
	var msgs []string
	for _, d := range plan.Diagnostics {
		msgs = append(msgs, d.Code+": "+d.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		`plugin-manifest-invalid: "skills" path "../../x" of plugin escape@local must start with "./"`,
		`plugin-manifest-invalid: "skills" path "/etc" of plugin escape@local must start with "./"`,
		`plugin-manifest-missing: plugin no-manifest@local has no manifest (looked for .cursor-plugin/plugin.json, plugin.json)`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, all)
		}
	}
}
