// Package gitfetch fetches git repositories with the system git into a
// cache of partial, shallow bare repositories, and checks their commits out
// sparsely: the one git runner of ccski install (internal/install) and of
// the git provider (providers/git). Every git command runs through Git.Run,
// which keeps the environment's repository out, allows only the transports
// a source may name, and classifies failures (GitError).
package gitfetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccski/ccski/internal/safefile"
)

// Git fetches git sources with the system git into a cache of bare
// repositories, one per URL, outside every skill folder. Fetches are
// shallow (one commit deep), partial (trees only; a checkout fetches the
// files it writes) and bounded by Timeout; a commit already in the cache
// is not fetched again, so that restoring a lock works offline once the
// cache holds its commits and the installed skills' files. History
// answers whether one commit descends from another from a second cache
// repository per URL, of commits only (history.go).
type Git struct {
	// CacheDir holds repos/<hash>.git, repos/<hash>.history.git and the
	// temporary checkouts.
	CacheDir string
	// Timeout bounds each git command; 0 means DefaultTimeout.
	Timeout time.Duration
	// Progress, when not nil, receives git's progress (stderr is a
	// terminal).
	Progress io.Writer
	// Prompt lets git ask for credentials on the terminal; otherwise
	// GIT_TERMINAL_PROMPT=0 makes a missing credential an error at once.
	Prompt bool
}

// DefaultTimeout bounds one git command when Git.Timeout is 0.
const DefaultTimeout = 2 * time.Minute

// The kinds of git failure, for errors.Is.
var (
	ErrGitMissing    = errors.New("git is not installed")
	ErrRepoNotFound  = errors.New("repository not found")
	ErrAuth          = errors.New("authentication failed")
	ErrNetwork       = errors.New("network error")
	ErrUnknownRef    = errors.New("unknown ref")
	ErrTimeout       = errors.New("git timed out")
	errGitFailed     = errors.New("git failed")
	fullCommit       = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
	gitErrorPatterns = []struct {
		kind error
		re   *regexp.Regexp
	}{
		{ErrUnknownRef, regexp.MustCompile(`(?i)couldn't find remote ref|no such remote ref|not our ref|unadvertised object|invalid refspec`)},
		{ErrAuth, regexp.MustCompile(`(?i)authentication failed|permission denied|could not read (username|password)|terminal prompts disabled|returned error: 40[13]|host key verification failed`)},
		{ErrRepoNotFound, regexp.MustCompile(`(?i)repository not found|does not appear to be a git repository|not a git repository|returned error: 404`)},
		{ErrNetwork, regexp.MustCompile(`(?i)could not resolve host|failed to connect|couldn't connect|connection refused|connection timed out|network is unreachable|connection reset|unable to access|operation timed out`)},
	}
)

// GitError is a failed git command, classified.
type GitError struct {
	URL  string
	Ref  string
	Kind error  // one of the Err variables
	Msg  string // git's last line of error output
	// code is git's exit status (0 when it did not exit).
	code int
}

func (e *GitError) Error() string {
	what := e.URL
	switch e.Kind {
	case ErrGitMissing:
		return "git is not installed or not on PATH: ccski fetches git sources with it (install git; folders and marketplaces install without it)"
	case ErrRepoNotFound:
		return fmt.Sprintf("repository %s not found: check the URL (a private repository also looks like this without access)", what)
	case ErrAuth:
		return fmt.Sprintf("authentication to %s failed: set up the credentials plain `git clone %s` uses (a credential helper or an SSH key)", what, what)
	case ErrNetwork:
		return fmt.Sprintf("cannot reach %s: check the network (%s)", what, e.Msg)
	case ErrUnknownRef:
		return fmt.Sprintf("ref %q not found in %s: give an existing branch, tag or full commit hash", e.Ref, what)
	case ErrTimeout:
		return fmt.Sprintf("fetching %s took longer than %s: check the network or raise --timeout", what, e.Msg)
	}
	return fmt.Sprintf("git failed for %s: %s", what, e.Msg)
}

// Is matches the error's kind.
func (e *GitError) Is(target error) bool { return target == e.Kind }

