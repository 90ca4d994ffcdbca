package copilotplugins

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
		{Name: "every option", Options: &Options{Home: "~/c"}},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.copilot_plugins", "*copilotplugins.Options"}},
	})
}

func skill(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nDo it.\n"
}

// copilotHome writes a Copilot CLI folder as Copilot CLI 1.0.102 left it
// after `copilot plugin marketplace add` of a git and of a local
// marketplace, `copilot plugin install` of alpha, beta and gamma from the
// git one and of alpha and beta from the local one, and `copilot plugin
// disable beta@git-mkt` and `beta@local-mkt`: config.json (with its
// comment lines), settings.json, installed-plugins/ and the local
// marketplace's folder. gamma@git-mkt is enabled in config.json but left
// out of enabledPlugins, which Copilot CLI counts as off.
func copilotHome(t *testing.T) (base string, abs func(string) string) {
	base = testfs.TempDir(t)
	abs = func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	installed := func(name, version string) string {
		return `{"name": "` + name + `", "marketplace": "git-mkt", "installed_at": "2026-11-28T08:31:08.506599847Z",
      "enabled": true, "version": "` + version + `", "cache_path": "` + filepath.ToSlash(abs("home/.copilot/installed-plugins/git-mkt/"+name)) + `",
      "source_sha": "6b9b9be8ac0e0b4a85fd16c7d22849ed7897fcc9019536c35563a9ba283e8042"}`
	}
	testfs.Write(t, base, map[string]string{
		"home/.copilot/config.json": "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n" +
			`  "installedPlugins": [` + installed("alpha", "1.0.0") + `, ` + installed("beta", "0.1.0") + `, ` +
			installed("gamma", "2.0.0") + "]\n}\n",
		"home/.copilot/settings.json": `{
  "extraKnownMarketplaces": {
    "local-mkt": {"source": {"source": "directory", "path": "` + filepath.ToSlash(abs("mkt")) + `"}},
    "git-mkt": {"source": {"source": "git", "url": "https://example.test/gitmkt.git"}}
  },
  "enabledPlugins": {"alpha@local-mkt": true, "beta@local-mkt": false, "alpha@git-mkt": true, "beta@git-mkt": false}
}`,
		// alpha: an Agent Plugin; its .claude-plugin manifest loses.
		"home/.copilot/installed-plugins/git-mkt/alpha/plugin.json": `{"$schema": "` + providers.AgentPluginsSchema +
			`", "name": "alpha", "version": "1.0.0"}`,
		"home/.copilot/installed-plugins/git-mkt/alpha/.claude-plugin/plugin.json": `{"name": "alpha-claude", "skills": "./other"}`,
		"home/.copilot/installed-plugins/git-mkt/alpha/skills/greet/SKILL.md":      skill("greet"),
		"home/.copilot/installed-plugins/git-mkt/alpha/other/no/SKILL.md":          skill("no"),
		// beta: a Claude plugin, disabled.
		"home/.copilot/installed-plugins/git-mkt/beta/.claude-plugin/plugin.json": `{"name": "beta", "version": "0.1.0"}`,
		"home/.copilot/installed-plugins/git-mkt/beta/skills/hello/SKILL.md":      skill("hello"),
		// gamma: Copilot's own .github/plugin manifest.
		"home/.copilot/installed-plugins/git-mkt/gamma/.github/plugin/plugin.json": `{"name": "gamma"}`,
		"home/.copilot/installed-plugins/git-mkt/gamma/skills/g/SKILL.md":          skill("g"),
		// The local marketplace, loaded live.
		"mkt/.github/plugin/marketplace.json": `{"name": "local-mkt", "owner": {"name": "me"}, "plugins": [
			{"name": "alpha", "source": "./plugins/alpha"}, {"name": "beta", "source": "plugins/beta"}]}`,
		"mkt/plugins/alpha/plugin.json":               `{"name": "alpha", "version": "1.0.0"}`,
		"mkt/plugins/alpha/skills/greet/SKILL.md":     skill("greet"),
		"mkt/plugins/beta/.claude-plugin/plugin.json": `{"name": "beta", "version": "0.1.0"}`,
		"mkt/plugins/beta/skills/hello/SKILL.md":      skill("hello"),
	})
	return base, abs
}

