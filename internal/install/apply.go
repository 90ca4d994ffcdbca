package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillsext"
)

// Status is what happened to one skill.
type Status string

// The statuses of a Result.
const (
	StatusInstalled Status = "installed"
	StatusUpdated   Status = "updated"
	StatusUnchanged Status = "unchanged"
	StatusSkipped   Status = "skipped"
	StatusFailed    Status = "failed"
	StatusRemoved   Status = "removed"
)

// Result is the outcome for one skill.
type Result struct {
	Skill  string `json:"skill"`
	Status Status `json:"status"`
	Source string `json:"source,omitempty"`
	// Commit is the installed commit of a git source; From the one it
	// replaced, for an update.
	Commit string `json:"commit,omitempty"`
	From   string `json:"from,omitempty"`
	// Paths are the installed folders and links.
	Paths []string `json:"paths,omitempty"`
	// Changes are the files added, changed and removed, for an update or
	// a reinstall.
	Changes *manifest.Changes `json:"changes,omitempty"`
	// Diff is the unified diff of those changes against the copy on
	// disk (local edits included), for an update or a reinstall.
	Diff string `json:"diff,omitempty"`
	// Overwritten are the local edits an update or install with --force
	// wrote over (see diskState).
	Overwritten *manifest.Changes `json:"overwritten,omitempty"`
	// Message says why a skill was skipped or failed, or what a warning
	// was about.
	Message string `json:"message,omitempty"`
	// Rejected are the agents whose rules reject the skill: it was not
	// installed for them (or, with --no-validate, was all the same).
	Rejected []Rejection `json:"rejected,omitempty"`
	// Flawed are the agents whose hosts load the skill although it breaks
	// rules of their profiles (each with Loads set): a warning.
	Flawed []Rejection `json:"flawed,omitempty"`
	// Signer is who the verified signature of the skill installed says
	// signed it; nil for an unsigned skill.
	Signer *provenance.Signer `json:"signer,omitempty"`
}

// Installer installs, restores, updates and removes the skills of one
// scope and keeps its lock. It writes only in the target folders (and
// their staging folders) and the lock; git sources are fetched into the
// Git cache. Close removes the temporary checkouts.
type Installer struct {
	Ctx    context.Context
	Layout Layout
	Lock   *Lock
	Git    *gitfetch.Git
	// HTTP fetches index and archive sources.
	HTTP *HTTP
	// MCP gives the options an MCP server source is read with (its
	// token); nil reads every server without one.
	MCP func(url string) skillsext.Options
	// Marketplace finds a marketplace Claude Code knows, by name.
	Marketplace func(name string) (dir string, ok bool, known []string)
	// Verifier checks the signature a skill carries (provenance.Verify)
	// before it is installed: one that does not verify installs nothing.
	Verifier *provenance.Verifier
	// Signer, when set, is who must have signed every skill Install
	// installs (install --signer).
	Signer *provenance.Identity
	// Force overwrites skills modified on disk and replaces folders
	// ccski did not install, and takes a new version whose signer is not
	// the one the lock records (or that carries no signature where the
	// lock records one).
	Force bool
	// NoValidate installs a skill for every agent asked for, even those
	// whose rules reject it (the result still names them).
	NoValidate bool
	// Copy installs copies where a link would go.
	Copy bool
	// Admit, when set, is asked about every staged skill before it is
	// placed (install, update and restore alike): an error refuses the
	// skill, whose result fails with it. The organisation's policy is
	// applied through it (internal/action).
	Admit func(Admission) error
	// DryRun writes nothing: it stages outside the targets, then throws
	// the staged copy away.
	DryRun bool
	// SaveLock writes the lock after each skill's change (not with
	// DryRun), so that an interrupted run leaves a lock that names every
	// skill in place.
	SaveLock bool
	// Changed is set when the lock needs writing.
	Changed bool
	// Release, when set, is called by Close: it gives up the run's lock
	// (see LockRun).
	Release func()
	trees   map[string]*tree
	// unsettled is the staging folder of a change that could not be
	// finished or undone (its journal stays): nothing deletes it in this
	// run, so that the next one has what the journal needs.
	unsettled string
	// offers are the sources' offers by checkout and path: every entry of
	// a source is found in one reading of it.
	offers map[[2]string]*Offer
	// clones are the git clones local sources lie in, by folder (see
	// pin).
	clones map[string]*cloneState
}

// Admission is a staged skill Installer.Admit is asked about.
type Admission struct {
	// Source is where the skill comes from.
	Source Source
	// Name is the skill's name, Dir the staged copy (the files that will
	// be installed) and Files their manifest.
	Name, Dir string
	Files     []manifest.File
	// Verified says that the installer verified the staged copy's
	// signature already (provenance.Verify over Files), and Signer is
	// who signed it (nil: unsigned), so that Admit need not verify it
	// again.
	Verified bool
	Signer   *provenance.Signer
}

// tree is a materialised source; git is the sparse checkout of a git
// source, which Widen completes for each skill copied from it.
type tree struct {
	root, commit string
	git          *gitfetch.Tree
	// http is what fetching an HTTP source learnt (its digests).
	http *fetched
	// mcp is the folder and session of an MCP server source, which
	// widen completes for each skill copied from it.
	mcp *mcpTree
	err error
}

// Close removes the temporary checkouts of git sources and calls
// Release.
func (in *Installer) Close() {
	for _, t := range in.trees {
		if t.git != nil {
			t.git.Remove()
		}
		if t.http != nil {
			os.RemoveAll(t.http.tmp)
		}
		if t.mcp != nil {
			t.mcp.close()
		}
	}
	in.trees, in.offers, in.clones = nil, nil, nil
	if in.Release != nil {
		in.Release()
		in.Release = nil
	}
}

