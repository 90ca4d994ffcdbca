package action

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/web"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// UIRequest makes Serve serve ccski's web page to this machine's browser
// (ccski ui): the http transport, on loopback unless Listen says
// otherwise, behind a token (mcp.auth_token, else a fresh random one each
// run). It is ccski mcp --transport http with the page: /mcp is served
// too, behind the same token.
type UIRequest struct {
	// Listen is the host:port to listen on; "" listens on 127.0.0.1, at
	// Port.
	Listen string
	// Port is the port on 127.0.0.1 when Listen is ""; 0 takes a free one.
	Port int
	// Ready is called once, as soon as the server listens, with the URL
	// to open: the page, with ?code= a one-time code (mcp.LoginCodes)
	// that the first visit, within a minute, exchanges for the page's
	// cookie (and is sent on to the same URL without it). The token
	// itself is in no URL.
	Ready func(pageURL string)
}

// uiAddress is where a ccski ui server listens: req's address, not the
// configuration's mcp.host and mcp.port (ccski ui serves this machine,
// on loopback, whatever a server's ccski.yaml says).
func uiAddress(req *UIRequest) (host string, port int, _ error) {
	host, port = "127.0.0.1", req.Port
	if req.Listen != "" {
		h, p, err := net.SplitHostPort(req.Listen)
		if err != nil {
			return "", 0, usage(fmt.Errorf("invalid --listen %q: give host:port, such as 127.0.0.1:8080 (port 0: a free one)", req.Listen))
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 65535 {
			return "", 0, usage(fmt.Errorf("invalid --listen %q: the port must be a number from 0 to 65535", req.Listen))
		}
		if h == "" {
			h = "127.0.0.1"
		}
		host, port = h, n
	}
	if port < 0 || port > 65535 {
		return "", 0, usage(fmt.Errorf("invalid --port %d: give a number from 0 (a free port) to 65535", port))
	}
	return host, port, nil
}

// newToken is a fresh random token for one run of ccski ui.
func newToken() string { return rand.Text() }

// pageURL is the URL of the page served at addr, with the one-time code
// that sets its cookie. An address listening on every interface is
// visited on loopback.
func pageURL(addr net.Addr, code string) string {
	host := addr.String()
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	u := url.URL{Scheme: "http", Host: host, Path: "/"}
	if code != "" {
		u.RawQuery = url.Values{"code": {code}}.Encode()
	}
	return u.String()
}

// webFacts is the skill page's FactsFunc for the server of e, whose
// snapshots d's subscribers receive: the locks of the project and the
// user, and the hosts of e's environment.
func webFacts(e *engine.Engine, subscribe func(func(*pipeline.Snapshot))) web.FactsFunc {
	var cur atomic.Pointer[pipeline.Snapshot]
	subscribe(func(s *pipeline.Snapshot) { cur.Store(s) })
	env := e.Env()
	return web.NewFacts(web.FactsConfig{Snapshot: cur.Load, Env: env, Locks: lockLayouts(env), Managed: managedTrees(env)})
}

// lockLayouts are the scopes whose locks name what ccski installed: the
// project's, when the workspace is in one, then the user's.
func lockLayouts(env providers.Env) []install.Layout {
	var layouts []install.Layout
	for _, s := range []install.Scope{install.ScopeProject, install.ScopeUser} {
		if l, err := installLayout(env, s); err == nil {
			layouts = append(layouts, l)
		}
	}
	return layouts
}

// BrowserVariable names the command that opens the browser, when set:
// the convention of xdg-open, Python's webbrowser and gh. It may hold
// several commands separated by ':' (';' on Windows), tried in order; "%s" in one stands
// for the URL, else the URL is its last argument.
const BrowserVariable = "BROWSER"

// OpenBrowser opens pageURL in the user's browser: with $BROWSER
// (getenv) when set, else xdg-open on Linux and the BSDs, open on macOS,
// and rundll32's url.dll handler on Windows. Each opener runs in a
// session of its own, tied to no context: stopping ccski ui (Ctrl-C) does
// not stop the browser it opened. OpenBrowser waits for the opener to
// exit (most return once the browser has the URL; a $BROWSER that is the
// browser itself runs as long as it does), so call it beside the server,
// and says why it failed, from the first few KB of the opener's output;
// the caller keeps serving either way.
func OpenBrowser(pageURL string, getenv func(string) string) error {
	var tries [][]string
	if b := getenv(BrowserVariable); b != "" {
		for _, c := range strings.Split(b, string(os.PathListSeparator)) {
			if f := strings.Fields(c); len(f) > 0 {
				tries = append(tries, withURL(f, pageURL))
			}
		}
	}
	if len(tries) == 0 {
		tries = [][]string{opener(runtime.GOOS, pageURL)}
	}
	var errs []error
	for _, argv := range tries {
		out := &headBuffer{max: openerOutput}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = out, out
		detach(cmd)
		err := cmd.Run()
		if err == nil {
			return nil
		}
		if msg := strings.TrimSpace(out.String()); msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		errs = append(errs, fmt.Errorf("%s: %w", argv[0], err))
	}
	return fmt.Errorf("could not open the browser (%w): open the URL yourself", errors.Join(errs...))
}

// openerOutput is how much of an opener's output OpenBrowser keeps, for
// its error: a browser that logs as long as it runs fills no memory.
const openerOutput = 4 << 10

// headBuffer keeps the first max bytes written to it and discards the
// rest, without failing the writer.
type headBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *headBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *headBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// withURL is the command f of $BROWSER given u: in place of each %s, or
// as its last argument.
func withURL(f []string, u string) []string {
	out, put := make([]string, 0, len(f)+1), false
	for _, a := range f {
		if strings.Contains(a, "%s") {
			a, put = strings.ReplaceAll(a, "%s", u), true
		}
		out = append(out, a)
	}
	if !put {
		out = append(out, u)
	}
	return out
}

// opener is the system's command that opens u in the default browser.
func opener(goos, u string) []string {
	switch goos {
	case "darwin":
		return []string{"open", u}
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", u}
	}
	return []string{"xdg-open", u}
}
