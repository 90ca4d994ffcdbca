package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/web"
	"github.com/ccski/ccski/pipeline"
)

// The web catalogue (package internal/web) at / of the HTTP front: what a
// person opens in a browser. It reads the snapshot the server serves, and
// searches with skills_search's ranking and body index; its file reads are
// the resources' confined read and, under a gate, serve only the bytes
// judged. It stands behind webGuard.

// SessionCookie names the cookie that lets a browser into the web page
// when mcp.auth_token is set (a browser cannot send an Authorization
// header when a person follows a link). Its full name carries the port
// the browser reached (SessionCookie + "_" + port): cookies are not kept
// apart by port, and two servers on one host would overwrite each
// other's. Its value is never the token: it is sessionValue(token), which
// opens the page and nothing else (/mcp and /metrics take the Bearer
// header only), so a cookie sent to another service on the same host
// gives it no token.
const SessionCookie = "ccski_session"

// LoginPath is the page's sign-in form: it POSTs mcp.auth_token, which
// sets the cookie. The token is never taken from an address (?token=):
// addresses end up in proxies' logs, browsers' history and argv.
const LoginPath = "/ui/login"

// LoginCodeTTL is how long a one-time code of LoginCodes lets a browser
// in, when it is not used before.
const LoginCodeTTL = 60 * time.Second

// LoginCodes are the one-time codes that let a browser into the page
// without the token in its address: ccski ui opens /?code=<code>, which
// sets the cookie and answers 303 to the address without the code. A
// code works once, within LoginCodeTTL. The zero value is not usable:
// NewLoginCodes.
type LoginCodes struct {
	mu    sync.Mutex
	codes map[[sha256.Size]byte]time.Time // the codes' digests, with their expiry
	now   func() time.Time
}

// NewLoginCodes returns an empty set of codes.
func NewLoginCodes() *LoginCodes {
	return &LoginCodes{codes: map[[sha256.Size]byte]time.Time{}, now: time.Now}
}

// Issue returns a fresh code (130 random bits), valid for its first use
// or LoginCodeTTL, whichever comes first.
func (c *LoginCodes) Issue() string {
	code := rand.Text()
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for k, exp := range c.codes {
		if !now.Before(exp) {
			delete(c.codes, k)
		}
	}
	c.codes[sha256.Sum256([]byte(code))] = now.Add(LoginCodeTTL)
	return code
}

// take reports whether code is a live code, and spends it. The codes are
// looked up by digest: the time a lookup takes says nothing of a code.
func (c *LoginCodes) take(code string) bool {
	if c == nil {
		return false
	}
	k := sha256.Sum256([]byte(code))
	c.mu.Lock()
	defer c.mu.Unlock()
	exp, ok := c.codes[k]
	delete(c.codes, k)
	return ok && c.now().Before(exp)
}

// sessionValue is the cookie's value for token: HMAC-SHA256 keyed with
// the token, in hex.
func sessionValue(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("ccski web session"))
	return hex.EncodeToString(m.Sum(nil))
}

// sessionCookieName is the name of the page's cookie for r: with the port
// of the address the browser reached (its Host), else of the listener.
func sessionCookieName(r *http.Request) string {
	if _, p, err := net.SplitHostPort(r.Host); err == nil && p != "" {
		return SessionCookie + "_" + p
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
		if _, p, err := net.SplitHostPort(local.String()); err == nil && p != "" {
			return SessionCookie + "_" + p
		}
	}
	return SessionCookie
}

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
// with a token, the Bearer header or the session cookie. The cookie is
// set by the sign-in form (LoginPath, which POSTs the token) or by a
// one-time code of o.LoginCodes (?code=, then 303 to the same address
// without it); it is never accepted on /mcp or /metrics.
func (s *Server) webGuard(o HTTPOptions, next http.Handler) http.Handler {
	allowed := allowedOrigins(o)
	session := sessionValue(o.AuthToken)
	setCookie := func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: sessionCookieName(r), Value: session, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		w.Header().Set("Cache-Control", "no-store")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rebound(r) {
			http.Error(w, "forbidden: Host "+r.Host+" is not a loopback name, on a loopback address", http.StatusForbidden)
			return
		}
		if s.refuseOrigin(w, r, allowed) {
			return
		}
		if o.AuthToken == "" {
			next.ServeHTTP(w, r)
			return
		}
		get := r.Method == http.MethodGet || r.Method == http.MethodHead
		switch {
		case r.URL.Path == LoginPath:
			s.login(w, r, o.AuthToken, setCookie)
			return
		case r.Method == http.MethodGet && r.URL.Query().Has("code"):
			// GET only: a HEAD (a link preview) does not spend a code.
			q := r.URL.Query()
			if c := q["code"]; len(c) != 1 || !o.LoginCodes.take(c[0]) {
				loginForm(w, r, http.StatusUnauthorized, "That link has been used or has expired: ask ccski ui for a new one (restart it), or sign in with the token.")
				return
			}
			setCookie(w, r)
			q.Del("code")
			http.Redirect(w, r, sameSite(r.URL.EscapedPath(), q.Encode()), http.StatusSeeOther)
			return
		case bearerOK(r, o.AuthToken) || cookieOK(r, session):
			next.ServeHTTP(w, r)
			return
		case get && r.URL.Path == "/ui/app.css":
			// The sign-in form's style: embedded, no secret.
			next.ServeHTTP(w, r)
			return
		}
		msg := ""
		if r.URL.Query().Has("token") {
			msg = "The token is no longer taken from the address (?token=): sign in here."
		}
		loginForm(w, r, http.StatusUnauthorized, msg)
	})
}

