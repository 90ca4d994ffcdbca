package mcp

import (
	"context"
	"encoding/json"
	"net/http"
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

// TestMaxSessions: beyond MaxSessions live sessions, a request that would
// start one gets HTTP 503 and a JSON-RPC error with its id that names the
// setting; the live sessions keep working; a session ended with DELETE
// makes room at once; requests that start no lasting session (the
// stateless era's, a ping without a session) are never refused.
func TestMaxSessions(t *testing.T) {
	srv, ts := httpFixture(t, HTTPOptions{MaxSessions: 3})
	url := ts.URL + "/mcp"
	var ids []string
	for range 3 {
		ids = append(ids, rawSession(t, url))
	}
	code, h, body := rawRequest(t, http.MethodPost, url, initializeBody, nil)
	var resp struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if code != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &resp) != nil || resp.ID != 1 ||
		!strings.Contains(resp.Error.Message, "mcp.max_sessions") || h.Get("Retry-After") == "" {
		t.Fatalf("the 4th session: %d %v %s; want 503 with a JSON-RPC error naming mcp.max_sessions", code, h, body)
	}
	if n := sessionCount(srv); n != 3 {
		t.Errorf("%d server sessions after the refusal, want 3", n)
	}
	// A request that is not initialize starts no lasting session: it is
	// served at the cap too.
	if code, _, body := rawRequest(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil); code == http.StatusServiceUnavailable {
		t.Errorf("a ping without a session at the cap: %d %s, want it served", code, body)
	}
	for _, id := range ids {
		if code := ping(t, url, id); code != http.StatusOK {
			t.Errorf("ping on a live session: %d", code)
		}
	}
	// A client of the stateless era needs no session.
	ctx := testCtx(t, 10*time.Second)
	cs := connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "new", Version: "1"}, nil),
		&sdk.StreamableClientTransport{Endpoint: url}, "")
	onlyTool(t, ctx, cs)
	// DELETE ends a session and makes room.
	if code, _, body := rawRequest(t, http.MethodDelete, url, "", map[string]string{sessionHeader: ids[0]}); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", code, body)
	}
	// A request that is not initialize gets no lasting session, and takes
	// no room.
	for range 3 {
		if code, _, body := rawRequest(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil); code == http.StatusServiceUnavailable {
			t.Fatalf("a ping without a session was refused as over the cap: %s", body)
		}
	}
	rawSession(t, url)
	if code, _, body := rawRequest(t, http.MethodPost, url, initializeBody, nil); code != http.StatusServiceUnavailable {
		t.Errorf("at the cap again: %d %s, want 503", code, body)
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
	listening := rawSession(t, url)

	// Hold a GET stream open on one session.
	ctx, stop := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(sessionHeader, listening)
	req.Header.Set(protocolHeader, "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", err, resp)
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
	if code := ping(t, url, quiet); code != http.StatusNotFound {
		t.Errorf("a request on the closed session: %d, want 404", code)
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