// repoEnv are the variables that point git at a repository, as git's own
// local_repo_env lists them: ccski's commands never take them from its
// environment.
var repoEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_SHALLOW_FILE", "GIT_GRAFT_FILE",
	"GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_IMPLICIT_WORK_TREE", "GIT_INTERNAL_SUPER_PREFIX"}

// allowedProtocols are the git transports ccski fetches with.
const allowedProtocols = "https:http:ssh:git:file"

// lockRepo takes the lock of the cache repository of url, so that two
// runs do not fetch into it at once.
func (g *Git) lockRepo(url string) (release func(), err error) {
	return safefile.LockFile(g.repo(url)+".lck", 0o644, nil)
}

// repo returns the cache repository of url.
func (g *Git) repo(url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(g.CacheDir, "repos", hex.EncodeToString(sum[:10])+".git")
}

// Run runs git with args (url and ref name what the command is about, in
// its error). stderr is kept for the error and copied to Progress when
// asked; stdout is returned, trimmed.
func (g *Git) Run(ctx context.Context, url, ref string, extraEnv []string, args ...string) (string, error) {
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	// Plain C messages, so that failures can be told apart; no pager;
	// only the transports a source may name (never ext::, whatever the
	// user's protocol.allow says).
	// No repository of the environment (a git hook's GIT_DIR): each
	// command names its own.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(repoEnv, name)
	})
	cmd.Env = append(env, "LC_ALL=C", "LANGUAGE=C", "GIT_PAGER=cat", "GIT_ALLOW_PROTOCOL="+allowedProtocols)
	if !g.Prompt {
		cmd.Env = append(cmd.Env, "GIT_TERMINAL_PROMPT=0")
	}
	cmd.Env = append(cmd.Env, extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if g.Progress != nil {
		cmd.Stderr = io.MultiWriter(&stderr, g.Progress)
	}
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if err == nil {
		return strings.TrimSpace(stdout.String()), nil
	}
	ge := &GitError{URL: url, Ref: ref, Kind: errGitFailed, Msg: lastLine(stderr.String())}
	if xe := (*exec.ExitError)(nil); errors.As(err, &xe) {
		ge.code = xe.ExitCode()
	}
	switch {
	case errors.Is(err, exec.ErrNotFound):
		ge.Kind = ErrGitMissing
	case ctx.Err() == context.DeadlineExceeded:
		ge.Kind, ge.Msg = ErrTimeout, timeout.String()
	default:
		ge.Kind = classify(stderr.String())
		if ge.Msg == "" {
			ge.Msg = err.Error()
		}
	}
	return "", ge
}

// classify tells what kind of failure git's error output describes.
func classify(stderr string) error {
	for _, p := range gitErrorPatterns {
		if p.re.MatchString(stderr) {
			return p.kind
		}
	}
	return errGitFailed
}

// lastLine returns the last non-empty line of git's error output, without
// its "fatal: " or "error: " prefix.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r", "\n")), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		for _, p := range []string{"fatal: ", "error: "} {
			l = strings.TrimPrefix(l, p)
		}
		return l
	}
	return ""
}

