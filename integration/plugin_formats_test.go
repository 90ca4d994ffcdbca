package integration

// The plugin formats of 2026: Agent Plugins 1.0 packages in
// .agents/plugins and ~/.agents/plugins, Copilot CLI's installed and live
// plugins, and Cursor's local and marketplace plugins, listed, attributed
// and refused through the binary as a user sees them.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/testfs"
)

const agentPluginsSchema = `"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"`

// pluginFormatsTree is a machine holding one plugin of each new format.
type pluginFormatsTree struct{ home, ws string }

func newPluginFormatsTree(t *testing.T) pluginFormatsTree {
	t.Helper()
	base := testfs.TempDir(t)
	p := pluginFormatsTree{home: filepath.Join(base, "home"), ws: filepath.Join(base, "work", "repo")}
	skill := func(name string) string {
		return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n# " + name + "\n"
	}
	cp := filepath.ToSlash(filepath.Join(p.home, ".copilot"))
	testfs.Write(t, base, map[string]string{
		"work/repo/.git/HEAD": "ref: refs/heads/main\n",
		// Agent Plugins: the spec's Quick Start plugin in the project, and
		// one whose skill is a link out of the plugin in the user folder.
		"work/repo/.agents/plugins/hello-plugin/plugin.json":           `{` + agentPluginsSchema + `, "name": "hello-plugin", "version": "1.0.0"}`,
		"work/repo/.agents/plugins/hello-plugin/skills/greet/SKILL.md": skill("greet"),
		"home/.agents/plugins/leaky/plugin.json":                       `{` + agentPluginsSchema + `, "name": "leaky"}`,
		"home/.agents/plugins/leaky/skills/fine/SKILL.md":              skill("fine"),
		"home/secrets/SKILL.md":                                        skill("secrets"),
		// Copilot CLI 1.0.102's files after installing reviewer from a git
		// marketplace, and linter, which `copilot plugin disable` turned off.
		"home/.copilot/config.json": "// User settings belong in settings.json.\n// This file is managed automatically.\n" +
			`{"installedPlugins": [
  {"name": "reviewer", "marketplace": "team", "enabled": true, "version": "2.0.0", "cache_path": "` + cp + `/installed-plugins/team/reviewer"},
  {"name": "linter", "marketplace": "team", "enabled": false, "version": "0.1.0", "cache_path": "` + cp + `/installed-plugins/team/linter"}]}`,
		"home/.copilot/settings.json":                                            `{"enabledPlugins": {"reviewer@team": true, "linter@team": false}}`,
		"home/.copilot/installed-plugins/team/reviewer/plugin.json":              `{` + agentPluginsSchema + `, "name": "reviewer", "version": "2.0.0"}`,
		"home/.copilot/installed-plugins/team/reviewer/skills/review/SKILL.md":   skill("review"),
		"home/.copilot/installed-plugins/team/linter/.claude-plugin/plugin.json": `{"name": "linter"}`,
		"home/.copilot/installed-plugins/team/linter/skills/lint/SKILL.md":       skill("lint"),
		// Cursor: a marketplace install, two versions.
		"home/.cursor/plugins/cache/cursor-public/stripe/1.1.0/.cursor-plugin/plugin.json": `{"name": "stripe", "version": "1.1.0"}`,
		"home/.cursor/plugins/cache/cursor-public/stripe/1.1.0/skills/payments/SKILL.md":   skill("payments"),
		"home/.cursor/plugins/cache/cursor-public/stripe/1.5.0/.cursor-plugin/plugin.json": `{"name": "stripe", "version": "1.5.0"}`,
		"home/.cursor/plugins/cache/cursor-public/stripe/1.5.0/skills/payments/SKILL.md":   skill("payments"),
		"home/.cursor/plugins/local/team-kit/.cursor-plugin/plugin.json":                   `{"name": "team-kit", "skills": "./kit"}`,
		"home/.cursor/plugins/local/team-kit/kit/ship/SKILL.md":                            skill("ship"),
	})
	if err := os.Symlink(filepath.Join(p.home, "secrets"), filepath.Join(p.home, ".agents/plugins/leaky/skills/secrets")); err != nil {
		t.Skip("symlinks not available:", err)
	}
	return p
}

func (p pluginFormatsTree) run(t *testing.T, args ...string) result {
	t.Helper()
	return runBinary(t, p.ws, env(&machine.Machine{Home: p.home}, nil), append(args, "--user-dir", p.home)...)
}

