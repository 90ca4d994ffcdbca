package mcp

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

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
	// Stateless serves streamable HTTP without sessions.
	Stateless bool
	// AuthToken, when set, must arrive as "Authorization: Bearer <token>".
	AuthToken string
	// AllowedOrigins are origins (scheme://host[:port]) accepted besides
	// loopback ones.
	AllowedOrigins []string
}

// Handler returns the HTTP handler for the server: /healthz for probes and
// the MCP endpoints behind the Origin, token and body-size checks.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	getServer := func(*http.Request) *sdk.Server { return s.sdk }
	if o.SSE {
		sse := sdk.NewSSEHandler(getServer, &sdk.SSEOptions{MaxRequestBodyBytes: MaxBody})
		mux.Handle("GET /mcp", s.guard(o, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The SDK derives the endpoint it announces from the request
			// path: announce /messages.
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/messages"
			sse.ServeHTTP(w, r2)
		})))
		mux.Handle("POST /messages", s.guard(o, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if id := q.Get("sessionId"); id != "" && q.Get("sessionid") == "" {
				q.Set("sessionid", id)
				r.URL.RawQuery = q.Encode()
			}
			sse.ServeHTTP(w, r)
		})))
	} else {
		h := sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
			Stateless:           o.Stateless,
			MaxRequestBodyBytes: MaxBody,
			Logger:              sdkLogger(s.log),
		})
		mux.Handle("/mcp", s.guard(o, s.countCalls(h)))
	}
	return mux
}

// countCalls makes Drain wait for a POST that carries a tools/call until
// its handler returns, that is, until the response has been written:
// closing the sessions first would drop it.
func (s *Server) countCalls(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(r.Body) // capped by guard
			var rest io.Reader = bytes.NewReader(body)
			if err != nil {
				rest = io.MultiReader(rest, errReader{err}) // the SDK answers the error as before
			}
			r.Body = io.NopCloser(rest)
			if err == nil && isWork(body) {
				s.unanswered.Add(1)
				defer s.unanswered.Add(-1)
			}
		}
		next.ServeHTTP(w, r)
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// isWork reports whether body is a JSON-RPC request that Drain waits for
// (see isWorkMethod).
func isWork(body []byte) bool {
	if !bytes.Contains(body, []byte("tools/call")) && !bytes.Contains(body, []byte("prompts/get")) &&
		!bytes.Contains(body, []byte("resources/read")) {
		return false
	}
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &m) == nil && isWorkMethod(m.Method)
}

// guard applies the Origin check, the bearer token and the body cap.
func (s *Server) guard(o HTTPOptions, next http.Handler) http.Handler {
	allowed := map[string]bool{}
	for _, a := range o.AllowedOrigins {
		allowed[strings.TrimRight(strings.ToLower(a), "/")] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !allowed[strings.ToLower(origin)] && !LoopbackOrigin(origin) {
			s.log.Warn("rejected request from a foreign origin", "origin", origin, "remote", r.RemoteAddr)
			http.Error(w, "forbidden: origin "+origin+" is not allowed (add it to mcp.allowed_origins)", http.StatusForbidden)
			return
		}
		if o.AuthToken != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(o.AuthToken)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="ccski"`)
				http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
				return
			}
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		}
		next.ServeHTTP(w, r)
	})
}

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

// CloseSessions ends every session. Call it before http.Server.Shutdown:
// open streams otherwise hold Shutdown for its whole timeout.
func (s *Server) CloseSessions() {
	for ss := range s.sdk.Sessions() {
		_ = ss.Close()
	}
}
