//go:build unix

package install

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/testfs"
)

// sparseFixture is a repository with a marketplace, its plugins, loose
// and nested skills, a symlinked skill folder, a skill whose file links
// elsewhere in the repository, names git's patterns would read as globs,
// and files no reading of it needs.
var sparseFixture = map[string]string{
	".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [
		{"name": "kit", "source": "./plugins/kit"}]}`,
	"plugins/kit/.claude-plugin/plugin.json": `{"name": "kit"}`,
	"plugins/kit/skills/km/SKILL.md":         skill("km"),
	"plugins/kit/skills/km/notes.md":         "km notes",
	"loose/a/SKILL.md":                       skill("a"),
	"loose/a/shared.md":                      "-> ../../shared/text.md",
	"loose/deep/b/SKILL.md":                  skill("b"),
	"loose/linked":                           "-> ../elsewhere/c",
	"elsewhere/c/SKILL.md":                   skill("c"),
	"elsewhere/c/data.txt":                   "c data",
	"shared/text.md":                         "shared",
	"odd/[x]*?/SKILL.md":                     skill("odd"),
	"odd/[x]*?/#!file .md":                   "odd file",
	"odd/x/SKILL.md":                         skill("x"),
	"big/unused.txt":                         "unused",
}

// TestSparseCheckout (unix: its names hold characters Windows refuses): the checkout Discover reads holds every SKILL.md,
// manifest and symlink and no other file, and offers exactly what a full
// checkout offers; Widen then adds a skill's folder, what its symlinks
// lead to (through a symlinked folder too), and nothing else, matching
// names with glob characters literally.
func TestSparseCheckout(t *testing.T) {
	base := testfs.TempDir(t)
	url, shas := gitRepo(t, base, sparseFixture)
	g := &gitfetch.Git{CacheDir: filepath.Join(base, "cache")}
	ctx := context.Background()
	if _, err := g.Fetch(ctx, url, ""); err != nil {
		t.Fatal(err)
	}
	tree, err := g.Checkout(ctx, url, shas[0])
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Remove()
	files := func() []string {
		var out []string
		filepath.WalkDir(tree.Dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(tree.Dir, p)
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		slices.Sort(out)
		return out
	}
	want := []string{".claude-plugin/marketplace.json", "elsewhere/c/SKILL.md", "loose/a/SKILL.md", "loose/a/shared.md",
		"loose/deep/b/SKILL.md", "loose/linked", "odd/[x]*?/SKILL.md", "odd/x/SKILL.md",
		"plugins/kit/.claude-plugin/plugin.json", "plugins/kit/skills/km/SKILL.md"}
	if diff := cmp.Diff(want, files()); diff != "" {
		t.Errorf("the checkout for discovery (-want +got):\n%s", diff)
	}
	if st, err := os.Stat(filepath.Join(tree.Dir, "big")); err != nil || !st.IsDir() {
		t.Errorf("the folder big is not there, empty: %v", err)
	}
	full := filepath.Join(base, "full")
	testfs.Write(t, full, sparseFixture)
	for _, sub := range []string{"", "loose", ".claude-plugin/marketplace.json"} {
		names := func(root string) []string {
			o, err := Discover(ctx, root, sub)
			if err != nil {
				t.Fatalf("Discover(%s, %q): %v", root, sub, err)
			}
			var out []string
			for _, c := range o.Candidates {
				out = append(out, c.Name+" "+c.Rel)
			}
			return out
		}
		if diff := cmp.Diff(names(full), names(tree.Dir)); diff != "" {
			t.Errorf("Discover %q, full (-) against sparse (+):\n%s", sub, diff)
		}
	}
	for _, rel := range []string{"loose/a", "loose/linked", "odd/[x]*?"} {
		if err := g.Widen(ctx, tree, rel); err != nil {
			t.Fatal(err)
		}
	}
	want = append(want, "elsewhere/c/data.txt", "odd/[x]*?/#!file .md", "shared/text.md")
	slices.Sort(want)
	if diff := cmp.Diff(want, files()); diff != "" {
		t.Errorf("after Widen (-want +got):\n%s", diff)
	}
}
