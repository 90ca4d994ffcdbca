package integration

// Hostile HTTP clients of `ccski mcp --transport http|sse`: foreign Host
// headers, malformed and oversized bodies, thousands of sessions nobody
// ends, clients too slow to send or to read, and a SIGTERM while 100
// clients wait for their answers.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/mcp"
)

const rawInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// postMCP posts body to url as a streamable HTTP client does, with the
// extra headers, and returns the status, headers and the body (the first
// event's data for an event stream).
func postMCP(t *testing.T, url, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "" { // a priming event has none
				return resp.StatusCode, resp.Header, data
			}
		}
		return resp.StatusCode, resp.Header, ""
	}
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(data)
}

// TestHostileHTTPHostHeader: a request whose Host header names another
// host (a DNS-rebinding page reaching the loopback server) is refused with
// 403 on every endpoint of both HTTP transports, and starts no session;
// loopback names are served.
func TestHostileHTTPHostHeader(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	for _, transport := range []string{"http", "sse"} {
		t.Run(transport, func(t *testing.T) {
			s := startHTTP(t, m, nil, "--transport", transport, "--no-refresh")
			port := strings.TrimPrefix(s.base, "http://127.0.0.1:")
			for _, c := range []struct {
				host string
				want int
			}{
				{"evil.example", http.StatusForbidden},
				{"evil.example:" + port, http.StatusForbidden},
				{"127.0.0.1.nip.io:" + port, http.StatusForbidden},
				{"192.168.1.10:" + port, http.StatusForbidden},
				{"localhost:" + port, 0},
				{"127.0.0.1:" + port, 0},
				{"[::1]:" + port, 0},
			} {
				var code int
				var body string
				if transport == "http" {
					code, _, body = postMCP(t, s.base+"/mcp", rawInitialize, map[string]string{"Host": c.host})
				} else {
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/mcp", nil)
					req.Host = c.host
					req.Header.Set("Accept", "text/event-stream")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						cancel()
						t.Fatal(err)
					}
					code = resp.StatusCode
					b := make([]byte, 200)
					n, _ := resp.Body.Read(b)
					body = string(b[:n])
					resp.Body.Close()
					cancel()
				}
				if c.want != 0 && code != c.want || c.want == 0 && code != http.StatusOK {
					t.Errorf("Host %q: %d %q, want %d", c.host, code, body, max(c.want, http.StatusOK))
				}
			}
			s.stop(t, syscall.SIGTERM, 10*time.Second)
		})
	}
}

