// Package gitfetchtest makes local git repositories for tests: a bare
// repository with a file:// URL that a test commits to as an upstream
// would, for the git runner (internal/gitfetch), ccski install and the git
// provider.
package gitfetchtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// Repo is a bare repository at Bare (file:// URL URL) and the work tree a
// test commits from, on the branch main.
type Repo struct {
	URL, Bare string
	work      string
	tb        testing.TB
}

// New makes an empty bare repository base/repo.git and its work tree
// base/work.
func New(tb testing.TB, base string) *Repo {
	tb.Helper()
	r := &Repo{Bare: filepath.Join(base, "repo.git"), work: filepath.Join(base, "work"), tb: tb}
	r.URL = "file://" + filepath.ToSlash(r.Bare)
	if err := os.MkdirAll(r.work, 0o755); err != nil {
		tb.Fatal(err)
	}
	r.Git(base, "init", "-q", "--bare", r.Bare)
	r.Git(r.work, "init", "-q")
	r.Git(r.work, "remote", "add", "origin", r.Bare)
	return r
}

// Git runs git in dir with a fixed identity and returns its output, or
// fails the test.
func (r *Repo) Git(dir string, args ...string) string {
	r.tb.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t",
		"-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Commit writes files into the work tree (as testfs.Write does), removes
// the '/'-separated paths in remove, commits everything, pushes to the
// bare repository's main, and returns the commit.
func (r *Repo) Commit(files map[string]string, remove ...string) string {
	r.tb.Helper()
	testfs.Write(r.tb, r.work, files)
	for _, p := range remove {
		if err := os.RemoveAll(filepath.Join(r.work, filepath.FromSlash(p))); err != nil {
			r.tb.Fatal(err)
		}
	}
	r.Git(r.work, "add", "-A")
	r.Git(r.work, "commit", "-q", "--allow-empty", "-m", "commit")
	r.Git(r.work, "push", "-q", "origin", "HEAD:refs/heads/main")
	return r.Git(r.work, "rev-parse", "HEAD")
}

// Tag tags commit as name in the bare repository.
func (r *Repo) Tag(name, commit string) {
	r.tb.Helper()
	r.Git(r.Bare, "tag", "-f", name, commit)
}

// Commits makes a repository in base (see New) with one commit per file
// set and returns its file:// URL and the commits, oldest first.
func Commits(tb testing.TB, base string, commits ...map[string]string) (url string, shas []string) {
	tb.Helper()
	r := New(tb, base)
	for _, files := range commits {
		shas = append(shas, r.Commit(files))
	}
	return r.URL, shas
}
