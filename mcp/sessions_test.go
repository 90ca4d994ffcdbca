package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSession starts a 2025-11-25 session over raw HTTP (initialize, then
// notifications/initialized) and returns its id.
func rawSession(t *testing.T, url string) string {
	t.Helper()
	code, h, body := rawRequest(t, http.MethodPost, url, initializeBody, nil)
	id := h.Get(sessionHeader)
	if code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q: %s", code, id, body)
	}
	code, _, body = rawRequest(t, http.MethodPost, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		map[string]string{sessionHeader: id, protocolHeader: "2025-11-25"})
	if code != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", code, body)
	}
	return id
}

// ping sends ping on session id and returns the HTTP status.
func ping(t *testing.T, url, id string) int {
	t.Helper()
	code, _, _ := rawRequest(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":9,"method":"ping"}`,
		map[string]string{sessionHeader: id, protocolHeader: "2025-11-25"})
	return code
}

// toldGone reports whether a request on session id, which the server is
// closing, is answered 404 within a hang guard. The SDK drops a session
// from Server.Sessions before its HTTP handler forgets it, so a request
// sent in between is still served: it raced the close, and the next one
// is the client's answer.
func toldGone(t *testing.T, url, id string) bool {
	t.Helper()
	return eventually(10*time.Second, func() bool { return ping(t, url, id) == http.StatusNotFound })
}

// TestMaxSessions: MaxSessions live sessions at most: a new one beyond
// them closes the oldest idle one rather than raising the count; requests
// that start no lasting session (the stateless era's, a ping without a
// session) neither count nor close anyone; a session ended with DELETE
// makes room at once, so the next new session closes nobody.
func TestMaxSessions(t *testing.T) {
	srv, ts := httpFixture(t, HTTPOptions{MaxSessions: 3})
	url := ts.URL + "/mcp"
	var ids []string
	for range 4 {
		ids = append(ids, rawSession(t, url))
	}
	if n := sessionCount(srv); n != 3 {
		t.Errorf("%d server sessions after 4 against a cap of 3, want 3", n)
	}
	if code := ping(t, url, ids[0]); code != http.StatusNotFound {
		t.Errorf("ping on the oldest session, closed to make room: %d, want 404", code)
	}
	// A request that is not initialize starts no lasting session: served,
	// and closing nobody.
	for range 3 {
		if code, _, body := rawRequest(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil); code != http.StatusOK {
			t.Errorf("a ping without a session at the cap: %d %s, want it served", code, body)
		}
	}
	// A client of the stateless era needs no session.
	ctx := testCtx(t, 10*time.Second)
	cs := connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "new", Version: "1"}, nil),
		&sdk.StreamableClientTransport{Endpoint: url}, "")
	onlyTool(t, ctx, cs)
	_ = cs.Close() // and its subscriptions/listen stream
	for _, id := range ids[1:] {
		if code := ping(t, url, id); code != http.StatusOK {
			t.Errorf("ping on a live session: %d", code)
		}
	}
	// DELETE ends a session and makes room: the next session closes no
	// other.
	if code, _, body := rawRequest(t, http.MethodDelete, url, "", map[string]string{sessionHeader: ids[1]}); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", code, body)
	}
	rawSession(t, url)
	for _, id := range ids[2:] {
		if code := ping(t, url, id); code != http.StatusOK {
			t.Errorf("ping on session %s after a new one took the room a DELETE made: %d", id, code)
		}
	}
	if !eventually(10*time.Second, func() bool { return sessionCount(srv) == 3 }) {
		t.Errorf("%d server sessions, want 3", sessionCount(srv))
	}
}

// TestSessionIdleTimeout: a session with no request open for
// SessionIdleTimeout is closed, and its client is told with 404 (so that
// it starts a new session); a session whose client holds its GET stream
// open is not idle, however long the stream lasts, and times out once the
// stream ends; the closed sessions free their room under MaxSessions.
func TestSessionIdleTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	srv, ts := httpFixture(t, HTTPOptions{SessionIdleTimeout: idle, MaxSessions: 2})
	url := ts.URL + "/mcp"
	quiet := rawSession(t, url)

	// Hold a GET stream open on another session. A loaded machine may
	// leave the session idle for longer than idle between its initialize
	// and the GET, and then it is closed, as it should be (the GET gets
	// 404): take a new one.
	ctx, stop := context.WithCancel(t.Context())
	var listening string
	var resp *http.Response
	for try := 1; ; try++ {
		listening = rawSession(t, url)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(sessionHeader, listening)
		req.Header.Set(protocolHeader, "2025-11-25")
		var err error
		resp, err = http.DefaultClient.Do(req)
		if err == nil && resp.StatusCode == http.StatusOK {
			break
		}
		if err != nil || resp.StatusCode != http.StatusNotFound || try == 5 {
			t.Fatalf("GET stream (try %d): %v %v", try, err, resp)
		}
		resp.Body.Close()
	}
	closed := func(id string) bool {
		for ss := range srv.SDK().Sessions() {
			if ss.ID() == id {
				return false
			}
		}
		return true
	}
	if !eventually(10*time.Second, func() bool { return closed(quiet) }) {
		t.Fatalf("the idle session is still open after %v", idle)
	}
	if !toldGone(t, url, quiet) {
		t.Errorf("a request on the closed session: %d, want 404", ping(t, url, quiet))
	}
	time.Sleep(3 * idle) // the listening session stays: its stream is open
	if closed(listening) {
		t.Fatal("a session with an open GET stream was closed as idle")
	}
	if code := ping(t, url, listening); code != http.StatusOK {
		t.Errorf("ping on the listening session: %d", code)
	}
	// The closed session's room is free again.
	rawSession(t, url)
	stop()
	resp.Body.Close()
	if !eventually(10*time.Second, func() bool { return closed(listening) }) {
		t.Errorf("the session is still open after its stream ended and %v passed", idle)
	}
}