// LockRun takes the lock of a run on the scope of l (l.RunLock, see
// RunLockFile), held from before the lock is read until after it is last
// written, so that two runs on one scope take turns instead of losing
// each other's entries. wait is called when another run holds it. Once
// held, it deletes the <lock>.lck file older versions of ccski left beside
// the lock (a project's would be committed with it) when no run holds it.
func LockRun(l Layout, wait func()) (release func(), err error) {
	if l.RunLock == "" {
		return nil, errors.New("this run has no run lock (its Layout names none), so it changes no skill")
	}
	// The state folder is the user's own (0o700, as XDG asks).
	if err := os.MkdirAll(filepath.Dir(l.RunLock), 0o700); err != nil {
		return nil, fmt.Errorf("run lock %s: %w", l.RunLock, err)
	}
	release, err = safefile.LockFile(l.RunLock, 0o600, wait)
	if err != nil {
		return nil, err
	}
	old := l.LockFile + ".lck"
	if st, err := os.Lstat(old); err == nil && st.Mode().IsRegular() && st.Size() == 0 && !safefile.LockedElsewhere(old) {
		os.Remove(old)
	}
	return release, nil
}

// Materialize returns the files of src at ref: a checkout of a git
// source's ref (fetched into the cache), the folder of a dir source, the
// folder of a known marketplace. Each is made once per Installer.
//
// An HTTP source (index, archive) is downloaded into a temporary folder;
// ref is, for an archive, the digest it must have (the lock's), checked
// before it is unpacked, and commit is its digest; an index is read once
// per Installer and offers its skills from the index itself, each
// skill's artifact downloaded when it is installed (widen).
func (in *Installer) Materialize(src Source, ref string) (root, commit string, err error) {
	if src.Kind == KindIndex {
		ref = ""
	}
	key := src.Key() + "@" + ref
	if t, ok := in.trees[key]; ok {
		return t.root, t.commit, t.err
	}
	if in.trees == nil {
		in.trees = map[string]*tree{}
	}
	t := &tree{}
	in.trees[key] = t
	switch src.Kind {
	case KindGit:
		if in.Git == nil {
			t.err = errors.New("git sources need a git cache")
			break
		}
		t.commit, t.err = in.Git.Fetch(in.Ctx, src.URL, ref)
		if t.err == nil {
			t.git, t.err = in.Git.Checkout(in.Ctx, src.URL, t.commit)
			if t.err == nil {
				t.root = t.git.Dir
			}
		}
	case KindMCP:
		t.mcp, t.err = in.fetchMCP(src)
		if t.err == nil {
			t.root = t.mcp.root
		}
	case KindMarketplace:
		dir, ok, known := "", false, []string(nil)
		if in.Marketplace != nil {
			dir, ok, known = in.Marketplace(src.Name)
		}
		if !ok {
			names := "it knows none"
			if len(known) > 0 {
				names = "it knows " + strings.Join(known, ", ")
			}
			t.err = fmt.Errorf("Claude Code on this machine knows no marketplace %s (%s): add it with "+
				"`claude plugin marketplace add <its source>`, or run `ccski update` on its skills where it is known, "+
				"so that the lock records its git repository and commit", src.Name, names)
		}
		t.root = dir
	case KindIndex, KindArchive:
		t.root, t.http, t.err = in.materializeHTTP(src, ref)
		if t.err == nil && src.Kind == KindArchive {
			t.commit = t.http.commitOf(".")
		}
	default:
		if st, err := os.Stat(src.Dir); err != nil || !st.IsDir() {
			t.err = fmt.Errorf("source folder %s is missing or not a folder", src.Dir)
		}
		t.root = src.Dir
	}
	return t.root, t.commit, t.err
}

// fetchedAt is what fetching the HTTP source materialised at root learnt,
// or nil when root is no HTTP source's.
func (in *Installer) fetchedAt(root string) *fetched {
	for _, t := range in.trees {
		if t.http != nil && t.root == root {
			return t.http
		}
	}
	return nil
}

// SourceWarnings are what materialising src said besides its files: the
// entries of an index it skipped.
func (in *Installer) SourceWarnings(root string) []string {
	if f := in.fetchedAt(root); f != nil {
		return slices.Clone(f.warnings)
	}
	return nil
}

// Progress is where the run draws its progress: git's, and the line of
// report.Progress counting the skills installed (each one's files copied
// and hashed), updated or restored; nil for none. It is the terminal the
// command gave Git.
func (in *Installer) Progress() io.Writer {
	if in.Git == nil || in.Git.Progress == nil {
		return nil
	}
	return in.Git.Progress
}

// widen completes the sparse checkout that holds the skill folder dir,
// if any, with that folder's files (see Git.Widen), the folder of an
// MCP server source with the skill's files (mcpTree.widen), or the
// offer of an index's skill with its artifact (fetchEntry).
func (in *Installer) widen(dir string) error {
	for _, t := range in.trees {
		if t.mcp != nil && safefile.Within(t.mcp.root, dir) {
			return t.mcp.widen(dir)
		}
		if t.http != nil && t.http.index != nil && safefile.Within(t.root, dir) {
			return in.fetchEntry(t.http.index, dir)
		}
		if t.git == nil || !safefile.Within(t.git.Dir, dir) {
			continue
		}
		rel, err := filepath.Rel(t.git.Dir, dir)
		if err != nil {
			return err
		}
		return in.Git.Widen(in.Ctx, t.git, filepath.ToSlash(rel))
	}
	return nil
}

// Install installs the candidates of a source, materialised at root with
// commit, for the agents (or into the folder) want names: each a new or
// replaced entry of the lock. A skill goes only to the agents whose rules
// accept it (unless NoValidate); its result names the others and why.
func (in *Installer) Install(src Source, root, commit string, cands []Candidate, want Want) []Result {
	out := make([]Result, 0, len(cands))
	p := report.NewProgress(in.Progress(), "installing", len(cands))
	defer p.Done()
	for _, c := range cands {
		p.Step(c.Name)
		s, pinned, note := in.pin(src, root, commit, c)
		out = append(out, withNote(in.put(s, root, pinned, c, place{want: &want}, nil), note))
	}
	return out
}

