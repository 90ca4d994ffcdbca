package scan

import (
	"context"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// TestNamesAsTheHostNamesThem checks the name and alias the scanner gives
// a skill whose folder and frontmatter disagree: a root whose host names
// skills after their folders (Claude Code) takes the folder's, with the
// frontmatter's as alias, prefixed alike for a plugin; any other root the
// frontmatter's, with the folder's as alias; no alias when the two agree
// or the frontmatter has no name; and a plugin's own folder, declared as
// its skill, is named by its frontmatter alone.
func TestNamesAsTheHostNamesThem(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"claude/video-downloader/SKILL.md": skill("youtube-downloader", "Videos."),
		"claude/same/SKILL.md":             skill("same", "Same."),
		"claude/unnamed/SKILL.md":          "---\ndescription: No name.\n---\n",
		"plugin/postgresql/SKILL.md":       skill("postgresql-table-design", "Tables."),
		"codex/video-downloader/SKILL.md":  skill("youtube-downloader", "Videos."),
		"single/1.0.0/SKILL.md":            skill("single", "A plugin that is its one skill."),
	})
	claude := root(base, "claude")
	claude.FolderNames = true
	plugin := root(base, "plugin")
	plugin.FolderNames, plugin.Prefix = true, "database-design"
	plugin.Plugin = &pipeline.PluginInfo{Plugin: "database-design", Marketplace: "m"}
	// A plugin that declares its own folder as its skill: the folder is
	// its version, no name.
	single := root(base, "single/1.0.0")
	single.FolderNames, single.Prefix, single.Skills = true, "single", []string{"."}
	single.Plugin = &pipeline.PluginInfo{Plugin: "single", Marketplace: "m"}
	res := Scan(context.Background(), []pipeline.Root{claude, plugin, root(base, "codex"), single}, Options{})
	type named struct {
		name, alias string
		byFolder    bool
	}
	got := map[string]named{}
	for _, r := range res.Records {
		got[r.Dir[len(base)+1:]] = named{r.Name, r.Alias, r.FolderNamed}
	}
	for dir, want := range map[string]named{
		"claude/video-downloader": {"video-downloader", "youtube-downloader", true},
		"claude/same":             {"same", "", true},
		"claude/unnamed":          {"unnamed", "", true},
		"plugin/postgresql":       {"database-design:postgresql", "database-design:postgresql-table-design", true},
		"codex/video-downloader":  {"youtube-downloader", "video-downloader", false},
		"single/1.0.0":            {"single:single", "", false},
	} {
		if got[dir] != want {
			t.Errorf("%s: %+v, want %+v", dir, got[dir], want)
		}
	}
}