// TestSessionsUnbounded: without a timeout or a cap (the zero
// HTTPOptions), sessions are kept, as before.
func TestSessionsUnbounded(t *testing.T) {
	srv, ts := httpFixture(t, HTTPOptions{})
	url := ts.URL + "/mcp"
	for range 20 {
		rawSession(t, url)
	}
	if n := sessionCount(srv); n != 20 {
		t.Errorf("%d sessions, want 20", n)
	}
}

// getStream opens the GET stream of session id and returns a function that
// reports, within d, whether the server ended it.
func getStream(t *testing.T, url, id string) (ended func(d time.Duration) bool) {
	t.Helper()
	ctx, stop := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(sessionHeader, id)
	req.Header.Set(protocolHeader, "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		stop()
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		close(done)
	}()
	t.Cleanup(func() { stop(); resp.Body.Close() })
	return func(d time.Duration) bool {
		select {
		case <-done:
			return true
		case <-time.After(d):
			return false
		}
	}
}

// TestSessionCapEvictsLongestIdle: at MaxSessions a new client is not
// locked out: initialize is served, and the session idle the longest is
// closed to make room. A session that holds its GET stream open but sends
// no request counts as idle (its stream is ended, and its client gets 404),
// the sessions used since stay, and a session with a call in flight is
// never the one closed.
func TestSessionCapEvictsLongestIdle(t *testing.T) {
	srv, ts := httpFixture(t, HTTPOptions{MaxSessions: 3})
	url := ts.URL + "/mcp"
	listening := rawSession(t, url)
	ended := getStream(t, url, listening)
	b, c := rawSession(t, url), rawSession(t, url)
	for _, id := range []string{b, c} {
		if code := ping(t, url, id); code != http.StatusOK {
			t.Fatalf("ping: %d", code)
		}
	}
	code, h, body := rawRequest(t, http.MethodPost, url, initializeBody, nil)
	if code != http.StatusOK || h.Get(sessionHeader) == "" {
		t.Fatalf("a new client at the cap: %d %s; want its session, the longest-idle one closed", code, body)
	}
	newest := h.Get(sessionHeader)
	if !ended(10 * time.Second) {
		t.Error("the GET stream of the longest-idle session is still open")
	}
	if code := ping(t, url, listening); code != http.StatusNotFound {
		t.Errorf("a request on the evicted session: %d, want 404", code)
	}
	for _, id := range []string{b, c, newest} {
		if code := ping(t, url, id); code != http.StatusOK {
			t.Errorf("ping on session %s, which was not the longest idle: %d", id, code)
		}
	}
	if n := sessionCount(srv); n != 3 {
		t.Errorf("%d sessions, want 3", n)
	}
}

// TestSessionCapSparesCallsInFlight: a session whose call is still being
// answered is never closed to make room; when every session has one, a
// new session is refused with 503 rather than a call cut off. (The call
// is held by the server: its first snapshot is not in yet.)
func TestSessionCapSparesCallsInFlight(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	srv := New(nil, Options{Logger: discard()})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{MaxSessions: 1}))
	t.Cleanup(func() { srv.CloseSessions(); ts.Close() })
	url := ts.URL + "/mcp"
	ctx := testCtx(t, 20*time.Second)

	cs := connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "busy", Version: "1"}, nil),
		&sdk.StreamableClientTransport{Endpoint: url}, "2025-11-25")
	answered := make(chan error, 1)
	go func() {
		res, err := call(ctx, cs, map[string]any{"name": "pdf"})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		answered <- err
	}()
	if !eventually(10*time.Second, func() bool {
		return srv.unanswered.Load() > 0
	}) {
		t.Fatal("the call never reached the server")
	}
	if code, _, body := rawRequest(t, http.MethodPost, url, initializeBody, nil); code != http.StatusServiceUnavailable {
		t.Errorf("a new session while the only one has a call in flight: %d %s, want 503", code, body)
	}
	srv.Update(snapOf(recs))
	if err := <-answered; err != nil {
		t.Errorf("the call in flight: %v", err)
	}
	// Its call answered (the handler returns just after the answer is
	// written), the session is idle and makes room.
	if !eventually(10*time.Second, func() bool {
		code, _, _ := rawRequest(t, http.MethodPost, url, initializeBody, nil)
		return code == http.StatusOK
	}) {
		t.Error("no new session once the call was answered")
	}
}

