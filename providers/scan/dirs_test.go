package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
)

// TestDirsListsWatchableFolders checks that Result.Dirs names every folder
// a walk listed, so a watcher sees a skill appear in a new empty folder,
// and nothing the walk skipped.
func TestDirsListsWatchableFolders(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{
		"root/cat/a/SKILL.md":            "---\nname: a\ndescription: A.\n---\n",
		"root/cat/a/references/x.md":     "x",
		"root/.hidden/b/SKILL.md":        "---\nname: b\ndescription: B.\n---\n",
		"root/node_modules/c/SKILL.md":   "---\nname: c\ndescription: C.\n---\n",
		"plugin/skills/d/SKILL.md":       "---\nname: d\ndescription: D.\n---\n",
		"plugin/skills/undeclared/x.txt": "x",
	})
	if err := os.MkdirAll(filepath.Join(base, "root", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	res := Scan(context.Background(), []pipeline.Root{
		{Path: filepath.Join(base, "root"), Provider: "claude"},
		{Path: filepath.Join(base, "plugin"), Provider: "claude", Skills: []string{"skills/d"}},
	}, Options{})
	got := slices.Clone(res.Dirs)
	slices.Sort(got)
	want := []string{
		filepath.Join(real, "plugin"),
		filepath.Join(real, "plugin", "skills", "d"),
		filepath.Join(real, "root"),
		filepath.Join(real, "root", "cat"),
		filepath.Join(real, "root", "cat", "a"),
		filepath.Join(real, "root", "empty"),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Dirs (-want +got):\n%s", d)
	}
}
