package integration

// `ccski mcp --transport sse` on the wire, as a client that follows the
// HTTP+SSE transport of 2024-11-05 sees it: every method the server
// declares is served, the Skills extension's among them; an unknown
// method is answered -32601 on the stream; what cannot reach a session is
// answered on the POST with a JSON-RPC error, never code 0.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sseClient is a raw SSE session: the stream's events and the endpoint it
// announced.
type sseClient struct {
	base, endpoint string
	events         chan sseEvent
}

type sseEvent struct{ name, id, data string }

// openSSESession opens a stream with GET /mcp and reads its endpoint.
func openSSESession(t *testing.T, base string) *sseClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /mcp = %d", resp.StatusCode)
	}
	c := &sseClient{base: base, events: readSSEEvents(resp.Body)}
	ev := c.next(t)
	if ev.name != "endpoint" || !strings.HasPrefix(ev.data, "/messages?sessionid=") {
		t.Fatalf("first event %+v, want the endpoint", ev)
	}
	c.endpoint = ev.data
	return c
}

// readSSEEvents parses a stream of server-sent events.
func readSSEEvents(r io.Reader) chan sseEvent {
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 16<<20)
		var ev sseEvent
		for sc.Scan() {
			field, value, _ := strings.Cut(sc.Text(), ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "":
				if ev != (sseEvent{}) {
					ch <- ev
				}
				ev = sseEvent{}
			case "event":
				ev.name = value
			case "id":
				ev.id = value
			case "data":
				ev.data += value
			}
		}
	}()
	return ch
}

func (c *sseClient) next(t *testing.T) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-c.events:
		if !ok {
			t.Fatal("the SSE stream ended")
		}
		return ev
	case <-time.After(mcpTimeout):
		t.Fatal("no event on the SSE stream")
	}
	return sseEvent{}
}

// postJSON POSTs body to url and returns the status and the body.
func postJSON(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// call POSTs a message to the session, which must accept it (202), and
// returns the reply with id on the stream (notifications skipped).
func (c *sseClient) call(t *testing.T, id int, method, params string) rpcReply {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"` + method + `"`
	if params != "" {
		body += `,"params":` + params
	}
	body += "}"
	if code, out := postJSON(t, c.base+c.endpoint, body); code != http.StatusAccepted {
		t.Fatalf("POST %s = %d %q, want 202 (the answer goes on the stream)", method, code, out)
	}
	for {
		ev := c.next(t)
		var r rpcReply
		if ev.name != "message" || json.Unmarshal([]byte(ev.data), &r) != nil || string(r.ID) != itoa(id) {
			continue
		}
		return r
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// refusal reads a POST's JSON-RPC error answer.
func refusal(t *testing.T, what string, code int, body string, wantStatus int, wantCode int) {
	t.Helper()
	var r rpcReply
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil {
		t.Errorf("%s: %d %q, want a JSON-RPC error", what, code, body)
		return
	}
	if code != wantStatus || r.Error.Code != wantCode {
		t.Errorf("%s: HTTP %d code %d (%s), want HTTP %d code %d", what, code, r.Error.Code, r.Error.Message, wantStatus, wantCode)
	}
}

// TestMCPSSEMethods: over SSE, in each revision SSE serves, the Skills
// extension's methods are served like any other, an unknown method is
// -32601 on the stream, and a request before initialize gets a JSON-RPC
// code, not 0.
func TestMCPSSEMethods(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	s := startHTTP(t, m, nil, "--transport", "sse", "--no-refresh")
	for _, version := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			c := openSSESession(t, s.base)
			if r := c.call(t, 1, "tools/list", ""); r.Error == nil || r.Error.Code != -32600 {
				t.Errorf("tools/list before initialize: %+v, want error -32600", r.Error)
			}
			r := c.call(t, 2, "initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}`)
			var init struct {
				ProtocolVersion string `json:"protocolVersion"`
				Capabilities    struct {
					Extensions map[string]json.RawMessage `json:"extensions"`
				} `json:"capabilities"`
			}
			if r.Error != nil || json.Unmarshal(r.Result, &init) != nil || init.ProtocolVersion != version {
				t.Fatalf("initialize: %+v %s", r.Error, r.Result)
			}
			if code, out := postJSON(t, s.base+c.endpoint, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
				t.Fatalf("notifications/initialized: %d %q", code, out)
			}

			var list struct {
				Skills []struct {
					URI string `json:"uri"`
				} `json:"skills"`
			}
			r = c.call(t, 3, "skills/list", "{}")
			if r.Error != nil || json.Unmarshal(r.Result, &list) != nil || len(list.Skills) == 0 {
				t.Fatalf("skills/list: %+v %s", r.Error, r.Result)
			}
			uri := list.Skills[0].URI
			var got struct {
				Skill struct {
					URI string `json:"uri"`
				} `json:"skill"`
			}
			r = c.call(t, 4, "skills/get", `{"uri":"`+uri+`"}`)
			if r.Error != nil || json.Unmarshal(r.Result, &got) != nil || got.Skill.URI != uri {
				t.Errorf("skills/get %s: %+v %s", uri, r.Error, r.Result)
			}
			var dir struct {
				Resources []struct {
					Name string `json:"name"`
				} `json:"resources"`
			}
			r = c.call(t, 5, "resources/directory/read", `{"uri":"`+strings.TrimSuffix(uri, "/SKILL.md")+`"}`)
			if r.Error != nil || json.Unmarshal(r.Result, &dir) != nil || len(dir.Resources) == 0 {
				t.Errorf("resources/directory/read: %+v %s", r.Error, r.Result)
			}
			if r := c.call(t, 6, "no/such-method", "{}"); r.Error == nil || r.Error.Code != -32601 {
				t.Errorf("an unknown method: %+v, want error -32601", r.Error)
			}
			// The server still serves the session.
			if r := c.call(t, 7, "ping", ""); r.Error != nil {
				t.Errorf("ping after the errors: %+v", r.Error)
			}

			// What reaches no session is answered on the POST.
			code, body := postJSON(t, s.base+c.endpoint, "{not json")
			refusal(t, "a body that is not JSON", code, body, http.StatusBadRequest, -32700)
			code, body = postJSON(t, s.base+c.endpoint, `{"jsonrpc":"2.0","id":8}`)
			refusal(t, "a message with neither method nor result", code, body, http.StatusBadRequest, -32600)
		})
	}
	code, body := postJSON(t, s.base+"/messages", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	refusal(t, "a POST without sessionId", code, body, http.StatusBadRequest, -32000)
	code, body = postJSON(t, s.base+"/messages?sessionId=NOSUCHSESSION", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	refusal(t, "a POST to an unknown session", code, body, http.StatusNotFound, -32001)
}
