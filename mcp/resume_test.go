package mcp

import (
	"bufio"
	"context"
	"errors"
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

// streamEvent is one server-sent event with every field it carries.
type streamEvent struct{ name, id, retry, data string }

// readStream reads the events of an SSE body until it ends, or until n
// events when n > 0.
func readStream(t *testing.T, body io.Reader, n int) []streamEvent {
	t.Helper()
	var out []streamEvent
	for ev := range streamEvents(body) {
		out = append(out, ev)
		if n > 0 && len(out) == n {
			break
		}
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

// openSession initializes a 2025-11-25 session on ts and sends its
// notifications/initialized; it returns the headers of its requests.
func openSession(t *testing.T, ctx context.Context, url string) map[string]string {
	t.Helper()
	resp := streamRequest(t, ctx, http.MethodPost, url, initializeBody, nil)
	id := resp.Header.Get(sessionHeader)
	readStream(t, resp.Body, 0)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	session := map[string]string{sessionHeader: id, protocolHeader: "2025-11-25"}
	resp = streamRequest(t, ctx, http.MethodPost, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	return session
}

// listenOnce opens the session's GET stream, reports its status, and
// closes it.
func listenOnce(t *testing.T, ctx context.Context, url string, session map[string]string) (int, string) {
	t.Helper()
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp := streamRequest(t, gctx, http.MethodGet, url, "", session)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	return resp.StatusCode, ""
}

// TestStandaloneStreamOutlivesRequests: a session that has sent more
// requests than the store keeps streams of can still open its GET stream,
// where its list_changed notifications go; the store used to drop the GET
// stream first, as the session's oldest, and the SDK then answered every
// GET with 400 "failed to replay events".
func TestStandaloneStreamOutlivesRequests(t *testing.T) {
	_, ts := httpFixture(t, HTTPOptions{})
	ctx := testCtx(t, 2*time.Minute) // a hang guard: each request ends when answered
	url := ts.URL + "/mcp"
	session := openSession(t, ctx, url)
	if code, body := listenOnce(t, ctx, url, session); code != http.StatusOK {
		t.Fatalf("first GET: %d %s", code, body)
	}
	for i := range keptStreams + 1 {
		resp := streamRequest(t, ctx, http.MethodPost, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 10+i), session)
		if events := readStream(t, resp.Body, 0); resp.StatusCode != http.StatusOK || len(events) == 0 {
			t.Fatalf("tools/list %d: %d %+v", i, resp.StatusCode, events)
		}
	}
	if code, body := listenOnce(t, ctx, url, session); code != http.StatusOK {
		t.Fatalf("GET after %d requests: %d %s, want 200", keptStreams+1, code, body)
	}
}

// TestStandaloneStreamKept: the stream of a session's GET (stream "") is
// never dropped while its session lives, whatever the session's other
// streams and the byte cap: its oldest events are trimmed instead. A GET
// without Last-Event-ID gets what no earlier GET was offered (the
// messages sent before the client first listened, or while it was away),
// numbered from 0 as the SDK numbers them, never an error; a GET with
// Last-Event-ID gets what came after it.
func TestStandaloneStreamKept(t *testing.T) {
	ctx := context.Background()
	after := func(s *streamStore, session, stream string, index int) (string, error) {
		var out []string
		for d, err := range s.After(ctx, session, stream, index) {
			if err != nil {
				return strings.Join(out, ","), err
			}
			out = append(out, string(d))
		}
		return strings.Join(out, ","), nil
	}

	s := newStreamStore(2, 10)
	_ = s.Open(ctx, "s1", "")
	_ = s.Append(ctx, "s1", "", []byte("r")) // a request sent before the client listens
	for _, st := range []string{"a", "b", "c"} {
		_ = s.Open(ctx, "s1", st)
		_ = s.Append(ctx, "s1", st, nil)
	}
	if got, err := after(s, "s1", "", -1); err != nil || got != "r" {
		t.Fatalf("first GET after 3 streams: %q %v, want r", got, err)
	}
	_ = s.Append(ctx, "s1", "", []byte("n1")) // index 1, to the open GET
	s.offered("s1")                           // the GET ends
	_ = s.Append(ctx, "s1", "", []byte("n2")) // index 2: while the client is away
	if got, err := after(s, "s1", "", 1); err != nil || got != "n2" {
		t.Errorf("GET resuming after n1: %q %v, want n2", got, err)
	}
	s.offered("s1")
	_ = s.Append(ctx, "s1", "", []byte("n3"))
	if got, err := after(s, "s1", "", -1); err != nil || got != "n3" {
		t.Errorf("a fresh GET: %q %v, want n3 alone (the rest was offered)", got, err)
	}
	// The fresh GET numbered n3 0: the next event is 1.
	_ = s.Append(ctx, "s1", "", []byte("n4"))
	if got, err := after(s, "s1", "", 0); err != nil || got != "n4" {
		t.Errorf("GET resuming after n3 (0): %q %v, want n4", got, err)
	}
	s.offered("s1")
	if got, err := after(s, "s1", "", -1); err != nil || got != "" {
		t.Errorf("a fresh GET with nothing new: %q %v, want nothing", got, err)
	}

	// Over the byte cap, another session's events trim the stream, and
	// it is still there.
	_ = s.Append(ctx, "s1", "", []byte("n5"))
	_ = s.Open(ctx, "s2", "x")
	_ = s.Append(ctx, "s2", "x", []byte("123456789"))
	if s.bytes > s.maxBytes {
		t.Errorf("%d bytes kept, over the cap of %d", s.bytes, s.maxBytes)
	}
	if got, err := after(s, "s1", "", -1); err != nil || got != "" {
		t.Errorf("a fresh GET after the byte cap: %q %v, want nothing and no error", got, err)
	}
	if got, err := after(s, "s1", "", 1); err != nil || got != "" {
		t.Errorf("a GET resuming into trimmed events: %q %v, want what is kept and no error", got, err)
	}
	_ = s.SessionClosed(ctx, "s1")
	_ = s.SessionClosed(ctx, "s2")
	if len(s.sessions) != 0 || s.all.Len() != 0 || s.bytes != 0 {
		t.Errorf("after every session closed: %d sessions, %d streams, %d bytes", len(s.sessions), s.all.Len(), s.bytes)
	}
	if _, err := after(s, "s1", "", -1); !errors.Is(err, sdk.ErrEventsPurged) {
		t.Errorf("GET of a closed session: %v, want purged", err)
	}
}

// TestStreamStoreCap: the store keeps at most maxBytes, even when the
// stream being appended to is the oldest and holds one event: the other
// streams go.
func TestStreamStoreCap(t *testing.T) {
	ctx := context.Background()
	s := newStreamStore(8, 10)
	_ = s.Open(ctx, "s1", "a")
	_ = s.Open(ctx, "s2", "b")
	_ = s.Append(ctx, "s2", "b", []byte("12345"))
	_ = s.Append(ctx, "s1", "a", []byte("123456789"))
	if s.bytes > s.maxBytes {
		t.Errorf("%d bytes kept, over the cap of %d", s.bytes, s.maxBytes)
	}
	var got []string
	for d, err := range s.After(ctx, "s1", "a", -1) {
		if err != nil {
			t.Fatalf("after a/-1: %v", err)
		}
		got = append(got, string(d))
	}
	if strings.Join(got, ",") != "123456789" {
		t.Errorf("a keeps %q, want its newest event", got)
	}
}

// streamEvents sends the events of an SSE body, comment lines aside,
// until it ends.
func streamEvents(body io.Reader) <-chan streamEvent {
	ch := make(chan streamEvent, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(body)
		sc.Buffer(nil, 16<<20)
		var ev streamEvent
		for sc.Scan() {
			field, value, _ := strings.Cut(sc.Text(), ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "":
				if sc.Text() == "" && ev != (streamEvent{}) {
					ch <- ev
					ev = streamEvent{}
				}
			case "event":
				ev.name = value
			case "id":
				ev.id = value
			case "retry":
				ev.retry = value
			case "data":
				ev.data += value
			}
		}
	}()
	return ch
}

// toolsChanged waits for a notifications/tools/list_changed on events
// and returns it; ok is false when the stream ends first.
func toolsChanged(events <-chan streamEvent) (streamEvent, bool) {
	for ev := range events {
		if strings.Contains(ev.data, `"notifications/tools/list_changed"`) {
			return ev, true
		}
	}
	return streamEvent{}, false
}

// TestListChangedWhileAway: a 2025-11-25 client whose GET stream broke
// gets the list_changed sent while it was away when it listens again,
// resuming with Last-Event-ID or not: the server keeps it in the session's
// event store (and a GET without Last-Event-ID gets only what no earlier
// GET was offered; a GET the server refused was offered nothing). It used
// to drop every notification to a session with no GET stream open, so a
// client that resumed missed the changes of the gap.
func TestListChangedWhileAway(t *testing.T) {
	for _, resume := range []bool{true, false} {
		t.Run(fmt.Sprintf("Last-Event-ID=%v", resume), func(t *testing.T) {
			recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
			srv := New(snapOf(recs), Options{Version: "test", Logger: discard()})
			var mu sync.Mutex
			passed := map[string]int{} // the tools/list_changed the gate decided on, by session
			srv.SDK().AddSendingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
				return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
					res, err := next(ctx, method, req)
					if method == "notifications/tools/list_changed" {
						mu.Lock()
						passed[req.GetSession().ID()]++
						mu.Unlock()
					}
					return res, err
				}
			})
			ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
			t.Cleanup(func() { srv.CloseSessions(); ts.Close() })
			ctx := testCtx(t, 20*time.Second)
			url := ts.URL + "/mcp"
			session := openSession(t, ctx, url)
			id := session[sessionHeader]
			change := func(desc string) {
				mu.Lock()
				before := passed[id]
				mu.Unlock()
				srv.Update(snapOf(makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: desc})))
				if !eventually(10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return passed[id] > before }) {
					t.Fatalf("no tools/list_changed for the session after %q", desc)
				}
			}

			gctx, cancel := context.WithCancel(ctx)
			resp := streamRequest(t, gctx, http.MethodGet, url, "", session)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET: %d", resp.StatusCode)
			}
			var first streamEvent
			if resume {
				// A change while the stream is open gives the client an
				// event id to resume after.
				change("PDF files, edited once")
				var ok bool
				if first, ok = toolsChanged(streamEvents(resp.Body)); !ok || first.id == "" {
					t.Fatalf("the open stream got no tools/list_changed with an id: %+v", first)
				}
			}
			cancel() // the stream breaks
			if !eventually(10*time.Second, func() bool { _, open := srv.gate.streams.Load().streamOpen(id); return !open }) {
				t.Fatal("the server still counts the GET stream open")
			}
			change("PDF files, edited while away")

			again := map[string]string{}
			for k, v := range session {
				again[k] = v
			}
			if !resume {
				// A GET the server refuses was offered nothing: the next
				// one still gets what was sent while away.
				bad := map[string]string{"Accept": "application/json"} // no event stream accepted
				for k, v := range session {
					bad[k] = v
				}
				if code, body := listenOnce(t, ctx, url, bad); code == http.StatusOK {
					t.Fatalf("a GET that accepts no event stream: %d %s, want a refusal", code, body)
				}
			}
			if resume {
				again["Last-Event-ID"] = first.id
			}
			resp = streamRequest(t, ctx, http.MethodGet, url, "", again)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET again: %d", resp.StatusCode)
			}
			if ev, ok := toolsChanged(streamEvents(resp.Body)); !ok {
				t.Errorf("listening again: %+v, want the tools/list_changed sent while away", ev)
			}
		})
	}
}

