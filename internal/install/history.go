package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// This file is the history guard: an update follows the history the lock
// recorded, so that a source whose history was replaced after install (a
// force-push, or a repository deleted and registered again by someone
// else) does not slip its new content in. The commit pin says which bytes
// were installed; the guard says that the new bytes come after them.

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

// ErrHistory is the kind of the error an update the history guard refused
// returns, for errors.Is.
var ErrHistory = errors.New("history rewritten")

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
	if err := checkGitURL(url); err != nil {
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
		if _, err := g.run(ctx, url, "", nil, "init", "--quiet", "--bare", repo); err != nil {
			return 0, err
		}
		for _, kv := range [][2]string{{"remote.origin.url", url}, {"remote.origin.promisor", "true"},
			{"remote.origin.partialclonefilter", "tree:0"}} {
			if _, err := g.run(ctx, url, "", nil, "--git-dir", repo, "config", kv[0], kv[1]); err != nil {
				return 0, err
			}
		}
	}
	// Whether the graph holds c: rev-list with --missing never asks the
	// remote for it (rev-parse would fetch a commit the repository lacks
	// from its promisor remote, with its trees).
	has := func(c string) bool {
		out, err := g.run(ctx, url, c, nil, "--git-dir", repo, "rev-list", "--missing=print", "--no-walk", c)
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
		_, err := g.run(ctx, url, c, nil, append(args, "origin", "+"+c+":refs/ccski/history/"+ref)...)
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
		_, err := g.run(ctx, url, b, nil, "--no-replace-objects", "--git-dir", repo, "merge-base", "--is-ancestor", a, b)
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
	base, err := g.run(ctx, url, commit, nil, "--no-replace-objects", "--git-dir", repo, "merge-base", locked, commit)
	switch {
	case err == nil && base != "":
		return Rewritten, nil
	case err == nil || exitedWith(err, 1):
		return Unrelated, nil
	}
	return 0, err
}

// guardHistory refuses, unless Force, to update lock entry e to commit of
// src (materialised at root; ref is the ref update was asked for, "" for
// the entry's own) when commit does not follow the locked commit: for a
// git source, and for a folder or marketplace pinned to the repository it
// is a clone of. When update follows the entry's ref, the new commit must
// descend from the locked one; when it was asked for another ref (a tag,
// a branch, an older commit), it must share history with it.
func (in *Installer) guardHistory(e Entry, src Source, root, commit, ref string) error {
	if in.Force || in.Git == nil || commit == e.Commit || !fullCommit.MatchString(e.Commit) || !fullCommit.MatchString(commit) {
		return nil
	}
	url := src.URL
	if src.Kind != KindGit {
		if src.Origin.URL == "" || e.Source.Origin.URL == "" {
			return nil
		}
		url = src.Origin.URL
		// A clone in which the new commit descends from the locked one
		// answers without the network (a commit names its parents; only
		// replace refs, which are not followed, could say otherwise).
		if st := in.cloneAt(root); st.err == nil && st.clone.top != "" {
			if _, err := in.Git.run(in.Ctx, st.clone.top, "", nil, "--no-replace-objects", "-C", st.clone.top,
				"merge-base", "--is-ancestor", e.Commit, commit); err == nil {
				return nil
			}
		}
	}
	h, err := in.Git.History(in.Ctx, url, e.Commit, commit)
	if err != nil {
		return fmt.Errorf("checking that %s's new commit %s follows the locked commit %s: %w", e.Name, short(commit), short(e.Commit), err)
	}
	follows := ref == "" || ref == e.Source.Ref
	if h == Descends || !follows && (h == Behind || h == Rewritten) {
		return nil
	}
	return &historyError{name: e.Name, url: url, locked: e.Commit, commit: commit, history: h}
}

// exitedWith reports whether err is git's exit with status code: the
// answer "no" of git merge-base.
func exitedWith(err error, code int) bool {
	var ge *GitError
	return errors.As(err, &ge) && ge.code == code
}

// historyError is an update the history guard refused.
type historyError struct {
	name, url, locked, commit string
	history                   History
}

func (e *historyError) Error() string {
	what := ""
	switch e.history {
	case Behind:
		what = fmt.Sprintf("its ref moved back: the new commit %s is older than the locked commit %s, so the history "+
			"after it was removed (a force-push)", short(e.commit), short(e.locked))
	case Rewritten:
		what = fmt.Sprintf("its history was rewritten (it looks like a force-push): the new commit %s does not descend "+
			"from the locked commit %s, though they share older commits", short(e.commit), short(e.locked))
	case Unrelated:
		what = fmt.Sprintf("its history shares no commit with the locked commit %s: the repository looks replaced, "+
			"deleted and registered again by someone else, or recreated", short(e.locked))
	default:
		what = fmt.Sprintf("the locked commit %s is gone from it and the new commit %s does not descend from it: its "+
			"history was rewritten (a force-push), or the repository now belongs to someone else", short(e.locked), short(e.commit))
	}
	return fmt.Sprintf("refused to update from %s: %s. Review the new history (what changed since %s, and who "+
		"owns the repository now); `ccski update %s --force` accepts it", e.url, what, short(e.locked), e.name)
}

// Is makes the error match ErrHistory.
func (e *historyError) Is(target error) bool { return target == ErrHistory }

// short is the first 12 digits of a commit hash.
func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// goneError explains that the commit the lock records for e is gone from
// its repository (err, a fetch of the commit that found no such ref).
func goneError(e Entry, url string, err error) error {
	if !errors.Is(err, ErrUnknownRef) || !fullCommit.MatchString(e.Commit) {
		return err
	}
	return fmt.Errorf("the commit %s that the lock records for %s is gone from %s: its history was rewritten "+
		"(a force-push), or the repository now belongs to someone else; review the repository, and if you "+
		"trust it, run `ccski update %s --force` and commit the lock", e.Commit, e.Name, url, e.Name)
}
