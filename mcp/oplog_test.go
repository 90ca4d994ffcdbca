package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// logTo returns a logger writing text lines at level and above to b.
func logTo(b io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: level}))
}

// TestSDKLines: the go-sdk's lines reach the operator at the level they
// deserve: a notification its client's stream was not there for, and a
// client's mistake the SDK reports, at DEBUG; a normal stdio shutdown not
// at all; a fault of the server at the SDK's own level.
func TestSDKLines(t *testing.T) {
	tests := []struct {
		msg   string
		level slog.Level
		want  string // the level logged; "" for none
	}{
		{"calling notifications/tools/list_changed: rejected by transport: undelivered message: stream not connected or already closed", slog.LevelWarn, "DEBUG"},
		{"calling notifications/resources/list_changed: connection closed", slog.LevelWarn, "DEBUG"},
		{"method invalid during initialization", slog.LevelError, "DEBUG"},
		{"duplicate initialize request", slog.LevelError, "DEBUG"},
		{"initialized before initialize", slog.LevelError, "DEBUG"},
		{"method removed in the new protocol", slog.LevelError, "DEBUG"},
		{`rejecting request with protocol version "2026-07-28": this server is stateful`, slog.LevelWarn, "DEBUG"},
		{"server session connected", slog.LevelInfo, "DEBUG"},
		{"server run cancelled", slog.LevelError, ""},
		{"jsonrpc2 internal error", slog.LevelError, "ERROR"},
		{"failed to connect: transport closed", slog.LevelError, "ERROR"}, // answered 500
		{"keepalive ping failed; closing session", slog.LevelError, "ERROR"},
		{"Writing priming event: broken pipe", slog.LevelWarn, "WARN"},
	}
	for _, tt := range tests {
		for _, at := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
			var b bytes.Buffer
			ops := newOpLog(logTo(&b, at))
			ops.sdk().Log(context.Background(), tt.level, tt.msg, "method", "tools/list")
			want := tt.want
			if want == "DEBUG" && at > slog.LevelDebug {
				want = ""
			}
			got := ""
			if _, rest, ok := strings.Cut(b.String(), "level="); ok {
				got = strings.Fields(rest)[0]
			}
			if got != want {
				t.Errorf("%q at %v, logging at %v and above: logged at %q, want %q (%s)", tt.msg, tt.level, at, got, want, b.String())
			}
			if want != "" && !strings.Contains(b.String(), "method=tools/list") {
				t.Errorf("%q: attributes lost: %s", tt.msg, b.String())
			}
		}
	}
}

// TestClientMistakeOnce: each client's first mistake is logged at INFO,
// the ones after at DEBUG.
func TestClientMistakeOnce(t *testing.T) {
	var b bytes.Buffer
	ops := newOpLog(logTo(&b, slog.LevelDebug))
	a, c := client{"session", "A"}, client{"remote", "127.0.0.1:5"}
	for range 3 {
		ops.clientMistake(t.Context(), a, "invalid params")
		ops.clientMistake(t.Context(), c, "request refused")
	}
	count := func(level, who string) int {
		n := 0
		for line := range strings.SplitSeq(b.String(), "\n") {
			if strings.Contains(line, "level="+level+" ") && strings.Contains(line, who) {
				n++
			}
		}
		return n
	}
	for _, who := range []string{"session=A", "remote=127.0.0.1:5"} {
		if info, debug := count("INFO", who), count("DEBUG", who); info != 1 || debug != 2 {
			t.Errorf("%s: %d INFO and %d DEBUG lines, want 1 and 2:\n%s", who, info, debug, b.String())
		}
	}
}

