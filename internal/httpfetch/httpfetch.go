// Package httpfetch is the one HTTP layer of ccski's network sources: the
// client that ccski install (well-known indexes, archives, MCP server
// sources) and the remote provider (providers.remote) make their
// requests with, and the rule for the tokens those requests carry.
//
// The token rule: a token belongs to exactly one origin (scheme, host and
// port), and only the user names that origin, in http.tokens of the user
// or managed config or in CCSKI_HTTP__TOKENS, as "<origin>=<token>"
// entries; never a project file or a lock. The client adds to each
// request the token of that request's own origin, looked up again after
// every redirect (so a redirect to another origin carries none), and only
// over https or over http to a loopback address.
//
// Every response body is bounded (Options.MaxBody): a server sending more
// fails the request instead of filling memory.
package httpfetch

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// TokensKey is the config key of the tokens, and TokensVar its variable.
const (
	TokensKey = "http.tokens"
	TokensVar = "CCSKI_HTTP__TOKENS"
)

// Token is one entry of http.tokens: "<origin>=<token>", such as
// https://skills.example.com=s3cret. The origin is a scheme (http or
// https), a host and an optional port, nothing else.
type Token string

// Check returns what is wrong with value as an entry of http.tokens, or
// nil. Its error never holds the token.
func (Token) Check(value string) error {
	_, _, err := parseToken(value)
	return err
}

// parseToken splits an entry into its origin (normalized, see Origin)
// and its token.
func parseToken(entry string) (origin, token string, err error) {
	raw, tok, ok := strings.Cut(entry, "=")
	raw, tok = strings.TrimSpace(raw), strings.TrimSpace(tok)
	if !ok || tok == "" {
		return "", "", fmt.Errorf("entry %q is not <origin>=<token>, such as https://skills.example.com=<token>",
			redactEntry(entry))
	}
	if strings.ContainsFunc(tok, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) {
		return "", "", fmt.Errorf("the token of %s holds a space or a control character", raw)
	}
	u, perr := url.Parse(raw)
	if perr != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(raw, "?") {
		return "", "", fmt.Errorf("%q is no origin: give a scheme and a host (and a port if not the default), "+
			"such as https://skills.example.com or http://127.0.0.1:8080, with no user, path or query", raw)
	}
	if u.Scheme == "http" && !Loopback(u.Hostname()) {
		return "", "", fmt.Errorf("%s: a token is sent over https only, or over http to a loopback address, so this "+
			"one would never be sent: give the https origin", raw)
	}
	return Origin(u), tok, nil
}

// redactEntry is entry without what follows its first '=', or, for an
// entry with no '=' (perhaps a token alone, or the tail of one cut at a
// comma of CCSKI_HTTP__TOKENS), nothing of it but a scheme it starts with.
func redactEntry(entry string) string {
	if i := strings.IndexByte(entry, '='); i >= 0 {
		return entry[:i+1] + "…"
	}
	for _, scheme := range []string{"https://", "http://"} {
		if strings.HasPrefix(entry, scheme) {
			return scheme + "…"
		}
	}
	return "…"
}

// Tokens maps an origin (see Origin) to its token.
type Tokens map[string]string

// ParseTokens reads the entries of http.tokens. An origin named twice is
// an error, so that no entry silently wins.
func ParseTokens(entries []Token) (Tokens, error) {
	t := Tokens{}
	for _, e := range entries {
		origin, tok, err := parseToken(string(e))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", TokensKey, err)
		}
		if _, dup := t[origin]; dup {
			return nil, fmt.Errorf("%s: origin %s has two tokens: keep one", TokensKey, origin)
		}
		t[origin] = tok
	}
	return t, nil
}

// Origin is u's origin: its scheme and host, lower-cased, and its port
// unless it is the scheme's default (https://Skills.Example.com:443 is
// https://skills.example.com).
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "443" && scheme == "https" || port == "80" && scheme == "http" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// For is the token a request to u carries: its origin's, and only over
// https or over http to a loopback address ("" otherwise).
func (t Tokens) For(u *url.URL) string {
	if len(t) == 0 || !Private(u) {
		return ""
	}
	return t[Origin(u)]
}

// Private reports whether a request to u may carry a token: u is https,
// or http to a loopback address.
func Private(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, "https") || strings.EqualFold(u.Scheme, "http") && Loopback(u.Hostname())
}

// Loopback reports whether host is a loopback address or localhost.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Hint is what to do when u answers 401 or 403: which origin to give a
// token, and where.
func Hint(u *url.URL) string {
	o := Origin(u)
	if !Private(u) {
		return "a token is sent over https only (or over http to a loopback address): use the https URL"
	}
	return fmt.Sprintf("for a private host, add %s=<token> to %s in your user config (or to %s); "+
		"it is sent as a Bearer token to that origin only", o, TokensKey, TokensVar)
}

