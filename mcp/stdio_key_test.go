package mcp

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestResponseKey checks that the key read from a response's first bytes
// is the one DecodeMessage gives, that requests and notifications give
// none, and that what the fast reading cannot be sure of is left to the
// decoder.
func TestResponseKey(t *testing.T) {
	for _, tc := range []struct {
		line string
		fast bool // read from the first bytes
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"x"}]}}`, true},
		{`{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"no"}}`, true},
		{`{"jsonrpc":"2.0","id":-12,"result":{}}`, true},
		{`{"jsonrpc":"2.0","id":"abc-1","result":{}}`, true},
		{`{"jsonrpc":"2.0","id":"a\"b","result":{}}`, false},      // an escape
		{`{"jsonrpc":"2.0","id":1.5,"result":{}}`, false},         // not an integer
		{`{"jsonrpc":"2.0","id":3,"method":"roots/list"}`, false}, // the server's own request
		{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, false},
		{`{"id":7,"jsonrpc":"2.0","result":{}}`, false}, // another order
	} {
		key, ok := responseKey([]byte(tc.line))
		if ok != tc.fast {
			t.Errorf("%s: read fast = %v, want %v", tc.line, ok, tc.fast)
			continue
		}
		if !ok {
			continue
		}
		msg, err := jsonrpc.DecodeMessage([]byte(tc.line))
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		resp, isResp := msg.(*jsonrpc.Response)
		if !isResp {
			t.Fatalf("%s: read as a response, decoded as %T", tc.line, msg)
		}
		if want := idKey(resp.ID); key != want {
			t.Errorf("%s: key %q, the decoder's %q", tc.line, key, want)
		}
	}
}
