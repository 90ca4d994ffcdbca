package scan

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// hiddenTree is shaped like the openai/skills repository: skills in
// hidden category folders, plus a .git and a node_modules that must never
// be searched, and a hidden folder reached through a symlink.
var hiddenTree = map[string]string{
	"repo/skills/.system/creator/SKILL.md":        "---\nname: creator\ndescription: C.\n---\n",
	"repo/skills/.curated/gh-fix-ci/SKILL.md":     "---\nname: gh-fix-ci\ndescription: G.\n---\n",
	"repo/skills/.experimental/plan/SKILL.md":     "---\nname: plan\ndescription: P.\n---\n",
	"repo/skills/plain/SKILL.md":                  "---\nname: plain\ndescription: P.\n---\n",
	"repo/.git/objects/info/SKILL.md":             "---\nname: in-git\ndescription: G.\n---\n",
	"repo/.git/skills/x/SKILL.md":                 "---\nname: git-skill\ndescription: G.\n---\n",
	"repo/node_modules/pkg/SKILL.md":              "---\nname: in-node-modules\ndescription: N.\n---\n",
	"repo/skills/.hidden/node_modules/y/SKILL.md": "---\nname: nested-node-modules\ndescription: N.\n---\n",
	"elsewhere/linked/SKILL.md":                   "---\nname: linked\ndescription: L.\n---\n",
	"repo/skills/.linked":                         "-> ../../elsewhere",
	"repo/skills/.#lock.md":                       "-> nobody@host.1234",
}

// TestHiddenOption checks Options.Hidden: without it (discovery) no
// hidden folder is entered; with it every hidden folder but .git is, and
// node_modules stays skipped at any depth. A broken hidden symlink (an
// editor lock file) is not a problem either way.
func TestHiddenOption(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, hiddenTree)
	roots := []pipeline.Root{{Path: filepath.Join(base, "repo"), Agent: "custom"}}
	for _, tt := range []struct {
		hidden bool
		want   []string
	}{
		{false, []string{"plain"}},
		// Ordinary folders first, then the hidden ones.
		{true, []string{"plain", "gh-fix-ci", "plan", "linked", "creator"}},
	} {
		res := Scan(context.Background(), roots, Options{Hidden: tt.hidden})
		var got []string
		for _, r := range res.Records {
			got = append(got, r.Name)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Hidden=%v: records (-want +got):\n%s", tt.hidden, d)
		}
		if len(res.Diagnostics) != 0 {
			t.Errorf("Hidden=%v: diagnostics %+v", tt.hidden, res.Diagnostics)
		}
	}
}

// TestHiddenOptionSharesCache checks that a listing cached by a scan
// without Hidden serves a scan with it (and the reverse): the cache must
// not remember which option built it.
func TestHiddenOptionSharesCache(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, hiddenTree)
	testfs.Age(t, base, time.Hour)
	roots := []pipeline.Root{{Path: filepath.Join(base, "repo"), Agent: "custom"}}
	first := Scan(context.Background(), roots, Options{})
	second := Scan(context.Background(), roots, Options{Hidden: true, Cache: first.Cache})
	third := Scan(context.Background(), roots, Options{Cache: second.Cache})
	if n := len(second.Records); n != 5 {
		t.Errorf("hidden scan on a cache built without Hidden found %d skills, want 5", n)
	}
	if n := len(third.Records); n != 1 {
		t.Errorf("plain scan on a cache built with Hidden found %d skills, want 1", n)
	}
}

// manyFolders returns a tree of n empty folders below dir, n/10 groups of
// ten, to spend a walk's folder budget.
func manyFolders(dir string, n int) map[string]string {
	tree := make(map[string]string, n)
	for i := range n {
		tree[fmt.Sprintf("%s/g%03d/f%d/", dir, i/10, i%10)] = ""
	}
	return tree
}

