package mcp

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ccski/ccski/internal/web"
	"github.com/ccski/ccski/pipeline"
)

// TestWebGuardAnswersCarryHeaders: the guard's own answers (401, 403, the
// 303 that sets the cookie) carry the page's security headers, as every
// response of the page does, through the server's whole handler.
func TestWebGuardAnswersCarryHeaders(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	srv := New(snapOf(recs), Options{Logger: discard()})
	t.Cleanup(srv.CloseSessions)
	h := srv.Handler(HTTPOptions{AuthToken: "s3cret", Web: &web.Options{}})
	for _, tc := range []struct {
		name, target string
		hdr          map[string]string
		code         int
	}{
		{"no token", "/", nil, 401},
		{"wrong token in the address", "/?token=guess", nil, 401},
		{"the token in the address", "/?token=s3cret", nil, 303},
		{"foreign origin", "/", map[string]string{"Authorization": "Bearer s3cret", "Origin": "https://evil.example"}, 403},
		{"rebinding host", "/", map[string]string{"Authorization": "Bearer s3cret", "Host": "evil.example"}, 403},
		{"the page", "/", map[string]string{"Authorization": "Bearer s3cret"}, 200},
	} {
		req := httptest.NewRequest(http.MethodGet, tc.target, nil)
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
	}
}

// TestWebTokenRedirectStaysOnTheServer: ?token= is taken on GET and HEAD
// only, and the 303 that follows goes to a path of this server, never to
// "//host" (a protocol-relative address, another host).
func TestWebTokenRedirectStaysOnTheServer(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	srv := New(snapOf(recs), Options{Logger: discard()})
	t.Cleanup(srv.CloseSessions)
	o := HTTPOptions{AuthToken: "s3cret", Web: &web.Options{}}
	whole := srv.Handler(o)
	guard := srv.webGuard(o, http.NotFoundHandler()) // behind the mux, which cleans GET paths
	for _, tc := range []struct {
		name, method, target string
		h                    http.Handler
		code                 int
		location             string
	}{
		{"CONNECT //host", http.MethodConnect, "//evil.example/?token=s3cret", whole, 401, ""},
		{"POST", http.MethodPost, "/?token=s3cret", whole, 401, ""},
		{"GET //host", http.MethodGet, "//evil.example/x?token=s3cret&q=1", guard, 303, "/evil.example/x?q=1"},
		{`GET /\host`, http.MethodGet, `/\evil.example/?token=s3cret`, guard, 303, "/evil.example/"},
		{"GET /skill/a%2Fb", http.MethodGet, "/skill/a%2Fb?token=s3cret", whole, 303, "/skill/a%2Fb"},
		{"HEAD", http.MethodHead, "/?token=s3cret", whole, 303, "/"},
	} {
		req := httptest.NewRequest(tc.method, tc.target, nil)
		rec := httptest.NewRecorder()
		tc.h.ServeHTTP(rec, req)
		if rec.Code != tc.code || rec.Header().Get("Location") != tc.location {
			t.Errorf("%s: %d to %q, want %d to %q", tc.name, rec.Code, rec.Header().Get("Location"), tc.code, tc.location)
		}
		if cookie := rec.Header().Get("Set-Cookie"); (cookie != "") != (tc.code == 303) {
			t.Errorf("%s: %d with Set-Cookie %q", tc.name, rec.Code, cookie)
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
