package mcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// httpFixture starts srv.Handler(o) on a test server.
func httpFixture(t *testing.T, o HTTPOptions) (*Server, *httptest.Server) {
	t.Helper()
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "pdf", desc: "PDF files"},
		skillSpec{provider: "codex", name: "docx", desc: "Word files"})
	srv := New(snapOf(recs), Options{Version: "http-test", Logger: discard()})
	ts := httptest.NewServer(srv.Handler(o))
	t.Cleanup(func() {
		srv.CloseSessions()
		ts.Close()
	})
	return srv, ts
}

// rawRequest sends one request and returns the status, headers and body.
// A streaming response is read up to its first event with data.
func rawRequest(t *testing.T, method, url, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	// A hang guard, generous for a loaded machine: the answer ends it.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// Read the first event with data only (a priming event has none).
		sc := bufio.NewScanner(resp.Body)
		data := false
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "" && data:
				return resp.StatusCode, resp.Header, b.String()
			case line == "":
				b.Reset()
			default:
				if v, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(v) != "" {
					data = true
				}
				b.WriteString(line + "\n")
			}
		}
	} else {
		data, _ := io.ReadAll(resp.Body)
		b.Write(data)
	}
	return resp.StatusCode, resp.Header, b.String()
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// listAndCall checks a session sees both skills and loads one.
func listAndCall(t *testing.T, ctx context.Context, cs *sdk.ClientSession) {
	t.Helper()
	tool := onlyTool(t, ctx, cs)
	if got := len(parseSkills(t, tool.Description)); got != 2 {
		t.Errorf("listed %d skills, want 2", got)
	}
	res, err := call(ctx, cs, map[string]any{"name": "pdf"})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if text := resultText(t, res); res.IsError || !strings.HasPrefix(text, "Loading: claude:pdf\n") {
		t.Errorf("tools/call: isError=%v %q", res.IsError, text)
	}
}

func TestHealthz(t *testing.T) {
	for name, o := range map[string]HTTPOptions{
		"streamable": {}, "sse": {SSE: true}, "stateless": {Stateless: true}, "token": {AuthToken: "secret"},
	} {
		t.Run(name, func(t *testing.T) {
			_, ts := httpFixture(t, o)
			code, h, body := rawRequest(t, http.MethodGet, ts.URL+"/healthz", "", nil)
			if code != http.StatusOK || strings.TrimSpace(body) != "ok" {
				t.Errorf("GET /healthz = %d %q, want 200 ok", code, body)
			}
			if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type %q", ct)
			}
			if code, _, _ := rawRequest(t, http.MethodGet, ts.URL+"/nope", "", nil); code != http.StatusNotFound {
				t.Errorf("GET /nope = %d, want 404", code)
			}
		})
	}
}

func TestHTTPOrigin(t *testing.T) {
	allowed := []string{"https://App.Example.com/", "http://tool.example:8080"}
	tests := []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK},
		{"http://evil.example", http.StatusForbidden},
		{"http://localhost:1234", http.StatusOK},
		{"http://localhost", http.StatusOK},
		{"http://LOCALHOST:9", http.StatusOK},
		{"http://127.0.0.1", http.StatusOK},
		{"http://127.0.0.1:5173", http.StatusOK},
		{"http://127.1.2.3:80", http.StatusOK},
		{"http://[::1]:3000", http.StatusOK},
		{"https://app.example.com", http.StatusOK},
		{"http://tool.example:8080", http.StatusOK},
		{"http://tool.example:8081", http.StatusForbidden},
		{"http://app.example.com", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"http://127.0.0.1.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"file://", http.StatusForbidden},
	}
	_, ts := httpFixture(t, HTTPOptions{AllowedOrigins: allowed})
	_, sse := httpFixture(t, HTTPOptions{SSE: true, AllowedOrigins: allowed})
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			h := map[string]string{}
			if tt.origin != "" {
				h["Origin"] = tt.origin
			}
			code, _, body := rawRequest(t, http.MethodPost, ts.URL+"/mcp", initializeBody, h)
			if code != tt.want {
				t.Errorf("streamable POST /mcp with Origin %q = %d %q, want %d", tt.origin, code, body, tt.want)
			}
			if code == http.StatusForbidden && !strings.Contains(body, "origin") {
				t.Errorf("403 body %q does not explain the origin", body)
			}
			code, _, body = rawRequest(t, http.MethodGet, sse.URL+"/mcp", "", h)
			if code != tt.want {
				t.Errorf("SSE GET /mcp with Origin %q = %d %q, want %d", tt.origin, code, body, tt.want)
			}
			if tt.want == http.StatusForbidden {
				code, _, _ = rawRequest(t, http.MethodPost, sse.URL+"/messages?sessionid=x", initializeBody, h)
				if code != http.StatusForbidden {
					t.Errorf("SSE POST /messages with Origin %q = %d, want 403", tt.origin, code)
				}
			}
		})
	}
}

