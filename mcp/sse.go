package mcp

// The HTTP+SSE transport of protocol 2024-11-05, which hosts still reach
// through the go-sdk client's fallback: GET /mcp opens a session's stream,
// whose first event names the endpoint (/messages?sessionid=<id>) the
// client POSTs its messages to; every answer goes out on the stream.
//
// The go-sdk's SSEHandler checks each request POSTed to it against the
// standard MCP methods only, not against the server's method table: it
// refused the Skills extension's methods (skills/list, skills/get,
// resources/directory/read, which initSkills registers with
// AddReceivingCustomMethod and the server declares) with HTTP 400 "JSON
// RPC not handled", and answered an unknown method with HTTP 400 and
// plain text where stdio answers -32601. sseHandler hands every
// well-formed message to the session instead, as the stdio and streamable
// HTTP transports do: the session dispatches it through the server's one
// method table and answers on the stream, -32601 for a method it does
// not serve. What cannot reach a session (a body that is no JSON-RPC
// message, no session or an unknown one) is answered on the POST itself,
// with a JSON-RPC error, the code streamable HTTP gives the same mistake:
// no session -32000, an unknown or ended one HTTP 404 and -32001.
// docs/upstream/sse-custom-methods.patch makes the
// SDK's own handler check requests against the server's method table.

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sseQueue is how many messages of a session wait for the server at most;
// a POST beyond them waits for room.
const sseQueue = 100

// sseHandler serves the SSE transport: GET opens a session, POST delivers
// a message to the session its sessionid query parameter names. endpoint
// is the path the stream announces for the POSTs.
type sseHandler struct {
	server   *sdk.Server
	endpoint string

	mu       sync.Mutex
	sessions map[string]*sseSession
}

func newSSEHandler(server *sdk.Server, endpoint string) *sseHandler {
	return &sseHandler{server: server, endpoint: endpoint, sessions: map[string]*sseSession{}}
}

// sseSession is the message queue of one SSE session.
type sseSession struct {
	in     chan jsonrpc.Message
	done   chan struct{} // closed when the session ends
	ending sync.Once
}

func (s *sseSession) end() { s.ending.Do(func() { close(s.done) }) }

func (h *sseHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// DNS rebinding: a request that reached a loopback address under a
	// name that is not loopback came through a name an attacker controls.
	if rebound(r) {
		http.Error(w, fmt.Sprintf("forbidden: Host %q is not a loopback name, on a loopback address", r.Host), http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.open(w, r)
	case http.MethodPost:
		h.deliver(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed: GET opens an SSE session, POST delivers a message to one", http.StatusMethodNotAllowed)
	}
}

// loopbackAddr reports whether addr (host or host:port) is a loopback
// name or address.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return LoopbackHost(strings.Trim(host, "[]"))
}

// open serves the GET of a new session: the endpoint event, then the
// session's messages, until the client goes or the session is closed.
func (h *sseHandler) open(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	id := rand.Text()
	sess := &sseSession{in: make(chan jsonrpc.Message, sseQueue), done: make(chan struct{})}
	// The session takes messages as soon as its endpoint is announced,
	// which Connect does.
	h.mu.Lock()
	h.sessions[id] = sess
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.sessions, id)
		h.mu.Unlock()
	}()
	t := &sseTransport{
		stream: &sdk.SSEServerTransport{Endpoint: h.endpoint + "?sessionid=" + id, Response: w, MaxRequestBodyBytes: MaxBody},
		id:     id,
		sess:   sess,
	}
	ss, err := h.server.Connect(r.Context(), t, nil)
	if err != nil {
		sess.end()
		http.Error(w, "internal error: the session could not start: "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer ss.Close() // ends the stream's writes before the GET returns
	select {
	case <-r.Context().Done():
	case <-sess.done:
	}
}

// deliver serves a POST: the message goes to its session, which answers
// on the stream.
func (h *sseHandler) deliver(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeRPCError(w, http.StatusUnsupportedMediaType, nil, jsonrpc.CodeInvalidRequest,
			"invalid request: the Content-Type must be application/json")
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("invalid request: the body is over %d bytes", mbe.Limit))
			return
		}
		writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest, "invalid request: the body could not be read: "+err.Error())
		return
	}
	id := r.URL.Query().Get("sessionid")
	if id == "" {
		writeRPCError(w, http.StatusBadRequest, idOf(data), codeNoSession,
			"Bad Request: no sessionId: POST to the endpoint that the stream GET /mcp opens announces")
		return
	}
	h.mu.Lock()
	sess := h.sessions[id]
	h.mu.Unlock()
	if sess == nil {
		writeRPCError(w, http.StatusNotFound, idOf(data), codeSessionNotFound,
			fmt.Sprintf("Session not found: session %q is not open (it ended or was closed); open a new one with GET /mcp", id))
		return
	}
	msg, code, why := decodeSSEMessage(data)
	if msg == nil {
		writeRPCError(w, http.StatusBadRequest, idOf(data), code, why)
		return
	}
	select {
	case sess.in <- msg:
		w.WriteHeader(http.StatusAccepted)
	case <-sess.done:
		writeRPCError(w, http.StatusNotFound, idOf(data), codeSessionNotFound,
			fmt.Sprintf("Session not found: session %q ended; open a new one with GET /mcp", id))
	case <-r.Context().Done():
	}
}