// TestPlan checks which plugins load: settings.json's enabledPlugins
// decides (an absent key is off), the root plugin.json wins over
// .claude-plugin/plugin.json, a live plugin is read in its local
// marketplace, and the disabled ones are listed with their skills and
// how to turn them on.
func TestPlan(t *testing.T) {
	_, abs := copilotHome(t)
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), providertest.Env(abs("home"), nil))
	root := func(path, plugin, market, version string, skills ...string) pipeline.Root {
		return pipeline.Root{Path: abs(path), Agent: Label, Provider: Name, Location: pipeline.LocationPlugin,
			Kind: pipeline.KindPlugin, Optional: true, Prefix: plugin, Skills: skills,
			Plugin: &pipeline.PluginInfo{Plugin: plugin, Marketplace: market, Version: version}}
	}
	providertest.CheckRoots(t, []pipeline.Root{
		root("home/.copilot/installed-plugins/git-mkt/alpha/skills", "alpha", "git-mkt", "1.0.0", "greet"),
		root("mkt/plugins/alpha/skills", "alpha", "local-mkt", "1.0.0", "greet"),
	}, plan.Roots)
	var off []string
	for _, d := range plan.Disabled {
		off = append(off, d.Key()+" "+strings.Join(d.Skills, ",")+" "+d.EnableHint())
	}
	settings := abs("home/.copilot/settings.json")
	want := []string{
		"beta@git-mkt hello `copilot plugin enable beta@git-mkt` (" + settings + " enabledPlugins)",
		"gamma@git-mkt g `copilot plugin enable gamma@git-mkt` (" + settings + " enabledPlugins)",
		"beta@local-mkt hello `copilot plugin enable beta@local-mkt` (" + settings + " enabledPlugins)",
	}
	if strings.Join(off, "\n") != strings.Join(want, "\n") {
		t.Errorf("disabled:\n%s\nwant:\n%s", strings.Join(off, "\n"), strings.Join(want, "\n"))
	}
}

// TestCopilotHome checks that $COPILOT_HOME moves the folder, as Copilot
// CLI documents (`copilot help environment`).
func TestCopilotHome(t *testing.T) {
	_, abs := copilotHome(t)
	env := providertest.Env(abs("elsewhere"), map[string]string{HomeVar: abs("home/.copilot")})
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
	if len(plan.Roots) != 2 || len(plan.Disabled) != 3 {
		t.Errorf("with %s set: %d roots, %d disabled; want 2 and 3", HomeVar, len(plan.Roots), len(plan.Disabled))
	}
}

// TestAgentPluginRejected checks that a root plugin.json declaring
// $schema is held to Agent Plugins' rules, as Copilot CLI 1.0.102 does (a
// name with capitals loads no skill), while one without $schema is
// Copilot's lenient manifest.
func TestAgentPluginRejected(t *testing.T) {
	_, abs := copilotHome(t)
	testfs.Write(t, abs("home/.copilot/installed-plugins/git-mkt/alpha"), map[string]string{
		"plugin.json": `{"$schema": "` + providers.AgentPluginsSchema + `", "name": "Alpha_Bad"}`,
	})
	testfs.Write(t, abs("mkt/plugins/alpha"), map[string]string{"plugin.json": `{"name": "Alpha_Lenient"}`})
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), providertest.Env(abs("home"), nil))
	if len(plan.Roots) != 1 || plan.Roots[0].Path != abs("mkt/plugins/alpha/skills") || plan.Roots[0].Prefix != "Alpha_Lenient" {
		t.Fatalf("roots = %+v, want only the lenient live alpha", plan.Roots)
	}
	found := false
	for _, d := range plan.Diagnostics {
		found = found || d.Code == "plugin-manifest-invalid" && strings.Contains(d.Message, "plugin alpha@git-mkt: name \"Alpha_Bad\"")
	}
	if !found {
		t.Errorf("no diagnostic rejecting alpha@git-mkt's name: %+v", plan.Diagnostics)
	}
}
