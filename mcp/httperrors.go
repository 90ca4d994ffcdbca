package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// JSON-RPC error codes of the streamable HTTP front beyond those of
// JSON-RPC itself, as the TypeScript reference server answers them: a
// request that needs a session and names none, and a session the server
// does not know (ended, or never started).
const (
	codeNoSession       = -32000
	codeSessionNotFound = -32001
)

// checkPost answers the mistakes in a streamable HTTP POST that the
// go-sdk would answer wrongly or not at all, and reports whether the
// request goes on, as the request it returns (its mirrored headers
// decoded; see decodeMirrored):
//   - a message that is neither a request nor a response (no method, and
//     no result or error): the SDK takes it for a response and answers
//     202, so the client waits forever. It gets HTTP 400 and -32600.
//   - a 2026-07-28 request whose Mcp-Method or Mcp-Name header is wrapped
//     as =?base64?…?= but is no Base64: HTTP 400 and -32020
//     (HeaderMismatch).
//   - when session is set (the request goes to the stateful handler), a
//     request that needs a session (see needsSession) without an
//     Mcp-Session-Id: the SDK starts a session for
//     it that is never initialized and answers with error code 0, which
//     JSON-RPC does not define. It gets HTTP 400 and -32000, as the
//     TypeScript reference answers it.
func (s *Server) checkPost(w http.ResponseWriter, r *http.Request, body *postBody, session bool) (*http.Request, bool) {
	if r.Method != http.MethodPost {
		return r, true
	}
	if id, why := body.invalid(); why != "" {
		s.log.Debug("answered an invalid JSON-RPC message", "error", why, "remote", r.RemoteAddr)
		writeRPCError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, why)
		return nil, false
	}
	decoded, err := decodeMirrored(r)
	if err != nil {
		s.log.Debug("answered a request whose header does not decode", "error", err, "remote", r.RemoteAddr)
		refuseHeader(w, body, err)
		return nil, false
	}
	r = decoded
	if session && r.Header.Get(sessionHeader) == "" && body.needsSession() {
		s.log.Debug("answered a request without a session", "remote", r.RemoteAddr)
		writeRPCError(w, http.StatusBadRequest, body.singleID(), codeNoSession,
			"Bad Request: No valid session ID provided (send initialize first, then the Mcp-Session-Id "+
				"header it answers with on every request of the session)")
		return nil, false
	}
	return r, true
}

// needsSession reports whether the body holds a request that only a
// session can answer: any but initialize, which starts one, ping, which a
// client may send at any time (the SDK answers it without a session), and
// server/discover, which a client of either era may send to learn which
// it speaks (the SDK answers it).
func (b *postBody) needsSession() bool {
	if b.initializes() {
		return false
	}
	for _, m := range b.messages() {
		switch m.Method {
		case "", "ping", "server/discover":
			continue
		}
		if len(m.ID) > 0 && string(m.ID) != "null" {
			return true
		}
	}
	return false
}

// rpcErrorWriter passes the go-sdk's answer to a streamable HTTP POST
// through, except the plain-text errors it gives to JSON-RPC mistakes,
// which finish turns into JSON-RPC error responses (see translate): a
// JSON-RPC client reads an error code, not prose. Other answers, and
// plain-text errors it does not know, go out as the SDK wrote them.
type rpcErrorWriter struct {
	http.ResponseWriter
	body   *postBody
	status int          // the held answer's status; 0 when none is held
	held   bytes.Buffer // the held answer's text
	code   int          // the status the SDK gave, held or not; 0 before it gave one
}

