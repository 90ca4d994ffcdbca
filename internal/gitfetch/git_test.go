package gitfetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/gitfetch/gitfetchtest"
	"github.com/ccski/ccski/internal/testfs"
)

// skill is a SKILL.md of name.
func skill(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nBody.\n"
}

// gitRepo makes a bare repository at <base>/repo.git with one commit per
// file set, each on main, and returns its file:// URL and the commits.
func gitRepo(t *testing.T, base string, commits ...map[string]string) (string, []string) {
	t.Helper()
	return gitfetchtest.Commits(t, base, commits...)
}

// TestGitFetch fetches the default branch and a commit, checks out a
// commit's files (symlinks as symlinks), and fetches a cached commit with
// the repository gone.
func TestGitFetch(t *testing.T) {
	base := testfs.TempDir(t)
	url, shas := gitRepo(t, base,
		map[string]string{"skills/pdf/SKILL.md": skill("pdf"), "skills/pdf/link.md": "-> SKILL.md"},
		map[string]string{"skills/pdf/extra.md": "extra"})
	g := &Git{CacheDir: filepath.Join(base, "cache")}
	ctx := context.Background()
	head, err := g.Fetch(ctx, url, "")
	if err != nil || head != shas[1] {
		t.Fatalf("Fetch HEAD = %s, %v; want %s", head, err, shas[1])
	}
	first, err := g.Fetch(ctx, url, shas[0])
	if err != nil || first != shas[0] {
		t.Fatalf("Fetch %s = %s, %v", shas[0], first, err)
	}
	tree, err := g.Checkout(ctx, url, first)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Remove()
	if err := g.Widen(ctx, tree, "skills/pdf"); err != nil {
		t.Fatal(err)
	}
	dir := tree.Dir
	if _, err := os.Stat(filepath.Join(dir, "skills/pdf/extra.md")); err == nil {
		t.Error("the first commit's checkout holds the second commit's file")
	}
	if target, err := os.Readlink(filepath.Join(dir, "skills/pdf/link.md")); err != nil || target != "SKILL.md" {
		t.Errorf("link.md: %q, %v; want a symlink to SKILL.md", target, err)
	}
	// Offline: the cached commits are found without the repository.
	if err := os.RemoveAll(filepath.Join(base, "repo.git")); err != nil {
		t.Fatal(err)
	}
	if c, err := g.Fetch(ctx, url, shas[1]); err != nil || c != shas[1] {
		t.Errorf("cached Fetch = %s, %v", c, err)
	}
}

// TestGitErrors tells an unknown ref, a missing repository, an
// unreachable host and a missing git apart.
func TestGitErrors(t *testing.T) {
	base := testfs.TempDir(t)
	url, _ := gitRepo(t, base, map[string]string{"SKILL.md": skill("x")})
	tests := []struct {
		name, url, ref string
		kind           error
		msg            string
	}{
		{"unknown ref", url, "nosuch", ErrUnknownRef, `ref "nosuch" not found`},
		{"unknown commit", url, strings.Repeat("a", 40), ErrUnknownRef, "not found"},
		{"missing repository", "file://" + filepath.Join(base, "none.git"), "", ErrRepoNotFound, "not found: check the URL"},
		{"unreachable host", "https://127.0.0.1:1/o/r.git", "", ErrNetwork, "cannot reach"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &Git{CacheDir: filepath.Join(base, "cache")}
			_, err := g.Fetch(context.Background(), tt.url, tt.ref)
			if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Fetch = %v, want %v holding %q", err, tt.kind, tt.msg)
			}
		})
	}
	t.Run("no git", func(t *testing.T) {
		t.Setenv("PATH", "")
		g := &Git{CacheDir: filepath.Join(base, "cache2")}
		if _, err := g.Fetch(context.Background(), url, ""); !errors.Is(err, ErrGitMissing) {
			t.Fatalf("Fetch = %v, want ErrGitMissing", err)
		}
	})
	t.Run("no cache folder", func(t *testing.T) {
		// Without a folder to fetch into, nothing is written relative to
		// the current folder: the fetch fails and says what to set.
		t.Chdir(t.TempDir())
		g := &Git{}
		_, err := g.Fetch(context.Background(), url, "")
		if err == nil || !strings.Contains(err.Error(), "set HOME or XDG_CACHE_HOME") {
			t.Fatalf("Fetch = %v, want the no-cache-folder error", err)
		}
		if ents, _ := os.ReadDir("."); len(ents) != 0 {
			t.Errorf("the fetch wrote %d entries in the current folder", len(ents))
		}
	})
}

