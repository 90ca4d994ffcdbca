package install

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// TestAgentPluginReadersAgree feeds the same plugin folders to the two
// readers of Agent Plugins manifests: install's (Discover of a source)
// and discovery's (providers.PluginReader with the root plugin.json
// format Copilot CLI reads, which, like install, reads a root plugin.json
// that does not claim Agent Plugins as another format). Each must reach
// the verdict the specification (agentplugins/agent-plugins-spec 1.0.0)
// gives: the plugin and its skills, "other" (not an Agent Plugins
// manifest) or "refused".
func TestAgentPluginReadersAgree(t *testing.T) {
	const schema = `"$schema": "` + providers.AgentPluginsSchema + `"`
	skill := skillMD("s")
	for _, tt := range []struct {
		name  string
		files map[string]string
		// links are symlinks to make: path in the plugin -> target
		// (relative to the link's folder).
		links map[string]string
		want  string
	}{
		{name: "minimal", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p"}`}, want: "package p: s"},
		{name: "no schema", files: map[string]string{"plugin.json": `{"name": "p"}`}, want: "other"},
		// §5.2: $schema selects the rules; another document's $schema
		// is another format's plugin.json (Claude's, an editor's).
		{name: "foreign schema", files: map[string]string{"plugin.json": `{"$schema": "https://json.schemastore.org/claude-code-plugin.json", "name": "P x"}`}, want: "other"},
		{name: "schema not a string", files: map[string]string{"plugin.json": `{"$schema": 5, "name": "p"}`}, want: "other"},
		{name: "other version", files: map[string]string{"plugin.json": `{"$schema": "https://agent-plugins.org/schemas/2.0.0/plugin.schema.json", "name": "p"}`}, want: "refused"},
		{name: "bad name", files: map[string]string{"plugin.json": `{` + schema + `, "name": "My-Plugin"}`}, want: "refused"},
		{name: "no name", files: map[string]string{"plugin.json": `{` + schema + `}`}, want: "refused"},
		// §5.2: any schema violation but an unknown field or a
		// non-object extensions is fatal.
		{name: "version not a string", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p", "version": 1}`}, want: "refused"},
		{name: "author field", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p", "author": {"nick": "a"}}`}, want: "refused"},
		{name: "keywords", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p", "keywords": "a"}`}, want: "refused"},
		{name: "unknown field", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p", "skills": "./x"}`}, want: "package p: s"},
		{name: "extensions not an object", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p", "extensions": "x"}`}, want: "package p: s"},
		{name: "extensions null", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p", "extensions": null}`}, want: "package p: s"},
		// §8.1: the value of a namespace ccski does not implement is
		// not validated.
		{name: "extension not an object", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p", "extensions": {"com.example.client": 1}}`}, want: "package p: s"},
		// §5.2: the manifest MUST be JSON.
		{name: "not JSON", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p",`}, want: "refused"},
		{name: "manifest a folder", files: map[string]string{"plugin.json/": ""}, want: "refused"},
		// §4.1: a link may resolve inside the plugin root, never out.
		{name: "manifest linked inside", files: map[string]string{"meta/plugin.json": `{` + schema + `, "name": "p"}`},
			links: map[string]string{"plugin.json": "meta/plugin.json"}, want: "package p: s"},
		{name: "manifest linked outside", files: map[string]string{"../elsewhere/plugin.json": `{` + schema + `, "name": "p"}`},
			links: map[string]string{"plugin.json": "../elsewhere/plugin.json"}, want: "refused"},
		{name: "skills linked inside", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p"}`, "lib/skills/t/SKILL.md": skillMD("t")},
			links: map[string]string{"skills": "lib/skills"}, want: "package p: t"},
		{name: "skills linked outside", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p"}`, "../elsewhere/t/SKILL.md": skillMD("t")},
			links: map[string]string{"skills": "../elsewhere"}, want: "package p: "},
		{name: "SKILL.md linked outside", files: map[string]string{"plugin.json": `{` + schema + `, "name": "p"}`, "../elsewhere/SKILL.md": skillMD("t")},
			links: map[string]string{"skills/t/SKILL.md": "../../../elsewhere/SKILL.md"}, want: "package p: s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			dir := filepath.Join(base, "p")
			files := map[string]string{"skills/s/SKILL.md": skill}
			if tt.links["skills"] != "" {
				files = map[string]string{}
			}
			for k, v := range tt.files {
				files[k] = v
			}
			testfs.Write(t, dir, files)
			for link, target := range tt.links {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			if got := installVerdict(t, dir); got != tt.want {
				t.Errorf("install reads %q, want %q", got, tt.want)
			}
			if got := discoveryVerdict(dir); got != tt.want {
				t.Errorf("discovery reads %q, want %q", got, tt.want)
			}
		})
	}
}

// installVerdict is what install's Discover makes of the plugin in dir.
func installVerdict(t *testing.T, dir string) string {
	o, err := Discover(context.Background(), dir, "")
	if err != nil {
		if m := regexp.MustCompile(`^Agent Plugins package (\S+) has no skill`).FindStringSubmatch(err.Error()); m != nil {
			return "package " + m[1] + ": "
		}
		t.Logf("install: %v", err)
		return "refused"
	}
	name, ok := strings.CutPrefix(o.What, "Agent Plugins package ")
	if !ok {
		return "other"
	}
	var skills []string
	for _, c := range o.Candidates {
		skills = append(skills, c.Name)
	}
	return "package " + name + ": " + strings.Join(skills, ", ")
}

// discoveryVerdict is what the providers' plugin reader makes of it.
func discoveryVerdict(dir string) string {
	r := &providers.PluginReader{Label: "copilot"}
	pf, ok := r.Folder(dir, "plugin p", providers.ClaimedAgentPluginsFormat)
	switch {
	case !ok:
		return "refused"
	case !pf.Format.Strict:
		return "other"
	}
	var skills []string
	for _, root := range r.Roots(pf, pipeline.Root{}, "plugin p") {
		skills = append(skills, root.Skills...)
	}
	return "package " + pf.Name + ": " + strings.Join(skills, ", ")
}

// TestAgentPluginPackageNotes checks what install says of a package
// beside its skills, as discovery says it: an unknown manifest field and
// a non-object "extensions" are warnings (the spec asks clients to report
// and ignore them), and an mcp.json leading outside the plugin is
// refused, so its servers are not named.
func TestAgentPluginPackageNotes(t *testing.T) {
	base := testfs.TempDir(t)
	dir := filepath.Join(base, "p")
	testfs.Write(t, base, map[string]string{
		"p/plugin.json":       `{"$schema": "` + providers.AgentPluginsSchema + `", "name": "p", "skills": "./x", "extensions": null}`,
		"p/skills/s/SKILL.md": skillMD("s"),
		"elsewhere/mcp.json":  `{"mcpServers": {"db": {"type": "stdio", "command": "./db"}}}`,
	})
	if err := os.Symlink("../elsewhere/mcp.json", filepath.Join(dir, "mcp.json")); err != nil {
		t.Fatal(err)
	}
	o, err := Discover(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(o.Warnings, "\n")
	for _, want := range []string{`has no field "skills"`, `"extensions" must be an object`, "mcp.json resolves to", "outside the plugin root"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if len(o.Extras) != 0 {
		t.Errorf("extras %+v: the MCP servers of an mcp.json outside the plugin must not be read", o.Extras)
	}
}

// TestAgentPluginLinkedSkillsInstall checks that a package whose skills/
// is a link inside the package (§4.1 allows it) installs its skill
// through the link, with the skill's bytes.
func TestAgentPluginLinkedSkillsInstall(t *testing.T) {
	f := newFixture(t, map[string]string{
		"plugin.json":           `{"$schema": "` + providers.AgentPluginsSchema + `", "name": "p"}`,
		"lib/skills/t/SKILL.md": skillMD("t"),
	})
	if err := os.Symlink("lib/skills", filepath.Join(f.src, "skills")); err != nil {
		t.Fatal(err)
	}
	x := f.installer()
	got := f.install(t, x, "t")
	if len(got) != 1 || got[0].Status != StatusInstalled {
		t.Fatalf("results %+v, want t installed", got)
	}
	data, err := os.ReadFile(filepath.Join(f.layout.Base, ".agents/skills/t/SKILL.md"))
	if err != nil || string(data) != skillMD("t") {
		t.Errorf("installed SKILL.md %q, %v; want the package's", data, err)
	}
}
