// Package git plans the skills of a git repository that ccski keeps in
// sync itself (providers.git: url, ref, path, interval), for an
// organisation's skill server: every replica fetches the same commit and
// serves the same skills.
//
// The repository is fetched with the one git runner (internal/gitfetch)
// into ccski's user cache folder, as a partial (--filter=blob:none),
// shallow clone, and each commit is checked out into a folder of its own:
// <cache>/git-sync/<key>/tree-<commit>-<time>/. state.json beside it names
// the checkout being served. A new commit is checked out whole before
// state.json names it, and a served checkout is never written again, so a
// rescan reads either the old commit or the new one, never a half-updated
// tree. The previous checkout is kept one more round: a scan of another
// process may be reading it; so is any checkout a process still serves
// (it holds a shared lock on tree-….inuse beside it until it plans
// another), such as a server that does not rescan.
//
// A plan fetches when the last fetch is older than the interval (the
// server's rescans, mcp.refresh_interval, call Plan): a server in the
// background, so that a slow git server never holds up discovery, a
// one-shot command in the foreground, within a bound. A fetch that checks
// out a new commit rewrites the file served, which every plan lists as a
// manifest, so a watching server rescans at once and serves it. A fetch that fails
// (the network, the server, a ref that is gone) keeps the last good
// checkout served, with a warning (git-fetch-failed) that ccski sources and
// doctor show, and is recorded, so the next try waits for the interval;
// every plan says which commit it serves (git-synced), or that there is
// none yet (pipeline.CodeSourceNotReady, which keeps a server not ready).
//
// A checkout is content whoever can push chooses: its symlinks leading
// out of it are removed before it is served, and its root is bounded to it
// (pipeline.Root.Within), so that a pushed link (skills/up -> /) never
// makes discovery read the machine's folders.
//
// Only the user and managed configs may set the keys (trust "user"): a
// project's ccski.yaml must not make ccski reach the network.
package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/userdirs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Name is the provider's name, its agent label and the first segment of
// its skills' paths.
const Name = "git"

// The codes of the provider's diagnostics.
const (
	CodeSynced      = "git-synced"
	CodeFetchFailed = "git-fetch-failed"
)

// cacheFolder is the provider's folder in ccski's user cache folder.
const cacheFolder = "git-sync"

// DefaultInterval is the least time between two fetches when the interval
// key is not set.
const DefaultInterval = 5 * time.Minute

// Options are the keys under providers.git in ccski.yaml.
type Options struct {
	URL      URL           `koanf:"url" trust:"user" doc:"The git repository to serve skills from (https://, ssh://, git://, file:// or user@host:path), fetched into ccski's cache as a partial clone and kept in sync; empty for none. Credentials come from git's own configuration (a credential helper or an SSH key), never from this file. Only the user and managed configs may set it, so that a project cannot make ccski reach the network."`
	Ref      string        `koanf:"ref" trust:"user" doc:"The branch, tag or full commit hash to serve; empty for the repository's default branch."`
	Path     SubPath       `koanf:"path" trust:"user" doc:"The folder of the repository that holds the skills, '/'-separated (such as skills); empty for the whole repository."`
	Interval time.Duration `koanf:"interval" trust:"user" doc:"The least time between two fetches of the repository: a Go duration (\"5m\"); 0 fetches at every rescan. The server fetches at its first rescan (every mcp.refresh_interval) once the interval has passed, and rescans as soon as a fetch checks out a new commit, so a new commit is served within interval + mcp.refresh_interval."`
}

// URL is the url option: a git URL ccski fetches, or "".
type URL string

// Check returns what is wrong with value as a git URL, or nil.
func (URL) Check(value string) error {
	if value == "" {
		return nil
	}
	return gitfetch.CheckURL(value)
}

// SubPath is the path option: a '/'-separated folder inside the
// repository, or "".
type SubPath string

// Check returns what is wrong with value as a folder of the repository,
// or nil.
func (SubPath) Check(value string) error {
	_, err := cleanPath(value)
	return err
}