// TestHostileHTTPBodies: malformed, deeply nested and oversized bodies,
// and 1 MB names in a session, get a 4xx answer or a JSON-RPC error of a
// bounded size, and the server goes on serving.
func TestHostileHTTPBodies(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	s := startHTTP(t, m, nil, "--transport", "http", "--no-refresh")
	url := s.base + "/mcp"
	code, h, body := postMCP(t, url, rawInitialize, nil)
	id := h.Get("Mcp-Session-Id")
	if code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", code, body)
	}
	session := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	postMCP(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	for _, c := range []struct {
		name, body string
		header     map[string]string
		code       int // a JSON-RPC error code, or 0 for an HTTP 4xx
	}{
		{"not JSON", "this is not json", nil, 0},
		{"not JSON in a session", "{oops", session, 0},
		{"nested 100,000 deep", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), session, 0},
		{"a 5 MiB body", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5<<20) + `"}}`, session, 0},
		{"1 MB skill name", fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"skill","arguments":{"name":%q}}}`,
			strings.Repeat("a", 1<<20)), session, isErrorResult},
		{"1 MB URI", fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"skill://claude/%s/SKILL.md"}}`,
			strings.Repeat("b", 1<<20)), session, jsonrpc.CodeInvalidParams},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, body := postMCP(t, url, c.body, c.header)
			if len(body) > 4096 {
				t.Errorf("the answer is %d bytes: it must not echo the input", len(body))
			}
			if c.code == 0 {
				if code < 400 || code >= 500 {
					t.Errorf("status %d %.200q, want a 4xx", code, body)
				}
				return
			}
			var r rpcReply
			switch {
			case json.Unmarshal([]byte(body), &r) != nil:
				t.Errorf("status %d %.300q, want a JSON-RPC answer", code, body)
			case c.code == isErrorResult && (r.Error != nil || !strings.Contains(string(r.Result), `"isError":true`)):
				t.Errorf("status %d %.300q, want a tool result with isError", code, body)
			case c.code != isErrorResult && (r.Error == nil || r.Error.Code != c.code):
				t.Errorf("status %d %.300q, want JSON-RPC error %d", code, body, c.code)
			}
		})
	}
	code, _, body = postMCP(t, url, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"skill","arguments":{"name":"commit-helper"}}}`, session)
	if code != http.StatusOK || !strings.Contains(body, "Loading: ") {
		t.Errorf("a load after the hostile bodies: %d %.300s", code, body)
	}
	s.stop(t, syscall.SIGTERM, 10*time.Second)
}

// TestHostileHTTPSessions: sessions nobody ends are bounded, and cannot
// lock a new client out. With mcp.max_sessions at 40, 40 sessions holding
// their GET streams open and sending nothing are idle: the 41st initialize
// is served, and the session idle the longest is closed for it (its stream
// ends, its next request gets 404, so a client starts over) while the
// others still answer; with mcp.session_idle_timeout at 5s, sessions with
// no stream and no request are closed. Sessions used to be kept forever,
// and then to be refused with 503 at the cap, for as long as the streams
// were held.
func TestHostileHTTPSessions(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	// The idle timeout leaves a loaded machine time to open each stream
	// after its session's initialize.
	s := startHTTP(t, m, map[string]string{"CCSKI_MCP__MAX_SESSIONS": "40", "CCSKI_MCP__SESSION_IDLE_TIMEOUT": "5s"},
		"--transport", "http", "--no-refresh")
	url := s.base + "/mcp"
	session := func(id string) map[string]string {
		return map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	}
	ping := func(id string) int {
		code, _, _ := postMCP(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, session(id))
		return code
	}
	var ids []string
	var streams []<-chan struct{}
	for range 40 {
		code, h, body := postMCP(t, url, rawInitialize, nil)
		if code != http.StatusOK || h.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize %d: %d %s", len(ids)+1, code, body)
		}
		id := h.Get("Mcp-Session-Id")
		ids = append(ids, id)
		streams = append(streams, holdStream(t, url, session(id)))
	}
	code, h, body := postMCP(t, url, rawInitialize, nil)
	if code != http.StatusOK || h.Get("Mcp-Session-Id") == "" {
		t.Fatalf("the 41st session, the 40 others holding streams and sending nothing: %d %s; want it served", code, body)
	}
	select {
	case <-streams[0]:
	case <-time.After(20 * time.Second):
		t.Fatalf("the longest-idle session's stream (%s) was not ended\nstderr:\n%s", ids[0], s.stderr)
	}
	if code := ping(ids[0]); code != http.StatusNotFound {
		t.Errorf("the closed session: ping %d, want 404", code)
	}
	if code := ping(ids[39]); code != http.StatusOK {
		t.Errorf("a live session: ping %d", code)
	}
	// A session with no stream and no request is closed after the idle
	// timeout.
	_, h, _ = postMCP(t, url, rawInitialize, nil)
	quiet := h.Get("Mcp-Session-Id")
	if !waitUntil(20*time.Second, func() bool {
		return strings.Contains(s.stderr.String(), `msg="closing an idle HTTP session" session=`+quiet)
	}) {
		t.Fatalf("a session idle past mcp.session_idle_timeout is still open\nstderr:\n%s", s.stderr)
	}
	// The line is logged as the closing starts: a ping sent before it ends
	// is still answered, so wait for the 404 (a ping does not revive a
	// session the server is closing).
	if !waitUntil(20*time.Second, func() bool { return ping(quiet) == http.StatusNotFound }) {
		t.Errorf("the timed-out session: ping %d, want 404", ping(quiet))
	}
	if !strings.Contains(s.stderr.String(), "closing the longest-idle HTTP session") {
		t.Errorf("the closing to make room is not logged:\n%s", s.stderr)
	}
	s.stop(t, syscall.SIGTERM, 10*time.Second)
}

// TestHostileHTTPConnectionFlood: 2,000 connections opened to the server
// and held, half of them sending nothing, half the first bytes of a
// request and no more, do not keep a well-behaved client from being
// served. The server runs with 256 file descriptors, so the flood alone
// could take them all: connections that send nothing are not handed to
// the server until they do (TCP_DEFER_ACCEPT, on Linux), and of the
// others the server keeps fewer than its descriptors, closing the
// longest-idle ones to make room for new ones, the client's among them.
// Connections used to be accepted until the descriptors ran out, and then
// held until their header timeout (10 s), while the client's waited in
// the kernel's queue behind the flood's. (internal/bench/flood measures
// 20,000 connections against a server with its usual limits.)
func TestHostileHTTPConnectionFlood(t *testing.T) {
	t.Parallel()
	const flood = 2000
	m := newMachine(t)
	s := startHTTPUnder(t, m, nil, []string{"/bin/sh", "-c", `ulimit -n 256 && exec "$0" "$@"`},
		"--transport", "http", "--no-refresh")
	addr := strings.TrimPrefix(s.base, "http://")
	var wg sync.WaitGroup
	var closed atomic.Int64
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
		wg.Wait()
	}()
	start := time.Now()
	for i := range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("flood connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if i%2 == 1 {
			if _, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHo"); err != nil {
				t.Fatal(err)
			}
		}
		wg.Go(func() {
			if _, err := c.Read(make([]byte, 1)); err != nil {
				closed.Add(1) // by the server, or by the test at its end
			}
		})
	}
	// The client is served while the flood is held: before the first
	// flood connection could reach its header timeout, which is when a
	// flood connection used to let go. That is the whole budget, however
	// loaded the machine; a client that waits behind the flood misses it.
	ctx, cancel := context.WithDeadline(t.Context(), start.Add(mcp.HeaderTimeout))
	defer cancel()
	cs, err := connectHTTP(ctx, s, "2025-11-25", &http.Client{Transport: &http.Transport{}}, nil)
	if err != nil {
		t.Fatalf("a client during the flood could not connect: %v\nstderr:\n%s", err, s.stderr)
	}
	defer cs.Close()
	for i := range 10 {
		if _, err := loadSkill(ctx, cs, "commit-helper"); err != nil {
			t.Fatalf("load %d during the flood: %v", i, err)
		}
	}
	if n := closed.Load(); n < flood/2-256 {
		t.Errorf("the server closed %d of the %d flood connections that started a request, want all but those it can keep", n, flood/2)
	}
	if !strings.Contains(s.stderr.String(), "too many HTTP connections") {
		t.Errorf("the closing of idle connections is not logged:\n%s", s.stderr)
	}
	s.stop(t, syscall.SIGTERM, 10*time.Second)
}

// holdStream opens the GET stream of a session and reads it until the
// server ends it; the channel is closed then.
func holdStream(t *testing.T, url string, header map[string]string) <-chan struct{} {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		close(done)
	}()
	return done
}

// TestHostileHTTPSlowClients: clients that stop halfway through their
// headers or body, or never read the answer or their stream, hold neither
// another client nor the exit: a client served meanwhile loads a skill,
// and SIGTERM ends the server with exit 0 in bounded time.
func TestHostileHTTPSlowClients(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	hugeSkill(t, m, 52<<20) // an answer of 1 MiB, more than socket buffers hold
	s := startHTTP(t, m, nil, "--transport", "http", "--no-refresh")
	addr := strings.TrimPrefix(s.base, "http://")
	dial := func(payload string) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := io.WriteString(c, payload); err != nil {
			t.Fatal(err)
		}
		return c
	}
	request := func(body string, header string) string {
		return "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\n" + header +
			fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body
	}
	// Half the headers.
	dial("POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Ty")
	// The headers and part of a 1000-byte body.
	dial("POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")
	// A session whose client asks for a 1 MiB answer and its GET stream,
	// and reads neither.
	code, h, body := postMCP(t, s.base+"/mcp", rawInitialize, nil)
	id := h.Get("Mcp-Session-Id")
	if code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", code, body)
	}
	session := "Mcp-Session-Id: " + id + "\r\nMcp-Protocol-Version: 2025-11-25\r\n"
	postMCP(t, s.base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
	for range 3 {
		dial(request(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"skill","arguments":{"name":"claude:huge"}}}`, session))
	}
	dial("GET /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAccept: text/event-stream\r\n" + session + "\r\n")

	ctx := mcpContext(t)
	cs, err := connectHTTP(ctx, s, "2025-11-25", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadSkill(ctx, cs, "commit-helper"); err != nil {
		t.Errorf("a client beside the slow ones: %v", err)
	}
	_ = cs.Close()
	s.stop(t, syscall.SIGTERM, 10*time.Second)
}