// place is where put installs a skill: a lock entry's targets, or, with
// want, the targets of the agents whose rules accept the skill.
type place struct {
	targets []Target
	want    *Want
}

// withNote adds note to the message of r.
func withNote(r Result, note string) Result {
	switch {
	case note == "":
	case r.Message == "":
		r.Message = note
	default:
		r.Message += "; " + note
	}
	return r
}

// Restore makes the files of a lock entry what the lock says, without
// --frozen only where they are missing: a skill whose files on disk match
// the lock is unchanged without reading its source; one modified on disk
// is skipped unless Force. With frozen, the source is checked against the
// lock first, and any disagreement (the source, or files modified on
// disk) fails.
func (in *Installer) Restore(e Entry, frozen bool) Result {
	res := Result{Skill: e.Name, Source: e.Source.String(), Commit: e.Commit, Paths: paths(e.Name, e.Targets)}
	if frozen {
		if err := in.reproducible(e); err != nil {
			return failed(res, err)
		}
	}
	if err := checkDigests(e); err != nil {
		return failed(res, err)
	}
	state := diskState(e)
	if state.ok() && !frozen {
		res.Status = StatusUnchanged
		return res
	}
	if state.modified != nil && !in.Force {
		res.Status, res.Message = StatusSkipped, "modified on disk ("+state.modified.String()+"): --force restores the locked files"
		if frozen {
			res.Status, res.Message = StatusFailed, "files on disk differ from the lock ("+state.modified.String()+")"
		}
		return res
	}
	root, commit, err := in.lockedTree(e)
	if err != nil {
		return failed(res, err)
	}
	c, err := in.find(e, root)
	if err != nil {
		return failed(res, err)
	}
	r := in.put(e.Source, root, commit, c, place{targets: e.Targets}, e.Files)
	if r.Status == StatusUpdated {
		r.Status = StatusInstalled // put back as the lock has it
	}
	return r
}

// reproducible refuses, for --frozen, an entry whose source a teammate's
// clone of the project does not reproduce: a git source must be pinned to
// a commit (the commit names the bytes, whatever the URL); a folder or a
// marketplace Claude Code cloned must be pinned to the repository it is a
// clone of and a commit (Source.Origin), or else, for a folder, lie
// inside the scope's base folder (the project) with symlinks resolved.
func (in *Installer) reproducible(e Entry) error {
	where := "the project " + in.Layout.Base
	if in.Layout.Scope == ScopeUser {
		where = "the user folder " + in.Layout.Base
	}
	if e.Source.Kind != KindGit && e.Source.Origin.URL != "" && e.Commit != "" {
		return nil // restored from its origin at the commit
	}
	if e.Source.Kind.Artifact() {
		// Downloaded again: the artifact checked against the lock's
		// digest (when its source gives one), every file against the
		// lock's.
		return nil
	}
	switch e.Source.Kind {
	case KindMCP:
		// The lock's digests name the bytes: put checks the server's
		// files against them.
	case KindGit:
		if e.Commit == "" {
			return fmt.Errorf("the lock records no commit for this git source: --frozen needs one "+
				"(run `ccski update %s` and commit the lock)", e.Name)
		}
	case KindMarketplace:
		return fmt.Errorf("its source is the marketplace %s as Claude Code cloned it on one machine, and the lock "+
			"records no git repository and commit for it (the marketplace is no git clone, or an older ccski "+
			"installed it), so --frozen cannot check that a teammate gets the same skill: run `ccski update %s` "+
			"where the marketplace is cloned, or install it from the marketplace's git repository "+
			"(ccski install <repository>#<path>), then commit the lock", e.Source.Name, e.Name)
	default:
		real, ok, err := safefile.WithinResolved(in.Layout.Base, e.Source.Dir)
		switch {
		case err != nil:
			return fmt.Errorf("source folder %s: %w", e.Source.Dir, err)
		case !ok && real != "":
			return fmt.Errorf("its source folder %s leads outside %s through a symlink (to %s), so a teammate's "+
				"clone does not hold it: --frozen installs from folders inside the project only; copy the skill "+
				"into the project or install it from a git repository, then commit the lock", e.Source.Dir, where, real)
		case !ok:
			return fmt.Errorf("its source folder %s is outside %s, so a teammate's clone does not hold it: --frozen "+
				"installs from folders inside the project only, or from git clones whose remote and commit the lock "+
				"records (a clone with a remote, its skill committed, installed again); copy the skill into the "+
				"project and install it from there, or install it from a git repository (the lock then pins a "+
				"commit), then commit the lock",
				e.Source.Dir, where)
		}
	}
	return nil
}

// checkDigests refuses to restore an entry whose lock records no files,
// a file without its SHA-256, or a link: there would be nothing to check
// the source's bytes against. ccski writes every file's digest and
// installs no links; such an entry was written by hand or cut short.
func checkDigests(e Entry) error {
	if len(e.Files) == 0 {
		return fmt.Errorf("the lock records no files for %s, so what its source holds cannot be checked: "+
			"run `ccski update %s` to take the source's files and record their digests, then commit the lock", e.Name, e.Name)
	}
	for _, f := range e.Files {
		if f.IsLink() {
			return fmt.Errorf("the lock records %s as a link (to %s) in %s, but ccski installs no links (it copies "+
				"what a link inside the source points at, and leaves out the others), so this entry was not written by "+
				"ccski: run `ccski update %s` to record the source's files, then commit the lock", f.Path, f.Link, e.Name, e.Name)
		}
		if !manifest.DigestForm.MatchString(f.Digest) {
			return fmt.Errorf("the lock records no SHA-256 digest for %s's file %s, so its bytes cannot be checked: "+
				"run `ccski update %s` to record them, then commit the lock", e.Name, f.Path, e.Name)
		}
	}
	return nil
}