// Fetch brings ref of url ("" for the remote's default branch; a branch,
// tag or full commit hash) into the cache and returns its commit. A full
// commit hash already in the cache is not fetched.
func (g *Git) Fetch(ctx context.Context, url, ref string) (string, error) {
	if err := CheckURL(url); err != nil {
		return "", err
	}
	if g.CacheDir == "" {
		return "", errors.New("ccski has no cache folder to fetch git sources into: set HOME or XDG_CACHE_HOME")
	}
	repo := g.repo(url)
	release, err := g.lockRepo(url)
	if err != nil {
		return "", fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	defer release()
	if _, err := os.Stat(filepath.Join(repo, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(repo), 0o755); err != nil {
			return "", fmt.Errorf("git cache %s: %w", g.CacheDir, err)
		}
		if _, err := g.Run(ctx, url, ref, nil, "init", "--quiet", "--bare", repo); err != nil {
			return "", err
		}
	}
	// The cache repository is a partial clone of url: its remote origin
	// is url, which git asks for the files a checkout needs and lacks
	// (see Checkout). A cache an older ccski made gets the remote now.
	if u, _ := g.Run(ctx, url, ref, nil, "--git-dir", repo, "config", "--get", "remote.origin.url"); u != url {
		for _, kv := range [][2]string{{"remote.origin.url", url}, {"remote.origin.promisor", "true"},
			{"remote.origin.partialclonefilter", "blob:none"}} {
			if _, err := g.Run(ctx, url, ref, nil, "--git-dir", repo, "config", kv[0], kv[1]); err != nil {
				return "", err
			}
		}
	}
	if IsCommit(ref) {
		if c, err := g.Run(ctx, url, ref, nil, "--git-dir", repo, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err == nil && c != "" {
			return c, nil
		}
	}
	want := ref
	if want == "" {
		want = "HEAD"
	}
	// One commit deep, and its trees only (--filter=blob:none): the files
	// come when a checkout needs them. A server that does not filter
	// (git says "filtering not recognized by server, ignoring") sends
	// the files at once, as a plain shallow fetch.
	args := []string{"--git-dir", repo, "fetch", "--depth", "1", "--filter=blob:none", "--no-tags", "--no-write-fetch-head"}
	if g.Progress != nil {
		args = append(args, "--progress")
	} else {
		args = append(args, "--quiet")
	}
	// Fetch into a ref of our own, so that the commit stays in the cache.
	local := "refs/ccski/" + refName(want)
	args = append(args, "origin", "+"+want+":"+local)
	if _, err := g.Run(ctx, url, ref, nil, args...); err != nil {
		return "", err
	}
	return g.Run(ctx, url, ref, nil, "--git-dir", repo, "rev-parse", "--verify", local+"^{commit}")
}

// refName turns a ref into a safe ref path component.
func refName(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return hex.EncodeToString(sum[:8])
}

// Tree is a sparse checkout of one commit of a cached repository: the
// files reading a source needs (see Checkout), and the folders Widen has
// added. Remove deletes it.
type Tree struct {
	// Dir is the checkout's folder.
	Dir              string
	url, commit, idx string
	// patterns are the sparse-checkout patterns checked out so far;
	// covered the '/'-separated paths they name.
	patterns []string
	covered  map[string]bool
	// links are the commit's symlinks, by '/'-separated path.
	links []string
}

// Remove deletes the checkout and its index.
func (t *Tree) Remove() {
	if t.idx == "" { // moved away: the caller's
		return
	}
	os.RemoveAll(t.Dir)
	os.Remove(t.idx)
}

// MoveTo moves the checkout to dest, a path that does not exist yet on
// the cache's file system, and drops its index: the folder is the
// caller's from then on (Remove no longer touches it), and Widen must not
// be called again.
func (t *Tree) MoveTo(dest string) error {
	if err := os.Rename(t.Dir, dest); err != nil {
		return fmt.Errorf("git cache: %w", err)
	}
	os.Remove(t.idx)
	t.Dir = dest
	t.idx = ""
	return nil
}

// gitEntry is one line of git ls-tree.
type gitEntry struct {
	mode, kind, path string
}

// Checkout writes into a new temporary folder below the cache what
// reading a source needs of commit (fetched from url): every folder
// (empty), every SKILL.md, every file of a .claude-plugin, .codex-plugin
// or .agents/plugins folder (the marketplace and plugin manifests) and
// every symlink; Widen adds the folders skills are copied from. The cache
// is a partial clone, so only the files checked out are fetched, in one
// request per checkout: installing one skill from a large repository
// fetches its trees and that skill's files, not the rest.
func (g *Git) Checkout(ctx context.Context, url, commit string) (*Tree, error) {
	tmp := filepath.Join(g.CacheDir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	dir, err := os.MkdirTemp(tmp, "tree-")
	if err != nil {
		return nil, fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	t := &Tree{Dir: dir, url: url, commit: commit, idx: dir + ".index", covered: map[string]bool{}}
	release, err := g.lockRepo(url)
	if err != nil {
		t.Remove()
		return nil, fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	defer release()
	out, err := g.Run(ctx, url, commit, nil, "--git-dir", g.repo(url), "ls-tree", "-r", "-t", "-z", "--full-tree", commit)
	if err != nil {
		t.Remove()
		return nil, err
	}
	for _, rec := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || !filepath.IsLocal(filepath.FromSlash(p)) {
			continue
		}
		e := gitEntry{mode: f[0], kind: f[1], path: p}
		switch {
		case e.kind == "tree":
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(p)), 0o755); err != nil {
				t.Remove()
				return nil, fmt.Errorf("git cache %s: %w", g.CacheDir, err)
			}
		case e.kind != "blob":
		case e.mode == "120000":
			t.links = append(t.links, p)
			t.add(p)
		case readsSource(p):
			t.add(p)
		}
	}
	if err := g.sparseCheckout(ctx, t); err != nil {
		t.Remove()
		return nil, err
	}
	return t, nil
}

// readsSource reports whether discovery reads the file at the
// '/'-separated path p: a SKILL.md (any case), or a file of a
// marketplace's or plugin's manifest folder.
func readsSource(p string) bool {
	if strings.EqualFold(path.Base(p), "SKILL.md") {
		return true
	}
	parts := strings.Split(p, "/")
	for i, part := range parts[:len(parts)-1] {
		if part == ".claude-plugin" || part == ".codex-plugin" ||
			part == ".agents" && i+1 < len(parts)-1 && parts[i+1] == "plugins" {
			return true
		}
	}
	return false
}

// add adds the '/'-separated path p to the tree's sparse patterns.
func (t *Tree) add(p string) {
	if t.covered[p] {
		return
	}
	t.covered[p] = true
	if p == "." {
		t.patterns = append(t.patterns, "/*") // the whole commit
		return
	}
	t.patterns = append(t.patterns, "/"+escapePattern(p))
}

// escapePattern writes p as a sparse-checkout pattern that matches it
// alone (and, for a folder, what it holds): glob characters, a leading
// ! or # and trailing spaces escaped.
func escapePattern(p string) string {
	var b strings.Builder
	for i, r := range p {
		if strings.ContainsRune(`\*?[]!#`, r) || r == ' ' && strings.TrimRight(p[i:], " ") == "" {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sparseCheckout brings the tree's folder to its patterns: git reads
// the commit into the tree's index, fetches the files the patterns name
// and the cache lacks in one request, and writes them (bytes as
// committed: no line-ending conversion from the user's configuration,
// symlinks as symlinks). The caller holds the repository's lock: the
// patterns are the repository's info/sparse-checkout while it runs.
func (g *Git) sparseCheckout(ctx context.Context, t *Tree) error {
	repo := g.repo(t.url)
	if err := os.MkdirAll(filepath.Join(repo, "info"), 0o755); err != nil {
		return fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	// An empty list would check out everything: a pattern no path has
	// stands for none.
	patterns := append([]string{"/.ccski-none"}, t.patterns...)
	if err := safefile.WriteAtomic(filepath.Join(repo, "info", "sparse-checkout"), []byte(strings.Join(patterns, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	_, err := g.Run(ctx, t.url, t.commit, []string{"GIT_INDEX_FILE=" + t.idx},
		"-c", "core.autocrlf=false", "-c", "core.symlinks=true", "-c", "core.sparseCheckout=true",
		"-c", "core.sparseCheckoutCone=false", "-c", "maintenance.auto=false", "-c", "gc.auto=0",
		"--git-dir", repo, "--work-tree", t.Dir, "read-tree", "-mu", t.commit)
	return err
}

// Widen adds to the tree the folder (or file) at the '/'-separated path
// rel, with what its symlinks lead to inside the commit, so that the
// skill there can be copied as a full checkout would give it.
func (g *Git) Widen(ctx context.Context, t *Tree, rel string) error {
	before := len(t.patterns)
	for _, p := range linkClosure(t.Dir, rel, t.links) {
		t.add(p)
	}
	if len(t.patterns) == before {
		return nil
	}
	release, err := g.lockRepo(t.url)
	if err != nil {
		return fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	defer release()
	return g.sparseCheckout(ctx, t)
}

// linkClosure returns rel and every path inside the checkout dir that a
// symlink in, above or at one of those paths leads to, as '/'-separated
// paths; links lists the checkout's symlinks, whose targets it reads.
func linkClosure(dir, rel string, links []string) []string {
	target := map[string]string{}
	for _, l := range links {
		if to, err := os.Readlink(filepath.Join(dir, filepath.FromSlash(l))); err == nil && !path.IsAbs(filepath.ToSlash(to)) {
			target[l] = path.Clean(path.Join(path.Dir(l), filepath.ToSlash(to)))
		}
	}
	out := []string{rel}
	seen := map[string]bool{rel: true}
	for i := 0; i < len(out); i++ {
		p := out[i]
		for l, to := range target {
			var next string
			switch {
			case l == p || strings.HasPrefix(l, p+"/") || p == ".":
				next = to
			case strings.HasPrefix(p, l+"/"):
				next = to + p[len(l):]
			default:
				continue
			}
			if next == "." || !filepath.IsLocal(filepath.FromSlash(next)) || seen[next] {
				continue
			}
			seen[next] = true
			out = append(out, next)
		}
	}
	return out
}

// Cached returns the commit the cache last fetched for ref of url ("" for
// the default branch) and when, without the network; ok is false when it
// never fetched it.
func (g *Git) Cached(ctx context.Context, url, ref string) (commit string, at time.Time, ok bool) {
	if g.CacheDir == "" || CheckURL(url) != nil {
		return "", time.Time{}, false
	}
	want := ref
	if want == "" {
		want = "HEAD"
	}
	repo := g.repo(url)
	local := "refs/ccski/" + refName(want)
	c, err := g.Run(ctx, url, ref, nil, "--git-dir", repo, "rev-parse", "--verify", "--quiet", local+"^{commit}")
	if err != nil || c == "" {
		return "", time.Time{}, false
	}
	if st, err := os.Stat(filepath.Join(repo, filepath.FromSlash(local))); err == nil {
		at = st.ModTime()
	} else if st, err := os.Stat(filepath.Join(repo, "packed-refs")); err == nil {
		at = st.ModTime()
	}
	return c, at, true
}

// CommitTime returns the committer time of commit, which the cache of url
// holds (Fetch brought it).
func (g *Git) CommitTime(ctx context.Context, url, commit string) (time.Time, error) {
	out, err := g.Run(ctx, url, commit, nil, "--git-dir", g.repo(url), "show", "-s", "--format=%ct", commit+"^{commit}")
	if err != nil {
		return time.Time{}, err
	}
	sec, err := strconv.ParseInt(out, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("git: the time of commit %s is %q, not a number", commit, out)
	}
	return time.Unix(sec, 0), nil
}

// DropLinksOut removes every symlink of the checkout that is absolute or
// does not resolve to a path inside the checkout (one that dangles
// included), and returns their '/'-separated paths. A commit's symlinks
// are chosen by whoever can push to the repository: a checkout served as
// it is (providers.git) must not hold a link that leads elsewhere on the
// machine, such as skills/up -> /.
func (t *Tree) DropLinksOut() ([]string, error) {
	real, err := filepath.EvalSymlinks(t.Dir)
	if err != nil {
		return nil, fmt.Errorf("git cache: %w", err)
	}
	var dropped []string
	err = filepath.WalkDir(t.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		target, err := os.Readlink(p)
		if err == nil && !filepath.IsAbs(target) {
			var r string
			if r, err = filepath.EvalSymlinks(p); err == nil {
				if rel, err := filepath.Rel(real, r); err == nil && (rel == "." || filepath.IsLocal(rel)) {
					return nil
				}
			}
		}
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("git cache: %w", err)
		}
		rel, _ := filepath.Rel(t.Dir, p)
		dropped = append(dropped, filepath.ToSlash(rel))
		return nil
	})
	return dropped, err
}
