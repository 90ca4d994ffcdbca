package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ccski/ccski/internal/web"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxBody caps the size of one HTTP request body.
const MaxBody = 4 << 20

// HTTPOptions configure the HTTP front.
type HTTPOptions struct {
	// SSE serves the legacy SSE transport (GET /mcp opens a stream,
	// POST /messages?sessionId=<id> delivers messages) instead of
	// streamable HTTP at /mcp.
	SSE bool
	// Stateless serves every streamable HTTP request without a session,
	// for replicas behind a load balancer. By default clients of protocol
	// 2026-07-28 are served without a session and older clients get one
	// (see streamable); stateless, older clients get no list_changed.
	Stateless bool
	// AuthToken, when set, must arrive as "Authorization: Bearer <token>"
	// (the web page also takes its session cookie, which its sign-in form
	// or a code of LoginCodes sets).
	AuthToken string
	// LoginCodes, when set, are the one-time codes that let a browser into
	// the web page without the token (ccski ui's link).
	LoginCodes *LoginCodes
	// AllowedOrigins are origins (scheme://host[:port]) accepted besides
	// loopback ones.
	AllowedOrigins []string
	// SessionIdleTimeout closes a streamable HTTP session with no request
	// open (a GET stream counts) for this long; 0 never does. MaxSessions
	// caps the live sessions, streamable or SSE: a request that would start
	// one more closes the session that has gone longest without a request
	// of its own (a GET stream held open counts as idle here), and is
	// refused with HTTP 503 only when every session has a call in flight;
	// 0 means no cap. See sessionLimiter.
	SessionIdleTimeout time.Duration
	MaxSessions        int
	// BodyTimeout bounds the wait for a request's body once its headers
	// are in (DefaultBodyTimeout when 0, none when negative): a body that
	// does not arrive in time is answered 408 and its connection closed.
	// IdleTimeout closes a kept-alive connection with no request for this
	// long (DefaultIdleTimeout when 0, never when negative), and MaxConns
	// caps the connections open at once (DefaultMaxConns when 0; see
	// connGate); those two apply to the server Serve runs.
	BodyTimeout time.Duration
	IdleTimeout time.Duration
	MaxConns    int
	// Web, when set, serves the skills catalogue (package internal/web)
	// at / and the page's other routes, behind webGuard; nil serves no
	// page (mcp.web: false).
	Web *web.Options
}

// Handler returns the HTTP handler for the server: /healthz and /readyz
// for probes, /metrics and the MCP endpoints behind the Origin, token and
// body-size checks, and with o.Web the web catalogue at / (webGuard).
func (s *Server) Handler(o HTTPOptions) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	s.serveWellKnown(mux, o) // the Agent Skills Discovery index (wellknown.go)
	s.serveOps(mux, o)       // /readyz and /metrics (metrics.go)
	if o.Web != nil {
		// The page's headers stand outside its guard: the guard's own
		// answers (401, 403, the 303 that sets the cookie) carry them too.
		mux.Handle("/", web.Headers(s.webGuard(o, web.Handler(webSource{s}, *o.Web))))
	}
	if o.SSE {
		sse := newSSEHandler(s.sdk, "/messages")
		sessions := newSessionLimiter(s, 0, o.MaxSessions) // a session lives as long as its stream
		mux.Handle("GET /mcp", s.observeMistakes(s.guard(o, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sessions.serveSSE(w, r, sse)
		}))))
		mux.Handle("POST /messages", s.observeMistakes(s.guard(o, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if id := q.Get("sessionId"); id != "" && q.Get("sessionid") == "" {
				q.Set("sessionid", id)
				r.URL.RawQuery = q.Encode()
			}
			sessions.serveSSEMessage(w, r, q.Get("sessionid"), sse)
		}))))
	} else {
		getServer := func(*http.Request) *sdk.Server { return s.sdk }
		mux.Handle("/mcp", s.observeMistakes(s.guard(o, s.streamable(o, getServer))))
	}
	return mux
}

// statelessEra is the first protocol revision without sessions (SEP-2575):
// its clients send no initialize and no Mcp-Session-Id, and name the
// version in every request. The SDK does not export the constant.
const statelessEra = "2026-07-28"

// The streamable HTTP headers the router reads.
const (
	sessionHeader   = "Mcp-Session-Id"
	protocolHeader  = "Mcp-Protocol-Version"
	lastEventHeader = "Last-Event-ID"
)