func (w *rpcErrorWriter) WriteHeader(code int) {
	if w.code != 0 {
		return
	}
	w.code = code
	if (code == http.StatusBadRequest || code == http.StatusNotFound) &&
		strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rpcErrorWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.status != 0 {
		return w.held.Write(p)
	}
	if _, err := w.ResponseWriter.Write(withEventCodes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// withEventCodes is withCodes over what the go-sdk writes in one Write:
// a whole JSON body, or a whole event of an SSE stream, whose data lines
// it applies withCodes to.
func withEventCodes(p []byte) []byte {
	if !needsFix(p) {
		return p
	}
	if body := bytes.TrimSpace(p); len(body) > 0 && (body[0] == '{' || body[0] == '[') {
		return withCodes(p)
	}
	lines := bytes.Split(p, []byte("\n"))
	for i, line := range lines {
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			lines[i] = append([]byte("data: "), withCodes(data)...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// Flush lets the SDK stream events through the wrapper.
func (w *rpcErrorWriter) Flush() {
	if w.status != 0 {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes the held answer, if any, once the SDK's handler returned.
func (w *rpcErrorWriter) finish() {
	if w.status == 0 {
		return
	}
	text := strings.TrimSpace(w.held.String())
	status, code, msg, ok := translate(w.status, text, w.body)
	switch {
	case !ok:
		w.ResponseWriter.WriteHeader(w.status)
		_, _ = w.ResponseWriter.Write(w.held.Bytes())
	case code == 0:
		w.Header().Del("Content-Type")
		w.Header().Del("X-Content-Type-Options")
		w.ResponseWriter.WriteHeader(status)
	default:
		writeRPCError(w.ResponseWriter, status, w.body.singleID(), code, msg)
	}
}

// The plain-text errors of the go-sdk's streamable HTTP handler that
// translate reads (their beginnings).
const (
	sdkNotHandled     = "JSON RPC not handled"
	sdkInvalidRequest = "invalid request"
	sdkMalformed      = "malformed payload"
	sdkBatching       = "JSON-RPC batching is not supported"
)

// translate returns the answer to give in place of the go-sdk's plain-text
// error text under status for body: an HTTP status and a JSON-RPC error
// code and message, as stdio answers the same message; code 0 means an
// empty answer under status. ok is false for a text it does not know.
//   - 404: the session named is unknown, ended or ending. HTTP 404 (which
//     tells a client to start a new session) and -32001.
//   - a method the server does not serve: over stdio the SDK answers a
//     request -32601 and ignores a notification; over HTTP it answers
//     HTTP 400 in plain text (a 2026-07-28 request aside, which it
//     answers 404 and -32601 itself). A request gets -32601 under HTTP
//     200, its answer in the 2025 revisions (HTTP 404 would tell the
//     client its session is gone); a body of notifications alone is
//     accepted (202) and ignored; a batch gets HTTP 400 and -32601.
//   - a request the SDK finds invalid (a notification with an id, a call
//     without params it needs): HTTP 400 and -32600.
//   - a body that is no JSON-RPC: HTTP 400 and -32700 when it is not
//     JSON, else -32600.
//   - a batch in protocol 2025-06-18 or later, which has none: HTTP 400
//     and -32600 with a null id, worded as stdio words it (noBatches).
func translate(status int, text string, body *postBody) (int, int64, string, bool) {
	if status == http.StatusNotFound {
		return http.StatusNotFound, codeSessionNotFound,
			"Session not found: it ended or never existed; send initialize to start a new one", true
	}
	switch {
	case strings.HasPrefix(text, sdkNotHandled):
		switch {
		case body.batch():
			return http.StatusBadRequest, jsonrpc.CodeMethodNotFound, methodNotFound(text), true
		case !body.asks():
			return http.StatusAccepted, 0, "", true
		}
		return http.StatusOK, jsonrpc.CodeMethodNotFound, methodNotFound(text), true
	case strings.HasPrefix(text, sdkInvalidRequest):
		return http.StatusBadRequest, jsonrpc.CodeInvalidRequest, text, true
	case strings.HasPrefix(text, sdkBatching):
		_, rest, _ := strings.Cut(text, "request version: ")
		version, _, _ := strings.Cut(rest, ")")
		return http.StatusBadRequest, jsonrpc.CodeInvalidRequest, noBatches(version), true
	case strings.HasPrefix(text, sdkMalformed):
		if !json.Valid(body.raw) {
			return http.StatusBadRequest, jsonrpc.CodeParseError, "parse error: the body is not JSON", true
		}
		return http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "invalid request: " + strings.TrimPrefix(text, sdkMalformed+": "), true
	}
	return 0, 0, "", false
}

// methodNotFound words the SDK's "JSON RPC not handled: "m" unsupported"
// as stdio does: method not found: "m".
func methodNotFound(text string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(text, sdkNotHandled), ": ")
	return "method not found: " + strings.TrimSuffix(rest, " unsupported")
}
