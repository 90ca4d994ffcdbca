package skillsext_test

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ccski/ccski/internal/httpfetch"
	"github.com/ccski/ccski/internal/skillsext"
	"github.com/ccski/ccski/internal/skillsext/skillsexttest"
)

func skills() map[string]map[string]string {
	return map[string]map[string]string{
		"codex/pdf":        {"SKILL.md": "---\nname: pdf\ndescription: PDFs.\n---\nBody\n", "scripts/run.sh": "#!/bin/sh\necho hi\n"},
		"claude/user/docx": {"SKILL.md": "---\nname: docx\ndescription: Word.\n---\n", "empty.txt": "", "a b/c%d.md": "x"},
	}
}

func dial(t *testing.T, url string, o skillsext.Options) *skillsext.Session {
	t.Helper()
	s, err := skillsext.Dial(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestListAndWriteEveryPage(t *testing.T) {
	up := skillsexttest.Start(t, skills())
	s := dial(t, up.URL(), skillsext.Options{Tokens: tokens(t, up, "s3cret")})
	l, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skills) != 2 || l.Skills[0].Path != "claude/user/docx" || l.Skills[1].Name() != "pdf" {
		t.Fatalf("skills = %+v, want docx then pdf, one a page", l.Skills)
	}
	if up.Lists != 2 || l.TTL.Milliseconds() != 60_000 {
		t.Errorf("%d pages read, TTL %v; want 2 and the pages' ttlMs", up.Lists, l.TTL)
	}
	dir := t.TempDir()
	for _, sk := range l.Skills {
		if err := s.WriteSkill(sk, dir); err != nil {
			t.Fatal(err)
		}
	}
	for path, files := range skills() {
		for rel, want := range files {
			got, err := os.ReadFile(filepath.Join(dir, path, rel))
			if err != nil || string(got) != want {
				t.Errorf("%s/%s = %q, %v; want %q", path, rel, got, err, want)
			}
		}
	}
	for _, a := range up.Auth {
		if a != "Bearer s3cret" {
			t.Errorf("a request carried Authorization %q, want the bearer token", a)
		}
	}
}

// TestChangedBytesAreRefused: a file whose bytes are not those skills/list
// hashed (another digest, another size) refuses the whole skill.
func TestChangedBytesAreRefused(t *testing.T) {
	for name, listed := range map[string]string{"digest": "#!/bin/sh\necho ho\n", "size": "#!/bin/sh\necho hi!\n"} {
		t.Run(name, func(t *testing.T) {
			up := skillsexttest.Start(t, skills())
			up.Listed["skill://codex/pdf/scripts/run.sh"] = listed
			s := dial(t, up.URL(), skillsext.Options{})
			l, err := s.List()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			err = s.WriteSkill(l.Skills[1], dir)
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Fatalf("WriteSkill = %v, want a refusal", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "codex")); !os.IsNotExist(err) {
				t.Errorf("something of the refused skill was written: %v", err)
			}
		})
	}
}

func TestBadEntriesAreRefused(t *testing.T) {
	for _, uri := range []string{
		"skill://codex/../pdf/SKILL.md",
		"skill://codex/pdf/SKILL.txt",
		"skill://codex/%2e%2e/SKILL.md",
		"skill://.git/pdf/SKILL.md",
		"skill:///SKILL.md",
		"file:///etc/SKILL.md",
	} {
		up := skillsexttest.Start(t, map[string]map[string]string{"codex/pdf": {"SKILL.md": "x"}})
		up.EntryURI["codex/pdf"] = uri
		if _, err := dial(t, up.URL(), skillsext.Options{}).List(); err == nil {
			t.Errorf("List with entry %s: no error, want a refusal", uri)
		}
	}
	for what, files := range map[string]map[string]map[string]string{
		"a resource leading out of the skill": {"codex/pdf": {"SKILL.md": "x", "../escape": "y"}},
		"a hidden folder in the skill path":   {".claude-plugin/pdf": {"SKILL.md": "x"}},
		"no SKILL.md":                         {"codex/pdf": {"README.md": "x"}},
	} {
		up := skillsexttest.Start(t, files)
		if _, err := dial(t, up.URL(), skillsext.Options{}).List(); err == nil {
			t.Errorf("List with %s: no error", what)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"http://127.0.0.1:3801/mcp":    true,
		"https://skills.example/mcp":   true,
		"ftp://x/mcp":                  false,
		"https://user:pw@example/mcp":  false,
		"https:///mcp":                 false,
		"https://example/mcp#fragment": false,
	} {
		if err := skillsext.CheckURL(u); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v, want ok %v", u, err, ok)
		}
	}
}

