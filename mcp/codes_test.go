package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// rpcPeer is one client connection of a transport: send writes one
// message and, when want is not "", returns the reply whose id is want.
type rpcPeer interface {
	send(t *testing.T, msg, want string) rpcReply
}

// stdioPeer drives the stdio transport through its guard.
type stdioPeer struct {
	in      *io.PipeWriter
	replies chan rpcReply
}

func newStdioPeer(t *testing.T) rpcPeer {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "codex", name: "pdf", desc: "PDF."})
	srv := New(snapOf(recs), Options{Logger: discard()})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.SDK().Run(ctx, guardStdio(inR, outW, newOpLog(discard())))
		outW.Close()
	}()
	p := &stdioPeer{in: inW, replies: make(chan rpcReply, 16)}
	go func() {
		defer close(p.replies)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r rpcReply
			if json.Unmarshal(sc.Bytes(), &r) == nil && len(r.ID) > 0 {
				p.replies <- r
			}
		}
	}()
	t.Cleanup(func() { inW.Close(); cancel(); outR.Close(); <-done })
	return p
}

func (p *stdioPeer) send(t *testing.T, msg, want string) rpcReply {
	t.Helper()
	if _, err := io.WriteString(p.in, msg+"\n"); err != nil {
		t.Fatal(err)
	}
	if want == "" {
		return rpcReply{}
	}
	return awaitReply(t, p.replies, want)
}

// awaitReply returns the first reply on replies whose id is want.
func awaitReply(t *testing.T, replies <-chan rpcReply, want string) rpcReply {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case r, ok := <-replies:
			if !ok {
				t.Fatalf("the transport ended before the reply to id %s", want)
			}
			if string(r.ID) == want {
				return r
			}
		case <-timeout:
			t.Fatalf("no reply to id %s", want)
		}
	}
}

// httpPeer drives streamable HTTP in the stateful mode: the session is
// the one the last answer named.
type httpPeer struct {
	url     string
	session string
}

func newHTTPPeer(t *testing.T) rpcPeer {
	_, ts := httpFixture(t, HTTPOptions{})
	return &httpPeer{url: ts.URL + "/mcp"}
}

func (p *httpPeer) send(t *testing.T, msg, want string) rpcReply {
	t.Helper()
	h := map[string]string{}
	if p.session != "" {
		h[sessionHeader] = p.session
		h[protocolHeader] = "2025-11-25"
	}
	status, header, body := rawRequest(t, http.MethodPost, p.url, msg, h)
	if want == "" {
		return rpcReply{}
	}
	var r rpcReply
	if err := json.Unmarshal([]byte(eventData(body)), &r); err != nil {
		t.Fatalf("HTTP %d, the answer is no JSON-RPC (%v): %.300q", status, err, body)
	}
	// A client keeps the session of the initialize that succeeded.
	if id := header.Get(sessionHeader); id != "" && r.Error == nil {
		p.session = id
	}
	return r
}

// ssePeer drives the SSE transport: a POST that reaches no session is
// answered on the POST, anything else on the stream.
type ssePeer struct {
	endpoint string
	replies  <-chan rpcReply
}

func newSSEPeer(t *testing.T) rpcPeer {
	_, ts := httpFixture(t, HTTPOptions{SSE: true})
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	events := sseEvents(resp.Body)
	ev := <-events
	if ev.name != "endpoint" {
		t.Fatalf("first event %+v, want endpoint", ev)
	}
	endpoint := ev.data
	if !strings.HasPrefix(endpoint, "http") {
		endpoint = ts.URL + endpoint
	}
	replies := make(chan rpcReply, 16)
	go func() {
		defer close(replies)
		for ev := range events {
			var r rpcReply
			if json.Unmarshal([]byte(ev.data), &r) == nil && len(r.ID) > 0 {
				replies <- r
			}
		}
	}()
	return &ssePeer{endpoint: endpoint, replies: replies}
}

func (p *ssePeer) send(t *testing.T, msg, want string) rpcReply {
	t.Helper()
	status, _, body := rawRequest(t, http.MethodPost, p.endpoint, msg, nil)
	if status != http.StatusAccepted {
		var r rpcReply
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatalf("HTTP %d, the answer is no JSON-RPC (%v): %.300q", status, err, body)
		}
		return r
	}
	if want == "" {
		return rpcReply{}
	}
	return awaitReply(t, p.replies, want)
}

