package mcp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// streamEvent is one server-sent event with every field it carries.
type streamEvent struct{ name, id, retry, data string }

// readStream reads the events of an SSE body until it ends, or until n
// events when n > 0.
func readStream(t *testing.T, body io.Reader, n int) []streamEvent {
	t.Helper()
	var out []streamEvent
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	var ev streamEvent
	seen := false
	for sc.Scan() {
		field, value, _ := strings.Cut(sc.Text(), ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			if seen {
				out = append(out, ev)
				if n > 0 && len(out) == n {
					return out
				}
			}
			ev, seen = streamEvent{}, false
			continue
		case "event":
			ev.name = value
		case "id":
			ev.id = value
		case "retry":
			ev.retry = value
		case "data":
			ev.data += value
		}
		seen = true
	}
	return out
}

// streamRequest sends a request to /mcp and returns the response, whose
// body the test reads.
func streamRequest(t *testing.T, ctx context.Context, method, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestPrimedStreams: in a 2025-11-25 session, the SSE stream answering a
// POST starts with a priming event (an id, no data) that carries a retry
// field, and a client that reconnects with GET and that id as
// Last-Event-ID gets the answer again: the stream is resumable, as
// SEP-1699 has it.
func TestPrimedStreams(t *testing.T) {
	_, ts := httpFixture(t, HTTPOptions{})
	ctx := testCtx(t, 10*time.Second)
	resp := streamRequest(t, ctx, http.MethodPost, ts.URL+"/mcp", initializeBody, nil)
	id := resp.Header.Get(sessionHeader)
	init := readStream(t, resp.Body, 0)
	if resp.StatusCode != http.StatusOK || id == "" || len(init) == 0 {
		t.Fatalf("initialize: %d, session %q, events %+v", resp.StatusCode, id, init)
	}
	session := map[string]string{sessionHeader: id, protocolHeader: "2025-11-25"}
	resp = streamRequest(t, ctx, http.MethodPost, ts.URL+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	resp = streamRequest(t, ctx, http.MethodPost, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, session)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("tools/list answered as %q, want an SSE stream", ct)
	}
	events := readStream(t, resp.Body, 0)
	if len(events) < 2 {
		t.Fatalf("tools/list stream: %+v, want the priming event, then the answer", events)
	}
	prime := events[0]
	if prime.id == "" || prime.data != "" || prime.retry != "1000" {
		t.Errorf("first event %+v, want an id, no data and retry: 1000", prime)
	}
	last := events[len(events)-1]
	if last.id == "" || !strings.Contains(last.data, `"id":2`) || !strings.Contains(last.data, `"tools"`) {
		t.Fatalf("last event %+v, want the tools/list answer with an id", last)
	}

	// The client lost the stream after the priming event: it resumes.
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp = streamRequest(t, gctx, http.MethodGet, ts.URL+"/mcp", "", map[string]string{
		sessionHeader: id, protocolHeader: "2025-11-25", "Last-Event-ID": prime.id})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET with Last-Event-ID %s: %d", prime.id, resp.StatusCode)
	}
	replayed := readStream(t, resp.Body, 1)
	if len(replayed) != 1 || replayed[0].data != last.data || replayed[0].id != last.id {
		t.Errorf("replayed %+v, want the answer %+v", replayed, last)
	}
}

// TestStreamStore: the store keeps the last keepStreams streams of a
// session and maxBytes in all, the oldest dropped first; a stream no
// longer kept, or events no longer kept, are reported purged.
func TestStreamStore(t *testing.T) {
	ctx := context.Background()
	after := func(s *streamStore, session, stream string, index int) ([]string, error) {
		var out []string
		for d, err := range s.After(ctx, session, stream, index) {
			if err != nil {
				return out, err
			}
			out = append(out, string(d))
		}
		return out, nil
	}
	purged := func(err error) bool { return errors.Is(err, sdk.ErrEventsPurged) }

	s := newStreamStore(2, 10)
	for _, st := range []string{"a", "b"} {
		_ = s.Open(ctx, "s1", st)
		_ = s.Append(ctx, "s1", st, nil) // a priming event
		_ = s.Append(ctx, "s1", st, []byte(st+"1"))
	}
	if got, err := after(s, "s1", "a", 0); err != nil || strings.Join(got, ",") != "a1" {
		t.Errorf("after a/0: %v %v, want a1", got, err)
	}
	if got, err := after(s, "s1", "b", 1); err != nil || len(got) != 0 {
		t.Errorf("after b/1 (the last): %v %v, want nothing", got, err)
	}
	// A third stream drops the session's oldest.
	_ = s.Open(ctx, "s1", "c")
	if _, err := after(s, "s1", "a", 0); !purged(err) {
		t.Errorf("after a, dropped: %v, want purged", err)
	}
	_ = s.Append(ctx, "s1", "a", []byte("late")) // a dropped stream keeps nothing
	if s.bytes != 2 {
		t.Errorf("%d bytes kept, want 2 (b1)", s.bytes)
	}
	// Over maxBytes, the oldest streams of any session go first.
	_ = s.Open(ctx, "s2", "x")
	_ = s.Append(ctx, "s2", "x", []byte("123456789"))
	if _, err := after(s, "s1", "b", 0); !purged(err) {
		t.Errorf("after b, over the byte cap: %v, want purged", err)
	}
	if got, err := after(s, "s2", "x", -1); err != nil || strings.Join(got, ",") != "123456789" {
		t.Errorf("after x/-1: %v %v", got, err)
	}
	// A stream alone over the cap keeps its newest events.
	_ = s.Append(ctx, "s2", "x", []byte("abcdef"))
	if _, err := after(s, "s2", "x", -1); !purged(err) {
		t.Errorf("after x/-1, its first event dropped: %v, want purged", err)
	}
	if got, err := after(s, "s2", "x", 0); err != nil || strings.Join(got, ",") != "abcdef" {
		t.Errorf("after x/0: %v %v, want abcdef", got, err)
	}
	_ = s.SessionClosed(ctx, "s1")
	_ = s.SessionClosed(ctx, "s2")
	if len(s.sessions) != 0 || s.all.Len() != 0 || s.bytes != 0 {
		t.Errorf("after every session closed: %d sessions, %d streams, %d bytes", len(s.sessions), s.all.Len(), s.bytes)
	}
	if _, err := after(s, "s2", "x", 0); !purged(err) {
		t.Errorf("after a closed session: %v, want purged", err)
	}
}