// streamable serves streamable HTTP at /mcp. By default it speaks both
// protocol eras on the one endpoint: requests of the stateless era
// (newEra) go to a stateless handler, everything else (initialize, the
// requests of a session, its GET stream and DELETE) to a stateful one; the
// go-sdk's stateful handler alone refuses 2026-07-28 clients, and its
// stateless one gives 2025 clients no session to push list_changed to.
// With o.Stateless every request goes to the stateless handler. Both
// handlers serve the one *sdk.Server, so CloseSessions and the tool-list
// notifications reach the sessions of both. The stateful handler's
// sessions are bounded by o.SessionIdleTimeout and o.MaxSessions
// (sessionLimiter). Their SSE streams are resumable: primed, with a retry
// field (resume.go).
//
// The body of a POST is read once here: Drain waits for one that carries
// a tools/call until its handler returns, that is, until the response has
// been written (closing the sessions first would drop it), and the era of
// a request without a session is read from it.
func (s *Server) streamable(o HTTPOptions, getServer func(*http.Request) *sdk.Server) http.Handler {
	opts := func(stateless bool) *sdk.StreamableHTTPOptions {
		return &sdk.StreamableHTTPOptions{Stateless: stateless, MaxRequestBodyBytes: MaxBody, Logger: s.ops.sdk()}
	}
	stateless := sdk.NewStreamableHTTPHandler(getServer, opts(true))
	var stateful http.Handler
	var store *streamStore
	sessions := newSessionLimiter(s, o.SessionIdleTimeout, o.MaxSessions)
	if !o.Stateless {
		so := opts(false)
		store = newStreamStore(keptStreams, keptBytes)
		so.EventStore = store // resumable streams, primed (resume.go)
		stateful = sdk.NewStreamableHTTPHandler(getServer, so)
		s.gate.streams.Store(sessions)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := &postBody{}
		if rb, ok := r.Body.(*readBody); ok && r.Method == http.MethodPost && rb.err == nil {
			body.raw = rb.raw // read by guard
		}
		if body.isWork() {
			s.unanswered.Add(1)
			defer s.unanswered.Add(-1)
		}
		toStateful := stateful != nil && !newEra(r, body)
		r, ok := s.checkPost(w, r, body, toStateful)
		if !ok {
			return
		}
		ew := &rpcErrorWriter{ResponseWriter: w, body: body}
		defer ew.finish()
		if toStateful {
			if id := r.Header.Get(sessionHeader); id != "" && r.Method == http.MethodGet && listens(r) {
				// Once the GET is over, its client was offered what the
				// stream holds; a GET refused (400, 404, 409) was offered
				// nothing, and the next one still gets it.
				defer func() {
					if ew.code == http.StatusOK {
						store.offered(id)
					}
				}()
			}
			sessions.serve(&retryWriter{ResponseWriter: ew}, r, body, stateful)
			return
		}
		stateless.ServeHTTP(ew, r)
	})
}

// listens reports whether r, a GET, is for a session's own stream (not
// to resume the answer to a POST): it has no Last-Event-ID, or one of
// the SDK's stream "" ("_<index>").
func listens(r *http.Request) bool {
	return len(r.Header.Values(lastEventHeader)) == 0 || strings.HasPrefix(r.Header.Get(lastEventHeader), "_")
}

// newEra reports whether r comes from a client of the stateless era. It
// applies the test the SDK's stateful handler applies before it refuses a
// request: an Mcp-Protocol-Version header of 2026-07-28 or later, or a
// request whose _meta names a protocol version (sdk.MetaKeyProtocolVersion).
// A request with an Mcp-Session-Id belongs to a session of the stateful
// handler, whatever else it carries.
func newEra(r *http.Request, body *postBody) bool {
	if r.Header.Get(sessionHeader) != "" {
		return false
	}
	if r.Header.Get(protocolHeader) >= statelessEra {
		return true
	}
	for _, m := range body.messages() {
		if m.Method != "" && m.metaVersion() != "" {
			return true
		}
	}
	return false
}

// postBody is the body of a POST, read in full, with its JSON-RPC messages
// decoded on first use. raw is nil when the body could not be read.
type postBody struct {
	raw     []byte
	decoded bool
	msgs    []rpcMessage
}