// Update moves a lock entry to the newest commit of its source's ref (ref,
// when not "", replaces it), showing what changes. A skill modified on
// disk is skipped unless Force, and so is a new commit that does not
// follow the locked one (guardHistory).
func (in *Installer) Update(e Entry, ref string) Result {
	src := e.Source
	if ref != "" {
		if src.Kind != KindGit {
			return failed(Result{Skill: e.Name, Source: src.String()}, fmt.Errorf("@%s: source %s is not a git repository", ref, src))
		}
		src.Ref = ref
	}
	res := Result{Skill: e.Name, Source: src.String()}
	state := diskState(e)
	if state.modified != nil && !in.Force {
		res.Status, res.Message = StatusSkipped, "modified on disk ("+state.modified.String()+"): --force overwrites the changes"
		return res
	}
	root, commit, err := in.Materialize(src, src.Ref)
	fromOrigin := false
	if err != nil && src.Kind != KindGit && src.Origin.URL != "" {
		// The folder or marketplace is not on this machine: its
		// repository's default branch stands in for it.
		root, commit, err = in.originTree(src.Origin, "")
		fromOrigin = true
	}
	if err != nil {
		return failed(res, err)
	}
	if err := in.fetchedAt(root).failure(e.Path); err != nil {
		return failed(res, err) // its artifact was left out of the index
	}
	c, err := in.find(e, root)
	if err != nil {
		return failed(res, err)
	}
	note := ""
	if !fromOrigin {
		src, commit, note = in.pin(src, root, commit, c)
	}
	if err := in.guardHistory(e, src, root, commit, ref); err != nil {
		return failed(res, err)
	}
	r := withNote(in.put(src, root, commit, c, place{targets: e.Targets}, nil), note)
	if r.Status == StatusInstalled {
		r.Status = StatusUpdated
	}
	if r.Status == StatusUpdated {
		r = withNote(r, in.historyUnchecked(e, src, commit))
	}
	if e.Commit != commit {
		r.From = e.Commit
	}
	return r
}

// find finds the skill of a lock entry in its materialised source: at
// its path, else by its name. A skill at its path that now has another
// name is an error: installing it would replace the skill of that name,
// which may be another installed skill.
func (in *Installer) find(e Entry, root string) (Candidate, error) {
	key := [2]string{root, e.Source.Path}
	o := in.offers[key]
	if o == nil {
		var err error
		if o, err = Discover(in.Ctx, root, e.Source.Path); err != nil {
			return Candidate{}, err
		}
		if in.offers == nil {
			in.offers = map[[2]string]*Offer{}
		}
		in.offers[key] = o
	}
	for _, c := range o.Candidates {
		if c.Rel == e.Path {
			if c.Name != e.Name {
				return Candidate{}, fmt.Errorf("the skill at %s in %s is now named %s, not %s: run `ccski remove %s`, "+
					"then install %s from the source", e.Path, e.Source, c.Name, e.Name, e.Name, c.Name)
			}
			return c, nil
		}
	}
	for _, c := range o.Candidates {
		if c.Name == e.Name {
			return c, nil
		}
	}
	return Candidate{}, fmt.Errorf("the source %s no longer has skill %s (it was at %s)", e.Source, e.Name, e.Path)
}

// Remove deletes the installed copy and links of a skill the lock names
// and drops it from the lock. A skill the lock does not name is refused:
// ccski removes only what it installed. A copy modified on disk is kept
// unless Force.
func (in *Installer) Remove(name string) Result {
	res := Result{Skill: name}
	e := in.Lock.Find(name)
	if e == nil {
		return failed(res, fmt.Errorf("%s was not installed by ccski (it is not in %s); ccski removes only what it installed: "+
			"to turn the skill off, use `ccski disable %s`", name, in.Layout.LockFile, name))
	}
	res.Source, res.Commit, res.Paths = e.Source.String(), e.Commit, paths(name, e.Targets)
	if st := diskState(*e); st.modified != nil && !in.Force {
		res.Status, res.Message = StatusSkipped, "modified on disk ("+st.modified.String()+"): --force removes it anyway"
		return res
	}
	res.Status = StatusRemoved
	if in.DryRun {
		return res
	}
	// A transaction (journal.go): the journal first, then the copy moved
	// out of sight into a staging folder (the commit point: its links
	// now lead nowhere), the links and other copies removed, the entry
	// dropped from the lock, and the journal removed.
	j := journal{Op: opRemove, Entry: *e}
	canon := filepath.Join(e.Targets[0].Dir, name)
	if exists(canon) {
		stage, done, err := newStage(e.Targets[0].Dir)
		if err != nil {
			return failed(res, err)
		}
		defer func() { done(in.unsettled == stage) }()
		j.Stage = stage
	}
	if err := in.begin(j); err != nil {
		return failed(res, err)
	}
	at("journaled")
	if j.Stage != "" {
		if err := os.Rename(canon, filepath.Join(j.Stage, name)); err != nil {
			in.end()
			return failed(res, fmt.Errorf("removing %s: %w", canon, err))
		}
		at("hidden")
	}
	for i := len(e.Targets) - 1; i >= 1; i-- {
		if err := removeTarget(filepath.Join(e.Targets[i].Dir, name)); err != nil {
			return in.abort(res, j, err)
		}
		at("unlinked")
	}
	in.Lock.Drop(name)
	if err := in.save(); err != nil {
		return in.abort(res, j, err)
	}
	at("dropped")
	in.end()
	return res
}

