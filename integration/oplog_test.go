package integration

// What `ccski mcp` tells its operator and when it tells its clients: a
// long-running HTTP server meets clients that leave without a word and
// clients that make mistakes, and neither may bury the lines an operator
// has to act on; a list_changed never reaches a client before its
// notifications/initialized.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ccski/ccski/integration/machine"
)

// The description of claude:xlsx in the machine, and what the tests edit
// it to, so that the lists change.
const (
	xlsxDesc   = "Edit spreadsheets with formulas (Claude user copy)."
	xlsxEdited = "Pivot tables edited while clients wait."
)

// editXLSX changes the description of claude:xlsx on disk.
func editXLSX(t *testing.T, m *machine.Machine) {
	t.Helper()
	file := filepath.Join(m.Home, ".claude", "skills", "xlsx", "SKILL.md")
	old, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(old, []byte(xlsxDesc)) {
		t.Fatalf("%s does not hold %q", file, xlsxDesc)
	}
	if err := os.WriteFile(file, bytes.Replace(old, []byte(xlsxDesc), []byte(xlsxEdited), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// logLevel finds the level of a line of the server's text log.
var logLevel = regexp.MustCompile(` level=([A-Z]+) `)

// TestMCPHTTPOperatorLog: a long-running HTTP server whose clients open
// sessions and abandon them (some after opening their stream and closing
// it again), make mistakes (invalid params, a wrong protocol header, an
// unknown session, a request before initialize, a body that is not JSON),
// and whose skills change while they are gone, logs no WARN or ERROR at
// all, and each client's mistakes once at INFO (the rest at DEBUG): per
// session, and per remote host for requests without one. It
// used to log a WARN for every list_changed to every abandoned session,
// and the SDK's ERROR for each request before initialize.
func TestMCPHTTPOperatorLog(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	ctx := mcpContext(t)
	// With an hour between rescans, the watcher makes the change.
	s := startHTTP(t, m, nil, "--transport", "http", "--refresh-interval", "1h")
	url := s.base + "/mcp"
	session := func(id string) map[string]string {
		return map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	}
	open := func() string {
		code, h, body := postMCP(t, url, rawInitialize, nil)
		id := h.Get("Mcp-Session-Id")
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d %s", code, body)
		}
		if code, _, body := postMCP(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session(id)); code != http.StatusAccepted {
			t.Fatalf("initialized: %d %s", code, body)
		}
		return id
	}
	// Sessions abandoned at once.
	for range 12 {
		open()
	}
	// Sessions abandoned after opening their stream and closing it.
	for range 4 {
		id := open()
		sctx, cancel := context.WithCancel(ctx)
		req, err := http.NewRequestWithContext(sctx, http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range session(id) {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET stream: %v %v", err, resp)
		}
		cancel()
		resp.Body.Close()
	}
	// Sessions that make mistakes, three of each, and leave.
	var mistaken []string
	for range 4 {
		id := open()
		mistaken = append(mistaken, id)
		for i := range 3 {
			// A prompt the server does not have: a protocol error (a
			// tool's refused arguments are an isError result).
			code, _, body := postMCP(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"prompts/get","params":{"name":"no-such-prompt"}}`, 10+i), session(id))
			if code != http.StatusOK || !strings.Contains(body, "-32602") {
				t.Fatalf("invalid params: %d %s", code, body)
			}
			h := session(id)
			h["Mcp-Protocol-Version"] = "1999-01-01"
			if code, _, body := postMCP(t, url, `{"jsonrpc":"2.0","id":20,"method":"tools/list"}`, h); code != http.StatusBadRequest {
				t.Fatalf("a wrong protocol header: %d %s", code, body)
			}
		}
	}
	// Unknown sessions, and requests with none.
	for i := range 3 {
		id := fmt.Sprintf("NO-SUCH-SESSION-%d", i)
		mistaken = append(mistaken, id)
		for range 3 {
			if code, _, body := postMCP(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, session(id)); code != http.StatusNotFound {
				t.Fatalf("unknown session: %d %s", code, body)
			}
		}
	}
	// Each on a connection of its own, from a port of its own.
	for range 3 {
		postMCP(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"Connection": "close"})
		postMCP(t, url, `not json`, map[string]string{"Connection": "close"})
	}

	// A client that stays, connected last: the SDK notifies sessions in
	// the order they started, so once this one is told, every abandoned
	// session's notification of the same list was tried.
	var changes atomic.Int64
	cs, err := connectHTTP(ctx, s, "2025-11-25", nil, &changes)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, _, err := listSkills(ctx, cs); err != nil {
		t.Fatal(err)
	}
	editXLSX(t, m)
	if !waitUntil(refreshBudget, func() bool { return changes.Load() > 0 }) {
		t.Fatalf("the staying client was not told the tools changed\nstderr:\n%s", s.stderr)
	}
	_ = cs.Close()
	s.stop(t, syscall.SIGTERM, 10*time.Second) // stderr is complete once it exits

	stderr := s.stderr.String()
	for line := range strings.SplitSeq(stderr, "\n") {
		if lv := logLevel.FindStringSubmatch(line); lv != nil && (lv[1] == "WARN" || lv[1] == "ERROR") {
			t.Errorf("a %s line, for clients that left or made mistakes: %s", lv[1], line)
		}
	}
	// Each mistaken client's mistakes: one line at INFO.
	for _, id := range mistaken {
		var info []string
		for line := range strings.SplitSeq(stderr, "\n") {
			if strings.Contains(line, "session="+id+" ") && strings.Contains(line, " level=INFO ") {
				info = append(info, line)
			}
		}
		if len(info) != 1 || !strings.Contains(info[0], "client mistake") {
			t.Errorf("session %s: %d INFO lines, want one saying the client made a mistake:\n%s", id, len(info), strings.Join(info, "\n"))
		}
	}
	// Requests without a session: once per remote host, whatever the
	// connection.
	seen := map[string]int{}
	for line := range strings.SplitSeq(stderr, "\n") {
		if strings.Contains(line, "client mistake") && strings.Contains(line, " level=INFO ") {
			if _, rest, ok := strings.Cut(line, " remote="); ok {
				seen[strings.Fields(rest)[0]]++
			}
		}
	}
	if len(seen) != 1 || seen["127.0.0.1"] != 1 {
		t.Errorf("INFO lines for the mistakes of requests without a session, by remote: %v, want one for 127.0.0.1", seen)
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr)
	}
}

// listChanged reports whether line, a JSON-RPC message, is a list_changed
// notification.
func listChanged(line string) bool {
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal([]byte(line), &msg) == nil && strings.HasSuffix(msg.Method, "/list_changed")
}

// heldLine is the DEBUG line of a list_changed held for a session that is
// not initialized.
const heldLine = `msg="notification not sent"`

// TestMCPNoListChangedBeforeInitialized: the lists change between a
// client's initialize and its notifications/initialized, over stdio and
// over HTTP (with the session's stream open). No list_changed reaches the
// client before its initialized, and the lists it asks for after are the
// new ones. The test waits until the server has either sent the
// notification (as it used to) or logged that it held it.
func TestMCPNoListChangedBeforeInitialized(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		m := newMachine(t)
		stderr := &lockedBuffer{}
		cmd := exec.Command(binary, mcpArgs(m, "--refresh-interval", "1h", "--log-level", "debug")...)
		cmd.Dir, cmd.Env, cmd.Stderr = m.Workspace, env(m, nil), stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
		lines := readLines(out)
		send := func(line string) {
			if _, err := io.WriteString(in, line+"\n"); err != nil {
				t.Fatalf("the server stopped reading: %v\nstderr:\n%s", err, stderr)
			}
		}
		send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
		lines.await(t, stderr, `"id":"init"`)
		changeBeforeInitialized(t, m, stderr, lines)
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
		if reply := lines.await(t, stderr, `"id":"list"`); !strings.Contains(reply, xlsxEdited) {
			t.Errorf("tools/list after initialized does not show the change:\n%.2000s\nstderr:\n%s", reply, stderr)
		}
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		m := newMachine(t)
		s := startHTTP(t, m, nil, "--transport", "http", "--refresh-interval", "1h", "--log-level", "debug")
		url := s.base + "/mcp"
		code, h, body := postMCP(t, url, rawInitialize, nil)
		id := h.Get("Mcp-Session-Id")
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d %s", code, body)
		}
		header := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET stream: %v %v", err, resp)
		}
		t.Cleanup(func() { resp.Body.Close() })
		events := readLines(resp.Body)
		changeBeforeInitialized(t, m, s.stderr, events)
		if code, _, body := postMCP(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header); code != http.StatusAccepted {
			t.Fatalf("initialized: %d %s", code, body)
		}
		if _, _, reply := postMCP(t, url, `{"jsonrpc":"2.0","id":"list","method":"tools/list"}`, header); !strings.Contains(reply, xlsxEdited) {
			t.Errorf("tools/list after initialized does not show the change:\n%.2000s\nstderr:\n%s", reply, s.stderr)
		}
	})
}

// changeBeforeInitialized waits until the server watches the skill
// folders, edits a skill, waits for the rescan that sees it (its snapshot
// is served once it is logged), and until the server has either sent the
// client a list_changed (on lines) or logged that it held one (the
// notification goes out a few milliseconds after the change, before or
// after the rescan's line); it fails t if a list_changed arrived.
func changeBeforeInitialized(t *testing.T, m *machine.Machine, stderr *lockedBuffer, lines *lineReader) {
	t.Helper()
	if !waitUntil(refreshBudget, func() bool { return strings.Contains(stderr.String(), `msg="watching skill folders"`) }) {
		t.Fatalf("the server does not watch the skill folders\nstderr:\n%s", stderr)
	}
	skip, held := len(refreshLines(stderr.String())), strings.Count(stderr.String(), heldLine)
	editXLSX(t, m)
	awaitRefreshLine(t, stderr, skip, "changed=1")
	if !waitUntil(refreshBudget, func() bool {
		return lines.any(listChanged) || strings.Count(stderr.String(), heldLine) > held
	}) {
		t.Fatalf("the change reached neither the client nor the log\nstderr:\n%s", stderr)
	}
	if lines.any(listChanged) {
		t.Errorf("a list_changed before the client's initialized:\n%s", strings.Join(lines.all(), ""))
	}
}

// lineReader collects the lines of a stream (stdout, or an event stream,
// whose "data: " prefix it drops) as they come.
type lineReader struct {
	mu    sync.Mutex
	lines []string
}

func readLines(r io.Reader) *lineReader {
	l := &lineReader{}
	go func() {
		br := bufio.NewReaderSize(r, 1<<20)
		for {
			line, err := br.ReadString('\n')
			if line = strings.TrimPrefix(line, "data: "); strings.TrimSpace(line) != "" {
				l.mu.Lock()
				l.lines = append(l.lines, line)
				l.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	return l
}

func (l *lineReader) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func (l *lineReader) any(f func(string) bool) bool {
	for _, line := range l.all() {
		if f(line) {
			return true
		}
	}
	return false
}

// await waits for a line holding want and returns it.
func (l *lineReader) await(t *testing.T, stderr *lockedBuffer, want string) string {
	t.Helper()
	var found string
	if !waitUntil(refreshBudget, func() bool {
		for _, line := range l.all() {
			if strings.Contains(line, want) {
				found = line
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no line with %s within %v: %q\nstderr:\n%s", want, refreshBudget, l.all(), stderr)
	}
	return found
}
