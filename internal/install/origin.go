package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/gitfetch"
)

// This file pins folder and marketplace sources that are git clones: the
// lock records the repository a clone came from and the commit it is at
// (Source.Origin and Entry.Commit), so that a machine without the folder
// (a teammate's, CI's, one whose Claude Code has since updated its clone
// of the marketplace) restores the same bytes from the repository.

// Origin is the git repository a folder or marketplace source is a clone
// of, as the lock records it; the entry's Commit is the commit the clone
// was at. A folder in the project's own repository has none: every clone
// of the project holds it.
type Origin struct {
	// URL is the clone's remote, as git takes it (a local path becomes a
	// file:// URL).
	URL string `json:"url"`
	// Path is the '/'-separated path of the source's folder in the
	// repository ("" for its root).
	Path string `json:"path,omitempty"`
}

// clone is the git work tree a local folder lies in.
type clone struct {
	// top is the work tree's top folder, commit the commit at HEAD.
	top, commit string
	// remote is the remote HEAD's branch follows (else origin, else the
	// only one), url its URL as ccski fetches it ("" when it has none).
	remote, url string
	// pushed is true when a remote-tracking branch of remote holds the
	// commit: a teammate can fetch it.
	pushed bool
}

// cloneOf reads the git work tree holding dir. A folder in no work tree
// (or in one git will not read, or without a commit) is the zero clone;
// err is set only when git itself cannot run.
func cloneOf(ctx context.Context, g *gitfetch.Git, dir string) (clone, error) {
	out, err := g.Run(ctx, dir, "", nil, "-C", dir, "rev-parse", "--show-toplevel", "HEAD", "--symbolic-full-name", "HEAD")
	if errors.Is(err, gitfetch.ErrGitMissing) {
		return clone{}, err
	}
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) != 3 || !gitfetch.IsCommit(lines[1]) {
		return clone{}, nil
	}
	c := clone{top: filepath.Clean(lines[0]), commit: lines[1]}
	// Every remote's URL and every branch's remote, in one call.
	cfg, _ := g.Run(ctx, dir, "", nil, "-C", c.top, "config", "--get-regexp", `^(remote\..*\.url|branch\..*\.remote)$`)
	urls, branchRemote := map[string]string{}, map[string]string{}
	for _, l := range strings.Split(cfg, "\n") {
		key, val, _ := strings.Cut(l, " ")
		switch {
		case strings.HasPrefix(key, "remote.") && strings.HasSuffix(key, ".url"):
			urls[strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".url")] = val
		case strings.HasPrefix(key, "branch.") && strings.HasSuffix(key, ".remote"):
			branchRemote[strings.TrimSuffix(strings.TrimPrefix(key, "branch."), ".remote")] = val
		}
	}
	c.remote = branchRemote[strings.TrimPrefix(lines[2], "refs/heads/")]
	if _, ok := urls[c.remote]; !ok {
		c.remote = ""
		if _, ok := urls["origin"]; ok {
			c.remote = "origin"
		} else if len(urls) == 1 {
			for name := range urls {
				c.remote = name
			}
		}
	}
	if c.remote == "" {
		return c, nil
	}
	c.url = fetchURL(c.top, urls[c.remote])
	held, _ := g.Run(ctx, dir, "", nil, "-C", c.top, "for-each-ref", "--count=1", "--format=%(refname)",
		"--contains", c.commit, "refs/remotes/"+c.remote+"/")
	c.pushed = held != ""
	return c, nil
}

// fetchURL is a remote's URL as ccski fetches it: a local path (what `git
// clone PATH` records), taken from the work tree top, becomes a file://
// URL; a URL ccski does not fetch (one with a password, a
// <transport>::<address> remote helper) is "".
func fetchURL(top, raw string) string {
	if gitfetch.CheckURL(raw) == nil {
		return raw
	}
	if raw == "" || strings.Contains(raw, "://") || strings.Contains(raw, "::") || gitfetch.SCPLike.MatchString(raw) {
		return ""
	}
	p := filepath.FromSlash(raw)
	if !filepath.IsAbs(p) {
		p = filepath.Join(top, p)
	}
	u := filepath.ToSlash(filepath.Clean(p))
	if !strings.HasPrefix(u, "/") {
		u = "/" + u // a Windows drive
	}
	u = "file://" + u
	if gitfetch.CheckURL(u) != nil {
		return ""
	}
	return u
}