// login serves the sign-in form (GET) and takes its token (POST): the
// right one sets the cookie and sends the browser on to the page it
// came for (303), else the form again, 401.
func (s *Server) login(w http.ResponseWriter, r *http.Request, token string, setCookie func(http.ResponseWriter, *http.Request)) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		loginForm(w, r, http.StatusOK, "")
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
		if err := r.ParseForm(); err != nil {
			loginForm(w, r, http.StatusBadRequest, "The form could not be read: sign in again.")
			return
		}
		if !sameToken(r.PostForm.Get("token"), token) {
			s.log.Warn("web page sign-in refused: wrong token", "remote", r.RemoteAddr)
			loginForm(w, r, http.StatusUnauthorized, "Wrong token: give mcp.auth_token of this server.")
			return
		}
		setCookie(w, r)
		next, _ := url.Parse(r.PostForm.Get("next"))
		if next == nil {
			next = &url.URL{}
		}
		http.Redirect(w, r, sameSite(next.EscapedPath(), next.RawQuery), http.StatusSeeOther)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// sameSite is the address of the escaped path and query on this
// server: a path that starts with several slashes or a backslash
// (//evil.example/) would send the browser to another host.
func sameSite(escapedPath, query string) string {
	u := "/" + strings.TrimLeft(escapedPath, "/\\")
	if u == LoginPath {
		u = "/"
	}
	if query != "" {
		u += "?" + query
	}
	return u
}

// loginPage is the sign-in form: no script, the page's own style sheet.
var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · ccski</title><link rel="stylesheet" href="/ui/app.css"></head>
<body><main id="login"><h1>Sign in to the skills</h1>
{{if .Msg}}<p id="login-error" role="alert">{{.Msg}}</p>{{end}}
<form method="post" action="` + LoginPath + `">
<label for="token">Token (the server's mcp.auth_token)</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<input type="hidden" name="next" value="{{.Next}}">
<button type="submit">Sign in</button>
</form></main></body></html>
`))

// loginForm answers with the sign-in form, code its status and msg why
// it is shown; after signing in, the browser goes on to the page it
// asked for.
func loginForm(w http.ResponseWriter, r *http.Request, code int, msg string) {
	next := r.URL.Query().Get("next")
	if r.URL.Path != LoginPath {
		q := r.URL.Query()
		q.Del("token")
		q.Del("code")
		next = sameSite(r.URL.EscapedPath(), q.Encode())
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// The form's POST must carry its Origin for the guard's check: under
	// the page's no-referrer, browsers send "Origin: null" instead. Within
	// this origin only, so nothing leaks to another site.
	h.Set("Referrer-Policy", "same-origin")
	if code == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="ccski"`)
	}
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_ = loginPage.Execute(w, struct{ Msg, Next string }{msg, next})
	}
}

// rebound reports whether r reached a loopback listener under a name that
// is not loopback: DNS rebinding, a page of another site reaching the
// server through a name its attacker controls.
func rebound(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && local != nil && loopbackAddr(local.String()) && !loopbackAddr(r.Host)
}

// cookieOK reports whether r carries the session cookie, checked in
// constant time.
func cookieOK(r *http.Request, session string) bool {
	c, err := r.Cookie(sessionCookieName(r))
	return err == nil && hmac.Equal([]byte(c.Value), []byte(session))
}

func bearerOK(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && sameToken(got, token)
}

func sameToken(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
