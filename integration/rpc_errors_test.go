package integration

// The JSON-RPC answers `ccski mcp` gives to a client's mistakes over
// streamable HTTP and stdio (a method it does not serve, a message with
// no method, a request without a session or for an unknown one, a
// request before initialize), and the Base64-wrapped standard headers of
// protocol 2026-07-28 (a prompt named déployer).

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernMeta is the _meta every request of protocol 2026-07-28 carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`

// base64Header wraps s as a client of protocol 2026-07-28 sends a header
// value that is unsafe as plain ASCII (SEP-2243).
func base64Header(s string) string {
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// wantReply checks an HTTP answer: its status, and, when code is not
// nil, a JSON-RPC reply with id whose error code is *code (0: a result).
func wantReply(t *testing.T, status int, body string, wantStatus int, id string, code *int) rpcReply {
	t.Helper()
	if status != wantStatus {
		t.Errorf("HTTP %d, want %d: %.300s", status, wantStatus, body)
	}
	var r rpcReply
	if code == nil {
		if strings.TrimSpace(body) != "" {
			t.Errorf("want no body, got %.300q", body)
		}
		return r
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("the answer is no JSON-RPC (%v): %.300q", err, body)
	}
	if string(r.ID) != id {
		t.Errorf("id %s, want %s: %.300s", r.ID, id, body)
	}
	switch {
	case *code == 0 && r.Error != nil:
		t.Errorf("want a result, got %.300s", body)
	case *code != 0 && (r.Error == nil || r.Error.Code != *code):
		t.Errorf("want JSON-RPC error %d, got %.300s", *code, body)
	}
	return r
}

func code(c int) *int { return &c }

// TestMCPHTTPBase64NameHeader: a client of protocol 2026-07-28 asking
// prompts/get for a slash command whose name is not ASCII (déployer) sends
// Mcp-Name Base64-wrapped, as SEP-2243 says, and is served, over HTTP and
// stateless HTTP; the go-sdk compared the wrapped header with the body's
// name and refused it with -32020. Mcp-Method may be wrapped too, blanks
// around a value are HTTP's and not the value's, and the raw UTF-8 the
// go-sdk's own client sends still works. A wrapped name that decodes to
// another name, or is no Base64, gets HTTP 400 and -32020 with the
// request's id, naming the header.
func TestMCPHTTPBase64NameHeader(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	commands := filepath.Join(m.Home, ".claude", "commands")
	if err := os.MkdirAll(commands, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(commands, "déployer.md"), []byte("---\ndescription: Deploy.\n---\nDeploy $ARGUMENTS now.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	get := `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"déployer","arguments":{"arguments":"the site"},` + modernMeta + `}}`
	header := func(method, name string) map[string]string {
		return map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name}
	}
	tests := []struct {
		name   string
		header map[string]string
		status int
		code   int
		says   string // in the reply
	}{
		{"Base64 name", header("prompts/get", base64Header("déployer")), http.StatusOK, 0, "Deploy the site now."},
		{"Base64 method and name", header(base64Header("prompts/get"), base64Header("déployer")), http.StatusOK, 0, "Deploy the site now."},
		{"blanks around", header(" prompts/get\t", "  "+base64Header("déployer")+"  "), http.StatusOK, 0, "Deploy the site now."},
		{"raw UTF-8 name", header("prompts/get", "déployer"), http.StatusOK, 0, "Deploy the site now."},
		{"Base64 of another name", header("prompts/get", base64Header("deployer")), http.StatusBadRequest, sdk.CodeHeaderMismatch, "does not match"},
		{"not Base64", header("prompts/get", "=?base64?ZMOp!!xveWVy?="), http.StatusBadRequest, sdk.CodeHeaderMismatch, "Mcp-Name"},
	}
	for _, mode := range [][]string{{"--transport", "http"}, {"--transport", "http", "--stateless"}} {
		t.Run(strings.Join(mode, " "), func(t *testing.T) {
			s := startHTTP(t, m, nil, append(mode, "--no-refresh")...)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					status, _, body := postMCP(t, s.base+"/mcp", get, tt.header)
					wantReply(t, status, body, tt.status, "7", code(tt.code))
					if !strings.Contains(body, tt.says) {
						t.Errorf("the reply lacks %q: %.300s", tt.says, body)
					}
				})
			}
			s.stop(t, syscall.SIGTERM, 10*time.Second)
		})
	}
}

// TestMCPHTTPJSONRPCErrors: over streamable HTTP, a client's mistakes get
// a JSON-RPC error with a code JSON-RPC or MCP defines and the request's
// id, under the HTTP status the transport gives them. A 2025 session's
// unknown method gets -32601 under HTTP 200 (as over stdio; HTTP 404
// would end the session) where it got HTTP 400 in plain text; an unknown
// notification is accepted and ignored; a request without a method gets
// HTTP 400 and -32600 where it got 202 and no answer, in either era; a
// request without a session gets HTTP 400 and -32000 where it got error
// code 0; an unknown or ended session gets HTTP 404 and -32001 where it
// got plain text.
func TestMCPHTTPJSONRPCErrors(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	s := startHTTP(t, m, nil, "--transport", "http", "--no-refresh")
	url := s.base + "/mcp"
	status, h, body := postMCP(t, url, rawInitialize, nil)
	id := h.Get("Mcp-Session-Id")
	if status != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	session := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	if status, _, body := postMCP(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", status, body)
	}
	modern := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	steps := []struct {
		name   string
		body   string
		header map[string]string
		status int
		id     string
		code   *int // nil: no body
	}{
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"no/such"}`, session, http.StatusOK, "5", code(jsonrpc.CodeMethodNotFound)},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/no-such"}`, session, http.StatusAccepted, "", nil},
		{"no method", `{"jsonrpc":"2.0","id":6}`, session, http.StatusBadRequest, "6", code(jsonrpc.CodeInvalidRequest)},
		{"no method, 2026-07-28", `{"jsonrpc":"2.0","id":7,"params":{` + modernMeta + `}}`, modern,
			http.StatusBadRequest, "7", code(jsonrpc.CodeInvalidRequest)},
		{"a response to nothing", `{"jsonrpc":"2.0","id":8,"result":{}}`, session, http.StatusAccepted, "", nil},
		{"no session", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"},
			http.StatusBadRequest, "9", code(-32000)},
		{"unknown session", `{"jsonrpc":"2.0","id":10,"method":"tools/list"}`,
			map[string]string{"Mcp-Session-Id": "no-such-session", "Mcp-Protocol-Version": "2025-11-25"},
			http.StatusNotFound, "10", code(-32001)},
		{"served", `{"jsonrpc":"2.0","id":11,"method":"tools/list"}`, session, http.StatusOK, "11", code(0)},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			status, _, body := postMCP(t, url, st.body, st.header)
			wantReply(t, status, body, st.status, st.id, st.code)
		})
	}
	// An ended session: 404 with a JSON-RPC error on every method.
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %d", resp.StatusCode)
	}
	status, _, body = postMCP(t, url, `{"jsonrpc":"2.0","id":12,"method":"tools/list"}`, session)
	wantReply(t, status, body, http.StatusNotFound, "12", code(-32001))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var r rpcReply
	err = json.NewDecoder(resp.Body).Decode(&r)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || err != nil || r.Error == nil || r.Error.Code != -32001 {
		t.Errorf("DELETE of the ended session: %d %v %+v; want 404 and -32001", resp.StatusCode, err, r.Error)
	}
	s.stop(t, syscall.SIGTERM, 10*time.Second)
}