// put stages candidate c of a source and moves it into the targets of
// where. want, when set, are the files the lock expects: a staged copy
// that differs fails.
func (in *Installer) put(src Source, root, commit string, c Candidate, where place, want []manifest.File) Result {
	res := Result{Skill: c.Name, Source: src.String(), Commit: commit}
	if err := checkName(c.Name); err != nil {
		return failed(res, err)
	}
	name := c.Name
	entry := in.Lock.Find(name)
	targets := where.targets
	if where.want != nil {
		targets = in.Layout.Targets(where.want.Agents, where.want.Dir)
	}
	targets, err := in.prepare(name, entry, targets)
	res.Paths = paths(name, targets)
	if err != nil {
		return failed(res, err)
	}
	var state disk
	if entry != nil {
		state = diskState(*entry)
		if state.modified != nil && !in.Force {
			res.Status, res.Message = StatusSkipped, "modified on disk ("+state.modified.String()+"): --force overwrites the changes"
			return res
		}
	}
	stage, done, err := in.stage(targets)
	if err != nil {
		return failed(res, err)
	}
	defer func() { done(in.unsettled == stage) }()
	staged := filepath.Join(stage, name)
	if err := in.widen(c.Dir); err != nil {
		return failed(res, fmt.Errorf("checking out %s: %w", c.Rel, err))
	}
	skipped, err := copySkill(c.Dir, staged, root)
	if err != nil {
		return failed(res, fmt.Errorf("copying %s: %w", c.Rel, err))
	}
	if len(skipped) > 0 {
		res.Message = "left out symlinks that lead outside the source, into .git or nowhere: " + strings.Join(skipped, ", ")
	}
	// Judged by the rules of the agents it is for, a skill goes only to
	// those that accept it.
	agents := targetAgents(where.targets)
	if where.want != nil {
		agents = judgedAgents(where.want.Agents, targets)
		if where.want.Dir != "" {
			agents = []string{""}
		}
	}
	accepted, rejected, flawed := judge(in.Ctx, staged, agents)
	res.Rejected, res.Flawed = rejected, flawed
	switch {
	case len(rejected) == 0:
	case in.NoValidate:
		for i := range res.Rejected {
			res.Rejected[i].Installed = true
		}
	case len(accepted) == 0 || where.want == nil || entry != nil && rejectsInstalled(*entry, rejected):
		// Nothing accepts it, or an agent it is installed for already
		// rejects the new files (which would stay there otherwise).
		return failed(res, rejectionError(rejected))
	default:
		narrowed, err := in.prepare(name, entry, in.Layout.Targets(accepted, ""))
		if err != nil {
			return failed(res, err)
		}
		if narrowed[0].Dir != targets[0].Dir && !in.DryRun {
			// The copy goes to another folder: stage it there, and judge
			// that copy, which is the one installed.
			done(false)
			if stage, done, err = in.stage(narrowed); err != nil {
				return failed(res, err)
			}
			staged = filepath.Join(stage, name)
			if _, err := copySkill(c.Dir, staged, root); err != nil {
				return failed(res, fmt.Errorf("copying %s: %w", c.Rel, err))
			}
			if ok, again, _ := judge(in.Ctx, staged, accepted); len(again) > 0 || len(ok) != len(accepted) {
				return failed(res, fmt.Errorf("the source changed while it was installed: %w", rejectionError(again)))
			}
		}
		targets = narrowed
		res.Paths = paths(name, targets)
	}
	m, err := manifest.NewCache().Build(staged)
	if err != nil {
		return failed(res, err)
	}
	files := m.Files
	// The staged copy is what is installed: its signature is checked
	// against exactly its files.
	signer, err := provenance.Verify(in.Ctx, staged, files, in.Verifier)
	if perr := (*provenance.Error)(nil); errors.As(err, &perr) {
		perr.Dir = name // the staging folder would mean nothing to the reader
		return failed(res, fmt.Errorf("%w: nothing of %s was installed", perr, name))
	}
	if err != nil {
		return failed(res, fmt.Errorf("verifying the signature of %s: %w", name, err))
	}
	res.Signer = signer
	if err := in.checkSigner(name, entry, where.want != nil, want != nil, signer); err != nil {
		return failed(res, err)
	}
	if in.Admit != nil {
		if err := in.Admit(Admission{Source: src, Name: name, Dir: staged, Files: files, Verified: true, Signer: signer}); err != nil {
			return failed(res, err)
		}
	}
	if want != nil {
		if ch := manifest.Diff(want, files); !ch.Empty() {
			return failed(res, fmt.Errorf("the source no longer matches the lock (%s): run `ccski update %s` to take the source's files", ch.String(), name))
		}
	}
	newEntry := Entry{Name: name, Source: src, Commit: commit, Path: c.Rel, Targets: targets, Files: files, Signer: signer}
	res.Status = StatusInstalled
	if entry != nil {
		if ch := manifest.Diff(entry.Files, files); !ch.Empty() {
			res.Changes = &ch
		}
		// What the update writes over the copy on disk: the source's
		// changes and any local edits (with Force) it undoes.
		ch := cloneChanges(res.Changes)
		if state.modified != nil {
			ch = mergeChanges(ch, cloneChanges(state.modified))
		}
		if ch != nil {
			res.Diff = changeDiff(in.Layout.Base, filepath.Join(entry.Targets[0].Dir, name), staged, ch)
		}
		res.Overwritten = state.modified
		if res.Changes == nil && state.ok() && entry.Commit == commit && sameTargets(entry.Targets, targets) {
			res.Status = StatusUnchanged
			if entry.Source != src || entry.Path != c.Rel || !sameRecord(entry.Signer, signer) {
				in.Lock.Put(newEntry)
				if err := in.save(); err != nil {
					return failed(res, err)
				}
			}
			return res
		}
		res.Status = StatusUpdated
	}
	if in.DryRun {
		return res
	}
	at(stepStaged)
	// From here on the change is a transaction (journal.go): the journal
	// first, then the copy moved into place (the commit point), the lock,
	// the links, and the journal removed.
	j := journal{Op: opPut, Stage: stage, Entry: newEntry}
	if entry != nil {
		old := *entry
		j.Old = &old
	}
	if err := in.begin(j); err != nil {
		return failed(res, err)
	}
	at("journaled")
	canon := targets[0].Dir
	if err := replace(stage, name, filepath.Join(canon, name)); err != nil {
		return in.abort(res, j, err)
	}
	at("swapped")
	in.Lock.Put(newEntry)
	if err := in.save(); err != nil {
		return in.abort(res, j, err)
	}
	at(stepLocked)
	err = in.link(newEntry, false, nil)
	in.end()
	if err != nil {
		return failed(res, err)
	}
	at("done")
	return res
}