// changes lists the paths below the folder rel of the clone (a
// '/'-separated path from its top, "" for the top) that differ from its
// commit: changed, untracked or ignored files, and ignored folders, as
// '/'-separated paths from the top. ok is false when git could not tell.
func changes(ctx context.Context, g *gitfetch.Git, c clone, rel string) (paths []string, ok bool) {
	spec := ":(literal)" + rel
	if rel == "" {
		spec = ":(literal)."
	}
	out, err := g.Run(ctx, c.top, "", nil, "-C", c.top, "status", "--porcelain", "-z", "--ignored=matching",
		"--untracked-files=all", "--", spec)
	if err != nil {
		return nil, false
	}
	recs := strings.Split(out, "\x00")
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 4 {
			continue
		}
		paths = append(paths, strings.TrimSuffix(r[3:], "/"))
		if r[0] == 'R' || r[0] == 'C' {
			i++ // the path it was renamed or copied from
		}
	}
	return paths, true
}

// clean reports whether the folder rel of the clone holds exactly what
// its commit holds, from the changes of a folder holding it.
func clean(changes []string, rel string) bool {
	for _, p := range changes {
		if rel == "" || p == rel || strings.HasPrefix(p, rel+"/") || strings.HasPrefix(rel, p+"/") {
			return false
		}
	}
	return true
}

// cloneState is what pin learnt of one folder: the clone it lies in, and
// the changes below it.
type cloneState struct {
	clone   clone
	err     error
	changes []string
	// read is set once git status ran; known when it told.
	read, known bool
}

// cloneAt reads the clone holding dir once per Installer.
func (in *Installer) cloneAt(dir string) *cloneState {
	if st, ok := in.clones[dir]; ok {
		return st
	}
	if in.clones == nil {
		in.clones = map[string]*cloneState{}
	}
	st := &cloneState{}
	st.clone, st.err = cloneOf(in.Ctx, in.Git, dir)
	in.clones[dir] = st
	return st
}

// pin returns the source and commit the lock records for candidate c of
// src, read at root with commit: a folder or marketplace that is a clone
// of a git repository (a folder only when it is not in the project's own
// repository, whose clones hold it) gets its Origin and the clone's
// commit. note says why a clone is not pinned, or why a teammate may not
// fetch its commit yet.
func (in *Installer) pin(src Source, root, commit string, c Candidate) (Source, string, string) {
	if src.Kind.Artifact() {
		return src, in.fetchedAt(root).commitOf(c.Rel), ""
	}
	if src.Kind == KindGit || src.Kind.Remote() || in.Git == nil {
		return src, commit, ""
	}
	src.Origin = Origin{}
	st := in.cloneAt(root)
	cl := st.clone
	if st.err != nil || cl.top == "" {
		return src, "", ""
	}
	if src.Kind == KindDir {
		if base := in.cloneAt(in.Layout.Base); base.err == nil && sameDir(base.clone.top, cl.top) {
			return src, "", "" // the project's clones hold it
		}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return src, "", ""
	}
	realTop, err := filepath.EvalSymlinks(cl.top)
	if err != nil {
		return src, "", ""
	}
	rootRel, err := filepath.Rel(realTop, realRoot)
	if err != nil || !filepath.IsLocal(rootRel) && rootRel != "." {
		return src, "", ""
	}
	rootRel = filepath.ToSlash(rootRel)
	if rootRel == "." {
		rootRel = ""
	}
	where := fmt.Sprintf("the git clone %s", cl.top)
	if cl.url == "" {
		return src, "", fmt.Sprintf("%s has no remote ccski can fetch from, so the lock records only this folder "+
			"and a teammate cannot restore %s: add a remote and push, then install again", where, c.Name)
	}
	skillRel := strings.TrimPrefix(rootRel+"/"+c.Rel, "/")
	if c.Rel == "." {
		skillRel = rootRel
	}
	if !st.read {
		st.changes, st.known = changes(in.Ctx, in.Git, cl, rootRel)
		st.read = true
	}
	if !st.known || !clean(st.changes, skillRel) { // unknown: nothing is clean
		return src, "", fmt.Sprintf("%s has changes in %s that are not committed, so the lock records only this folder "+
			"and a teammate cannot restore %s: commit and push them, then install again", where, c.Rel, c.Name)
	}
	src.Origin = Origin{URL: cl.url, Path: rootRel}
	note := ""
	if !cl.pushed {
		note = fmt.Sprintf("commit %s of %s is on no branch of its remote %s yet: push it, or a teammate cannot restore %s",
			cl.commit[:12], where, cl.remote, c.Name)
	}
	return src, cl.commit, note
}

