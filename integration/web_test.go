package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// webGet fetches base+path with the given headers, without following a
// redirect.
func webGet(t *testing.T, base, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// TestWebCatalogue drives the web page of `ccski mcp --transport http`
// with a token: the token rules (Bearer, or the cookie the sign-in form
// sets, accepted on the page only; never ?token=), the Origin and rebinding checks, and
// the catalogue, a skill's page, one of its files and the search, each
// with its Content-Security-Policy.
func TestWebCatalogue(t *testing.T) {
	m := newMachine(t)
	s := startHTTP(t, m, nil, "--transport", "http", "--auth-token", "secret")
	if !waitUntil(10*time.Second, func() bool { res, _ := webGet(t, s.base, "/readyz", nil); return res.StatusCode == 200 }) {
		t.Fatalf("/readyz never answered 200\nstderr:\n%s", s.stderr)
	}
	const policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

	// The token is never taken from the address: ?token= is refused and
	// answers the sign-in form.
	for _, tc := range []struct{ name, path string }{{"no token", "/"}, {"wrong token", "/?token=guess"}, {"the token in the address", "/?q=pdf&token=secret"}} {
		res, body := webGet(t, s.base, tc.path, nil)
		if res.StatusCode != http.StatusUnauthorized || res.Header.Get("Set-Cookie") != "" || !strings.Contains(body, `<form method="post" action="/ui/login">`) {
			t.Errorf("%s: status %d, Set-Cookie %q, want 401 and the sign-in form: %.300s", tc.name, res.StatusCode, res.Header.Get("Set-Cookie"), body)
		}
	}
	// The sign-in form POSTs the token: it sets the cookie, which holds
	// no token and is named by the port, and sends the browser on.
	login := func(form url.Values) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.base+"/ui/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.base)
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		return res
	}
	if res := login(url.Values{"token": {"guess"}}); res.StatusCode != http.StatusUnauthorized || len(res.Cookies()) != 0 {
		t.Errorf("a wrong token signed in: %d %v", res.StatusCode, res.Cookies())
	}
	res := login(url.Values{"token": {"secret"}, "next": {"/?q=pdf"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/?q=pdf" {
		t.Fatalf("sign-in: status %d, Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	base, _ := url.Parse(s.base)
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "ccski_session_"+base.Port() {
			cookie = c
		}
	}
	if cookie == nil || strings.Contains(cookie.Value, "secret") || len(cookie.Value) != 64 || !cookie.HttpOnly ||
		cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" {
		t.Fatalf("cookie %+v of %v: want ccski_session_%s, HMAC of the token", cookie, res.Cookies(), base.Port())
	}
	withCookie := map[string]string{"Cookie": cookie.Name + "=" + cookie.Value}
	if res, _ := webGet(t, s.base, "/", map[string]string{"Cookie": cookie.Name + "=secret"}); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the token itself as the cookie: %d, want 401", res.StatusCode)
	}

	res, page := webGet(t, s.base, "/", withCookie)
	if res.StatusCode != 200 || res.Header.Get("Content-Security-Policy") != policy || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("/: status %d, headers %v", res.StatusCode, res.Header)
	}
	if !strings.Contains(page, `<ul id="skills"`) || !strings.Contains(page, `<li class="skill" data-id="`) {
		t.Fatalf("/ lists no skill:\n%s\nstderr:\n%s", page[strings.Index(page, "<main"):], s.stderr)
	}
	// The list, with the Bearer header.
	res, body := webGet(t, s.base, "/ui/skills.json?state=served", map[string]string{"Authorization": "Bearer secret"})
	var list struct {
		Count  int
		Skills []struct{ ID, Name string }
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil || res.StatusCode != 200 || len(list.Skills) == 0 {
		t.Fatalf("skills.json: %d %v %.500s", res.StatusCode, err, body)
	}
	sk := list.Skills[0]
	// The search is skills_search's: the skill's own name finds it.
	word := strings.FieldsFunc(sk.Name, func(r rune) bool { return r == ':' || r == '-' || r == '_' })[0]
	_, body = webGet(t, s.base, "/ui/skills.json?q="+url.QueryEscape(word), withCookie)
	if !strings.Contains(body, `"id":"`+sk.ID+`"`) {
		t.Errorf("searching %q does not find %s: %.500s", word, sk.ID, body)
	}
	res, page = webGet(t, s.base, "/skill/"+url.PathEscape(sk.ID), withCookie)
	if res.StatusCode != 200 || !strings.Contains(page, `<article id="readme"`) || !strings.Contains(page, `<tr data-path="SKILL.md">`) ||
		res.Header.Get("Content-Security-Policy") != policy {
		t.Fatalf("the skill page of %s: %d\n%.2000s", sk.ID, res.StatusCode, page)
	}
	res, body = webGet(t, s.base, "/skill/"+url.PathEscape(sk.ID)+"/raw/SKILL.md", withCookie)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" || !strings.Contains(body, "---\n") {
		t.Errorf("SKILL.md raw: %d %q %.100q", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	res, _ = webGet(t, s.base, "/skill/"+url.PathEscape(sk.ID)+"/raw/..%2F..%2F..%2Fetc%2Fpasswd", withCookie)
	if res.StatusCode == 200 {
		t.Errorf("a path out of the skill was served")
	}
	res, _ = webGet(t, s.base, "/skill/no-such-skill", withCookie)
	if res.StatusCode != 404 {
		t.Errorf("unknown skill: %d", res.StatusCode)
	}

	// Refusals: a foreign Origin, a rebinding Host, the cookie on /mcp and
	// /metrics.
	for _, tc := range []struct {
		name, path string
		hdr        map[string]string
		code       int
	}{
		{"foreign origin", "/", map[string]string{"Cookie": withCookie["Cookie"], "Origin": "https://evil.example"}, 403},
		{"rebinding host", "/", map[string]string{"Cookie": withCookie["Cookie"], "Host": "evil.example:80"}, 403},
		{"rebinding host, bearer", "/skill/" + url.PathEscape(sk.ID), map[string]string{"Authorization": "Bearer secret", "Host": "attacker.test"}, 403},
		{"loopback host", "/", map[string]string{"Cookie": withCookie["Cookie"], "Host": "localhost"}, 200},
		{"cookie on /metrics", "/metrics", withCookie, 401},
		{"bearer on /metrics", "/metrics", map[string]string{"Authorization": "Bearer secret"}, 200},
	} {
		if res, body := webGet(t, s.base, tc.path, tc.hdr); res.StatusCode != tc.code {
			t.Errorf("%s: status %d, want %d: %.200s", tc.name, res.StatusCode, tc.code, body)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Cookie", withCookie["Cookie"])
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the cookie opened /mcp: %v %v", res.StatusCode, err)
	}
}

// TestWebCatalogueOff: mcp.web false serves no page.
func TestWebCatalogueOff(t *testing.T) {
	m := newMachine(t)
	s := startHTTP(t, m, map[string]string{"CCSKI_MCP__WEB": "false"}, "--transport", "http")
	if res, _ := webGet(t, s.base, "/", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("/ with mcp.web false: status %d, want 404", res.StatusCode)
	}
	if res, _ := webGet(t, s.base, "/ui/app.js", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("/ui/app.js with mcp.web false: status %d, want 404", res.StatusCode)
	}
}
