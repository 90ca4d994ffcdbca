package mcp

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

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
// checks, takes Bearer or the session cookie (its value derived from the
// token, its name carrying the port), and the cookie opens the page only.
// The token in the address (?token=) is not taken.
func TestWebGuard(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	srv := New(snapOf(recs), Options{Logger: discard()})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{AuthToken: "s3cret", Web: &web.Options{}}))
	t.Cleanup(ts.Close)
	t.Cleanup(srv.CloseSessions)
	do := webDo(t, ts.URL)
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	name := SessionCookie + "_" + port
	cookie := map[string]string{"Cookie": name + "=" + sessionValue("s3cret")}
	for _, tc := range []struct {
		name, method, path string
		hdr                map[string]string
		code               int
	}{
		{"no token", "GET", "/", nil, 401},
		{"wrong cookie", "GET", "/", map[string]string{"Cookie": name + "=guess"}, 401},
		{"the token itself as the cookie", "GET", "/", map[string]string{"Cookie": name + "=s3cret"}, 401},
		{"the cookie of another port", "GET", "/", map[string]string{"Cookie": SessionCookie + "_1=" + sessionValue("s3cret")}, 401},
		{"the cookie of another token", "GET", "/", map[string]string{"Cookie": name + "=" + sessionValue("other")}, 401},
		{"cookie", "GET", "/", cookie, 200},
		{"bearer", "GET", "/skill/" + recs[0].ID, map[string]string{"Authorization": "Bearer s3cret"}, 200},
		{"cookie, unknown skill", "GET", "/skill/nope", cookie, 404},
		{"cookie, foreign origin", "GET", "/", map[string]string{"Cookie": cookie["Cookie"], "Origin": "https://evil.example"}, 403},
		{"cookie, loopback origin", "GET", "/", map[string]string{"Cookie": cookie["Cookie"], "Origin": "http://localhost:5173"}, 200},
		{"rebinding host", "GET", "/", map[string]string{"Cookie": cookie["Cookie"], "Host": "evil.example"}, 403},
		{"rebinding host, json", "GET", "/ui/skills.json", map[string]string{"Authorization": "Bearer s3cret", "Host": "rebind.attacker.test:80"}, 403},
		{"cookie on /metrics", "GET", "/metrics", cookie, 401},
		{"cookie on /mcp", "POST", "/mcp", cookie, 401},
		{"bad token in the address", "GET", "/?token=guess", nil, 401},
		{"the token in the address", "GET", "/?token=s3cret", nil, 401},
		{"a code, none issued", "GET", "/?code=guess", nil, 401},
		{"the sign-in form", "GET", LoginPath, nil, 200},
		{"the form's style", "GET", "/ui/app.css", nil, 200},
	} {
		res, body := do(tc.method, tc.path, "", tc.hdr)
		if res.StatusCode != tc.code {
			t.Errorf("%s: %s %s = %d, want %d: %.200s", tc.name, tc.method, tc.path, res.StatusCode, tc.code, body)
		}
		if tc.code == 401 && res.Header.Get("Set-Cookie") != "" {
			t.Errorf("%s: refused, yet Set-Cookie %q", tc.name, res.Header.Get("Set-Cookie"))
		}
	}
	// Refused in a browser: the sign-in form, which comes back to the page.
	if _, body := do("GET", "/skill/"+recs[0].ID+"?token=s3cret&x=1", "", nil); !strings.Contains(body, `action="/ui/login"`) ||
		!strings.Contains(body, `value="/skill/`+recs[0].ID+`?x=1"`) || strings.Contains(body, "s3cret") || !strings.Contains(body, "no longer") {
		t.Errorf("the page without the cookie: want the sign-in form coming back to it: %.600s", body)
	}
}