// sameDir reports whether a and b are one folder.
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// lockedTree materialises the files of lock entry e at its locked commit:
// a git source at its commit; a pinned folder or marketplace from its
// folder when that clone is still at the commit with the skill's files
// unchanged, else from its Origin at the commit (the folder may be gone,
// elsewhere, or moved on); any other from its folder.
func (in *Installer) lockedTree(e Entry) (root, commit string, err error) {
	switch {
	case e.Source.Kind == KindGit:
		root, commit, err = in.Materialize(e.Source, e.Commit)
		return root, commit, goneError(e, e.Source.URL, err)
	case e.Source.Kind.Artifact():
		if root, _, err = in.Materialize(e.Source, e.Commit); err != nil {
			return "", "", err
		}
		f := in.fetchedAt(root)
		if err := f.failure(e.Path); err != nil {
			return "", "", err
		}
		commit = f.commitOf(e.Path)
		if e.Commit != "" && commit != e.Commit {
			return "", "", fmt.Errorf("%s now serves %s with digest %s, not the %s ccski.lock records: its bytes changed "+
				"since it was installed; nothing of it was written (run `ccski update %s` to take it if you trust it)",
				e.Source, e.Name, commit, e.Commit, e.Name)
		}
		return root, commit, nil
	case e.Source.Origin.URL != "" && e.Commit != "":
		if root, _, err := in.Materialize(e.Source, ""); err == nil && in.atCommit(root, e) {
			return root, e.Commit, nil
		}
		root, commit, err = in.originTree(e.Source.Origin, e.Commit)
		return root, commit, goneError(e, e.Source.Origin.URL, err)
	}
	root, _, err = in.Materialize(e.Source, "")
	return root, "", err
}

// atCommit reports whether the local folder root of a pinned entry is
// the clone the lock recorded, at its commit, with the skill's files as
// committed. Without git it is taken as it is (its bytes are still
// checked against the lock's digests).
func (in *Installer) atCommit(root string, e Entry) bool {
	if in.Git == nil {
		return true
	}
	st := in.cloneAt(root)
	if errors.Is(st.err, gitfetch.ErrGitMissing) {
		return true
	}
	if st.err != nil || st.clone.commit != e.Commit {
		return false
	}
	src, commit, _ := in.pin(e.Source, root, st.clone.commit, Candidate{Name: e.Name, Rel: e.Path})
	return commit == e.Commit && src.Origin.Path == e.Source.Origin.Path
}

// originTree materialises the folder of an Origin at ref (a commit, or ""
// for the default branch) from its repository.
func (in *Installer) originTree(o Origin, ref string) (root, commit string, err error) {
	repo, commit, err := in.Materialize(Source{Kind: KindGit, URL: o.URL}, ref)
	if err != nil {
		return "", "", err
	}
	root = filepath.Join(repo, filepath.FromSlash(o.Path))
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return "", "", fmt.Errorf("the repository %s has no folder %s at %s", o.URL, o.Path, commit)
	}
	return root, commit, nil
}