// TestHiddenBudget checks that in a repository walk (Options.Hidden) a
// large hidden folder cannot starve the rest of the tree: ordinary folders
// are walked first, at every depth, and hidden folders are walked after
// them under a folder budget of their own, whose end is reported on the
// hidden folder being walked. A virtualenv and the other tool folders are
// not entered at all. Each case once gave no skill at all: .venv and
// .data sort before skills/, and the walk was depth-first under one
// budget.
func TestHiddenBudget(t *testing.T) {
	good := map[string]string{"repo/skills/good/SKILL.md": "---\nname: good\ndescription: G.\n---\n"}
	merge := func(ms ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range ms {
			maps.Copy(out, m)
		}
		return out
	}
	for _, tt := range []struct {
		name  string
		tree  map[string]string
		want  []string
		diags []string // code and path relative to the temporary folder
	}{
		{"a virtualenv is not entered",
			merge(good, manyFolders("repo/.venv/lib", 300)), []string{"good"}, nil},
		{"a large hidden folder is walked last, under its own budget",
			merge(good, manyFolders("repo/.data", 300),
				map[string]string{"repo/.data/g000/f0/x/SKILL.md": "---\nname: in-data\ndescription: D.\n---\n"}),
			[]string{"good", "in-data"}, []string{"hidden-walk-limit repo/.data"}},
		{"a deeper large hidden folder waits for the folders after its parent",
			merge(good, manyFolders("repo/aaa/.data", 300)), []string{"good"}, []string{"hidden-walk-limit repo/aaa/.data"}},
		{"a hidden skill is found after the ordinary tree spent its budget",
			merge(manyFolders("repo/docs", 300),
				map[string]string{"repo/.system/creator/SKILL.md": "---\nname: creator\ndescription: C.\n---\n"}),
			[]string{"creator"}, []string{"walk-limit repo"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, tt.tree)
			res := Scan(context.Background(), []pipeline.Root{{Path: filepath.Join(base, "repo"), Agent: "custom"}},
				Options{Hidden: true, MaxDirs: 100})
			var got, diags []string
			for _, r := range res.Records {
				got = append(got, r.Name)
			}
			for _, d := range res.Diagnostics {
				diags = append(diags, d.Code+" "+rel(base, d.Path))
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.diags, diags); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
		})
	}
}

// TestSkippedFolders checks the folders a repository walk leaves out,
// each holding a skill that must not be found, and that discovery (no
// Hidden) keeps its own rules: it still enters the ordinary ones (venv,
// __pycache__) and never .git or node_modules.
func TestSkippedFolders(t *testing.T) {
	names := []string{".git", "node_modules", ".venv", "venv", ".tox", ".nox", ".cache", "__pycache__", ".next",
		".gradle", ".terraform", ".idea", ".vscode", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
	tree := map[string]string{
		"repo/skills/kept/SKILL.md":         "---\nname: kept\ndescription: K.\n---\n",
		"repo/.kept_cache_not/x/SKILL.md":   "---\nname: hidden-kept\ndescription: K.\n---\n",
		"repo/my_cache/x/SKILL.md":          "---\nname: plain-cache\ndescription: K.\n---\n",
		"repo/skills/.hidden/.tox/SKILL.md": "---\nname: nested-tox\ndescription: T.\n---\n",
	}
	for _, n := range names {
		tree["repo/"+n+"/pkg/SKILL.md"] = "---\nname: in" + n + "\ndescription: S.\n---\n"
	}
	base := testfs.TempDir(t)
	testfs.Write(t, base, tree)
	roots := []pipeline.Root{{Path: filepath.Join(base, "repo"), Agent: "custom"}}
	for _, tt := range []struct {
		hidden bool
		want   []string
	}{
		{true, []string{"plain-cache", "kept", "hidden-kept"}},
		{false, []string{"in__pycache__", "plain-cache", "kept", "invenv"}},
	} {
		res := Scan(context.Background(), roots, Options{Hidden: tt.hidden})
		var got []string
		for _, r := range res.Records {
			got = append(got, r.Name)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Hidden=%v: records (-want +got):\n%s", tt.hidden, d)
		}
	}
}