// rpcMessage is what the HTTP front reads of a JSON-RPC message.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// messages returns the body's messages: one, or those of a batch; none
// when it is not JSON-RPC (the SDK then answers the error).
func (b *postBody) messages() []rpcMessage {
	if b.decoded {
		return b.msgs
	}
	b.decoded = true
	raw := bytes.TrimLeft(b.raw, " \t\r\n")
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '[' {
		if json.Unmarshal(raw, &b.msgs) != nil {
			b.msgs = nil
		}
		return b.msgs
	}
	var m rpcMessage
	if json.Unmarshal(raw, &m) == nil {
		b.msgs = []rpcMessage{m}
	}
	return b.msgs
}

// metaVersion returns the protocol version the message's _meta names, as
// the SDK reads it; "" when there is none.
func (m rpcMessage) metaVersion() string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(m.Params) == 0 || json.Unmarshal(m.Params, &p) != nil {
		return ""
	}
	var v string
	_ = json.Unmarshal(p.Meta[sdk.MetaKeyProtocolVersion], &v)
	return v
}

// singleID returns the id of the body's one message when it has a usable
// one; nil (null) for a batch, or a body that is no JSON-RPC.
func (b *postBody) singleID() json.RawMessage {
	if b.batch() {
		return nil
	}
	return idOf(b.raw)
}

// batch reports whether the body is a JSON-RPC batch (an array).
func (b *postBody) batch() bool {
	raw := bytes.TrimLeft(b.raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '['
}

// invalid returns the first message of the body that is neither a request
// nor a response, with its id and why (see invalidMessage); why is ""
// when there is none.
func (b *postBody) invalid() (id json.RawMessage, why string) {
	suspect := false
	for _, m := range b.messages() {
		suspect = suspect || m.Method == ""
	}
	if !suspect {
		return nil, ""
	}
	raw := bytes.TrimLeft(b.raw, " \t\r\n")
	msgs := []json.RawMessage{raw}
	if raw[0] == '[' && json.Unmarshal(raw, &msgs) != nil {
		return nil, ""
	}
	for _, m := range msgs {
		if why := invalidMessage(m); why != "" {
			return idOf(m), why
		}
	}
	return nil, ""
}

// initializes reports whether the body holds an initialize request, the
// one request that starts a lasting session.
func (b *postBody) initializes() bool {
	if !bytes.Contains(b.raw, []byte("initialize")) {
		return false
	}
	for _, m := range b.messages() {
		if m.Method == "initialize" {
			return true
		}
	}
	return false
}

// asks reports whether the body holds a JSON-RPC request, which the
// client waits to be answered (not only notifications, or answers to the
// server's own requests).
func (b *postBody) asks() bool {
	for _, m := range b.messages() {
		if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			return true
		}
	}
	return false
}

// isWork reports whether the body holds a JSON-RPC request that Drain
// waits for (see isWorkMethod).
func (b *postBody) isWork() bool {
	if !bytes.Contains(b.raw, []byte("tools/call")) && !bytes.Contains(b.raw, []byte("prompts/get")) &&
		!bytes.Contains(b.raw, []byte("resources/read")) {
		return false
	}
	for _, m := range b.messages() {
		if isWorkMethod(m.Method) {
			return true
		}
	}
	return false
}

// longLived reports whether r, its body read, may last as long as its
// client wants: a GET (a session's stream, an SSE session), a
// subscriptions/listen stream, or a call of ask, which waits for the
// client's own model (see serving).
func longLived(r *http.Request) bool {
	if r.Method == http.MethodGet {
		return true
	}
	rb, ok := r.Body.(*readBody)
	if !ok || rb.err != nil {
		return false
	}
	return (&postBody{raw: rb.raw}).waitsOnClient()
}

// waitsOnClient reports whether the body holds a request whose end is up
// to the client: a subscriptions/listen stream, or a call of ask (its
// answer waits for the client's model).
func (b *postBody) waitsOnClient() bool {
	if !bytes.Contains(b.raw, []byte("subscriptions/listen")) && !bytes.Contains(b.raw, []byte(ToolAsk)) {
		return false
	}
	for _, m := range b.messages() {
		switch m.Method {
		case "subscriptions/listen":
			return true
		case "tools/call":
			var p struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(m.Params, &p) == nil && p.Name == ToolAsk {
				return true
			}
		}
	}
	return false
}