// decodeSSEMessage decodes the body of a POST: one JSON-RPC message. When
// it is none, it returns the JSON-RPC error code and message that say why.
func decodeSSEMessage(data []byte) (jsonrpc.Message, int64, string) {
	trimmed := strings.TrimLeft(string(data[:min(len(data), 64)]), " \t\r\n")
	switch {
	case !json.Valid(data):
		return nil, jsonrpc.CodeParseError, "parse error: the body is not JSON"
	case strings.HasPrefix(trimmed, "["):
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC batch; over SSE, POST one message at a time"
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	if why := invalidResponse(msg, data); why != "" { // as stdio and streamable HTTP word it
		return nil, jsonrpc.CodeInvalidRequest, why
	}
	return msg, 0, ""
}

// sseTransport is one SSE session's sdk.Transport: the SDK's
// SSEServerTransport writes the stream (the endpoint event, then each
// message), and the session's queue, which deliver fills, is what it
// reads.
type sseTransport struct {
	stream *sdk.SSEServerTransport
	id     string
	sess   *sseSession
}

var (
	_ sdk.Transport                = (*sseTransport)(nil)
	_ sdk.ProtocolVersionSupporter = (*sseTransport)(nil)
	_ sdk.Connection               = (*sseConn)(nil)
)

func (t *sseTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.stream.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &sseConn{Connection: conn, id: t.id, sess: t.sess}, nil
}

// SupportsProtocolVersion is the SDK's answer: protocol 2026-07-28 has
// no SSE transport.
func (t *sseTransport) SupportsProtocolVersion(version string) bool {
	return t.stream.SupportsProtocolVersion(version)
}

// sseConn reads the session's queue and writes through the SDK's
// connection.
type sseConn struct {
	sdk.Connection
	id   string
	sess *sseSession
}

func (c *sseConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case msg := <-c.sess.in:
		return msg, nil
	case <-c.sess.done:
		return nil, io.EOF
	}
}

// Write sends msg on the stream, an error response without a JSON-RPC
// code given the one every transport gives it (withCode).
func (c *sseConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	return c.Connection.Write(ctx, withCode(msg))
}

// Close ends the session: its GET returns, and its queue takes no more.
func (c *sseConn) Close() error {
	c.sess.end()
	return c.Connection.Close()
}

// SessionID is the id the endpoint carries (the SDK's own connection
// gives none).
func (c *sseConn) SessionID() string { return c.id }
