package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const listenBody = `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}}}}`

// TestListChangedAfterAcknowledged: a 2026-07-28 subscriptions/listen
// stream begins with notifications/subscriptions/acknowledged, as SEP-2575
// requires, even when the lists change between the SDK registering the
// subscription and sending the acknowledgement; the change follows it
// (the client may have fetched its lists before it subscribed, so it is
// not dropped). A sending middleware outside the server's makes the
// change happen in that window, and lets the acknowledgement go only once
// the notification has passed the server's own middleware.
func TestListChangedAfterAcknowledged(t *testing.T) {
	base := t.TempDir()
	recs := makeRecords(t, base, skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	srv := New(snapOf(recs), Options{Version: "test", Logger: discard()})
	changed := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files, edited"})
	passed := make(chan struct{})
	var changeOnce, passOnce sync.Once
	srv.SDK().AddSendingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			switch method {
			case "notifications/subscriptions/acknowledged":
				changeOnce.Do(func() {
					srv.Update(snapOf(changed))
					select {
					case <-passed:
					case <-time.After(20 * time.Second): // a hang guard: the order below fails the test
					}
				})
			case "notifications/tools/list_changed":
				defer passOnce.Do(func() { close(passed) })
			}
			return next(ctx, method, req)
		}
	})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	t.Cleanup(func() { srv.CloseSessions(); ts.Close() })

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/mcp", strings.NewReader(listenBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var methods []string
	for ev := range sseEvents(resp.Body) {
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(ev.data), &msg) != nil || msg.Method == "" {
			continue
		}
		methods = append(methods, msg.Method)
		if len(methods) == 2 {
			break
		}
	}
	want := []string{"notifications/subscriptions/acknowledged", "notifications/tools/list_changed"}
	if strings.Join(methods, " ") != strings.Join(want, " ") {
		t.Errorf("the listen stream's first messages: %q, want %q", methods, want)
	}
}

// TestListChangedWithoutInitialized: a client that asks for a list after
// its initialize without sending notifications/initialized (which the
// lifecycle asks of it) is told of the changes after that request, as a
// client that sent it would be: the server does not wait for an
// initialized that may never come.
func TestListChangedWithoutInitialized(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "codex", name: "pdf", desc: "PDF."})
	srv := New(snapOf(recs), Options{Logger: discard()})
	in, feed := io.Pipe()
	var out syncBuffer
	go func() { _ = srv.SDK().Run(testCtx(t, 20*time.Second), guardStdio(in, &out, newOpLog(discard()))) }()
	t.Cleanup(func() { _ = feed.Close() })
	send := func(line string) {
		if _, err := io.WriteString(feed, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if !eventually(10*time.Second, func() bool { return strings.Contains(out.String(), `"id":2,`) }) {
		t.Fatalf("no answer to tools/list:\n%s", out.String())
	}
	srv.Update(snapOf(makeRecords(t, t.TempDir(), skillSpec{provider: "codex", name: "pdf", desc: "PDF, edited."})))
	if !eventually(10*time.Second, func() bool { return strings.Contains(out.String(), "notifications/tools/list_changed") }) {
		t.Fatalf("the change was not told to a client that listed before its initialized:\n%s", out.String())
	}
}