func TestLoopbackOrigin(t *testing.T) {
	tests := map[string]bool{
		"http://localhost": true, "https://localhost:8443": true, "http://127.0.0.1:1": true,
		"http://[::1]": true, "http://127.255.255.254": true,
		"http://evil.example": false, "localhost": false, "": false, "http://0.0.0.0": false,
		"http://10.0.0.1": false, "http://[::ffff:10.0.0.1]": false, "http://localhost.example": false,
	}
	for origin, want := range tests {
		if got := LoopbackOrigin(origin); got != want {
			t.Errorf("LoopbackOrigin(%q) = %v, want %v", origin, got, want)
		}
	}
}

func TestHTTPAuth(t *testing.T) {
	const token = "s3cret-token"
	for _, mode := range []HTTPOptions{{AuthToken: token}, {AuthToken: token, SSE: true}} {
		t.Run(fmt.Sprintf("sse=%v", mode.SSE), func(t *testing.T) {
			_, ts := httpFixture(t, mode)
			method, body := http.MethodPost, initializeBody
			if mode.SSE {
				method, body = http.MethodGet, ""
			}
			tests := []struct {
				name   string
				header map[string]string
				want   int
			}{
				{"no header", nil, http.StatusUnauthorized},
				{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
				{"token prefix", map[string]string{"Authorization": "Bearer s3cret"}, http.StatusUnauthorized},
				{"token plus suffix", map[string]string{"Authorization": "Bearer " + token + "x"}, http.StatusUnauthorized},
				{"no scheme", map[string]string{"Authorization": token}, http.StatusUnauthorized},
				{"basic", map[string]string{"Authorization": "Basic " + token}, http.StatusUnauthorized},
				{"empty bearer", map[string]string{"Authorization": "Bearer "}, http.StatusUnauthorized},
				{"foreign origin with token", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}, http.StatusForbidden},
				{"correct", map[string]string{"Authorization": "Bearer " + token}, http.StatusOK},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					code, h, got := rawRequest(t, method, ts.URL+"/mcp", body, tt.header)
					if code != tt.want {
						t.Fatalf("%d %q, want %d", code, got, tt.want)
					}
					if code == http.StatusUnauthorized {
						if h.Get("WWW-Authenticate") == "" || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
							t.Errorf("401 without a Bearer WWW-Authenticate header: %v", h)
						}
						if strings.Contains(got, token) {
							t.Errorf("401 body leaks the token: %q", got)
						}
					}
				})
			}

			for _, pv := range protocolVersions {
				t.Run("client "+pvName(pv), func(t *testing.T) {
					ctx := testCtx(t, 10*time.Second)
					hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
					var tr sdk.Transport = &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc}
					if mode.SSE {
						tr = &sdk.SSEClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc}
					}
					cs := connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil), tr, pv)
					listAndCall(t, ctx, cs)

					// Without the token the client cannot connect.
					tr = &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}
					if mode.SSE {
						tr = &sdk.SSEClientTransport{Endpoint: ts.URL + "/mcp"}
					}
					if cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, tr,
						&sdk.ClientSessionOptions{ProtocolVersion: pv}); err == nil {
						_ = cs.Close()
						t.Error("a client without the token connected")
					}
				})
			}
		})
	}
}