// TestSessionCapAskWaitingOnClient: a session whose only call in flight
// is ask, waiting for its own client's model, does not lock new clients
// out at the cap: the client that does not answer is the one whose
// session is closed.
func TestSessionCapAskWaitingOnClient(t *testing.T) {
	_, snap := askSkills(t)
	srv := New(snap, Options{Logger: discard(), Tools: []string{ToolAsk}})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{MaxSessions: 1}))
	t.Cleanup(func() { srv.CloseSessions(); ts.Close() })
	url := ts.URL + "/mcp"
	ctx := testCtx(t, 20*time.Second)

	asked := make(chan struct{})
	co := &sdk.ClientOptions{CreateMessageHandler: func(ctx context.Context, _ *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
		close(asked)
		<-ctx.Done() // never answers
		return nil, ctx.Err()
	}}
	cs := connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "silent", Version: "1"}, co),
		&sdk.StreamableClientTransport{Endpoint: url}, "2025-11-25")
	ended := make(chan struct{})
	go func() {
		_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: ToolAsk, Arguments: map[string]any{"sources": []string{"claude"}, "question": "q"}})
		close(ended)
	}()
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the ask call never reached the client's model")
	}
	if code, h, body := rawRequest(t, http.MethodPost, url, initializeBody, nil); code != http.StatusOK || h.Get(sessionHeader) == "" {
		t.Errorf("a new session while the only one waits on its client's model: %d %s, want it served", code, body)
	}
	select {
	case <-ended:
	case <-ctx.Done():
		t.Error("the ask call of the closed session never ended")
	}
}

// sseStream opens a raw SSE session and returns its id and a function
// that reports, within d, whether the server ended its stream.
func sseStream(t *testing.T, url string) (id string, ended func(d time.Duration) bool) {
	t.Helper()
	ctx, stop := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		stop()
		t.Fatalf("SSE GET: %v %v", err, resp)
	}
	t.Cleanup(func() { stop(); resp.Body.Close() })
	events := sseEvents(resp.Body)
	ev := <-events
	id = strings.TrimPrefix(ev.data, "/messages?sessionid=")
	if ev.name != "endpoint" || id == "" {
		t.Fatalf("first event %+v, want the endpoint", ev)
	}
	done := make(chan struct{})
	go func() {
		for range events {
		}
		close(done)
	}()
	return id, func(d time.Duration) bool {
		select {
		case <-done:
			return true
		case <-time.After(d):
			return false
		}
	}
}

// TestSSESessionCap: MaxSessions caps SSE sessions as it caps streamable
// ones: a new stream at the cap closes the session idle the longest (its
// stream ends, its messages get 404), and the others stay.
func TestSSESessionCap(t *testing.T) {
	srv, ts := httpFixture(t, HTTPOptions{SSE: true, MaxSessions: 2})
	post := func(id string) int {
		code, _, _ := rawRequest(t, http.MethodPost, ts.URL+"/messages?sessionId="+id, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, nil)
		return code
	}
	first, firstEnded := sseStream(t, ts.URL+"/mcp")
	second, secondEnded := sseStream(t, ts.URL+"/mcp")
	if code := post(first); code != http.StatusAccepted {
		t.Fatalf("POST on the first session: %d", code)
	}
	third, _ := sseStream(t, ts.URL+"/mcp")
	if !secondEnded(10 * time.Second) {
		t.Fatal("3 SSE sessions against a cap of 2: the longest-idle one's stream is still open")
	}
	if firstEnded(0) {
		t.Error("the stream of a session used since was closed")
	}
	if code := post(second); code != http.StatusNotFound {
		t.Errorf("a message to the closed session: %d, want 404", code)
	}
	for _, id := range []string{first, third} {
		if code := post(id); code != http.StatusAccepted {
			t.Errorf("a message to live session %s: %d, want 202", id, code)
		}
	}
	if !eventually(10*time.Second, func() bool { return sessionCount(srv) == 2 }) {
		t.Errorf("%d SDK sessions, want 2", sessionCount(srv))
	}
}