// TestSameMistakeSameCode sends the same mistakes over stdio, streamable
// HTTP (a session per client) and SSE, and expects the same JSON-RPC code
// for each on all three, never 0, which JSON-RPC does not define. The
// go-sdk answered a second initialize with code 0 over HTTP (-32603 over
// SSE), an initialize whose params do not decode with code 0 over HTTP
// and stdio, and a batch over HTTP with plain text; over stdio, a failed
// initialize locked the client out of the valid one that followed.
func TestSameMistakeSameCode(t *testing.T) {
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
			`"capabilities":{},"clientInfo":{"name":"codes","version":"1"}}}`
		initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		badParams   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":"x"}`
		nullParams  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}`
	)
	type step struct {
		msg  string
		id   string // the reply awaited; "" for none
		code int64  // its error code; 0 for a result
		text string // its error message, when it is worded alike everywhere; "" for any
	}
	mistakes := []struct {
		name  string
		only  string // the transports the mistake exists on; "" for all
		steps []step
	}{
		// Over streamable HTTP there is no session before initialize:
		// such a request gets -32000 (TestHTTPJSONRPCErrors).
		{"request before initialize", "stdio sse", []step{
			{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "1", jsonrpc.CodeInvalidRequest, ""}}},
		{"second initialize", "", []step{
			{initialize, "1", 0, ""}, {initialized, "", 0, ""},
			{strings.Replace(initialize, `"id":1`, `"id":2`, 1), "2", jsonrpc.CodeInvalidRequest, ""},
			{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "3", 0, ""}}},
		{"initialize params not an object", "", []step{{badParams, "1", jsonrpc.CodeInvalidParams, ""}}},
		{"initialize params null", "", []step{{nullParams, "1", jsonrpc.CodeInvalidRequest, ""}}},
		{"initialize again after a failed one", "", []step{
			{badParams, "1", jsonrpc.CodeInvalidParams, ""},
			{strings.Replace(initialize, `"id":1`, `"id":2`, 1), "2", 0, ""}, {initialized, "", 0, ""},
			{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "3", 0, ""}}},
		// Sent at once, without waiting for the first answer.
		{"two initialize at once", "stdio", []step{
			{initialize, "", 0, ""},
			{strings.Replace(initialize, `"id":1`, `"id":2`, 1), "2", jsonrpc.CodeInvalidRequest, ""},
			{initialized, "", 0, ""},
			{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "3", 0, ""}}},
		{"unknown method", "", []step{
			{initialize, "1", 0, ""}, {initialized, "", 0, ""},
			{`{"jsonrpc":"2.0","id":2,"method":"no/such"}`, "2", jsonrpc.CodeMethodNotFound, `method not found: "no/such"`}}},
		{"no method", "", []step{
			{initialize, "1", 0, ""}, {initialized, "", 0, ""},
			{`{"jsonrpc":"2.0","id":2}`, "2", jsonrpc.CodeInvalidRequest, ""}}},
		{"batch in 2025-11-25", "", []step{
			{initialize, "1", 0, ""}, {initialized, "", 0, ""},
			{`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`, "null", jsonrpc.CodeInvalidRequest, ""}}},
	}
	transports := []struct {
		name string
		peer func(*testing.T) rpcPeer
	}{{"stdio", newStdioPeer}, {"http", newHTTPPeer}, {"sse", newSSEPeer}}
	for _, m := range mistakes {
		for _, tr := range transports {
			if m.only != "" && !strings.Contains(m.only, tr.name) {
				continue
			}
			t.Run(m.name+"/"+tr.name, func(t *testing.T) {
				p := tr.peer(t)
				for i, st := range m.steps {
					r := p.send(t, st.msg, st.id)
					if st.id == "" {
						continue
					}
					switch {
					case string(r.ID) != st.id:
						t.Errorf("step %d: reply id %s, want %s", i, r.ID, st.id)
					case st.code == 0 && r.Error != nil:
						t.Errorf("step %d: error %d %q, want a result", i, r.Error.Code, r.Error.Message)
					case st.code != 0 && r.Error == nil:
						t.Errorf("step %d: a result, want error %d", i, st.code)
					case st.code != 0 && r.Error.Code != st.code:
						t.Errorf("step %d: error %d %q, want %d", i, r.Error.Code, r.Error.Message, st.code)
					case st.text != "" && r.Error.Message != st.text:
						t.Errorf("step %d: error message %q, want %q", i, r.Error.Message, st.text)
					}
				}
			})
		}
	}
}

// TestUnknownMethodWordedAlike: over streamable HTTP an unknown method is
// worded alike in both eras, as stdio words it; in 2026-07-28 the go-sdk
// answered it in its own words ("JSON RPC not handled: … unsupported").
func TestUnknownMethodWordedAlike(t *testing.T) {
	_, ts := httpFixture(t, HTTPOptions{})
	body := `{"jsonrpc":"2.0","id":4,"method":"no/such","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	status, _, got := rawRequest(t, http.MethodPost, ts.URL+"/mcp", body,
		map[string]string{protocolHeader: "2026-07-28", "Mcp-Method": "no/such"})
	var r rpcReply
	if err := json.Unmarshal([]byte(eventData(got)), &r); err != nil || r.Error == nil {
		t.Fatalf("HTTP %d %.300q, want a JSON-RPC error", status, got)
	}
	if r.Error.Code != jsonrpc.CodeMethodNotFound || r.Error.Message != `method not found: "no/such"` {
		t.Errorf("error %d %q, want -32601 %q", r.Error.Code, r.Error.Message, `method not found: "no/such"`)
	}
}

// TestWithEventCodes: the rewrite finds an error response of code 0 in
// each shape the transports write one (a line, a batch, an SSE event)
// and changes nothing else, byte for byte.
func TestWithEventCodes(t *testing.T) {
	dup := `{"jsonrpc":"2.0","id":2,"error":{"code":0,"message":"duplicate \"initialize\" received"}}`
	fixed := `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"duplicate \"initialize\" received"}}`
	fault := `{"jsonrpc":"2.0","id":3,"error":{"code":0,"message":"boom"}}`
	result := `{"jsonrpc":"2.0","id":4,"result":{"text":"<b>\"error\":{\"code\":0,</b>"}}`
	for _, c := range []struct{ in, want string }{
		{dup + "\n", fixed + "\n"},
		{result + "\n", result + "\n"},
		{"[" + dup + "," + result + "]", "[" + fixed + "," + result + "]"},
		{"[" + fault + "]", `[{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"boom"}}]`},
		{"event: message\nid: 0_1\ndata: " + dup + "\n\n", "event: message\nid: 0_1\ndata: " + fixed + "\n\n"},
		{"retry: 1000\n", "retry: 1000\n"},
		{`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"JSON RPC not handled: \"x/y\" unsupported"}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found: \"x/y\""}}`},
	} {
		if got := string(withEventCodes([]byte(c.in))); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