// CheckURL accepts the URLs ccski requests: http or https, with a host,
// without a user or password (which ccski would print and write to
// ccski.lock: a token goes in http.tokens), a fragment or a control
// character.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
		strings.ContainsFunc(raw, unicode.IsControl) {
		return fmt.Errorf("URL %q is not one ccski fetches: give an http:// or https:// URL with a host", raw)
	}
	if u.User != nil {
		u.User = nil
		return fmt.Errorf("URL %s holds a user or password (before its host), which ccski would print and write to "+
			"ccski.lock: remove it and add %s=<token> to %s in your user config instead", u, Origin(u), TokensKey)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("URL %q: no fragment", raw)
	}
	return nil
}

// MaxRedirects is how many redirects one request follows.
const MaxRedirects = 10

// Options configure a Client.
type Options struct {
	// Tokens are the user's tokens, by origin.
	Tokens Tokens
	// Timeout, when not 0, bounds each request with its body
	// (http.Client.Timeout).
	Timeout time.Duration
	// MaxBody, when not 0, is the most bytes a response body may have;
	// reading more fails with an error wrapping ErrTooLarge.
	MaxBody int64
	// Base carries the requests; nil is http.DefaultTransport reaching
	// loopback addresses directly, never through a proxy.
	Base http.RoundTripper
}

// ErrTooLarge is the error of a response body over Options.MaxBody.
var ErrTooLarge = errors.New("response body over the limit")

// Client returns the client of o: each request carries its own origin's
// token (Tokens.For) and nothing a caller or an earlier request set;
// redirects are followed up to MaxRedirects, each target checked by
// CheckURL, never from https down to http; every body is bounded by
// MaxBody.
func Client(o Options) *http.Client {
	base := o.Base
	if base == nil {
		base = direct
	}
	return &http.Client{
		Timeout:       o.Timeout,
		Transport:     &transport{base: base, tokens: o.Tokens, maxBody: o.MaxBody},
		CheckRedirect: checkRedirect,
	}
}

// checkRedirect is the redirect policy of Client.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= MaxRedirects {
		return fmt.Errorf("stopped after %d redirects", MaxRedirects)
	}
	target := *req.URL
	target.Fragment, target.RawFragment = "", ""
	if err := CheckURL(target.String()); err != nil {
		return fmt.Errorf("redirect: %w", err)
	}
	if strings.EqualFold(via[0].URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
		return fmt.Errorf("redirect from https down to %s refused: give an https URL that does not leave https",
			req.URL.Redacted())
	}
	// The transport adds the new origin's own token; nothing an earlier
	// request carried goes on.
	req.Header.Del("Authorization")
	req.Header.Del("Cookie")
	return nil
}

// transport adds each request's token and bounds each response body.
type transport struct {
	base    http.RoundTripper
	tokens  Tokens
	maxBody int64
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Del("Authorization")
	if tok := t.tokens.For(r.URL); tok != "" && !t.proxied(r) {
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil || t.maxBody <= 0 {
		return resp, err
	}
	if resp.ContentLength > t.maxBody {
		resp.Body.Close()
		return nil, fmt.Errorf("%s answers %d bytes: %w of %d bytes", r.URL.Redacted(), resp.ContentLength, ErrTooLarge, t.maxBody)
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.maxBody, max: t.maxBody, url: r.URL.Redacted()}
	return resp, nil
}

// proxied reports whether r, a plain http request, would leave the
// machine through a proxy of the base transport: a token for a loopback
// address must not travel in clear text to a proxy elsewhere.
func (t *transport) proxied(r *http.Request) bool {
	if !strings.EqualFold(r.URL.Scheme, "http") {
		return false
	}
	tr, ok := t.base.(*http.Transport)
	if !ok || tr.Proxy == nil {
		return false
	}
	p, err := tr.Proxy(r)
	return err != nil || p != nil
}

// direct is http.DefaultTransport, but a loopback address is reached
// directly whatever the proxy variables say: Go's ProxyFromEnvironment
// skips the proxy only for a lower-case "localhost" and loopback IPs, so
// http://LOCALHOST:8080 would go through it.
var direct = func() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = noProxyForLoopback(http.ProxyFromEnvironment)
	return tr
}()

// noProxyForLoopback wraps proxy so that a loopback host, however
// spelled, gets no proxy.
func noProxyForLoopback(proxy func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(r *http.Request) (*url.URL, error) {
		if Loopback(r.URL.Hostname()) {
			return nil, nil
		}
		return proxy(r)
	}
}

// limitedBody fails a read that goes past max bytes.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
	max  int64
	url  string
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err()
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), b.err()
	}
	return n, err
}

func (b *limitedBody) err() error {
	return fmt.Errorf("%s: %w of %d bytes", b.url, ErrTooLarge, b.max)
}

func (b *limitedBody) Close() error { return b.rc.Close() }
