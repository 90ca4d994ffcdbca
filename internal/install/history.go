package install

import (
	"errors"
	"fmt"

	"github.com/ccski/ccski/internal/gitfetch"
)

// This file is the history guard: an update follows the history the lock
// recorded, so that a source whose history was replaced after install (a
// force-push, or a repository deleted and registered again by someone
// else with a history of their own) does not slip its new content in. The
// commit pin says which bytes were installed; the guard says that the new
// bytes come after them. It proves ancestry, not ownership: someone who
// registers the repository again and pushes the old public history with
// commits of their own on top passes it. Only a signature catches that:
// the signer the lock records, or policy.required_signers.

// ErrHistory is the kind of the error an update the history guard refused
// returns, for errors.Is.
var ErrHistory = errors.New("history rewritten")

// guardHistory refuses, unless Force, to update lock entry e to commit of
// src (materialised at root; ref is the ref update was asked for, "" for
// the entry's own) when commit does not follow the locked commit: for a
// git source, and for a folder or marketplace pinned to the repository it
// is a clone of. When update follows the entry's ref, the new commit must
// descend from the locked one; when it was asked for another ref (a tag,
// a branch, an older commit), it must share history with it.
func (in *Installer) guardHistory(e Entry, src Source, root, commit, ref string) error {
	if in.Force || in.Git == nil || commit == e.Commit || !gitfetch.IsCommit(e.Commit) || !gitfetch.IsCommit(commit) {
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
			if _, err := in.Git.Run(in.Ctx, st.clone.top, "", nil, "--no-replace-objects", "-C", st.clone.top,
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
	if h == gitfetch.Descends || !follows && (h == gitfetch.Behind || h == gitfetch.Rewritten) {
		return nil
	}
	return &historyError{name: e.Name, url: url, locked: e.Commit, commit: commit, history: h}
}

// historyUnchecked says, for an update of lock entry e to commit of src
// that guardHistory let through without looking, that the history was not
// checked and why, or "" when it was (or needs no check). It is a notice
// in the update's output rather than a refusal: a lock written by hand, or
// by an older ccski, may hold no commit, and after this update it does.
// It never turns the guard off silently, as a lock edited to drop its
// commit would otherwise do.
func (in *Installer) historyUnchecked(e Entry, src Source, commit string) string {
	if in.Force || commit == e.Commit || !gitfetch.IsCommit(commit) || src.Kind != KindGit && src.Origin.URL == "" {
		return "" // --force accepts any history; a folder not pinned to a repository has none
	}
	why := ""
	switch {
	case !gitfetch.IsCommit(e.Commit):
		why = "the lock records no commit for " + e.Name
	case src.Kind != KindGit && e.Source.Origin.URL == "":
		why = "the lock records no repository for " + e.Name
	case in.Git == nil:
		why = "git is not available"
	default:
		return ""
	}
	return fmt.Sprintf("history not checked: %s, so nothing shows that %s follows what was installed; review the "+
		"source (and who owns it) before trusting this update", why, short(commit))
}

// historyError is an update the history guard refused.
type historyError struct {
	name, url, locked, commit string
	history                   gitfetch.History
}

func (e *historyError) Error() string {
	what := ""
	switch e.history {
	case gitfetch.Behind:
		what = fmt.Sprintf("its ref moved back: the new commit %s is older than the locked commit %s, so the history "+
			"after it was removed (a force-push)", short(e.commit), short(e.locked))
	case gitfetch.Rewritten:
		what = fmt.Sprintf("its history was rewritten (it looks like a force-push): the new commit %s does not descend "+
			"from the locked commit %s, though they share older commits", short(e.commit), short(e.locked))
	case gitfetch.Unrelated:
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
	if !errors.Is(err, gitfetch.ErrUnknownRef) || !gitfetch.IsCommit(e.Commit) {
		return err
	}
	return fmt.Errorf("the commit %s that the lock records for %s is gone from %s: its history was rewritten "+
		"(a force-push), or the repository now belongs to someone else; review the repository, and if you "+
		"trust it, run `ccski update %s --force` and commit the lock", e.Commit, e.Name, url, e.Name)
}
