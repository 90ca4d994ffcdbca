package providers_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/providers"
)

// TestAgentPluginsManifest checks the closed manifest of Agent Plugins
// 1.0 (spec §5) as PluginReader.Folder holds a root plugin.json to it:
// what rejects the plugin, and what is only reported.
func TestAgentPluginsManifest(t *testing.T) {
	const schema = `"$schema": "` + providers.AgentPluginsSchema + `"`
	for _, tt := range []struct {
		name, manifest string
		// reject is the start of the rejection, "" when the plugin loads;
		// note a diagnostic that must be there all the same.
		reject, note string
	}{
		{name: "minimal", manifest: `{` + schema + `, "name": "minimal-plugin"}`},
		{name: "full", manifest: `{` + schema + `, "name": "acme.tools", "version": "not-semver", "description": "d",
			"author": {"name": "A", "email": "x", "url": "y"}, "homepage": "h", "repository": "r", "license": "MIT",
			"keywords": ["a"], "extensions": {"com.example.client": {"setting": true}}}`},
		{name: "unknown field", manifest: `{` + schema + `, "name": "p", "skills": "./x"}`,
			note: `the Agent Plugins manifest has no field "skills"`},
		{name: "extensions not an object", manifest: `{` + schema + `, "name": "p", "extensions": null}`,
			note: `plugin-manifest-extensions-ignored: plugin p: "extensions" must be an object`},
		{name: "no schema", manifest: `{"name": "p"}`, reject: `"$schema" is required`},
		{name: "other version", manifest: `{"$schema": "https://agent-plugins.org/schemas/2.0.0/plugin.schema.json", "name": "p"}`,
			reject: `"$schema" "https://agent-plugins.org/schemas/2.0.0/plugin.schema.json" is not an Agent Plugins version`},
		{name: "no name", manifest: `{` + schema + `}`, reject: `"name" is required`},
		{name: "capitals", manifest: `{` + schema + `, "name": "My-Plugin"}`, reject: `name "My-Plugin" must be`},
		{name: "leading hyphen", manifest: `{` + schema + `, "name": "-start"}`, reject: `name "-start" must be`},
		{name: "double hyphen", manifest: `{` + schema + `, "name": "has--double"}`, reject: `name "has--double" must be`},
		{name: "double period", manifest: `{` + schema + `, "name": "too.many..dots"}`, reject: `name "too.many..dots" must be`},
		{name: "too long", manifest: `{` + schema + `, "name": "` + strings.Repeat("a", 65) + `"}`, reject: `name "aaaa`},
		{name: "keywords", manifest: `{` + schema + `, "name": "p", "keywords": [1]}`, reject: `"keywords" must be a list of strings`},
		{name: "author field", manifest: `{` + schema + `, "name": "p", "author": {"name": "A", "x": "y"}}`,
			reject: `"author" may hold only`},
		{name: "not JSON", manifest: `{` + schema + `,`, reject: "the manifest of plugin p is not a JSON object"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testfs.TempDir(t)
			testfs.Write(t, dir, map[string]string{"plugin.json": tt.manifest,
				"skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n"})
			r := &providers.PluginReader{Label: "agents"}
			pf, ok := r.Folder(dir, "plugin p", providers.AgentPluginsFormat)
			var msgs []string
			for _, d := range r.Diags {
				msgs = append(msgs, d.Code+": "+d.Message)
			}
			all := strings.Join(msgs, "\n")
			switch {
			case tt.reject == "" && (!ok || len(pf.SkillDirs) != 1 || pf.SkillDirs[0] != filepath.Join(dir, "skills")):
				t.Errorf("rejected or no skills/ (%+v):\n%s", pf, all)
			case tt.reject != "" && ok:
				t.Errorf("loaded, want it rejected with %q", tt.reject)
			case tt.reject != "" && !strings.Contains(all, tt.reject):
				t.Errorf("diagnostics lack %q:\n%s", tt.reject, all)
			case tt.note != "" && !strings.Contains(all, tt.note):
				t.Errorf("diagnostics lack %q:\n%s", tt.note, all)
			}
		})
	}
}

// TestPluginPath checks the "./" paths a manifest may give.
func TestPluginPath(t *testing.T) {
	for in, want := range map[string]string{
		"./skills": "skills", "./a/./b/": filepath.Join("a", "b"),
		"skills": "!must start", "../x": "!must start", "./a/../../x": "!must not contain", "./": "!must name", "/etc": "!must start",
	} {
		got, problem := providers.PluginPath(in)
		if strings.HasPrefix(want, "!") {
			if !strings.HasPrefix(problem, want[1:]) {
				t.Errorf("PluginPath(%q) = %q, %q; want a problem starting %q", in, got, problem, want[1:])
			}
		} else if got != want || problem != "" {
			t.Errorf("PluginPath(%q) = %q, %q; want %q", in, got, problem, want)
		}
	}
}

// TestPathList checks the reading of a manifest's path or list of paths
// that Cursor's and Codex's "skills" share.
func TestPathList(t *testing.T) {
	for _, tt := range []struct {
		in      any
		paths   []string
		skipped int
		ok      bool
	}{
		{in: "./a", paths: []string{"./a"}, ok: true},
		{in: []any{"./a", 1.0, "./b", nil}, paths: []string{"./a", "./b"}, skipped: 2, ok: true},
		{in: []any{}, ok: true},
		{in: map[string]any{"a": "./a"}},
		{in: true},
	} {
		paths, skipped, ok := providers.PathList(tt.in)
		if !slices.Equal(paths, tt.paths) || skipped != tt.skipped || ok != tt.ok {
			t.Errorf("PathList(%v) = %q, %d, %v; want %q, %d, %v", tt.in, paths, skipped, ok, tt.paths, tt.skipped, tt.ok)
		}
	}
}
