package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// This file answers the history guard's question (internal/install): how
// a source's new commit relates to the one a lock recorded.

// History is how the new commit of a source relates to the locked one.
type History int

// The relations History reports.
const (
	// Descends: the locked commit is an ancestor of the new one (the
	// source moved forward).
	Descends History = iota
	// Behind: the new commit is an ancestor of the locked one (the ref
	// moved back).
	Behind
	// Rewritten: the two share history, but neither descends from the
	// other (a force-push replaced commits after their common ancestor).
	Rewritten
	// Unrelated: the two share no commit (the repository's history was
	// replaced as a whole: re-registered by someone else, or recreated).
	Unrelated
	// Gone: the source no longer has the locked commit, and the new
	// history does not hold it; what it shares with it cannot be told.
	Gone
)

// historyRepo is the cache repository of url's commit graph: commits
// only, no trees or files, and never shallow, so that ancestry questions
// have exact answers. It is kept apart from the repository Fetch fills,
// whose commits each come with their trees (a commit found there is
// checked out without fetching).
func (g *Git) historyRepo(url string) string {
	return strings.TrimSuffix(g.repo(url), ".git") + ".history.git"
}

// History tells how commit relates to locked in the repository at url,
// fetching what it needs into the cache: the commit graph of commit (the
// first time the whole graph, commits only, without trees or files;
// afterwards only the commits added since), and that of locked when the
// graph does not hold it and the source still has it.
func (g *Git) History(ctx context.Context, url, locked, commit string) (History, error) {
	if locked == commit {
		return Descends, nil
	}
	if err := CheckURL(url); err != nil {
		return 0, err
	}
	if g.CacheDir == "" {
		return 0, errors.New("ccski has no cache folder to fetch git sources into: set HOME or XDG_CACHE_HOME")
	}
	release, err := g.lockRepo(url)
	if err != nil {
		return 0, fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	defer release()
	repo := g.historyRepo(url)
	if _, err := os.Stat(filepath.Join(repo, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(repo), 0o755); err != nil {
			return 0, fmt.Errorf("git cache %s: %w", g.CacheDir, err)
		}
		if _, err := g.Run(ctx, url, "", nil, "init", "--quiet", "--bare", repo); err != nil {
			return 0, err
		}
		for _, kv := range [][2]string{{"remote.origin.url", url}, {"remote.origin.promisor", "true"},
			{"remote.origin.partialclonefilter", "tree:0"}} {
			if _, err := g.Run(ctx, url, "", nil, "--git-dir", repo, "config", kv[0], kv[1]); err != nil {
				return 0, err
			}
		}
	}
	// Whether the graph holds c: rev-list with --missing never asks the
	// remote for it (rev-parse would fetch a commit the repository lacks
	// from its promisor remote, with its trees).
	has := func(c string) bool {
		out, err := g.Run(ctx, url, c, nil, "--git-dir", repo, "rev-list", "--missing=print", "--no-walk", c)
		return err == nil && out == c
	}
	// The new commit and the locked one each under a ref, so that what
	// the next update asks about stays in the graph.
	fetch := func(c, ref string) error {
		args := []string{"--git-dir", repo, "fetch", "--filter=tree:0", "--no-tags", "--no-write-fetch-head"}
		if g.Progress != nil {
			args = append(args, "--progress")
		} else {
			args = append(args, "--quiet")
		}
		_, err := g.Run(ctx, url, c, nil, append(args, "origin", "+"+c+":refs/ccski/history/"+ref)...)
		return err
	}
	if !has(commit) {
		if err := fetch(commit, "new"); err != nil {
			return 0, err
		}
	}
	if !has(locked) {
		// Not in the new commit's history: the source may still hold it
		// (a host keeps a force-pushed commit for a while), with the
		// history it came from.
		if err := fetch(locked, "locked"); errors.Is(err, ErrUnknownRef) {
			return Gone, nil
		} else if err != nil {
			return 0, err
		}
	}
	ancestor := func(a, b string) (bool, error) {
		_, err := g.Run(ctx, url, b, nil, "--no-replace-objects", "--git-dir", repo, "merge-base", "--is-ancestor", a, b)
		if exitedWith(err, 1) {
			return false, nil
		}
		return err == nil, err
	}
	if ok, err := ancestor(locked, commit); ok || err != nil {
		return Descends, err
	}
	if ok, err := ancestor(commit, locked); ok || err != nil {
		return Behind, err
	}
	base, err := g.Run(ctx, url, commit, nil, "--no-replace-objects", "--git-dir", repo, "merge-base", locked, commit)
	switch {
	case err == nil && base != "":
		return Rewritten, nil
	case err == nil || exitedWith(err, 1):
		return Unrelated, nil
	}
	return 0, err
}

// exitedWith reports whether err is git's exit with status code: the
// answer "no" of git merge-base.
func exitedWith(err error, code int) bool {
	var ge *GitError
	return errors.As(err, &ge) && ge.code == code
}
