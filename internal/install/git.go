package install

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ccski/ccski/internal/safefile"
)

// Git fetches git sources with the system git into a cache of bare
// repositories, one per URL, outside every skill folder. Fetches are
// shallow (one commit deep) and bounded by Timeout; a commit already in
// the cache is not fetched again, so that restoring a lock works offline
// once the cache holds its commits.
type Git struct {
	// CacheDir holds repos/<hash>.git and the temporary checkouts.
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

// run runs git with args; dir is its working folder ("" for none).
// stderr is kept for the error and copied to Progress when asked.
func (g *Git) run(ctx context.Context, url, ref string, extraEnv []string, args ...string) (string, error) {
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
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANGUAGE=C", "GIT_PAGER=cat", "GIT_ALLOW_PROTOCOL="+allowedProtocols)
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
	if err := checkGitURL(url); err != nil {
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
		if _, err := g.run(ctx, url, ref, nil, "init", "--quiet", "--bare", repo); err != nil {
			return "", err
		}
	}
	if fullCommit.MatchString(ref) {
		if c, err := g.run(ctx, url, ref, nil, "--git-dir", repo, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err == nil && c != "" {
			return c, nil
		}
	}
	want := ref
	if want == "" {
		want = "HEAD"
	}
	args := []string{"--git-dir", repo, "fetch", "--depth", "1", "--no-tags", "--no-write-fetch-head"}
	if g.Progress != nil {
		args = append(args, "--progress")
	} else {
		args = append(args, "--quiet")
	}
	// Fetch into a ref of our own, so that the commit stays in the cache.
	local := "refs/ccski/" + refName(want)
	args = append(args, "--", url, "+"+want+":"+local)
	if _, err := g.run(ctx, url, ref, nil, args...); err != nil {
		return "", err
	}
	return g.run(ctx, url, ref, nil, "--git-dir", repo, "rev-parse", "--verify", local+"^{commit}")
}

// refName turns a ref into a safe ref path component.
func refName(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return hex.EncodeToString(sum[:8])
}

// Checkout writes the files of commit (fetched from url) into a new
// temporary folder below the cache and returns it; the caller removes it.
func (g *Git) Checkout(ctx context.Context, url, commit string) (string, error) {
	tmp := filepath.Join(g.CacheDir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	dir, err := os.MkdirTemp(tmp, "tree-")
	if err != nil {
		return "", fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	index := dir + ".index"
	defer os.Remove(index)
	env := []string{"GIT_INDEX_FILE=" + index}
	repo := g.repo(url)
	release, err := g.lockRepo(url)
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("git cache %s: %w", g.CacheDir, err)
	}
	defer release()
	// Bytes as committed: no line-ending conversion from the user's
	// configuration, symlinks as symlinks.
	base := []string{"-c", "core.autocrlf=false", "-c", "core.symlinks=true", "--git-dir", repo, "--work-tree", dir}
	if _, err := g.run(ctx, url, commit, env, append(base, "read-tree", commit)...); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if _, err := g.run(ctx, url, commit, env, append(base, "checkout-index", "--all", "--force")...); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}
