package scan

import (
	"context"
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
	roots := []pipeline.Root{{Path: filepath.Join(base, "repo"), Provider: "custom"}}
	for _, tt := range []struct {
		hidden bool
		want   []string
	}{
		{false, []string{"plain"}},
		{true, []string{"gh-fix-ci", "plan", "linked", "creator", "plain"}},
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
	roots := []pipeline.Root{{Path: filepath.Join(base, "repo"), Provider: "custom"}}
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