// TestStdioMistakesOnce: the one client of stdio sends malformed lines and
// a request with invalid params (a prompt it does not have; a tool's
// refused arguments are an isError result, no protocol error): one INFO line in all, the rest at DEBUG, and
// none at WARN (a malformed line used to be a warning each).
func TestStdioMistakesOnce(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "codex", name: "pdf", desc: "PDF."})
	var b syncBuffer
	srv := New(snapOf(recs), Options{Logger: logTo(&b, slog.LevelDebug)})
	in := strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json`,
		`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"no-such-prompt"}}`,
		`{"id":3}`,
		`also not json`,
	}, "\n") + "\n")
	var out syncBuffer
	if err := srv.SDK().Run(testCtx(t, 20*time.Second), guardStdio(in, &out, srv.ops)); err != nil && !errors.Is(err, io.EOF) {
		t.Logf("run: %v", err)
	}
	if !strings.Contains(out.String(), `"id":2,`) {
		t.Fatalf("no answer to the call:\n%s", out.String())
	}
	var info, debug int
	for line := range strings.SplitSeq(b.String(), "\n") {
		switch {
		case !strings.Contains(line, "client mistake"):
		case strings.Contains(line, "level=INFO "):
			info++
		case strings.Contains(line, "level=DEBUG "):
			debug++
		}
		if strings.Contains(line, "level=WARN ") || strings.Contains(line, "level=ERROR ") {
			t.Errorf("a client's mistake above INFO: %s", line)
		}
	}
	if info != 1 || debug != 3 {
		t.Errorf("%d INFO and %d DEBUG lines for the client's mistakes, want 1 and 3:\n%s", info, debug, b.String())
	}
}

// TestSessionlessMistakesOncePerHost: requests without a session from one
// host, each on its own TCP connection (so from its own port), are one
// client: one INFO line in all. Keyed by host:port, every connection of a
// scanner got its own.
func TestSessionlessMistakesOncePerHost(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "codex", name: "pdf", desc: "PDF."})
	var b syncBuffer
	srv := New(snapOf(recs), Options{Logger: logTo(&b, slog.LevelDebug)})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	t.Cleanup(func() { srv.CloseSessions(); ts.Close() })
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for range 4 {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("a request without a session: %d, want 400", resp.StatusCode)
		}
	}
	var info, debug int
	for line := range strings.SplitSeq(b.String(), "\n") {
		switch {
		case !strings.Contains(line, "client mistake"):
		case strings.Contains(line, "level=INFO ") && strings.Contains(line, "remote=127.0.0.1 "):
			info++
		case strings.Contains(line, "level=DEBUG "):
			debug++
		}
	}
	if info != 1 || debug != 3 {
		t.Errorf("%d INFO lines naming remote=127.0.0.1 and %d DEBUG, want 1 and 3:\n%s", info, debug, b.String())
	}
}

// TestMistakesLoggedAsAnswered: the log names the error the client got.
// A 2025-11-25 client reading a resource no skill has gets -32002, and
// the log says so (it said -32602, the code before the era's); a prompt
// name over its cap is refused, and logged (it was not at all).
func TestMistakesLoggedAsAnswered(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "codex", name: "pdf", desc: "PDF."})
	var b syncBuffer
	srv := New(snapOf(recs), Options{Logger: logTo(&b, slog.LevelDebug)})
	in := strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://codex/no-such-skill/SKILL.md"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"` + strings.Repeat("x", MaxNameArg+1) + `"}}`,
	}, "\n") + "\n")
	var out syncBuffer
	if err := srv.SDK().Run(testCtx(t, 20*time.Second), guardStdio(in, &out, srv.ops)); err != nil && !errors.Is(err, io.EOF) {
		t.Logf("run: %v", err)
	}
	answers := out.String()
	if !strings.Contains(answers, `"id":2,"error":{"code":-32002`) || !strings.Contains(answers, `"id":3,"error":{"code":-32602`) {
		t.Fatalf("answers, want -32002 and -32602:\n%s", answers)
	}
	var read, prompt string
	for line := range strings.SplitSeq(b.String(), "\n") {
		switch {
		case !strings.Contains(line, "client mistake"):
		case strings.Contains(line, "method=resources/read "):
			read = line
		case strings.Contains(line, "method=prompts/get "):
			prompt = line
		}
	}
	if !strings.Contains(read, "code=-32002 ") {
		t.Errorf("the resource not found was logged as %q, want code=-32002 as answered", read)
	}
	if !strings.Contains(prompt, "code=-32602 ") {
		t.Errorf("the prompt name over its cap was logged as %q, want code=-32602", prompt)
	}
	if t.Failed() {
		t.Logf("log:\n%s", b.String())
	}
}
