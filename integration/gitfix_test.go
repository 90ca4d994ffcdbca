package integration

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/gitfetch/gitfetchtest"
	"github.com/ccski/ccski/internal/testfs"
)

// TestGitProviderStaysInTheRepository: a symlink in the repository that
// leads out of it (skills/up -> a folder elsewhere on the machine holding
// a skill) serves nothing from there: ccski list does not list the skill,
// and the server cannot read it (review27 H1).
func TestGitProviderStaysInTheRepository(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	testfs.Write(t, outside, map[string]string{"secret/SKILL.md": gitSkill("secret-outside", "TOP SECRET body.")})
	repo := gitfetchtest.New(t, base)
	repo.Commit(map[string]string{"skills/pdf/SKILL.md": gitSkill("pdf", "Fill PDF forms."), "skills/up": "-> " + outside})
	m := gitMachine(t, "    url: "+repo.URL+"\n    path: skills\n")

	r := ccski(t, m, runOpts{}, std(m, "list", "--json")...)
	mustOK(t, r)
	if !strings.Contains(r.stdout, `"pdf"`) || strings.Contains(r.stdout, "secret-outside") {
		t.Errorf("list --json, want pdf and not the skill outside the repository:\n%s", r.stdout)
	}
	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil)
	entries, _ := mustListSkills(t, ctx, s.cs)
	if _, ok := findEntry(entries, "git:pdf"); !ok {
		t.Fatalf("listed %v, want git:pdf", entryIDs(entries))
	}
	for _, uri := range []string{"skill://git/secret-outside/SKILL.md", "skill://git/pdf/../up/secret/SKILL.md"} {
		res, err := s.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err == nil {
			for _, c := range res.Contents {
				if strings.Contains(c.Text, "TOP SECRET") {
					t.Errorf("resources/read %s served the skill outside the repository", uri)
				}
			}
		}
	}
	s.mustExit0(t, 5*time.Second)
}

// TestGitProviderReadyz: a server whose repository cannot be fetched yet
// answers /readyz 503 naming providers.git, and turns
// ready once the repository can be fetched, at a rescan (review27 M2).
func TestGitProviderReadyz(t *testing.T) {
	repo := gitfetchtest.New(t, t.TempDir())
	repo.Commit(map[string]string{"pdf/SKILL.md": gitSkill("pdf", "Fill PDF forms.")})
	if err := os.Rename(repo.Bare, repo.Bare+".later"); err != nil {
		t.Fatal(err)
	}
	m := gitMachine(t, "    url: "+repo.URL+"\n    interval: 1s\n")
	port := 18450
	for ; port < 18470 && !portFree(port); port++ {
	}
	s := startHTTPOn(t, port, m, nil, nil, "--transport", "http", "--refresh-interval", "300ms")
	var code int
	var body string
	if !waitUntil(refreshBudget, func() bool {
		code, body, _ = get(s.base, "/readyz", "")
		return code == 503 && strings.Contains(body, "providers.git")
	}) {
		t.Fatalf("/readyz = %d %q, want 503 naming providers.git\nstderr:\n%s", code, body, s.stderr)
	}
	if err := os.Rename(repo.Bare+".later", repo.Bare); err != nil {
		t.Fatal(err)
	}
	// The failure is retried after the back-off (MinRetry, 10s), then a
	// rescan serves the checkout.
	if !waitUntil(4*refreshBudget, func() bool {
		code, body, _ = get(s.base, "/readyz", "")
		return code == 200
	}) {
		t.Fatalf("/readyz = %d %q once the repository is there, want 200\nstate: %s\nstderr:\n%s", code, body, gitState(t, m), s.stderr)
	}
	if !strings.Contains(gitState(t, m), `"commit": "`+repo.Git(repo.Bare, "rev-parse", "main")) {
		t.Errorf("state.json does not name the commit served: %s", gitState(t, m))
	}
}

// portFree reports whether 127.0.0.1:port was free a moment ago.
func portFree(port int) bool {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err == nil {
		ln.Close()
	}
	return err == nil
}
