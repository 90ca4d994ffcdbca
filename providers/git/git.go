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
// process may be reading it.
//
// A plan fetches when the last fetch is older than the interval (the
// server's rescans, mcp.refresh_interval, call Plan). A fetch that fails
// (the network, the server, a ref that is gone) keeps the last good
// checkout served, with a warning (git-fetch-failed) that ccski sources and
// doctor show; every plan says which commit it serves (git-synced).
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
	Interval time.Duration `koanf:"interval" trust:"user" doc:"The least time between two fetches of the repository: a Go duration (\"5m\"); 0 fetches at every rescan. The server rescans every mcp.refresh_interval, so a new commit is served within the larger of the two."`
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
	mu  sync.Mutex
}

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
	return &Git{url: string(o.URL), ref: o.Ref, sub: sub, interval: o.Interval, now: time.Now}, nil
})

// Name returns "git".
func (g *Git) Name() string { return Name }

// state is what the provider's cache folder records of its last good
// fetch: state.json.
type state struct {
	URL  string `json:"url"`
	Ref  string `json:"ref"`
	Path string `json:"path"`
	// Commit is the commit served, checked out whole in Tree, a folder
	// beside state.json.
	Commit string    `json:"commit"`
	Tree   string    `json:"tree"`
	Synced time.Time `json:"synced"`
	// Failed and Error say when the last fetch after Synced failed, and
	// why.
	Failed time.Time `json:"failed,omitzero"`
	Error  string    `json:"error,omitempty"`
}

// Plan fetches the repository when the last fetch is older than the
// interval and plans one root: the skills folder of the commit served. A
// fetch that fails keeps the last good commit, with a warning.
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
	g.mu.Lock()
	defer g.mu.Unlock()
	st, err := g.sync(ctx, base, dir)
	// state.json is no manifest: the plan itself rewrites it at every
	// fetch, and a watcher would rescan, so fetch, at once, again.
	what := g.url
	if g.ref != "" {
		what += " at " + g.ref
	}
	if st == nil {
		plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityWarning,
			Code: CodeFetchFailed, Provider: Name, Path: g.url,
			Message: fmt.Sprintf("no skills from %s: it could not be fetched and no commit was ever checked out: %v", what, err)})
		return plan, nil
	}
	at := st.Synced.UTC().Format(time.DateTime) + " UTC"
	if err != nil {
		plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityWarning,
			Code: CodeFetchFailed, Provider: Name, Path: g.url,
			Message: fmt.Sprintf("%s could not be fetched (%v); serving its last good commit %s, fetched at %s", what, err, st.Commit, at)})
	}
	plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityInfo,
		Code: CodeSynced, Provider: Name, Path: g.url,
		Message: fmt.Sprintf("serving commit %s of %s (folder %s), fetched at %s", st.Commit, what, g.sub, at)})
	plan.Roots = append(plan.Roots, pipeline.Root{Path: filepath.Join(dir, st.Tree, filepath.FromSlash(g.sub)),
		Agent: Name, Provider: Name, Location: pipeline.LocationCustom, Kind: pipeline.KindRemote})
	return plan, nil
}

// key names the cache folder of the repository, ref and path served.
func (g *Git) key() string {
	sum := sha256.Sum256([]byte(g.url + "\x00" + g.ref + "\x00" + g.sub))
	return hex.EncodeToString(sum[:8])
}

// sync returns the state of the checkout in dir, fetching the repository
// when the last fetch is older than the interval. With an error, the
// state is the last good checkout (nil when there is none).
func (g *Git) sync(ctx context.Context, base, dir string) (*state, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("git cache %s: %w", dir, err)
	}
	release, err := safefile.LockFile(filepath.Join(dir, ".lock"), 0o600, nil)
	if err != nil {
		return nil, err
	}
	defer release()
	old := g.readState(dir)
	now := g.now()
	if old != nil {
		if now.Before(old.Synced.Add(g.interval)) {
			return old, nil
		}
		// After a failure, the next try waits for the interval too: a
		// server that does not answer would otherwise hold up every
		// rescan.
		if old.Failed.After(old.Synced) && now.Before(old.Failed.Add(g.interval)) {
			return old, errors.New(old.Error)
		}
	}
	st, err := g.fetch(ctx, base, dir, old, now)
	if err != nil {
		if old != nil {
			old.Failed, old.Error = now.UTC(), err.Error()
			writeState(dir, old)
		}
		return old, err
	}
	// Keep the previous checkout one more round: another ccski process
	// may have planned it a moment ago.
	keep := map[string]bool{st.Tree: true}
	if old != nil {
		keep[old.Tree] = true
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if !keep[e.Name()] && strings.HasPrefix(e.Name(), "tree-") {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
	return st, nil
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
	if fi, err := os.Stat(filepath.Join(t.Dir, filepath.FromSlash(g.sub))); err != nil || !fi.IsDir() {
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

// readState reads dir's state.json; nil when there is none, it is not of
// this repository, ref and path, or its checkout is gone.
func (g *Git) readState(dir string) *state {
	data, err := safefile.Read(filepath.Join(dir, "state.json"), 1<<20)
	if err != nil {
		return nil
	}
	var st state
	if json.Unmarshal(data, &st) != nil || st.URL != g.url || st.Ref != g.ref || st.Path != g.sub ||
		!gitfetch.IsCommit(st.Commit) || !strings.HasPrefix(st.Tree, "tree-") || strings.ContainsAny(st.Tree, `/\`) {
		return nil
	}
	if fi, err := os.Stat(filepath.Join(dir, st.Tree)); err != nil || !fi.IsDir() {
		return nil
	}
	return &st
}

// writeState writes dir's state.json atomically.
func writeState(dir string, st *state) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteAtomic(filepath.Join(dir, "state.json"), data, 0o600)
}

var _ providers.Provider = (*Git)(nil)