// TestMCPHTTPStatelessJSONRPCErrors: with --stateless a 2025 client has
// no session, and its unknown method gets -32601 under HTTP 200 where it
// got HTTP 400 in plain text; a request without a method gets HTTP 400
// and -32600 where it got 202.
func TestMCPHTTPStatelessJSONRPCErrors(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	s := startHTTP(t, m, nil, "--transport", "http", "--stateless", "--no-refresh")
	v := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
	status, _, body := postMCP(t, s.base+"/mcp", `{"jsonrpc":"2.0","id":5,"method":"no/such"}`, v)
	wantReply(t, status, body, http.StatusOK, "5", code(jsonrpc.CodeMethodNotFound))
	status, _, body = postMCP(t, s.base+"/mcp", `{"jsonrpc":"2.0","id":6}`, v)
	wantReply(t, status, body, http.StatusBadRequest, "6", code(jsonrpc.CodeInvalidRequest))
	status, _, body = postMCP(t, s.base+"/mcp", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, v)
	wantReply(t, status, body, http.StatusOK, "7", code(0))
	s.stop(t, syscall.SIGTERM, 10*time.Second)
}

// TestMCPStdioJSONRPCErrors: over stdio, a request before initialize gets
// -32600 with its id where it got error code 0 (ping excepted, which a
// client may send then); a message with no method that is no response
// gets -32600 where it got no answer at all; a second initialize gets
// -32600 where it got code 0; an unknown method still gets -32601.
func TestMCPStdioJSONRPCErrors(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	s := startRawStdioBare(t, m)
	exchange := func(line, id string, want int) {
		t.Helper()
		s.send(t, line)
		got := s.until(t, id)
		r := got[len(got)-1]
		switch {
		case want == 0 && r.Error != nil:
			t.Errorf("%s: %s, want a result", line, r.raw)
		case want != 0 && (r.Error == nil || r.Error.Code != want):
			t.Errorf("%s: %.300s, want error %d", line, r.raw, want)
		}
	}
	exchange(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "1", jsonrpc.CodeInvalidRequest)
	exchange(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "2", 0)
	exchange(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, "3", 0)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	exchange(`{"jsonrpc":"2.0","id":4}`, "4", jsonrpc.CodeInvalidRequest)
	exchange(`{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1,"message":"both"}}`, "5", jsonrpc.CodeInvalidRequest)
	exchange(`{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, "6", jsonrpc.CodeInvalidRequest)
	exchange(`{"jsonrpc":"2.0","id":7,"method":"no/such"}`, "7", jsonrpc.CodeMethodNotFound)
	exchange(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"skill","arguments":{"name":"commit-helper"}}}`, "8", 0)
	if err := s.in.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("exit after stdin closed: %v\nstderr:\n%s", err, s.stderr)
	}
}
