package mcp

import "encoding/json"

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
