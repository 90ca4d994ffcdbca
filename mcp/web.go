package mcp

import (
	"context"
	"crypto/subtle"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/ccski/ccski/internal/web"
	"github.com/ccski/ccski/pipeline"
)

// The web catalogue (package internal/web) at / of the HTTP front: what a
// person opens in a browser. It reads the snapshot the server serves, and
// searches with skills_search's ranking and body index; its file reads are
// the resources' confined read and, under a gate, serve only the bytes
// judged. It stands behind webGuard.

// TokenCookie is the cookie that carries mcp.auth_token for the web page:
// a browser cannot send an Authorization header when a person follows a
// link, so `GET /?token=<token>` sets it once.
const TokenCookie = "ccski_token"

// webSource is the server as the page's Source (and FileReader).
type webSource struct{ s *Server }

var (
	_ web.Source     = webSource{}
	_ web.FileReader = webSource{}
)

func (w webSource) Snapshot() *pipeline.Snapshot { return w.s.snap.Load() }

// Search answers with the ranking of skills_search.
func (w webSource) Search(ctx context.Context, query string, limit int) ([]string, error) {
	snap := w.s.snap.Load()
	if snap == nil {
		return nil, nil
	}
	hits, _ := w.s.rank(ctx, snap, query, limit, 0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Record.ID
	}
	return ids, nil
}

// ReadFile reads as resources/read does: only a skill the server serves,
// confined to its folder, and under a gate only the bytes every covering
// gate judged.
func (w webSource) ReadFile(snap *pipeline.Snapshot, r *pipeline.Record, rel string) ([]byte, error) {
	if _, dropped := snap.DropOf(r); dropped {
		return nil, fmt.Errorf("the server does not serve the skill %s: %w", r.ID, fs.ErrPermission)
	}
	data, err := readInSkill(r, rel)
	if err != nil {
		return nil, err
	}
	if err := judgedOf(snap, r, rel).check(data); err != nil {
		w.s.log.Warn("skill file not shown on the web page: not what the gate judged", "skill", r.ID, "file", rel, "err", err)
		return nil, err
	}
	return data, nil
}

// webGuard stands before the page: the rebinding check (a loopback
// listener answers loopback names only), the Origin check of /mcp, and,
// with a token, the Bearer header or the TokenCookie cookie. A request
// with ?token= that matches sets the cookie and is sent, without it, to
// the same address (303); the cookie is never accepted on /mcp or
// /metrics.
func (s *Server) webGuard(o HTTPOptions, next http.Handler) http.Handler {
	allowed := allowedOrigins(o)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rebound(r) {
			http.Error(w, "forbidden: Host "+r.Host+" is not a loopback name, on a loopback address", http.StatusForbidden)
			return
		}
		if s.refuseOrigin(w, r, allowed) {
			return
		}
		if o.AuthToken != "" {
			q := r.URL.Query()
			if t, ok := q["token"]; ok && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
				if len(t) != 1 || !sameToken(t[0], o.AuthToken) {
					webUnauthorized(w)
					return
				}
				http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: o.AuthToken, Path: "/", HttpOnly: true,
					SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
				q.Del("token")
				// One leading slash: "//host/" or "/\host/" (read as
				// "//host/" by browsers) would send it to another host.
				u := url.URL{Path: "/" + strings.TrimLeft(r.URL.Path, `/\`), RawQuery: q.Encode()}
				if r.URL.RawPath != "" {
					u.RawPath = "/" + strings.TrimLeft(r.URL.RawPath, `/\`)
				}
				w.Header().Set("Cache-Control", "no-store")
				http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
				return
			}
			if !bearerOK(r, o.AuthToken) && !cookieOK(r, o.AuthToken) {
				webUnauthorized(w)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// rebound reports whether r reached a loopback listener under a name that
// is not loopback: DNS rebinding, a page of another site reaching the
// server through a name its attacker controls.
func rebound(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && local != nil && loopbackAddr(local.String()) && !loopbackAddr(r.Host)
}

func cookieOK(r *http.Request, token string) bool {
	c, err := r.Cookie(TokenCookie)
	return err == nil && sameToken(c.Value, token)
}

func bearerOK(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && sameToken(got, token)
}

func sameToken(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// webUnauthorized answers a request of the page without the token.
func webUnauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="ccski"`)
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "unauthorized: open the page as /?token=<token> (mcp.auth_token) once, or send Authorization: Bearer <token>",
		http.StatusUnauthorized)
}