// TestStandaloneStreamOutlivesByteCap: another session's answers that
// push the event store past its byte cap do not take a session's GET
// stream: it opens again.
func TestStandaloneStreamOutlivesByteCap(t *testing.T) {
	big := "---\nname: pdf\ndescription: PDF files\n---\n# pdf\n" + strings.Repeat("A line of a long skill.\n", 3<<20/24)
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files", body: big})
	srv := New(snapOf(recs), Options{Version: "test", Logger: discard()})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	t.Cleanup(func() { srv.CloseSessions(); ts.Close() })
	ctx := testCtx(t, 30*time.Second)
	url := ts.URL + "/mcp"
	a := openSession(t, ctx, url)
	if code, body := listenOnce(t, ctx, url, a); code != http.StatusOK {
		t.Fatalf("first GET: %d %s", code, body)
	}
	b := openSession(t, ctx, url)
	read := 0
	for i := 0; read <= keptBytes; i++ {
		resp := streamRequest(t, ctx, http.MethodPost, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"skill://pdf/SKILL.md"}}`, 10+i), b)
		events := readStream(t, resp.Body, 0)
		if resp.StatusCode != http.StatusOK || len(events) == 0 || !strings.Contains(events[len(events)-1].data, "A line of a long skill.") {
			t.Fatalf("resources/read %d: %d, %d events", i, resp.StatusCode, len(events))
		}
		read += len(events[len(events)-1].data)
	}
	if code, body := listenOnce(t, ctx, url, a); code != http.StatusOK {
		t.Fatalf("GET after %d bytes of another session's answers: %d %s, want 200", read, code, body)
	}
}
