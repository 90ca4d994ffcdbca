package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type noSuchParams struct{ sdk.ParamsBase }

type noSuchResult struct{ sdk.ResultBase }

// TestExtensionOnEveryTransport: the methods the server declares beyond
// the standard ones (the Skills extension's) are served over every
// transport, in each protocol revision the transport serves, and a method
// the server does not serve is -32601 on each of them.
func TestExtensionOnEveryTransport(t *testing.T) {
	for _, c := range []struct {
		name     string
		o        HTTPOptions
		versions []string
		dial     func(base string) sdk.Transport
	}{
		{"streamable", HTTPOptions{}, []string{"2025-06-18", "2025-11-25", "2026-07-28"},
			func(base string) sdk.Transport { return &sdk.StreamableClientTransport{Endpoint: base + "/mcp"} }},
		{"stateless", HTTPOptions{Stateless: true}, []string{"2026-07-28"},
			func(base string) sdk.Transport { return &sdk.StreamableClientTransport{Endpoint: base + "/mcp"} }},
		{"sse", HTTPOptions{SSE: true}, []string{"2024-11-05", "2025-06-18", "2025-11-25"},
			func(base string) sdk.Transport { return &sdk.SSEClientTransport{Endpoint: base + "/mcp"} }},
	} {
		for _, pv := range c.versions {
			t.Run(c.name+"/"+pv, func(t *testing.T) {
				_, ts := httpFixture(t, c.o)
				cl := sdk.NewClient(&sdk.Implementation{Name: "ext", Version: "1"}, nil)
				for _, err := range []error{
					sdk.AddSendingCustomMethod[*listSkillsParams, *listSkillsResult](cl, "skills/list"),
					sdk.AddSendingCustomMethod[*getSkillParams, *getSkillResult](cl, "skills/get"),
					sdk.AddSendingCustomMethod[*readDirParams, *readDirResult](cl, "resources/directory/read"),
					sdk.AddSendingCustomMethod[*noSuchParams, *noSuchResult](cl, "no/such-method"),
				} {
					if err != nil {
						t.Fatal(err)
					}
				}
				cs := connectClient(t, cl, c.dial(ts.URL), pv)
				ctx := testCtx(t, 10*time.Second)
				if got := cs.InitializeResult().ProtocolVersion; got != pv {
					t.Fatalf("negotiated %s, want %s", got, pv)
				}
				entries, _ := listAll(t, ctx, cs)
				if len(entries) != 2 {
					t.Fatalf("skills/list: %d entries, want 2", len(entries))
				}
				if _, err := getSkill(ctx, cs, "skill://claude/pdf/SKILL.md"); err != nil {
					t.Errorf("skills/get: %v", err)
				}
				if res, err := readDir(ctx, cs, "skill://claude/pdf"); err != nil || len(res) == 0 {
					t.Errorf("resources/directory/read: %v %v", res, err)
				}
				_, err := sdk.CallCustomMethod[*noSuchParams, *noSuchResult](ctx, cs, "no/such-method", &noSuchParams{})
				var we *jsonrpc.Error
				if !errors.As(err, &we) || we.Code != jsonrpc.CodeMethodNotFound {
					t.Errorf("an unknown method: %v, want -32601", err)
				}
			})
		}
	}
}

func TestDecodeSSEMessage(t *testing.T) {
	for _, c := range []struct {
		body string
		code int64 // 0: a message
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`, 0},
		{`{"jsonrpc":"2.0","id":1,"method":"no/such"}`, 0}, // the session answers -32601
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 0},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`, 0},
		{`{not json`, jsonrpc.CodeParseError},
		{``, jsonrpc.CodeParseError},
		{` [{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1}`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, jsonrpc.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, jsonrpc.CodeInvalidRequest},
		{`42`, jsonrpc.CodeInvalidRequest},
	} {
		msg, code, why := decodeSSEMessage([]byte(c.body))
		if code != c.code || (msg == nil) != (c.code != 0) || (why == "") != (c.code == 0) {
			t.Errorf("%q: %v %d %q, want code %d", c.body, msg, code, why, c.code)
		}
	}
	// A message with no method that is no response is worded as over
	// stdio and streamable HTTP (invalidMessage).
	for _, body := range []string{`{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`} {
		if _, _, why := decodeSSEMessage([]byte(body)); why != invalidMessage([]byte(body)) {
			t.Errorf("%s: %q, want %q", body, why, invalidMessage([]byte(body)))
		}
	}
}

// TestSSERefusals: a POST that reaches no session gets a JSON-RPC error
// with a code (never 0) and the request's id, on the POST itself: for no
// session or an unknown one, the code streamable HTTP gives them.
func TestSSERefusals(t *testing.T) {
	_, ts := httpFixture(t, HTTPOptions{SSE: true})
	endpoint, stop := openSSE(t, ts.URL+"/mcp")
	defer stop()
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	for _, c := range []struct {
		name, url, body, ctype string
		status                 int
		code                   int64
		id                     string
	}{
		// As streamable HTTP answers them (TestHTTPJSONRPCErrors).
		{"no session", "/messages", ping, "", http.StatusBadRequest, codeNoSession, "7"},
		{"unknown session", "/messages?sessionId=nope", ping, "", http.StatusNotFound, codeSessionNotFound, "7"},
		{"not JSON", endpoint, "{", "", http.StatusBadRequest, jsonrpc.CodeParseError, "null"},
		{"no method, no result", endpoint, `{"jsonrpc":"2.0","id":"a"}`, "", http.StatusBadRequest, jsonrpc.CodeInvalidRequest, `"a"`},
		{"not JSON content", endpoint, ping, "text/plain", http.StatusUnsupportedMediaType, jsonrpc.CodeInvalidRequest, "null"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{}
			if c.ctype != "" {
				h["Content-Type"] = c.ctype
			}
			status, header, body := rawRequest(t, http.MethodPost, ts.URL+c.url, c.body, h)
			var r struct {
				ID    json.RawMessage `json:"id"`
				Error struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &r); err != nil || status != c.status || r.Error.Code != c.code ||
				string(r.ID) != c.id || !strings.HasPrefix(header.Get("Content-Type"), "application/json") {
				t.Errorf("%d %q (%s), want %d with code %d and id %s", status, body, header.Get("Content-Type"), c.status, c.code, c.id)
			}
		})
	}
}
