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
	go func() { done <- srv.SDK().Run(testCtx(t, 20*time.Second), guardStdio(in, &out, discard())) }()
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