// link puts the links (or copies) of an installed skill in its targets
// after the first, which holds the copy, and records in the lock where a
// copy had to replace a link. Finishing an interrupted change (settle),
// it never replaces what it did not check: a target where something is
// changes only when it holds what old, the entry the change replaced (nil
// for a new skill), recorded there (ccski's older link or copy), not when
// it already is what e records, nor when it is anything else.
func (in *Installer) link(e Entry, settle bool, old *Entry) error {
	e.Targets = slices.Clone(e.Targets)
	canon := filepath.Join(e.Targets[0].Dir, e.Name)
	for i := 1; i < len(e.Targets); i++ {
		if err := in.Layout.CheckTarget(e.Targets[i].Dir); err != nil {
			return err
		}
		if p := filepath.Join(e.Targets[i].Dir, e.Name); settle && exists(p) &&
			(placed(p, e.Targets[i], canon, e.Files) || !placedBy(old, p, e.Targets[i].Dir)) {
			continue
		}
		linked, err := in.place(e.Targets[i], canon, e.Name)
		if err != nil {
			return err
		}
		at("linked")
		if linked != e.Targets[i].Link {
			e.Targets[i].Link = linked
			in.Lock.Put(e)
			if err := in.save(); err != nil {
				return err
			}
		}
	}
	return nil
}

// placedBy reports whether p, in the target folder dir, holds what the
// lock entry e (nil: none) records there after its first target: a link
// where it records a link, a copy of its files where it records a copy.
func placedBy(e *Entry, p, dir string) bool {
	if e == nil {
		return false
	}
	for i, t := range e.Targets {
		if i > 0 && t.Dir == dir {
			if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
				return t.Link // a link ccski made, wherever it leads now
			}
			return !t.Link && holds(p, e.Files)
		}
	}
	return false
}

// placed reports whether p is what target t of a skill holds: a link
// leading to its copy canon, or a copy (a folder, no link) holding
// exactly files.
func placed(p string, t Target, canon string, files []manifest.File) bool {
	st, err := os.Lstat(p)
	switch {
	case err != nil:
		return false
	case st.Mode()&fs.ModeSymlink != 0:
		real, err1 := filepath.EvalSymlinks(p)
		want, err2 := filepath.EvalSymlinks(canon)
		return t.Link && err1 == nil && err2 == nil && real == want
	}
	return !t.Link && holds(p, files)
}

// save marks the lock changed and, with SaveLock, writes it at once.
func (in *Installer) save() error {
	in.Changed = true
	if !in.SaveLock || in.DryRun {
		return nil
	}
	if err := in.Lock.Write(in.Layout.LockFile, in.Layout.Base); err != nil {
		return err
	}
	in.Changed = false
	return nil
}

// stagePrefix names the folders ccski makes in a target folder only
// while it writes there, and oldPrefix those older versions of ccski
// made; Recover cleans up after a crash. Both are hidden, which discovery
// never enters (package scan), so no agent reads them as skills.
const (
	stagePrefix = ".ccski-stage-"
	oldPrefix   = ".ccski-old-"
)

// heldFile is the file in a staging folder whose lock says that a run
// still writes there (see Recover).
const heldFile = ".held"

// newStage makes a staging folder in parent and locks it, so that
// Recover in another run leaves it alone; done unlocks it and, unless
// keep, deletes it. A change that could not be settled keeps its staging
// folder: its journal names it, and it may hold the copy to put back.
func newStage(parent string) (dir string, done func(keep bool), err error) {
	dir, err = os.MkdirTemp(parent, stagePrefix)
	if err != nil {
		return "", nil, fmt.Errorf("staging in %s: %w", parent, err)
	}
	release, err := safefile.LockFile(filepath.Join(dir, heldFile), 0o644, nil)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("staging in %s: %w", parent, err)
	}
	return dir, func(keep bool) {
		release()
		if !keep {
			os.RemoveAll(dir)
		}
	}, nil
}

// stageHeld reports whether a run may still write in the staging folder
// dir: another process holds its lock, or it is too young to have one
// (or, where nothing can be locked, too young to be abandoned).
func stageHeld(dir string) bool {
	held := filepath.Join(dir, heldFile)
	if safefile.LockedElsewhere(held) {
		return true
	}
	if _, err := os.Lstat(held); err == nil && safefile.CanLock {
		return false
	}
	st, err := os.Lstat(dir)
	return err == nil && time.Since(st.ModTime()) < staleAfter
}

// symlink makes a symlink; tests replace it to see the copy fallback.
var symlink = os.Symlink

// at runs after each step of a change on disk, named by step: "staged",
// "journaled", "moved aside", "swapped", "locked", "linked" and "done"
// for a put, "journaled", "hidden", "unlinked" and "dropped" for a
// remove. It does nothing, except in the integration tests' build
// (hold_ccskihold.go), which pauses or kills the process there to check
// what an interrupted run leaves.
var at = func(step string) {}

// The steps the integration tests' build can also pause at.
const (
	// stepStaged: a skill is staged, before anything in a target changes.
	stepStaged = "staged"
	// stepLocked: a skill's copy is in place and the lock records it,
	// before its links are made.
	stepLocked = "locked"
)

