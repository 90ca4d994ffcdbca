package mcp

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/web"
	"github.com/ccski/ccski/pipeline"
)

// TestWebGuardAnswersCarryHeaders: the guard's own answers (401, 403, the
// sign-in's 303 that sets the cookie) carry the page's security headers,
// as every response of the page does, through the server's whole handler.
func TestWebGuardAnswersCarryHeaders(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	srv := New(snapOf(recs), Options{Logger: discard()})
	t.Cleanup(srv.CloseSessions)
	h := srv.Handler(HTTPOptions{AuthToken: "s3cret", Web: &web.Options{}})
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	for _, tc := range []struct {
		name, method, target, body string
		hdr                        map[string]string
		code                       int
	}{
		{"no token", "GET", "/", "", nil, 401},
		{"the token in the address", "GET", "/?token=s3cret", "", nil, 401},
		{"a wrong sign-in", "POST", LoginPath, "token=guess", form, 401},
		{"the sign-in", "POST", LoginPath, "token=s3cret", form, 303},
		{"foreign origin", "GET", "/", "", map[string]string{"Authorization": "Bearer s3cret", "Origin": "https://evil.example"}, 403},
		{"rebinding host", "GET", "/", "", map[string]string{"Authorization": "Bearer s3cret", "Host": "evil.example"}, 403},
		{"the page", "GET", "/", "", map[string]string{"Authorization": "Bearer s3cret"}, 200},
	} {
		req := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
		req.Host = "127.0.0.1:8080"
		for k, v := range tc.hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		// The listener's address, as the server sets it: a loopback one.
		req = req.WithContext(withLocalAddr(req, "127.0.0.1:8080"))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, rec.Code, tc.code)
		}
		for _, k := range []string{"Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options"} {
			if rec.Header().Get(k) == "" {
				t.Errorf("%s (%d): no %s", tc.name, rec.Code, k)
			}
		}
		// The sign-in form's POST must carry its Origin, which browsers
		// replace by "null" under no-referrer: the form is same-origin.
		want := "no-referrer"
		if strings.Contains(rec.Body.String(), `action="`+LoginPath+`"`) {
			want = "same-origin"
		}
		if got := rec.Header().Get("Referrer-Policy"); got != want {
			t.Errorf("%s (%d): Referrer-Policy %q, want %q", tc.name, rec.Code, got, want)
		}
	}
}

// TestWebTokenNeverFromTheAddress: ?token= sets no cookie and sends the
// browser to no other host, whatever the method and path (a "//host"
// path once gave an open Location when the address could carry the token).
func TestWebTokenNeverFromTheAddress(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	srv := New(snapOf(recs), Options{Logger: discard()})
	t.Cleanup(srv.CloseSessions)
	h := srv.Handler(HTTPOptions{AuthToken: "s3cret", Web: &web.Options{}})
	for _, tc := range []struct{ method, target string }{
		{http.MethodConnect, "//evil.example/?token=s3cret"},
		{http.MethodPost, "/?token=s3cret"},
		{http.MethodGet, "//evil.example/x?token=s3cret&q=1"},
		{http.MethodGet, `/\evil.example/?token=s3cret`},
		{http.MethodGet, "/skill/a%2Fb?token=s3cret"},
		{http.MethodHead, "/?token=s3cret"},
	} {
		req := httptest.NewRequest(tc.method, tc.target, nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		// The mux may clean a path with a 307 to this server's own path;
		// nothing may set the cookie or leave the server.
		loc := rec.Header().Get("Location")
		if rec.Code == http.StatusSeeOther || rec.Header().Get("Set-Cookie") != "" ||
			(loc != "" && (!strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, `/\`))) {
			t.Errorf("%s %s: %d to %q with Set-Cookie %q", tc.method, tc.target, rec.Code,
				rec.Header().Get("Location"), rec.Header().Get("Set-Cookie"))
		}
	}
}

// TestWebReadsOnlyServedSkills: the server's reads for the page refuse a
// skill it does not serve (dropped by a filter, an include or exclude,
// the organisation's policy), whatever the page asks.
func TestWebReadsOnlyServedSkills(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "pdf", desc: "PDF files"},
		skillSpec{provider: "claude", name: "secret", desc: "excluded by the policy"})
	snap := pipeline.NewSnapshot(recs, recs[:1], []pipeline.Drop{{Record: recs[1], Stage: "policy", Reason: "excluded"}}, nil, nil)
	srv := New(snap, Options{Logger: discard()})
	src := webSource{srv}
	if _, err := src.ReadFile(snap, recs[0], "SKILL.md"); err != nil {
		t.Errorf("a served skill: %v", err)
	}
	if data, err := src.ReadFile(snap, recs[1], "SKILL.md"); !errors.Is(err, fs.ErrPermission) || data != nil {
		t.Errorf("a dropped skill: %q, %v; want fs.ErrPermission", data, err)
	}
}

// withLocalAddr is r's context with the listener's address addr, as
// net/http sets it for a request it reads.
func withLocalAddr(r *http.Request, addr string) context.Context {
	a, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		panic(err)
	}
	return context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(a))
}
