package agentplugins

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

func TestNew(t *testing.T) {
	providertest.CheckNew(t, New, Name, []providertest.NewCase{
		{Name: "nil options"},
		{Name: "every option", Options: &Options{UserDir: "~/p"}},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.agent_plugins", "*agentplugins.Options"}},
	})
}

const schema = `"$schema": "` + providers.AgentPluginsSchema + `"`

// skill is a SKILL.md of the given name.
func skill(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nDo it.\n"
}

// TestPlan plans a workspace and a user folder shaped like the
// specification's examples: the Quick Start's hello-plugin, the full
// manifest of §5.2 with mcp.json and a client extension folder, the
// data/ folder of PLUGIN_DATA, Codex's marketplace.json beside them, and
// plugins a conformant client rejects.
func TestPlan(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"repo/.git/HEAD":                                          "ref: refs/heads/main\n",
		"repo/.agents/plugins/marketplace.json":                   `{"name":"codex-market","plugins":[]}`,
		"repo/.agents/plugins/hello-plugin/plugin.json":           `{` + schema + `, "name": "hello-plugin"}`,
		"repo/.agents/plugins/hello-plugin/skills/greet/SKILL.md": skill("greet"),
		"home/.agents/plugins/reports/plugin.json": `{` + schema + `, "name": "reports", "version": "1.2.0",
			"description": "Reports", "author": {"name": "A", "email": "a@example.com"}, "keywords": ["r"],
			"extensions": {"com.example.client": {"setting": true}}, "skills": "./elsewhere"}`,
		"home/.agents/plugins/reports/skills/summarize/SKILL.md":        skill("summarize"),
		"home/.agents/plugins/reports/skills/summarize/scripts/a.sh":    "echo\n",
		"home/.agents/plugins/reports/skills/notes.md":                  "not a skill\n",
		"home/.agents/plugins/reports/skills/deep/group/inner/SKILL.md": skill("inner"),
		"home/.agents/plugins/reports/elsewhere/other/SKILL.md":         skill("other"),
		"home/.agents/plugins/reports/mcp.json":                         `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {}}`,
		"home/.agents/plugins/reports/com.example.client/hooks/h.json":  `{}`,
		"home/.agents/plugins/data/reports/state.json":                  `{}`,
		"home/.agents/plugins/bad-name/plugin.json":                     `{` + schema + `, "name": "Bad_Name"}`,
		"home/.agents/plugins/bad-name/skills/x/SKILL.md":               skill("x"),
		"home/.agents/plugins/no-schema/plugin.json":                    `{"name": "no-schema"}`,
		"home/.agents/plugins/no-schema/skills/y/SKILL.md":              skill("y"),
		"home/.agents/plugins/bad-type/plugin.json":                     `{` + schema + `, "name": "bad-type", "version": 2}`,
		"home/.agents/plugins/bad-type/skills/z/SKILL.md":               skill("z"),
	})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	env := providertest.Env(abs("home"), nil, abs("repo/sub"), abs("repo"))
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
	root := func(path, plugin, version string, skills ...string) pipeline.Root {
		return pipeline.Root{Path: abs(path), Agent: Label, Provider: Name, Location: pipeline.LocationPlugin,
			Kind: pipeline.KindPlugin, Optional: true, Prefix: plugin, Skills: skills,
			Plugin: &pipeline.PluginInfo{Plugin: plugin, Marketplace: Marketplace, Version: version, NoSwitch: noSwitch}}
	}
	providertest.CheckRoots(t, []pipeline.Root{
		root("repo/.agents/plugins/hello-plugin/skills", "hello-plugin", "", "greet"),
		root("home/.agents/plugins/reports/skills", "reports", "1.2.0", "summarize"),
	}, plan.Roots)
	codes := map[string]string{}
	for _, d := range plan.Diagnostics {
		codes[providertest.Rel(t, base, d.Path)] = d.Code + ": " + d.Message
	}
	for file, want := range map[string]string{
		"home/.agents/plugins/bad-name/plugin.json":  `plugin-manifest-invalid: plugin bad-name: name "Bad_Name" must be`,
		"home/.agents/plugins/no-schema/plugin.json": `plugin-manifest-invalid: plugin no-schema: "$schema" is required`,
		"home/.agents/plugins/bad-type/plugin.json":  `plugin-manifest-invalid: plugin bad-type: "version" must be a string`,
		"home/.agents/plugins/reports/plugin.json":   `plugin-manifest-unknown-field: plugin reports: the Agent Plugins manifest has no field "skills"`,
	} {
		if got := codes[file]; !strings.HasPrefix(got, want) {
			t.Errorf("diagnostic on %s = %q, want it to start %q", file, got, want)
		}
	}
	if len(plan.Diagnostics) != 4 {
		t.Errorf("diagnostics = %+v, want the 4 above (data/ and marketplace.json are no plugins)", plan.Diagnostics)
	}
	if !slices.Contains(plan.Manifests, abs("home/.agents/plugins/reports/plugin.json")) ||
		!slices.Contains(plan.Listings, abs("repo/.agents/plugins")) ||
		!slices.Contains(plan.Listings, abs("home/.agents/plugins/reports/skills")) {
		t.Errorf("manifests %v, listings %v: want the manifests read and the folders a new plugin or skill lands in",
			plan.Manifests, plan.Listings)
	}
}

// TestPathOutsideRefused checks §4.1: a skills/ folder, or a skill's
// SKILL.md, that a link leads outside the plugin root is refused with a
// diagnostic naming the plugin and the path; a link that stays inside is
// followed.
func TestPathOutsideRefused(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"outside/stolen/SKILL.md":                             skill("stolen"),
		"outside/skills/leak/SKILL.md":                        skill("leak"),
		"home/.agents/plugins/linked/plugin.json":             `{` + schema + `, "name": "linked"}`,
		"home/.agents/plugins/skill-link/plugin.json":         `{` + schema + `, "name": "skill-link"}`,
		"home/.agents/plugins/skill-link/skills/ok/SKILL.md":  skill("ok"),
		"home/.agents/plugins/skill-link/real/inner/SKILL.md": skill("inner"),
	})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	for link, target := range map[string]string{
		"home/.agents/plugins/linked/skills":            abs("outside/skills"),
		"home/.agents/plugins/skill-link/skills/stolen": abs("outside/stolen"),
		"home/.agents/plugins/skill-link/skills/inner":  abs("home/.agents/plugins/skill-link/real/inner"),
	} {
		if err := os.Symlink(target, abs(link)); err != nil {
			t.Skip("symlinks not available:", err)
		}
	}
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), providertest.Env(abs("home"), nil))
	var got []string
	for _, r := range plan.Roots {
		got = append(got, r.Prefix+": "+strings.Join(r.Skills, ","))
	}
	if d := cmp.Diff([]string{"skill-link: inner,ok"}, got); d != "" {
		t.Errorf("roots (-want +got):\n%s", d)
	}
	var refused []string
	for _, d := range plan.Diagnostics {
		if d.Code != providers.CodePluginPathOutside {
			continue
		}
		refused = append(refused, providertest.Rel(t, base, d.Path))
		if !strings.Contains(d.Message, "outside the plugin root") || !strings.Contains(d.Message, "plugin ") {
			t.Errorf("refusal %q must name the plugin and say the path leads outside its root", d.Message)
		}
	}
	slices.Sort(refused)
	want := []string{"home/.agents/plugins/linked/skills", "home/.agents/plugins/skill-link/skills/stolen/SKILL.md"}
	if d := cmp.Diff(want, refused); d != "" {
		t.Errorf("refused paths (-want +got):\n%s", d)
	}
}
