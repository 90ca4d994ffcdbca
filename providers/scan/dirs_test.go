package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

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

// TestListingCacheFollowsFolderTime checks that a rescan reuses a folder's
// listing exactly when the folder's time is unchanged: a new skill folder
// is found once its parent's time moves, and (as a control that the cache
// is really used) not while the parent keeps its old time.
func TestListingCacheFollowsFolderTime(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{"root/cat/a/SKILL.md": "---\nname: a\ndescription: A.\n---\n"})
	roots := []pipeline.Root{{Path: filepath.Join(base, "root"), Provider: "claude"}}
	first := Scan(context.Background(), roots, Options{})
	cat := filepath.Join(base, "root", "cat")
	st, err := os.Stat(cat)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, base, map[string]string{"root/cat/b/SKILL.md": "---\nname: b\ndescription: B.\n---\n"})
	names := func(r Result) []string {
		var out []string
		for _, rec := range r.Records {
			out = append(out, rec.Name)
		}
		return out
	}
	// Same time as cached: the stale listing is reused.
	if err := os.Chtimes(cat, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	stale := Scan(context.Background(), roots, Options{Cache: first.Cache})
	if d := cmp.Diff([]string{"a"}, names(stale)); d != "" {
		t.Errorf("with the folder time unchanged (-want +got):\n%s", d)
	}
	// The time moves (as it does when an entry is added): listed again.
	moved := st.ModTime().Add(time.Minute)
	if err := os.Chtimes(cat, moved, moved); err != nil {
		t.Fatal(err)
	}
	fresh := Scan(context.Background(), roots, Options{Cache: stale.Cache})
	if d := cmp.Diff([]string{"a", "b"}, names(fresh)); d != "" {
		t.Errorf("after the folder time moved (-want +got):\n%s", d)
	}
}

// TestRacyFilesAreReadAgain checks that a file changed within the last two
// seconds is not trusted to the cache: a same-size rewrite in the same
// timestamp tick would otherwise go unseen.
func TestRacyFilesAreReadAgain(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{"root/a/SKILL.md": "---\nname: a\ndescription: A.\n---\n"})
	file := filepath.Join(base, "root", "a", "SKILL.md")
	now := time.Now()
	if err := os.Chtimes(file, now, now); err != nil {
		t.Fatal(err)
	}
	roots := []pipeline.Root{{Path: filepath.Join(base, "root"), Provider: "claude"}}
	first := Scan(context.Background(), roots, Options{})
	if err := os.WriteFile(file, []byte("---\nname: a\ndescription: Z.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, now, now); err != nil { // same size, same time
		t.Fatal(err)
	}
	second := Scan(context.Background(), roots, Options{Cache: first.Cache})
	if second.FilesRead != 1 || len(second.Records) != 1 || second.Records[0].Description != "Z." {
		t.Fatalf("racy file: read %d, records %+v; want it read again with description Z.", second.FilesRead, second.Records)
	}
}
