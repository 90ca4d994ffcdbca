package mcp

import (
	"encoding/json"
	"net/http"
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
