package manifest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// TestListingInvalidation: a warm Build reads no folder (their listings
// are cached) and hashes nothing, and every change to a skill's tree
// shows in the next Build, from a Cache kept in memory and from one saved
// and loaded (as one-shot commands do). Each change puts the times of the
// folders it touches and of the files it edits back to what they were,
// as a tool that keeps times would: the change times, which cannot be set
// back, are what catches it.
func TestListingInvalidation(t *testing.T) {
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, dir string)
		want   map[string]string
	}{
		{name: "nothing changed", change: func(*testing.T, string) {},
			want: map[string]string{"SKILL.md": "skill", "references/r.md": "ref", "scripts/run.sh": "run"}},
		{name: "a file edited in place, its time restored", change: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "references", "r.md")
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("REF"), 0); err != nil {
				t.Fatal(err)
			}
			f.Close()
			chtimes(t, p, old)
		}, want: map[string]string{"SKILL.md": "skill", "references/r.md": "REF", "scripts/run.sh": "run"}},
		{name: "a file added", change: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "notes.md"), "notes")
			chtimes(t, filepath.Join(dir, "notes.md"), old)
		}, want: map[string]string{"SKILL.md": "skill", "notes.md": "notes", "references/r.md": "ref", "scripts/run.sh": "run"}},
		{name: "a file added in a subfolder", change: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "scripts", "more.sh"), "more")
		}, want: map[string]string{"SKILL.md": "skill", "references/r.md": "ref", "scripts/more.sh": "more", "scripts/run.sh": "run"}},
		{name: "a file removed", change: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "scripts", "run.sh")); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"SKILL.md": "skill", "references/r.md": "ref"}},
		{name: "a file renamed", change: func(t *testing.T, dir string) {
			if err := os.Rename(filepath.Join(dir, "references", "r.md"), filepath.Join(dir, "references", "s.md")); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"SKILL.md": "skill", "references/s.md": "ref", "scripts/run.sh": "run"}},
		{name: "a subfolder added", change: func(t *testing.T, dir string) {
			testfs.Write(t, dir, map[string]string{"assets/a/b.txt": "b"})
		}, want: map[string]string{"SKILL.md": "skill", "assets/a/b.txt": "b", "references/r.md": "ref", "scripts/run.sh": "run"}},
		{name: "a subfolder replaced by a file", change: func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "scripts")); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "scripts"), "now a file")
		}, want: map[string]string{"SKILL.md": "skill", "references/r.md": "ref", "scripts": "now a file"}},
		{name: "a file replaced by a symlink to another", change: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "scripts", "run.sh")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../SKILL.md", filepath.Join(dir, "scripts", "run.sh")); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"SKILL.md": "skill", "references/r.md": "ref", "scripts/run.sh": "skill"}},
	} {
		for _, persisted := range []bool{false, true} {
			name := tt.name
			if persisted {
				name += ", saved and loaded"
			}
			t.Run(name, func(t *testing.T) {
				dir := testfs.TempDir(t)
				testfs.Write(t, dir, map[string]string{"SKILL.md": "skill", "references/r.md": "ref", "scripts/run.sh": "run"})
				folders := []string{dir, filepath.Join(dir, "references"), filepath.Join(dir, "scripts")}
				age := func() {
					for _, p := range []string{"SKILL.md", "references/r.md", "scripts/run.sh"} {
						_ = os.Chtimes(filepath.Join(dir, p), old, old)
					}
					for _, f := range folders {
						_ = os.Chtimes(f, old, old)
					}
				}
				age()
				c := trusting()
				if _, err := c.Build(dir); err != nil {
					t.Fatal(err)
				}
				if persisted {
					file := filepath.Join(t.TempDir(), "manifests.bin")
					if err := c.SaveFile(file); err != nil {
						t.Fatal(err)
					}
					c = trusting()
					if err := c.LoadFile(file); err != nil {
						t.Fatal(err)
					}
				}
				before := c.Stats()
				tt.change(t, dir)
				if tt.name != "nothing changed" {
					for _, f := range folders {
						_ = os.Chtimes(f, old, old) // the folders' modification times as they were
					}
				}
				got, err := c.Build(dir)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want(tt.want), got); diff != "" {
					t.Errorf("manifest after the change (-want +got):\n%s", diff)
				}
				if tt.name == "nothing changed" {
					if st := c.Stats(); st.Listed != before.Listed || st.Hashed != before.Hashed {
						t.Errorf("a warm Build read %d folders and hashed %d files; want none",
							st.Listed-before.Listed, st.Hashed-before.Hashed)
					}
				}
			})
		}
	}
}

// TestListingRacy: a folder whose times are within racyWindow of its
// reading is read again at the next Build (an entry added in the same
// clock tick would not move them); once older, its listing is used.
func TestListingRacy(t *testing.T) {
	for _, tt := range []struct {
		name       string
		age        time.Duration // of the clock at listing, past the folder's latest time
		wantListed int64         // after two Builds
	}{
		{name: "just written", age: 0, wantListed: 2},
		{name: "inside the window", age: racyWindow - time.Millisecond, wantListed: 2},
		{name: "at the window", age: racyWindow, wantListed: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testfs.TempDir(t)
			write(t, filepath.Join(dir, "SKILL.md"), "s")
			st, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			c := NewCache()
			c.listings.now = func() time.Time { return idOf(st).Latest().Add(tt.age) }
			for range 2 {
				if _, err := c.Build(dir); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.Stats().Listed; got != tt.wantListed {
				t.Errorf("read the folder %d times, want %d", got, tt.wantListed)
			}
		})
	}
}

// TestListingStale: a cached listing that disagrees with the folder
// (a file it names is gone, one it calls a file is a folder), as when the
// folder changes while the walk runs, makes Build walk again reading
// every folder, and the manifest is the folder's.
func TestListingStale(t *testing.T) {
	for _, tt := range []struct {
		name  string
		entry listed
	}{
		{name: "a file that is gone", entry: listed{name: "ghost.md", kind: kindFile}},
		{name: "a file that is a folder", entry: listed{name: "references", kind: kindFile}},
		{name: "a folder that is a file", entry: listed{name: "SKILL.md", kind: kindDir}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testfs.TempDir(t)
			testfs.Write(t, dir, map[string]string{"SKILL.md": "s", "references/r.md": "r"})
			c := trusting()
			if _, err := c.Build(dir); err != nil {
				t.Fatal(err)
			}
			n, ok := c.listings.dirs[dir]
			if !ok {
				t.Fatal("the skill folder's listing was not cached")
			}
			n.entries = append([]listed{tt.entry}, n.entries...)
			c.listings.dirs[dir] = n
			got, err := c.Build(dir)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want(map[string]string{"SKILL.md": "s", "references/r.md": "r"}), got); diff != "" {
				t.Errorf("manifest (-want +got):\n%s", diff)
			}
			if n := c.listings.dirs[dir]; len(n.entries) != 2 {
				t.Errorf("the listing was not read again: %+v", n.entries)
			}
		})
	}
}