// TestPluginFormatsList lists the skills of each format through the
// binary: each named <plugin>:<skill>, attributed to its plugin, with a
// skill:// URI under plugins/<plugin>; the disabled Copilot plugin, the
// superseded Cursor version and the skill leading out of its plugin are
// not listed.
func TestPluginFormatsList(t *testing.T) {
	p := newPluginFormatsTree(t)
	r := p.run(t, "list", "--json")
	mustOK(t, r)
	var recs []record
	decodeOnly(t, r, &recs)
	type rec struct{ ID, Name, Provider, Plugin, URI, Path string }
	var got []rec
	for _, x := range recs {
		if x.PluginInfo == nil {
			continue
		}
		got = append(got, rec{x.ID, x.Name, x.Provider, x.PluginInfo.PluginName + "@" + x.PluginInfo.Marketplace + " " +
			x.PluginInfo.Version, x.URI, x.Path})
	}
	slices.SortFunc(got, func(a, b rec) int { return strings.Compare(a.ID, b.ID) })
	cursorCache := filepath.Join(p.home, ".cursor", "plugins", "cache", "cursor-public", "stripe", "1.5.0")
	want := []rec{
		{"agents:@hello-plugin:greet", "hello-plugin:greet", "agents", "hello-plugin@agent-plugins 1.0.0",
			"skill://agents/plugins/hello-plugin/greet/SKILL.md", filepath.Join(p.ws, ".agents", "plugins", "hello-plugin", "skills", "greet")},
		{"agents:@leaky:fine", "leaky:fine", "agents", "leaky@agent-plugins ",
			"skill://agents/plugins/leaky/fine/SKILL.md", filepath.Join(p.home, ".agents", "plugins", "leaky", "skills", "fine")},
		{"copilot:@reviewer:review", "reviewer:review", "copilot", "reviewer@team 2.0.0",
			"skill://copilot/plugins/reviewer/review/SKILL.md", filepath.Join(p.home, ".copilot", "installed-plugins", "team", "reviewer", "skills", "review")},
		{"cursor:@stripe:payments", "stripe:payments", "cursor", "stripe@cursor-public 1.5.0",
			"skill://cursor/plugins/stripe/payments/SKILL.md", filepath.Join(cursorCache, "skills", "payments")},
		{"cursor:@team-kit:ship", "team-kit:ship", "cursor", "team-kit@local ",
			"skill://cursor/plugins/team-kit/ship/SKILL.md", filepath.Join(p.home, ".cursor", "plugins", "local", "team-kit", "kit", "ship")},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("plugin records of list --json (-want +got):\n%s", d)
	}

	// The skill that leads out of its plugin is refused by name, and the
	// disabled Copilot plugin is listed as such.
	r = p.run(t, "sources")
	mustOK(t, r)
	for _, line := range []string{"leaky: skills/secrets/SKILL.md resolves to", "outside the plugin root",
		"plugin linter@team is off"} {
		if !strings.Contains(r.stdout+r.stderr, line) {
			t.Errorf("sources does not say %q:\n%s", line, r)
		}
	}
}

// TestPluginFormatsNoSwitch checks what disable says of a plugin whose
// host keeps no switch ccski can write: Cursor's, in its state database,
// and Agent Plugins in .agents/plugins, which no host switches; nothing
// is renamed in the plugin.
func TestPluginFormatsNoSwitch(t *testing.T) {
	p := newPluginFormatsTree(t)
	for name, want := range map[string]string{
		"stripe:payments":    "Cursor turns on and off in its state database",
		"hello-plugin:greet": "which no host ccski knows keeps a switch for",
	} {
		r := p.run(t, "disable", name)
		if r.code == 0 || !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("disable %s: want a failure saying %q\n%s", name, want, r)
		}
	}
	if _, err := os.Stat(filepath.Join(p.home, ".cursor/plugins/cache/cursor-public/stripe/1.5.0/skills/payments/SKILL.md")); err != nil {
		t.Errorf("the plugin's SKILL.md was touched: %v", err)
	}
}

// TestPluginFormatsCopilotToggle switches Copilot CLI plugins through the
// binary: disable of a skill writes "<plugin>@<marketplace>": false in
// ~/.copilot/settings.json, which is all Copilot CLI 1.0.102 reads, and
// takes the plugin's skills out of the list; enable of a disabled
// plugin's skill turns it on; every other byte of the file stays.
func TestPluginFormatsCopilotToggle(t *testing.T) {
	p := newPluginFormatsTree(t)
	settings := filepath.Join(p.home, ".copilot", "settings.json")
	mustOK(t, p.run(t, "disable", "reviewer:review"))
	mustOK(t, p.run(t, "enable", "linter:lint"))
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"enabledPlugins": {"reviewer@team": false, "linter@team": true}}`; string(data) != want {
		t.Errorf("settings.json = %s, want %s", data, want)
	}
	r := p.run(t, "list", "--json")
	mustOK(t, r)
	var recs []record
	decodeOnly(t, r, &recs)
	var ids []string
	for _, x := range recs {
		if x.Provider == "copilot" && x.PluginInfo != nil {
			ids = append(ids, x.ID)
		}
	}
	if d := cmp.Diff([]string{"copilot:@linter:lint"}, ids); d != "" {
		t.Errorf("Copilot plugin skills after the switch (-want +got):\n%s", d)
	}
}

// TestPluginFormatsDoctor checks that doctor says which host loads the
// new plugins' skills: Copilot CLI its enabled plugin's, and not the
// disabled one (plugin-disabled, with the command that turns it on);
// Cursor its plugins' skills.
func TestPluginFormatsDoctor(t *testing.T) {
	p := newPluginFormatsTree(t)
	type verdict struct {
		ID, Name, Code, Detail string
	}
	var rep struct {
		Hosts []struct {
			Host      string    `json:"host"`
			Loads     []verdict `json:"loads"`
			NotLoaded []verdict `json:"notLoaded"`
		} `json:"hosts"`
	}
	for host, want := range map[string][]string{
		"copilot": {"loads copilot:@reviewer:review", "plugin-disabled linter@team"},
		"cursor":  {"loads cursor:@stripe:payments", "loads cursor:@team-kit:ship"},
	} {
		r := p.run(t, "doctor", "--json", "--agent", host)
		mustOK(t, r)
		decodeOnly(t, r, &rep)
		var got []string
		for _, h := range rep.Hosts {
			for _, v := range h.Loads {
				if strings.Contains(v.ID, ":@") {
					got = append(got, "loads "+v.ID)
				}
			}
			for _, v := range h.NotLoaded {
				if v.Code == "plugin-disabled" {
					got = append(got, "plugin-disabled "+v.Name)
					if !strings.Contains(v.Detail, "copilot plugin enable linter@team") {
						t.Errorf("detail %q does not say how to turn the plugin on", v.Detail)
					}
				}
			}
		}
		slices.Sort(got)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("doctor --agent %s, plugin verdicts (-want +got):\n%s", host, d)
		}
	}
}
