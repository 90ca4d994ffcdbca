package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/web"
)

// TestWebSearchIsSkillsSearch: the page's search is skills_search's, body
// index included: a word only a skill's body holds finds it, ranked as
// the tool ranks.
func TestWebSearchIsSkillsSearch(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "pdf", desc: "PDF files",
			body: "---\nname: pdf\ndescription: PDF files\n---\nUse qpdf to linearize.\n"},
		skillSpec{provider: "codex", name: "docx", desc: "Word files, and PDF export"})
	srv := New(snapOf(recs), Options{Logger: discard()})
	src := webSource{srv}
	ids, err := src.Search(context.Background(), "linearize", 10)
	if err != nil || !slices.Equal(ids, []string{recs[0].ID}) {
		t.Errorf("a word of the body: %v, %v", ids, err)
	}
	ids, _ = src.Search(context.Background(), "pdf", 10)
	hits, _ := srv.rank(context.Background(), srv.Snapshot(), "pdf", 10, ExcerptLen)
	var want []string
	for _, h := range hits {
		want = append(want, h.Record.ID)
	}
	if len(ids) != 2 || !slices.Equal(ids, want) {
		t.Errorf("the page ranks %v, skills_search %v", ids, want)
	}
}

// TestWebGuard: the page stands behind the rebinding, Origin and token
// checks, takes the token from ?token= (a cookie, then a redirect without
// it), Bearer or the cookie; the cookie opens the page only.
func TestWebGuard(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	srv := New(snapOf(recs), Options{Logger: discard()})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{AuthToken: "s3cret", Web: &web.Options{}}))
	t.Cleanup(ts.Close)
	t.Cleanup(srv.CloseSessions)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, hdr map[string]string) (*http.Response, string) {
		req, _ := http.NewRequest(method, ts.URL+path, nil)
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	cookie := map[string]string{"Cookie": TokenCookie + "=s3cret"}
	for _, tc := range []struct {
		name, method, path string
		hdr                map[string]string
		code               int
	}{
		{"no token", "GET", "/", nil, 401},
		{"wrong cookie", "GET", "/", map[string]string{"Cookie": TokenCookie + "=guess"}, 401},
		{"cookie", "GET", "/", cookie, 200},
		{"bearer", "GET", "/skill/" + recs[0].ID, map[string]string{"Authorization": "Bearer s3cret"}, 200},
		{"cookie, unknown skill", "GET", "/skill/nope", cookie, 404},
		{"cookie, foreign origin", "GET", "/", map[string]string{"Cookie": TokenCookie + "=s3cret", "Origin": "https://evil.example"}, 403},
		{"cookie, loopback origin", "GET", "/", map[string]string{"Cookie": TokenCookie + "=s3cret", "Origin": "http://localhost:5173"}, 200},
		{"rebinding host", "GET", "/", map[string]string{"Cookie": TokenCookie + "=s3cret", "Host": "evil.example"}, 403},
		{"rebinding host, json", "GET", "/ui/skills.json", map[string]string{"Authorization": "Bearer s3cret", "Host": "rebind.attacker.test:80"}, 403},
		{"cookie on /metrics", "GET", "/metrics", cookie, 401},
		{"cookie on /mcp", "POST", "/mcp", cookie, 401},
		{"bad token in the address", "GET", "/?token=guess", nil, 401},
	} {
		if res, body := do(tc.method, tc.path, tc.hdr); res.StatusCode != tc.code {
			t.Errorf("%s: %s %s = %d, want %d: %.200s", tc.name, tc.method, tc.path, res.StatusCode, tc.code, body)
		}
	}
	res, _ := do("GET", "/skill/"+recs[0].ID+"?token=s3cret&x=1", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/skill/"+recs[0].ID+"?x=1" {
		t.Errorf("?token=: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if sc := res.Header.Get("Set-Cookie"); !strings.Contains(sc, TokenCookie+"=s3cret") || !strings.Contains(sc, "HttpOnly") ||
		!strings.Contains(sc, "SameSite=Strict") || !strings.Contains(sc, "Path=/") {
		t.Errorf("Set-Cookie %q", sc)
	}
}

// TestWebOff: without HTTPOptions.Web the server serves no page.
func TestWebOff(t *testing.T) {
	srv := New(snapOf(nil), Options{Logger: discard()})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	t.Cleanup(ts.Close)
	res, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("/ without the page: %d", res.StatusCode)
	}
}