// place puts a link to (or, where links fail or t asks for a copy, a copy
// of) the installed copy canon into target t. linked reports which.
func (in *Installer) place(t Target, canon, name string) (linked bool, err error) {
	if err := os.MkdirAll(t.Dir, 0o755); err != nil {
		return false, fmt.Errorf("creating %s: %w", t.Dir, err)
	}
	stage, done, err := newStage(t.Dir)
	if err != nil {
		return false, err
	}
	defer done(false)
	staged := filepath.Join(stage, name)
	if t.Link {
		rel, err := filepath.Rel(t.Dir, canon)
		if err != nil {
			rel = canon
		}
		if symlink(rel, staged) == nil {
			return true, replace(stage, name, filepath.Join(t.Dir, name))
		}
		// No symlinks here (a file system or system without them): copy.
	}
	if _, err := copySkill(canon, staged, filepath.Dir(canon)); err != nil {
		return false, err
	}
	return false, replace(stage, name, filepath.Join(t.Dir, name))
}

// replace puts the folder or link staged as name in the staging folder
// stage at dst, in the same folder as stage: atomically where the system
// can swap two paths, else by moving the old one aside into stage first
// (settle puts it back after a crash in between). Either way the old one
// ends in stage, which its owner deletes; on an error dst is as it was.
func replace(stage, name, dst string) error {
	staged := filepath.Join(stage, name)
	if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(staged, dst); err != nil {
			return fmt.Errorf("moving into %s: %w", dst, err)
		}
		return nil
	}
	if exchange(staged, dst) == nil {
		return nil // staged now holds the old one
	}
	aside := filepath.Join(stage, asideName)
	if err := os.Rename(dst, aside); err != nil {
		return fmt.Errorf("replacing %s: %w", dst, err)
	}
	at("moved aside")
	if err := os.Rename(staged, dst); err != nil {
		os.Rename(aside, dst)
		return fmt.Errorf("replacing %s: %w", dst, err)
	}
	return nil
}

// removeTarget deletes an installed copy or link: a copy is first moved
// into a staging folder, so that an interrupted removal leaves no
// half-deleted skill in the folder agents read.
func removeTarget(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return os.Remove(path)
	}
	stage, done, err := newStage(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer done(false)
	if err := os.Rename(path, filepath.Join(stage, filepath.Base(path))); err != nil {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return nil
}

// Recover cleans up after an interrupted run on the scope, before this
// run reads or changes anything: it finishes or undoes the change the
// scope's journal records (journal.go), then, in the folders of the
// lock's targets and the scope's agent folders (those a run may write
// to), deletes the staging folders no running ccski holds and the copies
// an older ccski moved aside (sweep). It returns what it did that the
// person should hear of.
func (in *Installer) Recover() []string {
	var notes []string
	note, dirs := in.recoverJournal()
	if note != "" {
		notes = append(notes, note)
	}
	for _, e := range in.Lock.Skills {
		for _, t := range e.Targets {
			dirs = append(dirs, t.Dir)
		}
	}
	for _, ag := range Agents() {
		dirs = append(dirs, in.Layout.Folder(ag))
	}
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	dirs = slices.DeleteFunc(dirs, func(d string) bool { return in.Layout.CheckTarget(d) != nil })
	in.sweep(dirs)
	return notes
}

// sweep deletes, in dirs, the staging folders no running ccski holds
// (but the one of a change this run could not settle), and
// the .ccski-old-<hex>-NAME folders of older versions of ccski, which
// moved a skill's old copy there while replacing it. At user scope such a
// folder is put back as NAME only when NAME is missing and the folder
// holds exactly the files the lock records for NAME there: a leftover
// whose change went through, or that the lock does not record, never
// becomes a skill. A project's are deleted: a clone ships its lock, so
// the lock cannot vouch for a hidden folder the clone ships beside it (a
// missing skill the lock names is restored from its source by ccski
// install).
func (in *Installer) sweep(dirs []string) {
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, ent := range ents {
			n := ent.Name()
			p := filepath.Join(dir, n)
			switch {
			case strings.HasPrefix(n, stagePrefix):
				if p != in.unsettled && !stageHeld(p) {
					os.RemoveAll(p)
				}
			case strings.HasPrefix(n, oldPrefix):
				name := ""
				if len(n) > len(oldPrefix)+17 {
					name = n[len(oldPrefix)+17:]
				}
				dst := filepath.Join(dir, name)
				e := in.Lock.Find(name)
				if in.Layout.Scope == ScopeUser && checkName(name) == nil && e != nil && hasTarget(e.Targets, dir) &&
					!exists(dst) && holds(p, e.Files) && os.Rename(p, dst) == nil {
					continue
				}
				os.RemoveAll(p)
			}
		}
	}
}

// disk is how a lock entry's targets compare with it.
type disk struct {
	// missing is true when a target is absent or a link does not lead to
	// the copy.
	missing bool
	// modified lists the differences of a copy present on disk; nil when
	// every copy matches.
	modified *manifest.Changes
}

func (d disk) ok() bool { return !d.missing && d.modified == nil }

// diskState compares the targets of e with the lock.
func diskState(e Entry) disk {
	var d disk
	canon := filepath.Join(e.Targets[0].Dir, e.Name)
	for _, t := range e.Targets {
		p := filepath.Join(t.Dir, e.Name)
		st, err := os.Lstat(p)
		if err != nil {
			d.missing = true
			continue
		}
		if t.Link {
			if st.Mode()&fs.ModeSymlink == 0 {
				d.modified = mergeChanges(d.modified, &manifest.Changes{Changed: []string{"(" + p + " is no link)"}})
				continue
			}
			real, err1 := filepath.EvalSymlinks(p)
			want, err2 := filepath.EvalSymlinks(canon)
			switch {
			case err1 != nil || err2 != nil:
				d.missing = true // dangling, or the copy is gone
			case real != want:
				d.modified = mergeChanges(d.modified, &manifest.Changes{Changed: []string{"(" + p + " links elsewhere)"}})
			}
			continue
		}
		if !st.IsDir() {
			d.modified = mergeChanges(d.modified, &manifest.Changes{Changed: []string{"(" + p + " is no folder)"}})
			continue
		}
		m, err := manifest.NewCache().Build(p)
		if err != nil {
			d.modified = mergeChanges(d.modified, &manifest.Changes{Changed: []string{"(" + err.Error() + ")"}})
			continue
		}
		if ch := manifest.Diff(e.Files, m.Files); !ch.Empty() {
			d.modified = mergeChanges(d.modified, &ch)
		}
	}
	return d
}