// cleanPath returns value as a clean '/'-separated local path ("." for
// the whole repository).
func cleanPath(value string) (string, error) {
	if value == "" {
		return ".", nil
	}
	p := path.Clean(strings.Trim(value, "/"))
	if strings.Contains(value, `\`) || strings.HasPrefix(value, "/") || !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", fmt.Errorf("providers.git.path %q is not a folder inside the repository: give a '/'-separated relative path such as skills", value)
	}
	return p, nil
}

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name:    Name,
		Doc:     "The skills of a git repository that ccski fetches into its cache and keeps in sync (an organisation's skill server).",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: Name, Shared: true}},
		Kinds:   []pipeline.Kind{pipeline.KindRemote},
		New:     New,
	}
}

func defaultOptions() *Options { return &Options{Interval: DefaultInterval} }

// Git is the provider of a git repository's skills.
type Git struct {
	url, ref, sub string
	interval      time.Duration
	// cacheDir, when set, replaces <user cache>/git-sync (tests).
	cacheDir string
	// now is the clock (tests).
	now func() time.Time
	// firstWait bounds how long a server's first plan waits for the
	// first fetch (FirstWait; tests shorten it), foreground how long a
	// one-shot command fetches (ForegroundTimeout).
	firstWait, foreground time.Duration
	// retry is the least time between two failing fetches (MinRetry;
	// tests shorten it).
	retry time.Duration
	mu    sync.Mutex
	// running is closed when the background fetch going ends; nil when
	// none is going. planned is set once a plan was made.
	running chan struct{}
	planned bool
	// held is the checkout the last plan served, release the shared lock
	// on its .inuse file that keeps another process from removing it
	// while this one may still be serving it (a server that does not
	// rescan).
	held    string
	release func()
}

// FirstWait is how long the first plan of a server (providers.Env.Background)
// waits for a fetch it starts: at start, the first snapshot waits that long
// at most for the repository, then goes on without it (not ready) while the
// fetch goes on.
const FirstWait = 10 * time.Second

// ForegroundTimeout bounds the fetch of a one-shot command (ccski list,
// search, doctor): past it the command serves the last good checkout, or
// none, and the failure is recorded so the next command within the interval
// does not try again.
const ForegroundTimeout = time.Minute

// MinRetry is the least time before a fetch that failed is tried again,
// whatever the interval (0 included): a server that rescans when
// state.json changes would otherwise try at once, again and again.
const MinRetry = 10 * time.Second

// New builds the provider from its options.
var New = providers.Typed(Name, defaultOptions, func(o *Options) (providers.Provider, error) {
	if err := (URL("")).Check(string(o.URL)); err != nil {
		return nil, fmt.Errorf("providers.git.url: %w", err)
	}
	sub, err := cleanPath(string(o.Path))
	if err != nil {
		return nil, err
	}
	if o.Interval < 0 {
		return nil, fmt.Errorf("providers.git.interval %s is negative: give 0 or a positive duration such as 5m", o.Interval)
	}
	if strings.HasPrefix(o.Ref, "-") || strings.HasPrefix(o.Ref, "+") || strings.ContainsAny(o.Ref, " \t\n~^:?*[\\") {
		return nil, fmt.Errorf("providers.git.ref %q is not a branch, tag or commit: give one such as main", o.Ref)
	}
	return &Git{url: string(o.URL), ref: o.Ref, sub: sub, interval: o.Interval, now: time.Now,
		firstWait: FirstWait, foreground: ForegroundTimeout, retry: MinRetry}, nil
})

// Name returns "git".
func (g *Git) Name() string { return Name }

// state is what the provider's cache folder records of its last good
// fetch, and of the last failure: state.json.
type state struct {
	URL  string `json:"url"`
	Ref  string `json:"ref"`
	Path string `json:"path"`
	// Commit is the commit served, checked out whole in Tree, a folder
	// beside state.json; both are empty while no fetch ever succeeded.
	Commit string    `json:"commit"`
	Tree   string    `json:"tree"`
	Synced time.Time `json:"synced,omitzero"`
	// Failed and Error say when the last fetch after Synced failed, and
	// why.
	Failed time.Time `json:"failed,omitzero"`
	Error  string    `json:"error,omitempty"`
}

// checkedOut reports whether st names a checkout to serve.
func (st *state) checkedOut() bool { return st != nil && st.Tree != "" }

// failed reports whether the last fetch failed.
func (st *state) failed() bool { return st != nil && st.Failed.After(st.Synced) }

// Plan plans one root: the skills folder of the commit served. When the
// last fetch is older than the interval it fetches the repository: a
// server (env.Background) in the background, the plan reading only what
// is checked out already (its first plan waits FirstWait at most), a
// one-shot command in the foreground, within ForegroundTimeout. A fetch
// that fails keeps the last good commit, with a warning; while no commit
// was ever checked out, the plan says the source is not ready
// (pipeline.CodeSourceNotReady), which holds a server's /readyz at 503.
func (g *Git) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	var plan providers.Plan
	if g.url == "" {
		return plan, nil
	}
	base := g.cacheDir
	if base == "" {
		dir := userdirs.CacheDir(env.UserDir)
		if dir == "" {
			return plan, errors.New("git: ccski's user cache folder is not known (set HOME or XDG_CACHE_HOME): the repository has nowhere to go")
		}
		base = filepath.Join(dir, cacheFolder)
	}
	dir := filepath.Join(base, g.key())
	now := g.now()
	g.mu.Lock()
	st := g.readState(dir)
	first := !g.planned
	g.planned = true
	var wait chan struct{}
	switch {
	case !g.due(st, now):
	case !env.Background:
		fctx, cancel := context.WithTimeout(ctx, g.foreground)
		g.sync(fctx, base, dir, now)
		cancel()
	case g.running == nil:
		g.running = make(chan struct{})
		go g.background(base, dir, now, g.running)
		fallthrough
	default:
		if first {
			wait = g.running
		}
	}
	g.mu.Unlock()
	if wait != nil {
		t := time.NewTimer(g.firstWait)
		select {
		case <-wait:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	g.mu.Lock()
	st = g.readState(dir)
	if st.checkedOut() && !g.hold(dir, st.Tree) {
		// Removed between the two: state.json names a newer one now.
		if st = g.readState(dir); st.checkedOut() {
			g.hold(dir, st.Tree)
		}
	}
	g.mu.Unlock()
	plan = g.planOf(dir, st)
	if !st.checkedOut() {
		// Until the first checkout, state.json is a manifest: a watching
		// server rescans as soon as the background fetch records it (or
		// its failure, retried no sooner than MinRetry). Once a commit is
		// served it is not, since every fetch rewrites it and a watcher
		// would rescan, so plan (and with an interval of 0, fetch) at once,
		// again.
		plan.Manifests = append(plan.Manifests, filepath.Join(dir, "state.json"))
	}
	// served is rewritten only when a fetch moves the commit served: a
	// watching server rescans then, at once, rather than at its next
	// periodic rescan (mcp.refresh_interval), which would serve a new
	// commit up to a refresh interval after it was checked out. A fetch
	// of another process (a one-shot command) moves this server too.
	plan.Manifests = append(plan.Manifests, filepath.Join(dir, servedFile))
	return plan, nil
}

// servedFile, beside state.json, names the checkout served; a fetch
// writes it only when it checks out another commit (see Plan).
const servedFile = "served"

// hold takes a shared lock on the checkout tree of dir (the file
// tree.inuse beside it) for as long as it is the one this provider
// planned last, and lets go of the one before; it reports false when the
// checkout is gone. Another process's fetch removes no checkout so held.
func (g *Git) hold(dir, tree string) bool {
	p := filepath.Join(dir, tree)
	if g.held == p {
		return true
	}
	release, err := safefile.LockShared(p+inUse, 0o600)
	if err != nil {
		return true // serve it unheld: a lock that cannot be taken is no reason to serve nothing
	}
	if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
		release()
		return false
	}
	if g.release != nil {
		g.release()
	}
	g.held, g.release = p, release
	return true
}

// inUse ends the name of the lock file beside a checkout (see hold).
const inUse = ".inuse"

// planOf is the plan of what st says is checked out in dir.
func (g *Git) planOf(dir string, st *state) providers.Plan {
	var plan providers.Plan
	what := g.url
	if g.ref != "" {
		what += " at " + g.ref
	}
	if !st.checkedOut() {
		why := "the first fetch is still running"
		if st.failed() {
			why = "it could not be fetched and no commit was ever checked out: " + st.Error
			plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityWarning,
				Code: CodeFetchFailed, Provider: Name, Path: g.url,
				Message: fmt.Sprintf("no skills from %s: %s (next try %s after the failure)", what, why, max(g.interval, g.retry))})
		}
		plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityInfo,
			Code: pipeline.CodeSourceNotReady, Provider: Name, Path: g.url,
			Message: fmt.Sprintf("no skills from %s yet: %s", what, why)})
		return plan
	}
	at := st.Synced.UTC().Format(time.DateTime) + " UTC"
	if st.failed() {
		plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityWarning,
			Code: CodeFetchFailed, Provider: Name, Path: g.url,
			Message: fmt.Sprintf("%s could not be fetched (%s); serving its last good commit %s, fetched at %s", what, st.Error, st.Commit, at)})
	}
	tree := filepath.Join(dir, st.Tree)
	root := filepath.Join(tree, filepath.FromSlash(g.sub))
	// The scan stays in the checkout: a symlink of the commit (or the
	// path itself, a link) does not lead it elsewhere on the machine.
	within, err := filepath.EvalSymlinks(tree)
	if err == nil {
		var real string
		if real, err = filepath.EvalSymlinks(root); err == nil && !safefile.Within(within, real) {
			err = fmt.Errorf("providers.git.path %s of commit %s leads outside the repository (to %s): give a folder of the repository", g.sub, st.Commit, real)
		}
	}
	if err != nil {
		plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityWarning,
			Code: CodeFetchFailed, Provider: Name, Path: g.url,
			Message: fmt.Sprintf("no skills from %s: %v", what, err)})
		return plan
	}
	plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityInfo,
		Code: CodeSynced, Provider: Name, Path: g.url,
		Message: fmt.Sprintf("serving commit %s of %s (folder %s), fetched at %s", st.Commit, what, g.sub, at)})
	plan.Roots = append(plan.Roots, pipeline.Root{Path: root, Within: within,
		Agent: Name, Provider: Name, Location: pipeline.LocationCustom, Kind: pipeline.KindRemote})
	return plan
}

// due reports whether a fetch is due at now: no checkout and no failure
// within the interval, or a checkout older than the interval. After a
// failure, the next try waits for the interval too: a server that does
// not answer would otherwise be tried again at every rescan and command.
func (g *Git) due(st *state, now time.Time) bool {
	if st == nil {
		return true
	}
	if st.checkedOut() && now.Before(st.Synced.Add(g.interval)) {
		return false
	}
	return !st.failed() || !now.Before(st.Failed.Add(max(g.interval, g.retry)))
}

// background fetches the repository with no deadline of its own (each git
// command has gitfetch's), then closes done.
func (g *Git) background(base, dir string, now time.Time, done chan struct{}) {
	g.sync(context.Background(), base, dir, now)
	g.mu.Lock()
	g.running = nil
	g.mu.Unlock()
	close(done)
}

// wait returns once no background fetch is going (tests).
func (g *Git) wait() {
	g.mu.Lock()
	done := g.running
	g.mu.Unlock()
	if done != nil {
		<-done
	}
}

// key names the cache folder of the repository, ref and path served.
func (g *Git) key() string {
	sum := sha256.Sum256([]byte(g.url + "\x00" + g.ref + "\x00" + g.sub))
	return hex.EncodeToString(sum[:8])
}

// sync fetches the repository into dir when, under dir's lock, a fetch is
// still due (another process may have fetched meanwhile), and records the
// outcome in state.json: the new checkout, or the failure beside the last
// good one (or none).
func (g *Git) sync(ctx context.Context, base, dir string, now time.Time) {
	fail := func(old *state, err error) {
		if old == nil {
			old = &state{URL: g.url, Ref: g.ref, Path: g.sub}
		}
		old.Failed, old.Error = now.UTC(), err.Error()
		writeState(dir, old)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return // nowhere to record it either; the next plan says no skills yet
	}
	release, err := safefile.LockFile(filepath.Join(dir, ".lock"), 0o600, nil)
	if err != nil {
		fail(g.readState(dir), err)
		return
	}
	defer release()
	old := g.readState(dir)
	if !g.due(old, now) {
		return
	}
	if !old.checkedOut() {
		old = nil
	}
	st, err := g.fetch(ctx, base, dir, old, now)
	if err != nil {
		fail(old, err)
		return
	}
	// Keep the previous checkout one more round: another ccski process
	// may have planned it a moment ago. Keep any other a process still
	// holds (a server that does not rescan keeps serving the checkout it
	// planned).
	keep := map[string]bool{st.Tree: true}
	if old != nil {
		keep[old.Tree] = true
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			name := strings.TrimSuffix(e.Name(), inUse)
			if keep[name] || !strings.HasPrefix(name, "tree-") || safefile.LockedElsewhere(filepath.Join(dir, name+inUse)) {
				continue
			}
			os.RemoveAll(filepath.Join(dir, name))
			os.Remove(filepath.Join(dir, name+inUse))
		}
	}
}

// fetch brings the ref's commit into the cache and, when it is not the
// one old serves, checks it out whole into a new folder of dir, then
// records it in state.json.
func (g *Git) fetch(ctx context.Context, base, dir string, old *state, now time.Time) (*state, error) {
	gf := &gitfetch.Git{CacheDir: base}
	commit, err := gf.Fetch(ctx, g.url, g.ref)
	if err != nil {
		return nil, err
	}
	st := &state{URL: g.url, Ref: g.ref, Path: g.sub, Commit: commit, Synced: now.UTC()}
	if old != nil && old.Commit == commit {
		st.Tree = old.Tree
		return st, writeState(dir, st)
	}
	t, err := gf.Checkout(ctx, g.url, commit)
	if err != nil {
		return nil, err
	}
	defer t.Remove()
	if err := gf.Widen(ctx, t, g.sub); err != nil {
		return nil, err
	}
	// The checkout is served as it is: a symlink that leads out of it
	// (skills/up -> /) would serve the machine's folders.
	if _, err := t.DropLinksOut(); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(filepath.Join(t.Dir, filepath.FromSlash(g.sub))); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("commit %s of %s has no folder %s: check providers.git.path", commit, g.url, g.sub)
	}
	if err := stamp(ctx, gf, g.url, commit, t.Dir); err != nil {
		return nil, err
	}
	st.Tree = "tree-" + commit[:12] + "-" + strconv.FormatInt(now.UnixNano(), 36)
	if err := t.MoveTo(filepath.Join(dir, st.Tree)); err != nil {
		return nil, err
	}
	if err := writeState(dir, st); err != nil {
		os.RemoveAll(filepath.Join(dir, st.Tree))
		return nil, err
	}
	// Then the one file a watching server rescans on (Plan): the commit
	// served moved. Failing to write it only delays the new commit to
	// the next periodic rescan.
	_ = safefile.WriteAtomic(filepath.Join(dir, servedFile), []byte(st.Commit+" "+st.Tree+"\n"), 0o600)
	return st, nil
}

// stamp gives every file and folder of the checkout dir of commit the
// commit's time. A checkout's own times are when this machine wrote the
// files, which differ between replicas: the pipeline ranks two copies of
// a name by the newer SKILL.md, so replicas serving one commit would
// otherwise keep different copies, with different URIs and digests.
func stamp(ctx context.Context, gf *gitfetch.Git, url, commit, dir string) error {
	at, err := gf.CommitTime(ctx, url, commit)
	if err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 { // os.Chtimes would follow it
			return nil
		}
		return os.Chtimes(p, at, at)
	})
}

// readState reads dir's state.json; nil when there is none or it is not
// of this repository, ref and path. A checkout it names that is gone or
// not valid counts as none.
func (g *Git) readState(dir string) *state {
	data, err := safefile.Read(filepath.Join(dir, "state.json"), 1<<20)
	if err != nil {
		return nil
	}
	var st state
	if json.Unmarshal(data, &st) != nil || st.URL != g.url || st.Ref != g.ref || st.Path != g.sub {
		return nil
	}
	if st.Tree != "" {
		fi, err := os.Lstat(filepath.Join(dir, st.Tree))
		if !gitfetch.IsCommit(st.Commit) || !strings.HasPrefix(st.Tree, "tree-") || strings.ContainsAny(st.Tree, `/\`) ||
			err != nil || !fi.IsDir() {
			st.Commit, st.Tree, st.Synced = "", "", time.Time{}
		}
	}
	return &st
}

// writeState writes dir's state.json atomically.
func writeState(dir string, st *state) error {
	return safefile.WriteJSON(filepath.Join(dir, "state.json"), st, 0o600)
}

var _ providers.Provider = (*Git)(nil)