// TestWebLogin: the sign-in form's POST of the token sets the session
// cookie (never the token) and sends the browser on to the page it asked
// for, on this server only; a wrong token or a foreign Origin sets none.
func TestWebLogin(t *testing.T) {
	srv := New(snapOf(nil), Options{Logger: discard()})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{AuthToken: "s3cret", Web: &web.Options{}}))
	t.Cleanup(ts.Close)
	do := webDo(t, ts.URL)
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	for _, tc := range []struct {
		name, body, origin string
		code               int
		location           string
	}{
		{"right token", "token=s3cret&next=%2F%3Fq%3Dpdf", "", 303, "/?q=pdf"},
		{"right token, same origin", "token=s3cret", ts.URL, 303, "/"},
		{"next to another host", "token=s3cret&next=%2F%2Fevil.example%2Fx", "", 303, "/x"},
		{"next with a backslash", "token=s3cret&next=%2F%5Cevil.example", "", 303, "/%5Cevil.example"},
		{"next, an absolute URL", "token=s3cret&next=https%3A%2F%2Fevil.example%2Fy", "", 303, "/y"},
		{"wrong token", "token=guess", "", 401, ""},
		{"no token", "", "", 401, ""},
		{"foreign origin", "token=s3cret", "https://evil.example", 403, ""},
	} {
		hdr := maps.Clone(form)
		if tc.origin != "" {
			hdr["Origin"] = tc.origin
		}
		res, body := do("POST", LoginPath, tc.body, hdr)
		if res.StatusCode != tc.code || res.Header.Get("Location") != tc.location {
			t.Errorf("%s: %d to %q, want %d to %q: %.200s", tc.name, res.StatusCode, res.Header.Get("Location"), tc.code, tc.location, body)
		}
		sc := res.Header.Get("Set-Cookie")
		if tc.code != 303 {
			if sc != "" {
				t.Errorf("%s: Set-Cookie %q", tc.name, sc)
			}
			continue
		}
		if !strings.HasPrefix(sc, SessionCookie+"_"+port+"="+sessionValue("s3cret")+";") || strings.Contains(sc, "s3cret") ||
			!strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Strict") || !strings.Contains(sc, "Path=/") {
			t.Errorf("%s: Set-Cookie %q", tc.name, sc)
		}
	}
}

// TestWebLoginCodes: a code of LoginCodes lets a browser in once, on GET,
// within LoginCodeTTL: it sets the cookie and sends it on without the code.
func TestWebLoginCodes(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	srv := New(snapOf(recs), Options{Logger: discard()})
	codes := NewLoginCodes()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	codes.now = func() time.Time { return now }
	ts := httptest.NewServer(srv.Handler(HTTPOptions{AuthToken: "s3cret", LoginCodes: codes, Web: &web.Options{}}))
	t.Cleanup(ts.Close)
	do := webDo(t, ts.URL)

	code := codes.Issue()
	if len(code) < 26 || code == codes.Issue() {
		t.Fatalf("code %q: want 128 random bits or more, fresh each time", code)
	}
	if res, _ := do("POST", "/?code="+code, "", nil); res.StatusCode != 401 {
		t.Errorf("a code on POST: %d, want 401", res.StatusCode)
	}
	// (The POST did not spend it.)
	res, _ := do("GET", "/skill/"+recs[0].ID+"?code="+code+"&x=1", "", nil)
	if res.StatusCode != 303 || res.Header.Get("Location") != "/skill/"+recs[0].ID+"?x=1" {
		t.Errorf("a live code: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if sc := res.Header.Get("Set-Cookie"); !strings.Contains(sc, "="+sessionValue("s3cret")+";") || strings.Contains(sc, "s3cret") {
		t.Errorf("a live code: Set-Cookie %q", sc)
	}
	if res, _ := do("GET", "/?code="+code, "", nil); res.StatusCode != 401 || res.Header.Get("Set-Cookie") != "" {
		t.Errorf("a code used once already: %d, %q", res.StatusCode, res.Header.Get("Set-Cookie"))
	}
	late := codes.Issue()
	now = now.Add(LoginCodeTTL)
	if res, _ := do("GET", "/?code="+late, "", nil); res.StatusCode != 401 {
		t.Errorf("a code after %v: %d, want 401", LoginCodeTTL, res.StatusCode)
	}
}

// webDo returns a function that sends a request to base without
// following redirects, with hdr (Host sets the request's host).
func webDo(t *testing.T, base string) func(method, path, body string, hdr map[string]string) (*http.Response, string) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return func(method, path, body string, hdr map[string]string) (*http.Response, string) {
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
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

// TestSameSite: the address a sign-in sends the browser on to stays on
// this server, whatever slashes the path starts with.
func TestSameSite(t *testing.T) {
	for _, tc := range []struct{ path, query, want string }{
		{"/skill/a%2Fb", "x=1", "/skill/a%2Fb?x=1"},
		{"//evil.example/", "", "/evil.example/"},
		{`/\evil.example`, "", "/evil.example"},
		{"", "", "/"},
		{LoginPath, "", "/"},
	} {
		if got := sameSite(tc.path, tc.query); got != tc.want {
			t.Errorf("sameSite(%q, %q) = %q, want %q", tc.path, tc.query, got, tc.want)
		}
	}
}