// TestHostileSIGTERMUnderLoad: 100 clients of both protocol eras each wait
// on a skill load the server holds (ccski_hold) when SIGTERM arrives; once
// the loads are let go, each client receives its whole answer, byte for
// byte, and the server exits 0.
func TestHostileSIGTERMUnderLoad(t *testing.T) {
	t.Parallel()
	const clients = 100
	m := newMachine(t)
	want := make([]string, clients)
	files := make([]string, clients)
	for i := range clients {
		name := fmt.Sprintf("held-%03d", i)
		dir := filepath.Join(m.Home, ".claude", "skills", name)
		writeSkill(t, dir, name, "Held skill "+name+".", strings.Repeat("Step of "+name+".\n", 200))
		files[i] = filepath.Join(dir, "SKILL.md")
		if err := os.WriteFile(files[i]+".hold", nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startHTTP(t, m, nil, "--transport", "http", "--no-refresh")
	ctx := mcpContext(t)
	sessions := make([]*sdk.ClientSession, clients)
	for i := range clients {
		pv := ""
		if i%2 == 1 {
			pv = "2025-11-25"
		}
		cs, err := connectHTTP(ctx, s, pv, &http.Client{Transport: &http.Transport{}}, nil)
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	for _, r := range listRecords(t, m) {
		if i := indexOf(files, r.File); i >= 0 {
			want[i] = loadText(t, r)
		}
	}
	results := make([]error, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, err := loadSkill(ctx, sessions[i], fmt.Sprintf("claude:held-%03d", i))
			if err == nil && text != want[i] {
				err = fmt.Errorf("the answer is %d bytes, want %d: cut or changed", len(text), len(want[i]))
			}
			results[i] = err
		}()
	}
	// Every load is in flight once each file has its ".held" marker.
	if !waitUntil(60*time.Second, func() bool {
		for _, f := range files {
			if _, err := os.Stat(f + ".held"); err != nil {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("not every load started\nstderr:\n%s", s.stderr)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(2*time.Second, func() bool { return strings.Contains(s.stderr.String(), "signal received") }) {
		t.Fatalf("no shutdown line on stderr:\n%s", s.stderr)
	}
	for _, f := range files {
		if err := os.Remove(f + ".hold"); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	failed := 0
	for i, err := range results {
		if err != nil {
			failed++
			if failed <= 5 {
				t.Errorf("client %d: %v", i, err)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d clients did not get their whole answer\nstderr:\n%s", failed, clients, s.stderr)
	}
	s.waitExit(t, 10*time.Second)
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d\nstderr:\n%s", code, s.stderr)
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// TestHostileHTTPRootsPerSession: over HTTP and SSE, each session is
// served the project of its own client roots, and no client moves
// another's. Two clients with different roots each list and load their
// own project's skill and not the other's, before and after the other
// connected; a client without roots keeps the server's workspace; a skill
// added to one project reaches that project's client (with
// tools/list_changed) and no other; resources/list follows the session's
// project too; a project's flagged skill is withheld under mcp.scan: block
// as the server's own workspace's would be. The roots of the client that sent them last used to apply
// to every client.
func TestHostileHTTPRootsPerSession(t *testing.T) {
	for _, transport := range []string{"http", "sse"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			ctx := mcpContext(t)
			dirA, dirB := filepath.Join(m.Root, "project-a"), filepath.Join(m.Root, "project-b")
			projectWithSkill(t, dirA, "alphaonly")
			projectWithSkill(t, dirB, "betaonly")
			// A's workspace is judged as the server's is: under
			// mcp.scan: block its flagged skill is never served.
			addFlagged(t, dirA)
			appendFile(t, userConfig(m), "mcp:\n  scan: block\n")
			s := startHTTP(t, m, nil, "--transport", transport, "--refresh-interval", "1h")
			connect := func(dir string, changes *atomic.Int64) *sdk.ClientSession {
				t.Helper()
				c := newClient(changes)
				if dir != "" {
					c.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: dir}).String(), Name: filepath.Base(dir)})
				} else {
					c = sdk.NewClient(&sdk.Implementation{Name: "rootless", Version: "0"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
				}
				var tr sdk.Transport = &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp"}
				if transport == "sse" {
					tr = &sdk.SSEClientTransport{Endpoint: s.base + "/mcp"}
				}
				cs, err := c.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
				if err != nil {
					t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr)
				}
				t.Cleanup(func() { _ = cs.Close() })
				return cs
			}
			// serves waits until cs lists want, then checks it lists and
			// loads none of the others.
			serves := func(who string, cs *sdk.ClientSession, want string, others ...string) {
				t.Helper()
				var last []skillEntry
				if !waitUntil(refreshBudget, func() bool {
					es, _, err := listSkills(ctx, cs)
					last = es
					return err == nil && skillNamed(es, want)
				}) {
					t.Fatalf("%s: %s not listed within %v: %v\nstderr:\n%s", who, want, refreshBudget, entryIDs(last), s.stderr)
				}
				if _, err := loadSkill(ctx, cs, want); err != nil {
					t.Errorf("%s: loading %s: %v", who, want, err)
				}
				for _, o := range others {
					if skillNamed(last, o) {
						t.Errorf("%s lists %s, another project's skill: %v", who, o, entryIDs(last))
					}
					if text, err := loadSkill(ctx, cs, o); err == nil {
						t.Errorf("%s loads %s, another project's skill:\n%.200s", who, o, text)
					}
				}
			}
			var changesA, changesB atomic.Int64
			a := connect(dirA, &changesA)
			serves("client A", a, "alphaonly", "betaonly", "repo-guide", "evil-helper")
			if msg := loadError(t, ctx, a, "evil-helper"); !strings.Contains(msg, "mcp.scan is block") {
				t.Errorf("client A loading its project's flagged skill: %s, want it withheld under mcp.scan: block", msg)
			}
			b := connect(dirB, &changesB)
			serves("client B", b, "betaonly", "alphaonly", "repo-guide")
			serves("client A after B connected", a, "alphaonly", "betaonly", "repo-guide")
			rootless := connect("", nil)
			serves("a client without roots", rootless, "repo-guide", "alphaonly", "betaonly")

			res, err := a.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, r := range res.Resources {
				names = append(names, r.Name)
			}
			if !slices.Contains(names, "alphaonly") || slices.Contains(names, "betaonly") {
				t.Errorf("client A's resources/list: %v, want alphaonly and not betaonly", names)
			}

			// A skill added to project A reaches client A, told the list
			// changed, and no other client.
			before := changesA.Load()
			writeSkill(t, filepath.Join(dirA, ".claude", "skills", "alphanew"), "alphanew", "Added to project A.", "Body.")
			if !waitUntil(refreshBudget, func() bool { return changesA.Load() > before }) {
				t.Errorf("client A got no tools/list_changed for its project's new skill\nstderr:\n%s", s.stderr)
			}
			serves("client A after its project changed", a, "alphanew", "betaonly")
			serves("client B after project A changed", b, "betaonly", "alphanew")
			s.stop(t, syscall.SIGTERM, 10*time.Second)
		})
	}
}
