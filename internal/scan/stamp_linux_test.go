package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// TestCacheSeesChangesThatKeepSizeAndTime checks that a rescan sees a
// change that leaves a file's size and modification time (or a folder's
// time) as they were: an edit in place whose time a tool restored, a file
// renamed over another with the same size and time, an entry added to a
// folder whose time was then set back. The cache keys its readings and
// listings by change time and inode too, which no such change leaves.
func TestCacheSeesChangesThatKeepSizeAndTime(t *testing.T) {
	skillsRoot := func(base string) []pipeline.Root { return []pipeline.Root{root(base, "skills")} }
	tests := []struct {
		name   string
		tree   map[string]string
		roots  func(base string) []pipeline.Root
		change func(t *testing.T, base string)
		want   []string
	}{
		{
			name:  "skill file edited in place",
			tree:  map[string]string{"skills/a/SKILL.md": skill("a", "Old."), "skills/b/SKILL.md": skill("b", "Bee.")},
			roots: skillsRoot,
			change: func(t *testing.T, base string) {
				rewriteKeepingTime(t, filepath.Join(base, "skills/a/SKILL.md"), skill("a", "New."))
			},
			want: []string{"a=New.", "b=Bee."},
		},
		{
			name:  "disabled skill file edited in place",
			tree:  map[string]string{"skills/a/.SKILL.md": skill("a", "Old.")},
			roots: skillsRoot,
			change: func(t *testing.T, base string) {
				rewriteKeepingTime(t, filepath.Join(base, "skills/a/.SKILL.md"), skill("a", "New."))
			},
			want: []string{"a=New."},
		},
		{
			name:  "skill file replaced by a rename",
			tree:  map[string]string{"skills/cat/a/SKILL.md": skill("a", "Old.")},
			roots: skillsRoot,
			change: func(t *testing.T, base string) {
				file := filepath.Join(base, "skills/cat/a/SKILL.md")
				st := stat(t, file)
				dirSt := stat(t, filepath.Dir(file))
				tmp := filepath.Join(base, "new.md")
				if err := os.WriteFile(tmp, []byte(skill("a", "New.")), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(tmp, st.ModTime(), st.ModTime()); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, file); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(filepath.Dir(file), dirSt.ModTime(), dirSt.ModTime()); err != nil {
					t.Fatal(err)
				}
				if got := stat(t, file); got.Size() != st.Size() || !got.ModTime().Equal(st.ModTime()) {
					t.Fatalf("the new file's size or time differs: %d %v, was %d %v", got.Size(), got.ModTime(), st.Size(), st.ModTime())
				}
			},
			want: []string{"a=New."},
		},
		{
			name:  "skill folder added, parent's time set back",
			tree:  map[string]string{"skills/cat/a/SKILL.md": skill("a", "A.")},
			roots: skillsRoot,
			change: func(t *testing.T, base string) {
				cat := filepath.Join(base, "skills/cat")
				st := stat(t, cat)
				testfs.Write(t, cat, map[string]string{"b/SKILL.md": skill("b", "B.")})
				testfs.Age(t, filepath.Join(cat, "b"), time.Hour)
				restoreTime(t, cat, st)
			},
			want: []string{"a=A.", "b=B."},
		},
		{
			name: "openai.yaml edited in place",
			tree: map[string]string{"skills/a/SKILL.md": skill("a", "A."),
				"skills/a/agents/openai.yaml": "interface:\n  display_name: One\n"},
			roots: skillsRoot,
			change: func(t *testing.T, base string) {
				rewriteKeepingTime(t, filepath.Join(base, "skills/a/agents/openai.yaml"), "interface:\n  display_name: Two\n")
			},
			want: []string{"a=A. (Two)"},
		},
		{
			name: "declared skill edited in place",
			tree: map[string]string{"plugin/skills/a/SKILL.md": skill("a", "Old.")},
			roots: func(base string) []pipeline.Root {
				r := root(base, "plugin")
				r.Skills = []string{"skills/a"}
				return []pipeline.Root{r}
			},
			change: func(t *testing.T, base string) {
				rewriteKeepingTime(t, filepath.Join(base, "plugin/skills/a/SKILL.md"), skill("a", "New."))
			},
			want: []string{"a=New."},
		},
		{
			name:  "command edited in place",
			tree:  map[string]string{"cmds/sub/c.md": "---\ndescription: Old.\n---\nDo it.\n"},
			roots: func(base string) []pipeline.Root { return []pipeline.Root{cmdRoot(base, "cmds")} },
			change: func(t *testing.T, base string) {
				rewriteKeepingTime(t, filepath.Join(base, "cmds/sub/c.md"), "---\ndescription: New.\n---\nDo it.\n")
			},
			want: []string{"sub:c=New."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, tt.tree)
			testfs.Age(t, base, time.Hour)
			roots := tt.roots(base)
			ctx := context.Background()
			first := Scan(ctx, roots, Options{})
			// As a server rescans: with the cache and reuse of the last scan.
			same := Scan(ctx, roots, Options{Cache: first.Cache, Reuse: true})
			if !same.Reused {
				t.Fatal("an unchanged tree was not served from the cache: the test would prove nothing")
			}
			tt.change(t, base)
			got := Scan(ctx, roots, Options{Cache: same.Cache, Reuse: true})
			if d := cmp.Diff(tt.want, seen(got)); d != "" {
				t.Errorf("after the change (-want +got):\n%s", d)
			}
		})
	}
}

// seen lists the records of res as name=description, with the display
// name of the openai.yaml in brackets, sorted.
func seen(res Result) []string {
	var out []string
	for _, r := range res.Records {
		s := r.Name + "=" + r.Description
		if r.OpenAI != nil {
			s += " (" + r.OpenAI.DisplayName + ")"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func stat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// rewriteKeepingTime rewrites a file in place with content of the same
// size and sets its times back to what they were.
func rewriteKeepingTime(t *testing.T, path, content string) {
	t.Helper()
	st := stat(t, path)
	if int64(len(content)) != st.Size() {
		t.Fatalf("new content of %s has %d bytes, the file %d: the test needs the same size", path, len(content), st.Size())
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	restoreTime(t, path, st)
}

// restoreTime sets path's times back to before's, and makes sure its
// change time has moved since before: the cache relies on it, and where
// the file system's clock ticks coarsely a change within the tick of the
// last one may leave it (see stamp), so it sets the times again until it
// has moved.
func restoreTime(t *testing.T, path string, before os.FileInfo) {
	t.Helper()
	ctime := func(st os.FileInfo) syscall.Timespec { return st.Sys().(*syscall.Stat_t).Ctim }
	for range 1000 {
		if err := os.Chtimes(path, before.ModTime(), before.ModTime()); err != nil {
			t.Fatal(err)
		}
		if ctime(stat(t, path)) != ctime(before) {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("the change time of %s did not move", path)
}
