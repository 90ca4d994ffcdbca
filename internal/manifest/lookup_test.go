package manifest

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestLookupAgreesWithWalk looks up every path a walk lists, and paths it
// does not: Lookup gives each listed path the walk's entry, stops at the
// first segment that is not a folder (a link to a folder above all, which
// a walk records and never enters), and refuses .git and missing paths.
func TestLookupAgreesWithWalk(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"skill/SKILL.md": "s", "skill/refs/r.md": "r", "skill/refs/deep/d.md": "d",
		"outside.md": "o", "outdir/x.md": "x", "skill/alias.md": "-> refs/r.md", "skill/out.md": "-> ../outside.md",
		"skill/outdir": "-> ../outdir", "skill/refs-link": "-> refs", "skill/self": "-> .", "skill/broken.md": "-> nothing.md",
		"skill/.git/run.sh": "x", "skill/git.sh": "-> .git/run.sh"})
	dir := filepath.Join(base, "skill")
	l, err := Walk{}.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Entries {
		got, err := Lookup(dir, e.Path)
		if err != nil || got.Path != e.Path || shape(got) != shape(e) {
			t.Errorf("Lookup(%s) = %s %q, %v; the walk lists %s", e.Path, got.Path, shape(got), err, shape(e))
		}
	}
	for _, tt := range []struct {
		rel, path, shape string // the entry Lookup stops at
	}{
		{"", "", "folder"},
		{"refs", "refs", "folder"},
		{"refs/deep", "refs/deep", "folder"},
		{"refs-link", "refs-link", "link -> refs"},
		{"refs-link/r.md", "refs-link", "link -> refs"},
		{"self/SKILL.md", "self", "link -> ."},
		{"outdir/x.md", "outdir", "link out -> ../outdir"},
		{"SKILL.md/x", "SKILL.md", "file"},
		{"alias.md", "alias.md", "file"},
	} {
		got, err := Lookup(dir, tt.rel)
		if err != nil || got.Path != tt.path || shape(got) != tt.shape {
			t.Errorf("Lookup(%q) = %q %s, %v; want %q %s", tt.rel, got.Path, shape(got), err, tt.path, tt.shape)
		}
	}
	for _, rel := range []string{"nope.md", "refs/nope.md", ".git/run.sh", ".GIT", "refs/../SKILL.md", "refs//r.md"} {
		if got, err := Lookup(dir, rel); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Lookup(%q) = %+v, %v; want fs.ErrNotExist", rel, got, err)
		}
	}
	if alias, _ := Lookup(dir, "alias.md"); alias.Real != filepath.Join(l.Dir, "refs", "r.md") {
		t.Errorf("alias.md is read at %s, want its target", alias.Real)
	}
}