// mergeChanges adds b to a, without duplicates.
func mergeChanges(a, b *manifest.Changes) *manifest.Changes {
	if a == nil {
		return b
	}
	add := func(dst []string, src []string) []string {
		for _, s := range src {
			if !slices.Contains(dst, s) {
				dst = append(dst, s)
			}
		}
		return dst
	}
	a.Added, a.Changed, a.Removed = add(a.Added, b.Added), add(a.Changed, b.Changed), add(a.Removed, b.Removed)
	return a
}

// mergeTargets returns targets followed by the old targets it lacks: a
// skill installed again for other agents keeps the places it had.
func mergeTargets(targets, old []Target) []Target {
	out := slices.Clone(targets)
	for _, t := range old {
		if !hasTarget(out, t.Dir) {
			t.Link = t.Link && len(out) > 0
			out = append(out, t)
		}
	}
	return out
}

// hasTarget reports whether targets holds the folder dir.
func hasTarget(targets []Target, dir string) bool {
	return slices.ContainsFunc(targets, func(t Target) bool { return t.Dir == dir })
}

// sameTargets reports whether two target lists name the same folders
// in the same way.
func sameTargets(a, b []Target) bool { return slices.Equal(a, b) }

// paths lists where a skill is installed.
func paths(name string, targets []Target) []string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = filepath.Join(t.Dir, name)
	}
	return out
}

// failed marks a result failed with err.
func failed(r Result, err error) Result {
	r.Status, r.Message = StatusFailed, err.Error()
	return r
}

// checkName refuses a skill name that cannot be a folder name in a
// target: empty, "." or "..", hidden, holding a separator, a colon, a
// control character or invalid UTF-8, or over 255 bytes. It runs before
// anything is written.
func checkName(name string) error {
	bad := name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") || len(name) > 255 ||
		!utf8.ValidString(name) || strings.ContainsAny(name, `/\:`) ||
		strings.ContainsFunc(name, unicode.IsControl)
	if bad {
		return fmt.Errorf("skill name %q cannot be a folder name (no separators, no leading dot, no ..): fix its name in SKILL.md", name)
	}
	return nil
}

// cloneChanges copies c (nil stays nil), for mergeChanges, which adds to
// its first argument.
func cloneChanges(c *manifest.Changes) *manifest.Changes {
	if c == nil {
		return nil
	}
	return &manifest.Changes{Added: slices.Clone(c.Added), Changed: slices.Clone(c.Changed), Removed: slices.Clone(c.Removed)}
}

// checkSigner holds the verified signer of a skill's new files (nil:
// unsigned) to what it must be: for an install (installing), the signer
// --signer requires; and, where the lock records a signer for the skill
// (entry), that same signer, so that a new version signed by someone
// else, or no longer signed, is refused. Restoring the lock's files
// (restoring: install with no SOURCE, --frozen) always refuses; an install
// or update takes it with Force.
func (in *Installer) checkSigner(name string, entry *Entry, installing, restoring bool, signer *provenance.Signer) error {
	if installing && in.Signer != nil {
		if signer == nil {
			return fmt.Errorf("%s carries no signature, and --signer requires one by %s: nothing was installed", name, in.Signer.String())
		}
		if !in.Signer.Match(signer) {
			return fmt.Errorf("%s is signed by %s, not by %s as --signer requires: nothing was installed", name, signer, in.Signer.String())
		}
	}
	if entry == nil || entry.Signer == nil || sameSigner(entry.Signer, signer) {
		return nil
	}
	locked := entry.Signer
	switch {
	case restoring && signer == nil:
		return fmt.Errorf("the lock records %s as signed by %s (its %s), but the source's copy carries no signature: "+
			"the source is no longer what the lock pinned; check it, and run `ccski update %s` to take it unsigned",
			name, locked, locked.File, name)
	case restoring:
		return fmt.Errorf("the lock records %s as signed by %s, but the source's copy is signed by %s: "+
			"someone else signed what the source serves now; check who, and run `ccski update %s --force` to accept them",
			name, locked, signer, name)
	case in.Force:
		return nil
	case signer == nil:
		return fmt.Errorf("the new version of %s carries no signature, but the lock records it as signed by %s (its %s): "+
			"the publisher stopped signing, or someone else published it; nothing was changed: check the source, then "+
			"run again with --force to take it unsigned", name, locked, locked.File)
	}
	return fmt.Errorf("the new version of %s is signed by %s, but the lock records %s as its signer: someone else "+
		"may be publishing under this source (a new maintainer, or a repository taken over); nothing was changed: "+
		"check who signed it, then run again with --force to accept the new signer", name, signer, locked)
}

// sameSigner reports whether two verified signers (nil: unsigned) are one
// signer: the same identity from the same issuer. A new version signed
// again by its signer has a new signature (its Bundle), and may change
// format.
func sameSigner(a, b *provenance.Signer) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Identity == b.Identity && a.Issuer == b.Issuer
}

// sameRecord reports whether two signer records (nil: none) are equal in
// every field, as the lock writes them.
func sameRecord(a, b *provenance.Signer) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Identity == b.Identity && a.Issuer == b.Issuer && a.Bundle == b.Bundle && a.Format == b.Format && a.File == b.File
}