// tokens gives up's origin the token tok.
func tokens(t *testing.T, up *skillsexttest.Server, tok string) httpfetch.Tokens {
	t.Helper()
	u, err := url.Parse(up.URL())
	if err != nil {
		t.Fatal(err)
	}
	return httpfetch.Tokens{httpfetch.Origin(u): tok}
}

// TestEachServerGetsItsOwnToken: two servers with their own tokens each
// get theirs, and a third, which the tokens do not name (as a server
// typed on the command line), gets none: no token goes to every server.
func TestEachServerGetsItsOwnToken(t *testing.T) {
	a := skillsexttest.Start(t, skills())
	b := skillsexttest.Start(t, skills())
	c := skillsexttest.Start(t, skills())
	all := tokens(t, a, "A")
	maps.Copy(all, tokens(t, b, "B"))
	for _, up := range []*skillsexttest.Server{a, b, c} {
		if _, err := dial(t, up.URL(), skillsext.Options{Tokens: all}).List(); err != nil {
			t.Fatal(err)
		}
	}
	for want, up := range map[string]*skillsexttest.Server{"Bearer A": a, "Bearer B": b, "": c} {
		up.Lock()
		for _, got := range up.Auth {
			if got != want {
				t.Errorf("%s got Authorization %q, want %q", up.URL(), got, want)
			}
		}
		up.Unlock()
	}
}

// TestHugeResponseIsCutOff: a server answering a resources/read with far
// more bytes than any file may have is cut off at the transport
// (MaxResponse), not read whole and compared afterwards.
func TestHugeResponseIsCutOff(t *testing.T) {
	huge := strings.Repeat("x", 2*skillsext.MaxResponse)
	up := skillsexttest.Start(t, map[string]map[string]string{"up/pdf": {"SKILL.md": huge}})
	up.Listed["skill://up/pdf/SKILL.md"] = "tiny file\n"
	counted := &countingTransport{next: http.DefaultTransport}
	s := dial(t, up.URL(), skillsext.Options{Transport: counted})
	l, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	err = s.WriteSkill(l.Skills[0], t.TempDir())
	if err == nil || !strings.Contains(err.Error(), httpfetch.ErrTooLarge.Error()) {
		t.Errorf("err = %v, want the response cut off (%v)", err, httpfetch.ErrTooLarge)
	}
	if n := counted.n.Load(); n > skillsext.MaxResponse+1<<20 {
		t.Errorf("%d bytes read from the server, more than MaxResponse (%d) and a buffer", n, skillsext.MaxResponse)
	}
}

// countingTransport counts the bytes read from response bodies.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// TestDeniedNamesTheToken: a server answering 401 gets an error naming
// the origin to give a token and where.
func TestDeniedNamesTheToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer srv.Close()
	_, err := skillsext.Dial(context.Background(), srv.URL+"/mcp", skillsext.Options{})
	if err == nil || !strings.Contains(err.Error(), srv.URL+"=<token>") || !strings.Contains(err.Error(), "http.tokens") {
		t.Errorf("err = %v, want it to name http.tokens and %s", err, srv.URL)
	}
}
