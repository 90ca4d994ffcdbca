package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// TestDirsListsWatchableFolders checks that Result.Dirs names every folder
// a walk listed, so a watcher sees a skill appear in a new empty folder,
// and nothing the walk skipped.
func TestDirsListsWatchableFolders(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{
		"root/cat/a/SKILL.md":            "---\nname: a\ndescription: A.\n---\n",
		"root/cat/a/references/x.md":     "x",
		"root/.hidden/b/SKILL.md":        "---\nname: b\ndescription: B.\n---\n",
		"root/node_modules/c/SKILL.md":   "---\nname: c\ndescription: C.\n---\n",
		"plugin/skills/d/SKILL.md":       "---\nname: d\ndescription: D.\n---\n",
		"plugin/skills/undeclared/x.txt": "x",
	})
	testfs.Age(t, base, time.Hour)
	testfs.Write(t, base, map[string]string{"root/empty/": ""})
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	res := Scan(context.Background(), []pipeline.Root{
		{Path: filepath.Join(base, "root"), Agent: "claude"},
		{Path: filepath.Join(base, "plugin"), Agent: "claude", Skills: []string{"skills/d"}},
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
// listing while the folder is unchanged (a control that the cache is
// really used: the scan is then served whole from the last one), and
// lists the folder again once an entry added to it moves its time. That
// an entry added with the folder's time set back is seen too is checked
// where change times are read (TestCacheSeesChangesThatKeepSizeAndTime).
func TestListingCacheFollowsFolderTime(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{"root/cat/a/SKILL.md": "---\nname: a\ndescription: A.\n---\n"})
	testfs.Age(t, base, time.Hour)
	roots := []pipeline.Root{{Path: filepath.Join(base, "root"), Agent: "claude"}}
	first := Scan(context.Background(), roots, Options{})
	same := Scan(context.Background(), roots, Options{Cache: first.Cache, Reuse: true})
	if !same.Reused {
		t.Error("an unchanged folder was listed again")
	}
	names := func(r Result) []string {
		var out []string
		for _, rec := range r.Records {
			out = append(out, rec.Name)
		}
		return out
	}
	testfs.Write(t, base, map[string]string{"root/cat/b/SKILL.md": "---\nname: b\ndescription: B.\n---\n"})
	testfs.Age(t, base, time.Hour) // a new time, an hour before now
	fresh := Scan(context.Background(), roots, Options{Cache: same.Cache, Reuse: true})
	if d := cmp.Diff([]string{"a", "b"}, names(fresh)); d != "" {
		t.Errorf("after the folder time moved (-want +got):\n%s", d)
	}
}

// TestRacyFilesAreReadAgain checks that a file changed within the last two
// seconds is not trusted to the cache: a same-size rewrite in the same
// timestamp tick would otherwise go unseen.
func TestRacyFilesAreReadAgain(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{"root/a/SKILL.md": "---\nname: a\ndescription: A.\n---\n"})
	testfs.Age(t, base, time.Hour)
	file := filepath.Join(base, "root", "a", "SKILL.md")
	now := time.Now()
	if err := os.Chtimes(file, now, now); err != nil {
		t.Fatal(err)
	}
	roots := []pipeline.Root{{Path: filepath.Join(base, "root"), Agent: "claude"}}
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

// TestFIFONeverBlocks checks that a FIFO named SKILL.md is refused with a
// diagnostic instead of stalling the scan on open.
func TestFIFONeverBlocks(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{"root/ok/SKILL.md": "---\nname: ok\ndescription: Fine.\n---\n"})
	testfs.Age(t, base, time.Hour)
	testfs.Write(t, base, map[string]string{"root/pipe/": ""})
	if err := syscall.Mkfifo(filepath.Join(base, "root", "pipe", "SKILL.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan Result, 1)
	go func() {
		done <- Scan(context.Background(), []pipeline.Root{{Path: filepath.Join(base, "root"), Agent: "claude"}}, Options{})
	}()
	select {
	case res := <-done:
		if len(res.Records) != 1 || res.Records[0].Name != "ok" {
			t.Errorf("records = %+v, want only ok", res.Records)
		}
		found := false
		for _, d := range res.Diagnostics {
			if d.Code == "unreadable" && strings.Contains(d.Message, "not a regular file") {
				found = true
			}
		}
		if !found {
			t.Errorf("no diagnostic for the FIFO: %+v", res.Diagnostics)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the scan blocked on a FIFO named SKILL.md")
	}
}

// TestMidWriteKeepsLastGoodReading checks that a skill file caught empty
// or half-written moments after a change keeps its previous reading for
// that scan, and is read again (and dropped, if still broken) later.
func TestMidWriteKeepsLastGoodReading(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{"root/a/SKILL.md": "---\nname: a\ndescription: Good.\n---\n"})
	testfs.Age(t, base, time.Hour)
	roots := []pipeline.Root{{Path: filepath.Join(base, "root"), Agent: "claude"}}
	first := Scan(context.Background(), roots, Options{})
	file := filepath.Join(base, "root", "a", "SKILL.md")
	if err := os.WriteFile(file, nil, 0o644); err != nil { // truncated, as an editor does mid-write
		t.Fatal(err)
	}
	second := Scan(context.Background(), roots, Options{Cache: first.Cache})
	if len(second.Records) != 1 || second.Records[0].Description != "Good." {
		t.Fatalf("mid-write scan records = %+v, want the previous reading of a", second.Records)
	}
	held := false
	for _, d := range second.Diagnostics {
		held = held || d.Code == "held-previous-reading"
	}
	if !held {
		t.Errorf("no held-previous-reading diagnostic: %+v", second.Diagnostics)
	}
	// Once the change is old, the broken file is reported as it is.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	third := Scan(context.Background(), roots, Options{Cache: second.Cache})
	if len(third.Records) != 0 {
		t.Errorf("settled broken file still served: %+v", third.Records)
	}
}

// TestNoCacheGivesTheSameRecords checks that a one-shot scan finds exactly
// what a caching scan finds and returns no cache.
func TestNoCacheGivesTheSameRecords(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{
		"root/cat/a/SKILL.md": "---\nname: a\ndescription: A.\n---\n",
		"root/b/.SKILL.md":    "---\nname: b\ndescription: B.\n---\n",
	})
	testfs.Age(t, base, time.Hour)
	roots := []pipeline.Root{{Path: filepath.Join(base, "root"), Agent: "claude"}}
	with := Scan(context.Background(), roots, Options{})
	without := Scan(context.Background(), roots, Options{NoCache: true})
	if without.Cache != nil {
		t.Error("NoCache scan returned a cache")
	}
	if with.Cache == nil || with.Cache.Len() != 2 {
		t.Errorf("caching scan cache = %v", with.Cache)
	}
	if d := cmp.Diff(with.Records, without.Records); d != "" {
		t.Errorf("records differ (-cached +uncached):\n%s", d)
	}
}
