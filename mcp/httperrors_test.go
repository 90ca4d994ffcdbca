package mcp

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// rpcReply is a JSON-RPC response as a raw client reads it.
type rpcReply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// TestHTTPJSONRPCErrors: the mistakes of a streamable HTTP client get a
// JSON-RPC error with a code JSON-RPC or MCP defines, the request's id,
// and the HTTP status the transport gives them, in the stateful mode (a
// session per 2025 client) and the stateless one. The go-sdk answered an
// unknown method with HTTP 400 in plain text, a request without a method
// with 202 and nothing, a request without a session with error code 0,
// and an unknown session with a plain-text 404.
func TestHTTPJSONRPCErrors(t *testing.T) {
	type step struct {
		name    string
		body    string
		session bool // send the session's id (and version)
		header  map[string]string
		status  int
		code    int64 // 0: no JSON-RPC error (a result, or no body)
		id      string
	}
	statefulSteps := []step{
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"no/such"}`, true, nil, http.StatusOK, jsonrpc.CodeMethodNotFound, "5"},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/no-such"}`, true, nil, http.StatusAccepted, 0, ""},
		{"no method", `{"jsonrpc":"2.0","id":6}`, true, nil, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "6"},
		{"result and error", `{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}`, true, nil,
			http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "7"},
		{"missing params", `{"jsonrpc":"2.0","id":8,"method":"tools/call"}`, true, nil, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "8"},
		{"not JSON", `{"jsonrpc":`, true, nil, http.StatusBadRequest, jsonrpc.CodeParseError, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":13,"method":"ping"}]`, true, nil, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "null"},
		{"served", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, true, nil, http.StatusOK, 0, "9"},
		{"no session", `{"jsonrpc":"2.0","id":10,"method":"tools/list"}`, false, nil, http.StatusBadRequest, codeNoSession, "10"},
		{"no session, ping", `{"jsonrpc":"2.0","id":11,"method":"ping"}`, false, nil, http.StatusOK, 0, "11"},
		{"unknown session", `{"jsonrpc":"2.0","id":12,"method":"tools/list"}`, false,
			map[string]string{"Mcp-Session-Id": "no-such-session", "Mcp-Protocol-Version": "2025-11-25"},
			http.StatusNotFound, codeSessionNotFound, "12"},
	}
	statelessSteps := []step{
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"no/such"}`, false, nil, http.StatusOK, jsonrpc.CodeMethodNotFound, "5"},
		{"no method", `{"jsonrpc":"2.0","id":6}`, false, nil, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "6"},
		{"served without a session", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, false, nil, http.StatusOK, 0, "9"},
	}
	for _, mode := range []struct {
		name  string
		o     HTTPOptions
		steps []step
	}{{"stateful", HTTPOptions{}, statefulSteps}, {"stateless", HTTPOptions{Stateless: true}, statelessSteps}} {
		t.Run(mode.name, func(t *testing.T) {
			_, ts := httpFixture(t, mode.o)
			url := ts.URL + "/mcp"
			var session map[string]string
			if !mode.o.Stateless {
				_, h, _ := rawRequest(t, http.MethodPost, url, initializeBody, nil)
				session = map[string]string{"Mcp-Session-Id": h.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
				rawRequest(t, http.MethodPost, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
			}
			for _, st := range mode.steps {
				t.Run(st.name, func(t *testing.T) {
					header := st.header
					if st.session {
						header = session
					}
					status, h, body := rawRequest(t, http.MethodPost, url, st.body, header)
					body = eventData(body)
					if status != st.status {
						t.Errorf("status %d, want %d: %.300s", status, st.status, body)
					}
					if st.id == "" {
						if strings.TrimSpace(body) != "" {
							t.Errorf("want no body, got %.300q", body)
						}
						return
					}
					var r rpcReply
					if err := json.Unmarshal([]byte(body), &r); err != nil {
						t.Fatalf("the answer is no JSON-RPC (%v), Content-Type %q: %.300q", err, h.Get("Content-Type"), body)
					}
					if string(r.ID) != st.id {
						t.Errorf("id %s, want %s: %.300s", r.ID, st.id, body)
					}
					switch {
					case st.code == 0 && r.Error != nil:
						t.Errorf("want a result, got %.300s", body)
					case st.code != 0 && (r.Error == nil || r.Error.Code != st.code):
						t.Errorf("want error %d, got %.300s", st.code, body)
					}
				})
			}
		})
	}
}

// TestHTTPSessionNotFoundOnGET: a GET stream or a DELETE for a session the
// server does not know gets HTTP 404 (which tells a client to start a new
// session) with a JSON-RPC error, not prose.
func TestHTTPSessionNotFoundOnGET(t *testing.T) {
	_, ts := httpFixture(t, HTTPOptions{})
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		status, _, body := rawRequest(t, method, ts.URL+"/mcp", "",
			map[string]string{"Mcp-Session-Id": "gone", "Accept": "text/event-stream"})
		var r rpcReply
		if status != http.StatusNotFound || json.Unmarshal([]byte(body), &r) != nil || r.Error == nil ||
			r.Error.Code != codeSessionNotFound || string(r.ID) != "null" {
			t.Errorf("%s: %d %.300q; want 404 and error %d with a null id", method, status, body, codeSessionNotFound)
		}
	}
}

// TestStdioRefusals: over stdio, a message that is neither a request nor
// a response, a request that needs a session before initialize, and a
// second initialize get -32600 with their id; the SDK ignored the first
// (read as a response to nothing) and answered the others with error
// code 0. A request of the stateless era needs no initialize (and takes
// its place), and neither does ping.
func TestStdioRefusals(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},` +
		`"clientInfo":{"name":"t","version":"1"}}}`
	const modern = `{"jsonrpc":"2.0","id":"modern","method":"tools/list","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	tests := []struct {
		name  string
		lines []string
		want  map[string]int64 // the error code of the reply to each id; 0 for a result
	}{
		{"2025-11-25", []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":3}`,
			`{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}`,
			initialize,
			`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
			strings.Replace(initialize, `"init"`, "6", 1),
			`{"jsonrpc":"2.0","id":99,"result":{}}`,
		}, map[string]int64{"1": jsonrpc.CodeInvalidRequest, "2": 0, "3": jsonrpc.CodeInvalidRequest,
			"4": jsonrpc.CodeInvalidRequest, `"init"`: 0, "5": 0, "6": jsonrpc.CodeInvalidRequest}},
		{"2026-07-28", []string{modern, `{"jsonrpc":"2.0","id":7}`, initialize},
			map[string]int64{`"modern"`: 0, "7": jsonrpc.CodeInvalidRequest, `"init"`: jsonrpc.CodeInvalidRequest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := makeRecords(t, t.TempDir(), skillSpec{provider: "codex", name: "pdf", desc: "PDF."})
			srv := New(snapOf(recs), Options{Logger: discard()})
			var out syncBuffer
			done := make(chan error, 1)
			in := strings.NewReader(strings.Join(tt.lines, "\n") + "\n")
			go func() { done <- srv.SDK().Run(testCtx(t, 20*time.Second), guardStdio(in, &out, newOpLog(discard()))) }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("the server did not end after stdin closed")
			}
			got := map[string]rpcReply{}
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var r rpcReply
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatalf("stdout line is no JSON: %q", line)
				}
				if len(r.ID) > 0 {
					got[string(r.ID)] = r
				}
			}
			for id, code := range tt.want {
				r, ok := got[id]
				switch {
				case !ok:
					t.Errorf("no reply to id %s:\n%s", id, out.String())
				case code == 0 && r.Error != nil:
					t.Errorf("id %s: error %d %q, want a result", id, r.Error.Code, r.Error.Message)
				case code != 0 && (r.Error == nil || r.Error.Code != code):
					t.Errorf("id %s: %s, want error %d", id, r.Result, code)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("%d replies, want %d (a response to nothing is not answered):\n%s", len(got), len(tt.want), out.String())
			}
		})
	}
}
