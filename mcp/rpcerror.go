package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// idOf returns the id of a malformed message when it is a string or a
// number, else null.
func idOf(raw []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// errorResponse is a JSON-RPC error response to the request whose id is
// id (nil: null, for a request whose id is unusable or missing).
func errorResponse(id json.RawMessage, code int64, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg}})
	return b
}

// writeRPCError answers an HTTP request with a JSON-RPC error response
// under status.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	h := w.Header()
	h.Del("Content-Length")
	h.Del("X-Content-Type-Options")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorResponse(id, code, msg))
}

// invalidMessage reports why raw, one JSON-RPC message decoded as JSON,
// is neither a request (it names a method) nor a response (it carries
// exactly one of result and error), or "" when it is one of them. The
// go-sdk reads a message without a method as a response, and drops a
// response nobody waits for: a request that forgot its method was never
// answered.
func invalidMessage(raw []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "" // not an object: the SDK's decoder says what is wrong
	}
	if _, ok := m["method"]; ok {
		return ""
	}
	_, result := m["result"]
	_, failed := m["error"]
	switch {
	case result && failed:
		return `invalid request: a response carries "result" or "error", not both`
	case !result && !failed:
		return `invalid request: no "method" (a request names its method; a response carries "result" or "error")`
	}
	return ""
}

// codelessErrors is which code each mistake gets that the go-sdk answers
// with error code 0, which JSON-RPC does not define: the one table all
// three transports answer by (withCode, withCodes). Each row is the start
// of the SDK's message, or a part of it. Any other error without a code
// is a fault of the server: -32603.
var codelessErrors = []struct {
	text string
	code int64
}{
	// A request that needs the session before initialize succeeded.
	{"is invalid during session initialization", jsonrpc.CodeInvalidRequest},
	// An initialize once the session is initialized.
	{`duplicate "initialize" received`, jsonrpc.CodeInvalidRequest},
	// An initialize with "params": null: as for any other method whose
	// params are missing.
	{`handling 'initialize': missing required "params"`, jsonrpc.CodeInvalidRequest},
	// An initialize whose params do not decode.
	{"handling 'initialize': unmarshaling", jsonrpc.CodeInvalidParams},
}

// codeFor returns the JSON-RPC code of an error the SDK gave code 0,
// from its message (see codelessErrors).
func codeFor(message string) int64 {
	for _, e := range codelessErrors {
		if strings.Contains(message, e.text) {
			return e.code
		}
	}
	return jsonrpc.CodeInternalError
}

// withCode returns msg, or in place of an error response whose code is 0
// the same response with the code codeFor gives. An unknown method the
// SDK words in its own way ("JSON RPC not handled: …", as it answers a
// 2026-07-28 request over HTTP) is worded as everywhere else
// (methodNotFound).
func withCode(msg jsonrpc.Message) jsonrpc.Message {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error == nil {
		return msg
	}
	var we *jsonrpc.Error
	if errors.As(resp.Error, &we) && we.Code != 0 {
		if we.Code != jsonrpc.CodeMethodNotFound || !strings.HasPrefix(resp.Error.Error(), sdkNotHandled) {
			return msg
		}
		return &jsonrpc.Response{ID: resp.ID, Extra: resp.Extra,
			Error: &jsonrpc.Error{Code: we.Code, Message: methodNotFound(resp.Error.Error()), Data: we.Data}}
	}
	e := &jsonrpc.Error{Code: codeFor(resp.Error.Error()), Message: resp.Error.Error()}
	if we != nil {
		e.Data = we.Data
	}
	return &jsonrpc.Response{ID: resp.ID, Error: e, Extra: resp.Extra}
}

// codeZero is how the SDK encodes an error response with code 0, and
// notHandled how it begins the message of an unknown method.
var (
	codeZero   = []byte(`"error":{"code":0,`)
	notHandled = []byte(`"message":"` + sdkNotHandled)
)

// needsFix reports whether p may hold an error response withCode changes.
func needsFix(p []byte) bool { return bytes.Contains(p, codeZero) || bytes.Contains(p, notHandled) }

// withCodes is withCode over encoded bytes: p, one JSON-RPC message or a
// batch of them (with any whitespace around it), comes back with each
// error response of code 0 given its code, or unchanged (the same slice)
// when it holds none. Only error responses are decoded: a result, however
// long, is passed over.
func withCodes(p []byte) []byte {
	if !needsFix(p) {
		return p
	}
	body := bytes.TrimSpace(p)
	start := bytes.Index(p, body)
	fixed, ok := fixCodes(body)
	if !ok {
		return p
	}
	out := append([]byte{}, p[:start]...)
	out = append(out, fixed...)
	return append(out, p[start+len(body):]...)
}

// rawBytes is batch as byte slices, for bytes.Join.
func rawBytes(batch []json.RawMessage) [][]byte {
	out := make([][]byte, len(batch))
	for i, raw := range batch {
		out[i] = raw
	}
	return out
}

// fixCodes gives the error responses of code 0 in body, one message or a
// batch, their code; ok is false when there was none to fix.
func fixCodes(body []byte) ([]byte, bool) {
	if len(body) > 0 && body[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) != nil {
			return nil, false
		}
		fixed := false
		for i, raw := range batch {
			if f, ok := fixCodes(raw); ok {
				batch[i], fixed = f, true
			}
		}
		if !fixed {
			return nil, false
		}
		// Joined by hand: json.Marshal would escape the others' HTML.
		out := append([]byte{'['}, bytes.Join(rawBytes(batch), []byte{','})...)
		return append(out, ']'), true
	}
	if !needsFix(body) {
		return nil, false
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return nil, false
	}
	fixed := withCode(msg)
	if fixed == msg {
		return nil, false
	}
	out, err := jsonrpc.EncodeMessage(fixed)
	return out, err == nil
}