// TestClassify tells git's failures apart from its error output, as git
// and its transports word them.
func TestClassify(t *testing.T) {
	tests := []struct {
		stderr string
		want   error
	}{
		{"fatal: couldn't find remote ref nosuch", ErrUnknownRef},
		{"error: Server does not allow request for unadvertised object 1234", ErrUnknownRef},
		{"remote: Repository not found.\nfatal: repository 'https://github.com/o/x/' not found", ErrRepoNotFound},
		{"fatal: '/x.git' does not appear to be a git repository", ErrRepoNotFound},
		{"fatal: could not read Username for 'https://github.com': terminal prompts disabled", ErrAuth},
		{"git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.", ErrAuth},
		{"remote: Invalid username or password.\nfatal: Authentication failed for 'https://x/'", ErrAuth},
		{"Host key verification failed.", ErrAuth},
		{"fatal: unable to access 'https://x/': Could not resolve host: x", ErrNetwork},
		{"ssh: connect to host x port 22: Connection refused", ErrNetwork},
		{"fatal: something else", errGitFailed},
	}
	for _, tt := range tests {
		if got := classify(tt.stderr); got != tt.want {
			t.Errorf("classify(%q) = %v, want %v", tt.stderr, got, tt.want)
		}
	}
}

// TestLinkClosure follows the symlinks in, above and at a path, and
// again from where they lead, never out of the checkout.
func TestLinkClosure(t *testing.T) {
	dir := testfs.TempDir(t)
	testfs.Write(t, dir, map[string]string{
		"s/a/l1":   "-> ../../t/x",
		"t/x/l2":   "-> ../../u",
		"v":        "-> s",
		"s/a/out":  "-> ../../../outside",
		"s/a/abs":  "-> /etc",
		"s/a/self": "-> .",
	})
	links := []string{"s/a/l1", "t/x/l2", "v", "s/a/out", "s/a/abs", "s/a/self"}
	got := linkClosure(dir, "s/a", links)
	slices.Sort(got)
	if diff := cmp.Diff([]string{"s/a", "t/x", "u"}, got); diff != "" {
		t.Errorf("closure of s/a (-want +got):\n%s", diff)
	}
	got = linkClosure(dir, "v/a", links)
	slices.Sort(got)
	if diff := cmp.Diff([]string{"s/a", "t/x", "u", "v/a"}, got); diff != "" {
		t.Errorf("closure of v/a, below a link (-want +got):\n%s", diff)
	}
}

// TestCheckURLDotSegments refuses a URL whose path climbs or stays with
// "." and ".." (plain or percent-encoded): git resolves them, so
// https://github.com/acme/../evil/x fetches github.com/evil/x while a rule
// on github.com/acme reads it as acme's.
func TestCheckURLDotSegments(t *testing.T) {
	for _, u := range []string{
		"https://github.com/acme/../evil/repo",
		"https://github.com/./evil/repo",
		"https://github.com/acme/%2e%2e/evil/repo",
		"https://github.com/acme/.%2E/evil/repo",
		"ssh://git@github.com/acme/../evil/repo.git",
		"git@github.com:acme/../evil/repo.git",
		"git@github.com:../evil/repo.git",
	} {
		if err := CheckURL(u); err == nil || !strings.Contains(err.Error(), "path segment") {
			t.Errorf("CheckURL(%q) = %v, want a refusal naming the segment", u, err)
		}
	}
	for _, u := range []string{
		"https://github.com/acme/repo", "https://github.com/acme/repo.git", "git@github.com:acme/x..y.git",
		"https://example.com/a/.hidden/repo", "file:///srv/git/../repo.git",
	} {
		if err := CheckURL(u); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", u, err)
		}
	}
}
