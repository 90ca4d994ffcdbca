package gitfetch

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestGitHistory moves a repository's branch forward, back, through a
// force-push and a replaced history, then prunes the commits no branch
// holds: History tells each relation apart, and fetches commits only (no
// trees, no files) from a server that filters.
func TestGitHistory(t *testing.T) {
	base := testfs.TempDir(t)
	url, shas := gitRepo(t, base,
		map[string]string{"skills/pdf/SKILL.md": skill("pdf")},
		map[string]string{"skills/pdf/run.sh": "v2"})
	work, bare := filepath.Join(base, "work"), filepath.Join(base, "repo.git")
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	commit := func(files map[string]string) string {
		t.Helper()
		testfs.Write(t, work, files)
		git(work, "add", "-A")
		git(work, "commit", "-q", "-m", "change")
		git(work, "push", "-q", "--force", bare, "HEAD:main")
		return git(work, "rev-parse", "HEAD")
	}
	git(bare, "config", "uploadpack.allowFilter", "true")
	g := &Git{CacheDir: filepath.Join(base, "cache")}
	ctx := context.Background()
	check := func(what, locked, next string, want History) {
		t.Helper()
		got, err := g.History(ctx, url, locked, next)
		if err != nil || got != want {
			t.Errorf("%s: History = %v, %v; want %v", what, got, err, want)
		}
	}

	forward := commit(map[string]string{"skills/pdf/run.sh": "v3"})
	check("the same commit", shas[1], shas[1], Descends)
	check("forward", shas[1], forward, Descends)
	check("back", forward, shas[0], Behind)
	git(work, "reset", "-q", "--hard", shas[0])
	rewritten := commit(map[string]string{"skills/pdf/run.sh": "rewritten"})
	check("a force-push", forward, rewritten, Rewritten)
	git(work, "checkout", "-q", "--orphan", "other")
	replaced := commit(map[string]string{"skills/pdf/run.sh": "someone else"})
	check("a replaced history", rewritten, replaced, Unrelated)

	// Only commits came: no tree, no file.
	out, err := exec.Command("git", "--git-dir", g.historyRepo(url), "cat-file", "--batch-all-objects", "--batch-check=%(objecttype)").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range strings.Fields(string(out)) {
		if kind != "commit" {
			t.Errorf("the history cache holds a %s: want commits only\n%s", kind, out)
			break
		}
	}

	// The old commits pruned from the server: a new cache cannot fetch
	// them, and one that holds them still answers.
	git(bare, "reflog", "expire", "--expire=now", "--all")
	git(bare, "gc", "-q", "--prune=now")
	check("a force-push, pruned, with the cache", forward, replaced, Unrelated)
	g = &Git{CacheDir: filepath.Join(base, "cache2")}
	check("a force-push, pruned", forward, replaced, Gone)
	check("forward, pruned", shas[0], replaced, Gone)
	if _, err := g.Fetch(ctx, url, forward); !errors.Is(err, ErrUnknownRef) {
		t.Errorf("Fetch of a pruned commit: %v, want ErrUnknownRef", err)
	}
}