func TestHTTPBodyLimit(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", MaxBody) + `"}}`
	t.Run("streamable", func(t *testing.T) {
		_, ts := httpFixture(t, HTTPOptions{})
		code, _, body := rawRequest(t, http.MethodPost, ts.URL+"/mcp", big, nil)
		if code != http.StatusRequestEntityTooLarge {
			t.Errorf("POST of %d bytes = %d %q, want 413", len(big), code, body)
		}
	})
	t.Run("sse", func(t *testing.T) {
		_, ts := httpFixture(t, HTTPOptions{SSE: true})
		endpoint, stop := openSSE(t, ts.URL+"/mcp")
		defer stop()
		code, _, body := rawRequest(t, http.MethodPost, ts.URL+endpoint, big, nil)
		if code != http.StatusRequestEntityTooLarge {
			t.Errorf("POST of %d bytes = %d %q, want 413", len(big), code, body)
		}
	})
	// A large but allowed request still reaches the server, which answers
	// it: a 64 KiB name is over the name cap (MaxNameArg), a tool result
	// with isError that says so (SEP-1303), not an HTTP refusal.
	t.Run("large name below the cap", func(t *testing.T) {
		_, ts := httpFixture(t, HTTPOptions{})
		ctx := testCtx(t, 20*time.Second)
		cs := connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil),
			&sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, "2025-11-25")
		res, err := call(ctx, cs, map[string]any{"name": strings.Repeat("p", 64<<10)})
		if err != nil || !res.IsError || !strings.Contains(resultText(t, res), "the skill name is 65536 bytes long, over the 1024-byte limit") {
			t.Errorf("call with a 64 KiB name: %v %v, want the name refused as too long", res, err)
		}
		res, err = call(ctx, cs, map[string]any{"name": strings.Repeat("p", MaxNameArg)})
		if err != nil || !res.IsError || !strings.Contains(resultText(t, res), "not found") {
			t.Errorf("call with a name at the cap: %v %v, want not found", res, err)
		}
	})
}

// openSSE opens a raw SSE stream and returns the endpoint it announces.
// stop closes the stream.
func openSSE(t *testing.T, url string) (endpoint string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	stop = func() { cancel(); resp.Body.Close() }
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		stop()
		t.Fatalf("GET %s = %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := sseEvents(resp.Body)
	ev, ok := <-events
	if !ok {
		stop()
		t.Fatal("the SSE stream ended before an event")
	}
	if ev.name != "endpoint" {
		stop()
		t.Fatalf("first event %q, want endpoint", ev.name)
	}
	return ev.data, stop
}

// sseEvents sends the events of an SSE stream that carry a name or data
// (streamEvents without the priming events, an id and a retry alone).
func sseEvents(r io.Reader) <-chan streamEvent {
	ch := make(chan streamEvent, 16)
	go func() {
		defer close(ch)
		for ev := range streamEvents(r) {
			if ev.name != "" || ev.data != "" {
				ch <- ev
			}
		}
	}()
	return ch
}

func TestSSERaw(t *testing.T) {
	_, ts := httpFixture(t, HTTPOptions{SSE: true})
	for _, param := range []string{"sessionid", "sessionId"} {
		t.Run(param, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/mcp", nil)
			req.Header.Set("Accept", "text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			events := sseEvents(resp.Body)
			ev := <-events
			if ev.name != "endpoint" || !strings.HasPrefix(ev.data, "/messages?sessionid=") {
				t.Fatalf("first event %+v, want endpoint /messages?sessionid=...", ev)
			}
			id := strings.TrimPrefix(ev.data, "/messages?sessionid=")
			if id == "" {
				t.Fatal("empty session id")
			}
			code, _, body := rawRequest(t, http.MethodPost, ts.URL+"/messages?"+param+"="+id, initializeBody, nil)
			if code != http.StatusAccepted {
				t.Fatalf("POST /messages?%s=<id> = %d %q, want 202", param, code, body)
			}
			select {
			case ev := <-events:
				if ev.name != "message" || !strings.Contains(ev.data, `"serverInfo"`) || !strings.Contains(ev.data, `"ccski"`) {
					t.Errorf("reply event %+v, want the initialize result", ev)
				}
			case <-ctx.Done():
				t.Fatal("no reply on the stream")
			}
		})
	}
	t.Run("unknown session", func(t *testing.T) {
		code, _, _ := rawRequest(t, http.MethodPost, ts.URL+"/messages?sessionId=nope", initializeBody, nil)
		if code != http.StatusNotFound {
			t.Errorf("POST to an unknown session = %d, want 404", code)
		}
	})
	t.Run("no session", func(t *testing.T) {
		code, _, _ := rawRequest(t, http.MethodPost, ts.URL+"/messages", initializeBody, nil)
		if code != http.StatusBadRequest {
			t.Errorf("POST without a session = %d, want 400", code)
		}
	})
}

func TestHTTPClients(t *testing.T) {
	modes := []struct {
		name string
		o    HTTPOptions
		// negotiated maps the client setting to the version the session
		// should end with.
		negotiated map[string]string
		// pushes says whether list_changed reaches the client.
		pushes map[string]bool
	}{
		// Both eras on one endpoint: 2026-07-28 clients stateless, with
		// subscriptions/listen, 2025 clients in a session.
		{"streamable", HTTPOptions{},
			map[string]string{"": "2026-07-28", "2025-11-25": "2025-11-25"},
			map[string]bool{"": true, "2025-11-25": true}},
		{"stateless", HTTPOptions{Stateless: true},
			map[string]string{"": "2026-07-28", "2025-11-25": "2025-11-25"},
			map[string]bool{"": true, "2025-11-25": false}},
		{"sse", HTTPOptions{SSE: true},
			map[string]string{"": "2025-11-25", "2025-11-25": "2025-11-25"},
			map[string]bool{"": true, "2025-11-25": true}},
	}
	for _, m := range modes {
		for _, pv := range protocolVersions {
			t.Run(m.name+"/"+pvName(pv), func(t *testing.T) {
				srv, ts := httpFixture(t, m.o)
				ctx := testCtx(t, 20*time.Second)
				transport := func() sdk.Transport {
					if m.o.SSE {
						return &sdk.SSEClientTransport{Endpoint: ts.URL + "/mcp"}
					}
					return &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}
				}
				changes := [2]*changeCounter{newChangeCounter(), newChangeCounter()}
				var sessions [2]*sdk.ClientSession
				for i := range sessions {
					c := sdk.NewClient(&sdk.Implementation{Name: fmt.Sprintf("c%d", i), Version: "1"}, changes[i].options())
					sessions[i] = connectClient(t, c, transport(), pv)
					if got, want := sessions[i].InitializeResult().ProtocolVersion, m.negotiated[pv]; got != want {
						t.Errorf("client %d negotiated %q, want %q", i, got, want)
					}
				}
				// Both clients at once.
				var wg sync.WaitGroup
				for _, cs := range sessions {
					wg.Go(func() {
						for range 3 {
							listAndCall(t, ctx, cs)
						}
					})
				}
				wg.Wait()

				// A change reaches both (where the transport can push).
				recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "changed"})
				if !srv.Update(snapOf(recs)) {
					t.Fatal("Update returned false")
				}
				for i, ch := range changes {
					wait := 5 * time.Second
					if !m.pushes[pv] {
						wait = 300 * time.Millisecond
					}
					if got := ch.wait(wait); got != m.pushes[pv] {
						t.Errorf("client %d: list_changed delivered=%v, want %v", i, got, m.pushes[pv])
					}
					if d := onlyTool(t, ctx, sessions[i]).Description; !strings.Contains(d, "<description>changed</description>") {
						t.Errorf("client %d: new description not listed", i)
					}
				}
			})
		}
	}
}

func TestCloseSessions(t *testing.T) {
	srv, ts := httpFixture(t, HTTPOptions{})
	ctx := testCtx(t, 10*time.Second)
	cs := connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil),
		&sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, "2025-11-25")
	listAndCall(t, ctx, cs)
	count := func() int {
		n := 0
		for range srv.SDK().Sessions() {
			n++
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("%d server sessions, want 1", n)
	}
	srv.CloseSessions()
	if !eventually(10*time.Second, func() bool { return count() == 0 }) {
		t.Errorf("%d sessions left after CloseSessions", count())
	}
}

// newEraMeta is a _meta object of a 2026-07-28 request.
const newEraMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

func TestNewEra(t *testing.T) {
	const toolsList = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	withMeta := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + newEraMeta + `}}`
	tests := []struct {
		name   string
		header map[string]string
		body   string
		want   bool
	}{
		{"initialize", nil, initializeBody, false},
		{"2025 header", map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, toolsList, false},
		{"2026 header", map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, toolsList, true},
		{"2026 header on a notification", map[string]string{"Mcp-Protocol-Version": "2026-07-28"},
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, true},
		{"2026 header without a body", map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, "", true},
		{"later header", map[string]string{"Mcp-Protocol-Version": "2027-01-01"}, toolsList, true},
		{"_meta version without a header", nil, withMeta, true},
		{"_meta version in a batch", nil, `[` + toolsList + `,` + withMeta + `]`, true},
		{"_meta key with an escaped slash", nil,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}}`, true},
		{"_meta without a version", nil, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"progressToken":1}}}`, false},
		{"empty _meta version", nil,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":""}}}`, false},
		{"_meta version not a string", nil,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}}`, false},
		{"_meta not an object", nil, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":"2026-07-28"}}`, false},
		{"params an array", nil, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":["2026-07-28"]}`, false},
		{"a response", nil, `{"jsonrpc":"2.0","id":2,"result":{"_meta":` + newEraMeta + `}}`, false},
		{"not JSON", nil, `{"jsonrpc":`, false},
		{"session with a 2026 header and _meta", map[string]string{"Mcp-Session-Id": "abc", "Mcp-Protocol-Version": "2026-07-28"}, withMeta, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			if got := newEra(r, &postBody{raw: []byte(tt.body)}); got != tt.want {
				t.Errorf("newEra = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestStreamableEras sends raw requests of both eras to /mcp: by default a
// 2025 initialize gets a session and a 2026-07-28 server/discover is
// answered statelessly with 2026-07-28 among the versions; with Stateless
// neither gets a session.
func TestStreamableEras(t *testing.T) {
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + newEraMeta + `}}`
	newEra := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}
	for _, tt := range []struct {
		name string
		o    HTTPOptions
		// session says whether initialize opens a session.
		session bool
	}{
		{"both eras", HTTPOptions{}, true},
		{"stateless", HTTPOptions{Stateless: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, ts := httpFixture(t, tt.o)
			code, h, body := rawRequest(t, http.MethodPost, ts.URL+"/mcp", initializeBody, nil)
			if code != http.StatusOK || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
				t.Errorf("initialize = %d %q", code, body)
			}
			if got := h.Get("Mcp-Session-Id") != ""; got != tt.session {
				t.Errorf("initialize opened a session: %v, want %v", got, tt.session)
			}

			code, h, body = rawRequest(t, http.MethodPost, ts.URL+"/mcp", discover, newEra)
			if code != http.StatusOK || !strings.Contains(body, `"supportedVersions":["2026-07-28"`) {
				t.Errorf("server/discover = %d %q, want 2026-07-28 first among the supported versions", code, body)
			}
			if id := h.Get("Mcp-Session-Id"); id != "" {
				t.Errorf("server/discover opened session %q", id)
			}
			// A 2026-07-28 client has no GET stream: the stateless handler
			// allows POST only.
			code, h, _ = rawRequest(t, http.MethodGet, ts.URL+"/mcp", "",
				map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Accept": "text/event-stream"})
			if code != http.StatusMethodNotAllowed || h.Get("Allow") != "POST" {
				t.Errorf("GET with a 2026-07-28 header = %d (Allow %q), want 405 (Allow POST)", code, h.Get("Allow"))
			}
			// Only the 2025 session, if any, is left.
			want := 0
			if tt.session {
				want = 1
			}
			if !eventually(10*time.Second, func() bool { return sessionCount(srv) == want }) {
				t.Errorf("%d server sessions, want %d", sessionCount(srv), want)
			}
		})
	}
}

// sessionCount counts the server's sessions, the per-request sessions of
// the stateless handler included.
func sessionCount(srv *Server) int {
	n := 0
	for range srv.SDK().Sessions() {
		n++
	}
	return n
}

// TestCloseSessionsEndsStreams opens the streams each era holds open by
// default (a 2025-11-25 session's GET stream, a 2026-07-28 client's
// subscriptions/listen) on a real http.Server: after CloseSessions,
// Shutdown must return at once, not at its deadline.
func TestCloseSessionsEndsStreams(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    HTTPOptions
		pvs  []string
	}{
		{"both eras", HTTPOptions{}, []string{"", "2025-11-25"}},
		{"stateless", HTTPOptions{Stateless: true}, []string{""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
			srv := New(snapOf(recs), Options{Logger: discard()})
			ts := httptest.NewServer(srv.Handler(tt.o))
			t.Cleanup(ts.Close)
			ctx := testCtx(t, 20*time.Second)
			for _, pv := range tt.pvs {
				// A list-changed handler makes a 2026-07-28 client open
				// subscriptions/listen; a 2025 client opens its GET stream.
				c := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, newChangeCounter().options())
				cs := connectClient(t, c, &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, pv)
				if got := cs.InitializeResult().ProtocolVersion; got != wantNegotiated(pv) {
					t.Fatalf("negotiated %q, want %q", got, wantNegotiated(pv))
				}
				onlyTool(t, ctx, cs)
			}
			if !eventually(5*time.Second, func() bool { return sessionCount(srv) == len(tt.pvs) }) {
				t.Fatalf("%d server sessions, want one per client (the listen stream or the session)", sessionCount(srv))
			}
			srv.CloseSessions()
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := ts.Config.Shutdown(sctx); err != nil {
				t.Errorf("Shutdown after CloseSessions: %v; an open stream held it", err)
			}
		})
	}
}
