package scan

import (
	"context"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/problems"
	"github.com/ccski/ccski/internal/safetext"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// TestControlCharactersNeverReachRecords: control characters in a
// frontmatter name or description, in a folder name the name falls back
// to, in a command's file name and description, and in a plugin's names
// are replaced on the record, with a control-characters warning on it.
func TestControlCharactersNeverReachRecords(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"skills/evil/SKILL.md":             "---\nname: \"evil\\e]0;pwned\\a\\e[2Jx\"\ndescription: \"clears\\e[2J the \\u202escreen\"\n---\nBody\n",
		"skills/fold\x1b[31m/SKILL.md":     "---\ndescription: Named after its folder.\n---\nBody\n",
		"skills/plain/SKILL.md":            skill("plain", "A plain skill."),
		"plugin/skills/tool/SKILL.md":      skill("tool", "A plugin skill."),
		"commands/go\x07.md":               "---\ndescription: \"run\\b\\b\\bit\"\n---\nDo it.\n",
		"commands/clean.md":                "---\ndescription: Clean.\n---\nDo it.\n",
		"commands/titled.md":               "# Title\x1b]2;x\x07\n",
		"commands/sub/\u202eevil\u202c.md": "Body\n",
	})
	plugin := &pipeline.PluginInfo{Plugin: "plug\x1b[8m", Marketplace: "market\u009b", Version: "1.0"}
	roots := []pipeline.Root{
		{Path: dir + "/skills", Agent: "claude", Location: pipeline.LocationUser},
		{Path: dir + "/plugin/skills", Agent: "claude", Location: pipeline.LocationPlugin, Plugin: plugin, Prefix: "plug\x1b[8m"},
		{Path: dir + "/commands", Agent: "claude", Location: pipeline.LocationUser, Type: pipeline.TypeCommand},
	}
	res := Scan(context.Background(), roots, DefaultOptions())
	if len(res.Records) != 8 {
		t.Fatalf("%d records, want 8: %+v", len(res.Records), res.Diagnostics)
	}
	// The files whose records must carry the warning, relative to dir.
	wantWarned := map[string]bool{
		"skills/evil/SKILL.md": true, "skills/fold\x1b[31m/SKILL.md": true, "plugin/skills/tool/SKILL.md": true,
		"commands/go\a.md": true, "commands/titled.md": true, "commands/sub/\u202eevil\u202c.md": true,
	}
	for _, r := range res.Records {
		for _, s := range []string{r.Name, r.Description, r.ArgumentHint} {
			if _, found := safetext.Clean(s); found != nil {
				t.Errorf("%s: %q still holds %U", r.File, s, found)
			}
		}
		if r.Plugin != nil {
			for _, s := range []string{r.Plugin.Plugin, r.Plugin.Marketplace, r.Plugin.Version} {
				if _, found := safetext.Clean(s); found != nil {
					t.Errorf("%s: plugin field %q still holds %U", r.File, s, found)
				}
			}
		}
		warned := false
		for _, d := range r.Diagnostics {
			if d.Code == problems.ControlCharacters {
				warned = true
				if d.Severity != pipeline.SeverityWarning || !strings.Contains(d.Message, "U+") {
					t.Errorf("%s: %+v, want a warning naming the characters", r.File, d)
				}
			}
		}
		key := strings.TrimPrefix(r.File, dir+"/")
		if want := wantWarned[key]; warned != want {
			t.Errorf("%s (%q): control-characters warning %v, want %v: %+v", r.File, key, warned, want, r.Diagnostics)
		}
	}
	if plugin.Plugin != "plug\x1b[8m" {
		t.Errorf("the root's shared PluginInfo was changed: %+v", plugin)
	}
}
