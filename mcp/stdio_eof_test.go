package mcp

import (
	"strings"
	"testing"
	"time"
)

// TestStdioAnswersBeforeEOF: a client that writes its requests and closes
// stdin at once still gets every reply; the session used to end at EOF
// with the tools/call unanswered.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "codex", name: "pdf", desc: "PDF."})
	srv := New(snapOf(recs), Options{Logger: discard()})
	in := strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"skill","arguments":{"name":"pdf"}}}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/list"}`,
	}, "\n") + "\n")
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- srv.SDK().Run(testCtx(t, 20*time.Second), guardStdio(in, &out, newOpLog(discard()))) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the server did not end after stdin closed")
	}
	got := out.String()
	for _, id := range []string{`"id":1,`, `"id":2,`, `"id":"three",`} {
		if !strings.Contains(got, id) {
			t.Errorf("no reply with %s before the session ended:\n%s", id, got)
		}
	}
}

// TestStdioFirstNamesTheClient: the guard names the client of the first
// message (its initialize's clientInfo) once, before the SDK reads it;
// a first message that is no initialize, or no message at all, names
// nobody.
func TestStdioFirstNamesTheClient(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2"}}}`
	for _, tc := range []struct{ in, want string }{
		{initialize + "\n" + strings.Replace(initialize, "claude-code", "other", 1) + "\n", "claude-code"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n" + initialize + "\n", ""},
		{"", ""},
	} {
		var names []string
		srv := New(snapOf(nil), Options{Logger: discard()})
		var out syncBuffer
		tr := guardStdioFirst(strings.NewReader(tc.in), &out, newOpLog(discard()), func(name string) { names = append(names, name) })
		done := make(chan error, 1)
		go func() { done <- srv.SDK().Run(testCtx(t, 20*time.Second), tr) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Fatal("the server did not end after stdin closed")
		}
		if len(names) != 1 || names[0] != tc.want {
			t.Errorf("input %q: named %q, want once %q", tc.in, names, tc.want)
		}
	}
}
