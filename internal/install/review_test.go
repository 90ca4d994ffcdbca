package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/testfs"
)

// TestDiscoverStaysInSource: a folder of skills whose symlink leads out of
// the source (up -> ..) offers only the skills inside it.
func TestDiscoverStaysInSource(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"outside/secret/SKILL.md": skill("secret"),
		"src/skills/pdf/SKILL.md": skill("pdf"),
		"src/skills/up":           "-> ../..",
		"src/skills/far":          "-> ../../outside",
	})
	o, err := Discover(context.Background(), filepath.Join(base, "src"), "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"pdf @skills/pdf"}, offered(o)); diff != "" {
		t.Errorf("offered (-want +got):\n%s", diff)
	}
}

// TestReplaceFallback replaces an installed skill the way systems without
// an atomic exchange do (move the old one aside, then move the new one in).
func TestReplaceFallback(t *testing.T) {
	saved := exchange
	exchange = func(a, b string) error { return errors.New("no exchange") }
	defer func() { exchange = saved }()
	f := newFixture(t, map[string]string{"pdf/SKILL.md": skill("pdf")})
	x := f.installer()
	if got := statuses(f.install(t, x, "pdf")); !cmp.Equal(got, []string{"pdf installed"}) {
		t.Fatalf("install: %v", got)
	}
	testfs.Write(t, f.src, map[string]string{"pdf/extra.md": "more"})
	x = &Installer{Ctx: context.Background(), Layout: f.layout, Lock: x.Lock}
	if got := statuses(f.install(t, x, "pdf")); !cmp.Equal(got, []string{"pdf updated"}) {
		t.Fatalf("reinstall: %v", got)
	}
	dir := filepath.Join(f.layout.Base, ".agents/skills")
	if data, err := os.ReadFile(filepath.Join(dir, "pdf/extra.md")); err != nil || string(data) != "more" {
		t.Errorf("the new copy is not in place: %q, %v", data, err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".ccski-") {
			t.Errorf("%s was left behind", e.Name())
		}
	}
}

// TestGitFetchParallel fetches one URL from several goroutines into one
// cache: each gets the commit (the cache repository is locked).
func TestGitFetchParallel(t *testing.T) {
	base := testfs.TempDir(t)
	url, shas := gitRepo(t, base, map[string]string{"pdf/SKILL.md": skill("pdf")})
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := &gitfetch.Git{CacheDir: filepath.Join(base, "cache")}
			c, err := g.Fetch(context.Background(), url, "")
			if err == nil && c != shas[0] {
				err = errors.New("commit " + c)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("fetch %d: %v", i, err)
		}
	}
}

// TestGitNoExtTransport: git runs with only the transports sources use,
// even when the user's configuration allows every protocol.
func TestGitNoExtTransport(t *testing.T) {
	base := testfs.TempDir(t)
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "protocol.allow")
	t.Setenv("GIT_CONFIG_VALUE_0", "always")
	marker := filepath.Join(base, "pwned")
	g := &gitfetch.Git{CacheDir: filepath.Join(base, "cache")}
	_, err := g.Run(context.Background(), "x", "", nil, "ls-remote", "ext::sh -c touch% "+marker)
	if err == nil {
		t.Error("git ran an ext:: URL")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the ext:: command ran")
	}
	if _, err := g.Fetch(context.Background(), "ext::sh -c touch% "+marker, ""); err == nil || !strings.Contains(err.Error(), "not one ccski fetches") {
		t.Errorf("Fetch of an ext:: URL = %v", err)
	}
}
