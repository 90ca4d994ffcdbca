package install

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/providers"
)

// pluginManifest is an Agent Plugins 1.0.0 plugin.json named name.
func pluginManifest(name string) string {
	return `{"$schema": "` + providers.AgentPluginsSchema + `", "name": "` + name + `", "version": "1.0.0",
 "extensions": {"com.example.client": {"setting": true}}}`
}

// TestAgentPluginPackage checks that an Agent Plugins package served as
// an archive (packed with its folder) offers the skills of its skills/
// only, each as the plugin's, and names its MCP servers and client
// extensions as extras; and that a manifest of another $schema is
// refused, as the spec asks.
func TestAgentPluginPackage(t *testing.T) {
	s := newSite(t)
	s.put("/dl/tools.zip", zipOf(t,
		entry{name: "tools/plugin.json", body: pluginManifest("tools")},
		entry{name: "tools/skills/pdf/SKILL.md", body: skillMD("pdf")},
		entry{name: "tools/skills/pdf/scripts/x.sh", body: "echo\n"},
		entry{name: "tools/mcp.json", body: `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"db": {"type": "stdio", "command": "./bin/db"}}}`},
		entry{name: "tools/com.example.client/hooks/hooks.json", body: `{}`},
		entry{name: "tools/docs/SKILL.md", body: skillMD("not-offered")},
	))
	s.put("/dl/bad.tar.gz", tarGzOf(t,
		entry{name: "plugin.json", body: `{"$schema": "https://agent-plugins.org/schemas/9.0.0/plugin.schema.json", "name": "bad"}`},
		entry{name: "skills/pdf/SKILL.md", body: skillMD("pdf")},
	))
	f := newFixture(t, nil)
	x := f.installer()
	x.HTTP = &HTTP{TempDir: t.TempDir()}
	defer x.Close()
	root, commit, err := x.Materialize(Source{Kind: KindArchive, URL: s.srv.URL + "/dl/tools.zip"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if commit != manifest.Digest(s.files["/dl/tools.zip"]) {
		t.Errorf("commit %s is not the archive's digest", commit)
	}
	o, err := Discover(context.Background(), root, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Candidates) != 1 || o.Candidates[0].Name != "pdf" || o.Candidates[0].Plugin != "tools" ||
		o.Candidates[0].Rel != "tools/skills/pdf" {
		t.Fatalf("candidates %+v, want pdf of plugin tools only", o.Candidates)
	}
	ex := o.ExtrasOf(o.Candidates)
	if len(ex) != 1 || !slices.Equal(ex[0].MCPServers, []string{"db"}) ||
		!slices.Equal(ex[0].Extensions, []string{"com.example.client"}) {
		t.Fatalf("extras %+v, want the MCP server db and the extension com.example.client", ex)
	}
	if msg := ex[0].String(); !strings.Contains(msg, "MCP servers (db)") || !strings.Contains(msg, "Agent Plugins") {
		t.Errorf("extras say %q", msg)
	}

	root, _, err = x.Materialize(Source{Kind: KindArchive, URL: s.srv.URL + "/dl/bad.tar.gz"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Discover(context.Background(), root, ""); err == nil || !strings.Contains(err.Error(), "9.0.0") {
		t.Fatalf("a manifest of an unknown $schema: want it refused, got %v", err)
	}
}

// TestOtherPluginJSONLeftAlone checks that a root plugin.json of another
// format (no Agent Plugins $schema) does not make a folder a package: its
// skills are found as in any folder of skills.
func TestOtherPluginJSONLeftAlone(t *testing.T) {
	f := newFixture(t, map[string]string{
		"plugin.json":          `{"$schema": "https://json.schemastore.org/other.json", "name": "Other Tool"}`,
		"skills/pdf/SKILL.md":  skillMD("pdf"),
		"tools/extra/SKILL.md": skillMD("extra"),
	})
	o, err := Discover(context.Background(), f.src, "")
	if err != nil {
		t.Fatal(err)
	}
	if o.What != "folder of skills" || len(o.Candidates) != 2 || len(o.Extras) != 0 {
		t.Fatalf("offer %s with %+v, extras %+v: want a folder of two skills", o.What, o.Candidates, o.Extras)
	}
}