// guard applies the Origin check, the bearer token, and the body's cap
// and deadline. Its refusals are the client's mistakes, logged as such
// (observeMistakes).
func (s *Server) guard(o HTTPOptions, next http.Handler) http.Handler {
	allowed := allowedOrigins(o)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.refuseOrigin(w, r, allowed) {
			return
		}
		if o.AuthToken != "" {
			if !bearerOK(r, o.AuthToken) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="ccski"`)
				http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
				return
			}
		}
		if r.Body != nil && r.Body != http.NoBody && !s.readBody(w, r, o.BodyTimeout) {
			return
		}
		serving(r.Context(), longLived(r))
		next.ServeHTTP(w, r)
	})
}

// allowedOrigins are the origins o accepts besides loopback ones, lower
// case, without a trailing slash.
func allowedOrigins(o HTTPOptions) map[string]bool {
	allowed := map[string]bool{}
	for _, a := range o.AllowedOrigins {
		allowed[strings.TrimRight(strings.ToLower(a), "/")] = true
	}
	return allowed
}

// refuseOrigin answers 403 to a request from a foreign origin (neither
// loopback nor allowed) and reports whether it did.
func (s *Server) refuseOrigin(w http.ResponseWriter, r *http.Request, allowed map[string]bool) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || allowed[strings.ToLower(origin)] || LoopbackOrigin(origin) {
		return false
	}
	// A page of another site, through the user's browser: logged once per
	// origin.
	s.ops.clientMistake(r.Context(), client{"origin", origin}, "request from a foreign origin refused",
		"remote", r.RemoteAddr)
	loggedMistake(w)
	http.Error(w, "forbidden: origin "+origin+" is not allowed (add it to mcp.allowed_origins)", http.StatusForbidden)
	return true
}

// readBody reads r's body in full, up to MaxBody, and puts it back as a
// *readBody for the handlers. The body must arrive within timeout
// (DefaultBodyTimeout when 0, no limit when negative), or the request is
// answered 408 and its connection closed: a client that sends its body
// slowly, or stops halfway, holds its connection that long at most. An
// error other than the timeout (a body over the cap) is left for the
// handlers to answer, after the bytes read before it. It reports whether
// the request goes on.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, timeout time.Duration) bool {
	if timeout == 0 {
		timeout = DefaultBodyTimeout
	}
	rc := http.NewResponseController(w)
	deadline := timeout > 0 && rc.SetReadDeadline(time.Now().Add(timeout)) == nil
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		// The deadline stays passed: net/http reads no more of the body
		// before it closes the connection.
		// Logged as the client's mistake (observeMistakes).
		w.Header().Set("Connection", "close")
		http.Error(w, fmt.Sprintf("request timeout: the body did not arrive within %v", timeout), http.StatusRequestTimeout)
		return false
	}
	if deadline {
		// The rest of the request (a stream) has no deadline: the
		// connection's background read must not end it.
		_ = rc.SetReadDeadline(time.Time{})
	}
	r.Body = &readBody{raw: raw, rest: bytes.NewReader(raw), err: err}
	return true
}

// readBody is a request body read in full by guard: raw, then err if the
// read failed.
type readBody struct {
	raw  []byte
	rest *bytes.Reader
	err  error
}

func (b *readBody) Read(p []byte) (int, error) {
	n, err := b.rest.Read(p)
	if err == io.EOF && b.err != nil {
		return n, b.err // the SDK answers it as before (413 for a body over the cap)
	}
	return n, err
}

func (b *readBody) Close() error { return nil }

// LoopbackOrigin reports whether origin names a loopback host
// (localhost, 127.0.0.0/8 or ::1), on any port.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return LoopbackHost(u.Hostname())
}

// LoopbackHost reports whether host is localhost or a loopback address.
func LoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CloseSessions ends every session: those of 2025-era clients, with their
// GET streams, and the per-request sessions of the stateless handler, among
// them every open subscriptions/listen stream of a 2026-07-28 client. Call
// it before http.Server.Shutdown: open streams otherwise hold Shutdown for
// its whole timeout.
func (s *Server) CloseSessions() {
	for ss := range s.sdk.Sessions() {
		_ = ss.Close()
	}
}
