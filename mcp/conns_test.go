package mcp

import (
	"bufio"
	"container/list"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveGated serves srv on a loopback port as Serve does (httpServer:
// the connection gate, the timeouts) and returns its address and gate.
func serveGated(t *testing.T, srv *Server, o HTTPOptions) (string, *connGate) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs, gate := srv.httpServer(o, ln)
	go func() { _ = hs.Serve(gate) }()
	t.Cleanup(func() {
		srv.CloseSessions()
		_ = hs.Close()
	})
	return ln.Addr().String(), gate
}

// gatedFixture is httpFixture's server behind serveGated.
func gatedFixture(t *testing.T, o HTTPOptions) (*Server, string, *connGate) {
	t.Helper()
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "pdf", desc: "PDF files"},
		skillSpec{provider: "codex", name: "docx", desc: "Word files"})
	srv := New(snapOf(recs), Options{Version: "conn-test", Logger: discard()})
	addr, gate := serveGated(t, srv, o)
	return srv, addr, gate
}

// dialSend opens a connection to addr and writes payload on it.
func dialSend(t *testing.T, addr, payload string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if payload != "" {
		if _, err := io.WriteString(c, payload); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// How long closedByServer waits: closeGuard where the server must have
// closed the connection, a hang guard, since a loaded machine may run the
// server's close late; openLook where it must not have, long enough to
// catch a close that comes with what the test did.
const (
	closeGuard = 30 * time.Second
	openLook   = 200 * time.Millisecond
)

// closedByServer reports whether the server closed c within wait: a read
// returns EOF (or a reset) rather than waiting. Bytes the server sent
// first are skipped.
func closedByServer(c net.Conn, wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	defer c.SetReadDeadline(time.Time{})
	buf := make([]byte, 4096)
	for {
		_, err := c.Read(buf)
		var ne net.Error
		switch {
		case err == nil:
		case errors.As(err, &ne) && ne.Timeout():
			return false
		default:
			return true
		}
	}
}

// TestHTTPSlowBodyCutOff: a client that sends its headers and then its
// body too slowly, or stops halfway, is answered 408 and its connection
// closed once BodyTimeout passes, on every endpoint that takes a body;
// the timeout covers the body only, so a stream answering a request
// (subscriptions/listen) outlives it.
func TestHTTPSlowBodyCutOff(t *testing.T) {
	const timeout = 300 * time.Millisecond
	for _, tc := range []struct {
		name string
		o    HTTPOptions
		path string
	}{
		{"streamable", HTTPOptions{BodyTimeout: timeout}, "/mcp"},
		{"sse", HTTPOptions{BodyTimeout: timeout, SSE: true}, "/messages?sessionid=x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, addr, _ := gatedFixture(t, tc.o)
			c := dialSend(t, addr, "POST "+tc.path+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")
			_ = c.SetReadDeadline(time.Now().Add(60 * time.Second)) // a hang guard, not the assertion
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("no answer to a body that stopped halfway: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
				t.Errorf("answer %d (close %v) %q, want 408 and the connection closed", resp.StatusCode, resp.Close, body)
			}
			if !closedByServer(c, closeGuard) {
				t.Error("the connection is still open")
			}
		})
	}
	t.Run("answer outlives it", func(t *testing.T) {
		// The call's answer streams on the POST's response: it waits for
		// the client's model past the body timeout, and still arrives.
		_, snap := askSkills(t)
		srv := New(snap, Options{Logger: discard(), Tools: []string{ToolAsk}})
		addr, _ := serveGated(t, srv, HTTPOptions{BodyTimeout: timeout})
		asked := make(chan struct{})
		co := &sdk.ClientOptions{CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			close(asked)
			time.Sleep(3 * timeout) // the call's request is older than the body timeout now
			return &sdk.CreateMessageResult{Role: "assistant", Model: "m", Content: &sdk.TextContent{Text: "the answer"}}, nil
		}}
		cs := connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "slow-model", Version: "1"}, co),
			&sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, "2025-11-25")
		ctx := testCtx(t, 20*time.Second)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: ToolAsk, Arguments: map[string]any{"sources": []string{"claude"}, "question": "q"}})
		if err != nil || res.IsError || resultText(t, res) != "the answer" {
			t.Fatalf("a call answered after the body timeout: %v %+v", err, res)
		}
		<-asked
	})
}

// TestHTTPConnFlood: a client that connects and calls is served while
// a thousand connections are held open, sending nothing: the server keeps
// at most MaxConns open, closing the flood's to make room, and every call
// of the well-behaved client is answered. (internal/bench/flood runs this
// at 20,000 connections against the binary, opened again as soon as the
// server closes them.)
func TestHTTPConnFlood(t *testing.T) {
	const maxConns, flood = 64, 1000
	_, addr, gate := gatedFixture(t, HTTPOptions{MaxConns: maxConns})
	var wg sync.WaitGroup
	var closed atomic.Int64
	var conns []net.Conn
	start := time.Now()
	for range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("flood connection %d: %v", len(conns), err)
		}
		conns = append(conns, c)
		wg.Go(func() {
			if _, err := c.Read(make([]byte, 1)); err != nil {
				closed.Add(1)
			}
		})
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
		wg.Wait()
	})
	// The flood's connections are closed as new ones come, not when the
	// header timeout ends them: no connection is that old before start
	// plus HeaderTimeout, so that is as long as the closes may take.
	if !eventually(time.Until(start.Add(HeaderTimeout)), func() bool { return closed.Load() >= flood-maxConns }) {
		t.Fatalf("the server closed %d of %d idle connections, want all but %d", closed.Load(), flood, maxConns)
	}
	cs := connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "good", Version: "1"}, nil),
		&sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: &http.Transport{}}}, "2025-11-25")
	ctx := testCtx(t, 30*time.Second) // a hang guard
	for i := range 20 {
		res, err := call(ctx, cs, map[string]any{"name": "pdf"})
		if err != nil || res.IsError {
			t.Fatalf("call %d during the flood: %v %v", i, err, res)
		}
		if n := gate.count(); n > maxConns {
			t.Errorf("%d connections open, over the cap of %d", n, maxConns)
		}
	}
}

// TestConnGateOrder: at the cap, the connections that sent nothing go
// first, oldest first; then the one stuck longest in its headers; then
// the kept-alive one idle longest; a connection serving a request (a GET
// stream) never.
func TestConnGateOrder(t *testing.T) {
	const maxConns = 16
	_, addr, gate := gatedFixture(t, HTTPOptions{MaxConns: maxConns})
	waitCount := func(n int) {
		t.Helper()
		if !eventually(10*time.Second, func() bool { return gate.count() == n }) {
			t.Fatalf("%d connections open, want %d", gate.count(), n)
		}
	}
	// A session's GET stream: busy for as long as it lasts.
	id := rawSession(t, "http://"+addr+"/mcp")
	stream := dialSend(t, addr, "GET /mcp HTTP/1.1\r\nHost: "+addr+"\r\nAccept: text/event-stream\r\n"+
		sessionHeader+": "+id+"\r\n"+protocolHeader+": 2025-11-25\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(stream), nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	http.DefaultClient.CloseIdleConnections() // rawSession's connection
	waitCount(1)
	// A kept-alive connection, served once.
	kept := dialSend(t, addr, "GET /healthz HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(kept), nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %v %v", err, resp)
	}
	// A connection stuck in its headers.
	started := dialSend(t, addr, "GET /healthz HTTP/1.1\r\nHo")
	waitCount(3)
	// Idle ones up to the cap, then as many again.
	var idle []net.Conn
	for range 2 * maxConns {
		idle = append(idle, dialSend(t, addr, ""))
	}
	waitCount(maxConns)
	for i, c := range idle {
		want, wait := i < maxConns+3, openLook
		if want {
			wait = closeGuard
		}
		if closedByServer(c, wait) != want {
			t.Errorf("idle connection %d: closed %v, want %v (the oldest idle ones make room)", i, !want, want)
		}
	}
	for name, c := range map[string]net.Conn{"the stream": stream, "the kept-alive connection": kept, "the connection stuck in its headers": started} {
		if closedByServer(c, openLook) {
			t.Errorf("%s was closed while connections that sent nothing were open", name)
		}
	}
	// Connections that send their request at once are not idle: those
	// that sent nothing go first, then the one stuck in its headers, then
	// the kept-alive one.
	for range maxConns - 3 {
		c := dialSend(t, addr, "GET /healthz HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("a request at the cap: %v %v", err, resp)
		}
	}
	next := dialSend(t, addr, "GET /healthz HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(next), nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a request at the cap: %v %v", err, resp)
	}
	if !closedByServer(started, closeGuard) {
		t.Error("the connection stuck in its headers was not the one closed")
	}
	if closedByServer(kept, openLook) {
		t.Error("a kept-alive connection was closed while one stuck in its headers was open")
	}
	last := dialSend(t, addr, "GET /healthz HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(last), nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a request at the cap: %v %v", err, resp)
	}
	if !closedByServer(kept, closeGuard) {
		t.Error("the kept-alive connection idle longest was not the one closed")
	}
	if closedByServer(stream, openLook) {
		t.Error("the stream was closed")
	}
}

// answered reports whether a request sent on a new connection to addr is
// answered 200, rather than the connection closed.
func answered(t *testing.T, addr string) bool {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); err != nil {
		return false
	}
	_ = c.SetReadDeadline(time.Now().Add(60 * time.Second)) // a hang guard
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Logf("a new connection at the cap: %v", err)
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// TestConnGateNoLockout: connections whose requests last as long as
// their client wants never lock a new client out at the cap, with the
// default timeouts: neither bodies sent slowly (a connection waiting for
// its body is closable until the body is in), nor subscriptions/listen
// streams of 2026-07-28 clients, nor GET streams of sessions (the oldest
// long-lived request is closed when nothing idle is left).
func TestConnGateNoLockout(t *testing.T) {
	const maxConns = 16
	t.Run("slow bodies", func(t *testing.T) {
		_, addr, gate := gatedFixture(t, HTTPOptions{MaxConns: maxConns})
		var slow []net.Conn
		for i := range maxConns {
			slow = append(slow, dialSend(t, addr, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":"))
			// One at a time, so that which waited longest is known.
			if !eventually(30*time.Second, func() bool { return gate.handling.Load() == int64(i+1) }) {
				t.Fatalf("%d requests reached the handler, want %d", gate.handling.Load(), i+1)
			}
		}
		if !eventually(30*time.Second, func() bool { return gate.handling.Load() == maxConns }) {
			t.Fatalf("%d requests reached the handler, want %d", gate.handling.Load(), maxConns)
		}
		if !answered(t, addr) {
			t.Fatal("a new client was turned away while every connection waited for its body")
		}
		if !closedByServer(slow[0], closeGuard) {
			t.Error("the connection waiting longest for its body was not the one closed")
		}
	})
	t.Run("listen streams", func(t *testing.T) {
		srv, addr, gate := gatedFixture(t, HTTPOptions{MaxConns: maxConns})
		// The streams are opened below a higher cap, so that no client's
		// other connections make the gate close one on the way; the cap
		// comes down once they are all that is open.
		gate.setMax(4 * maxConns)
		var transports []*http.Transport
		for range maxConns {
			// A list-changed handler makes a 2026-07-28 client hold
			// subscriptions/listen open; each client has its own
			// connections.
			tr := &http.Transport{}
			transports = append(transports, tr)
			connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "listener", Version: "1"}, newChangeCounter().options()),
				&sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: tr}}, "")
		}
		if !eventually(30*time.Second, func() bool { return sessionCount(srv) == maxConns && gate.handling.Load() == maxConns }) {
			t.Fatalf("%d listen streams, %d requests in handlers; want %d", sessionCount(srv), gate.handling.Load(), maxConns)
		}
		for _, tr := range transports {
			tr.CloseIdleConnections()
		}
		if !eventually(30*time.Second, func() bool { return gate.count() == maxConns }) {
			t.Fatalf("%d connections, want %d listen streams", gate.count(), maxConns)
		}
		gate.setMax(maxConns)
		if !answered(t, addr) {
			t.Fatal("a new client was turned away while every connection held a listen stream")
		}
		cs := connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "good", Version: "1"}, nil),
			&sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: &http.Transport{}}}, "2025-11-25")
		if res, err := call(testCtx(t, 60*time.Second), cs, map[string]any{"name": "pdf"}); err != nil || res.IsError {
			t.Fatalf("a call beside the listen streams: %v %v", err, res)
		}
	})
	t.Run("session streams", func(t *testing.T) {
		_, addr, gate := gatedFixture(t, HTTPOptions{MaxConns: maxConns})
		gate.setMax(4 * maxConns) // as above: no closing on the way
		var streams []net.Conn
		for range maxConns {
			id := rawSession(t, "http://"+addr+"/mcp")
			c := dialSend(t, addr, "GET /mcp HTTP/1.1\r\nHost: "+addr+"\r\nAccept: text/event-stream\r\n"+
				sessionHeader+": "+id+"\r\n"+protocolHeader+": 2025-11-25\r\n\r\n")
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("GET stream: %v %v", err, resp)
			}
			streams = append(streams, c)
		}
		http.DefaultClient.CloseIdleConnections()
		if !eventually(30*time.Second, func() bool { return gate.count() == maxConns }) {
			t.Fatalf("%d connections, want %d streams", gate.count(), maxConns)
		}
		gate.setMax(maxConns)
		if !answered(t, addr) {
			t.Fatal("a new client was turned away while every connection held a session's stream")
		}
		if !closedByServer(streams[0], closeGuard) {
			t.Error("the oldest stream was not the one closed")
		}
		if closedByServer(streams[1], openLook) {
			t.Error("a second stream was closed for one new connection")
		}
	})
}

// setMax changes the gate's cap (for tests that open what they hold
// below a higher one).
func (g *connGate) setMax(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.max = n
}

// TestConnGateWaitingLast: a request that has arrived but that the server
// has not read yet (on a new connection, or the next one on a kept-alive
// connection) is closed after every other closable connection, long-lived
// streams included: its client would not send it again. Which connections
// hold such a request is asked of the kernel, as each comes up.
func TestConnGateWaitingLast(t *testing.T) {
	if !unreadBytesKnown {
		t.Skip("this platform cannot tell whether bytes wait unread on a connection")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	g := newConnGate(ln, 8, discard())
	// pair returns the server's end of a new connection, its client having
	// sent payload, which the server has not read.
	pair := func(payload string) *gatedConn {
		t.Helper()
		dialSend(t, ln.Addr().String(), payload)
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if payload != "" && !eventually(5*time.Second, func() bool { return unreadBytes(c) }) {
			t.Fatal("the bytes sent never arrived")
		}
		gc := &gatedConn{Conn: c, g: g}
		g.mu.Lock()
		g.open++
		g.mu.Unlock()
		return gc
	}
	put := func(c *gatedConn, l *list.List) {
		g.mu.Lock()
		g.move(c, l)
		g.mu.Unlock()
	}
	req := "POST /mcp HTTP/1.1\r\n"
	newWithRequest := pair(req)   // connected and sent at once
	keptWithRequest := pair(req)  // its next request, on a kept-alive connection
	keptQuiet := pair("")         // between requests
	stream := pair("")            // a long-lived request
	put(newWithRequest, &g.fresh) // (as Accept puts every new one)
	put(keptWithRequest, &g.kept) // older than keptQuiet
	put(keptQuiet, &g.kept)
	put(stream, &g.long)

	for i, want := range []*gatedConn{keptQuiet, stream, newWithRequest, keptWithRequest} {
		g.mu.Lock()
		got := g.idlest()
		if got == want {
			g.drop(got)
		}
		g.mu.Unlock()
		if got != want {
			t.Fatalf("closing %d: got the connection %p, want %p (order: quiet kept-alive, stream, then the requests waiting, oldest first)", i, got, want)
		}
	}
	g.mu.Lock()
	left := g.idlest()
	g.mu.Unlock()
	if left != nil {
		t.Errorf("with nothing left, idlest returned %p", left)
	}
	// The server reading a waiting request makes it a started one.
	w := pair(req)
	put(w, &g.fresh)
	g.mu.Lock()
	moved := g.idlest() == w && w.in == &g.waiting
	g.mu.Unlock()
	if !moved {
		t.Fatal("a new connection whose request waits was not moved to waiting")
	}
	if _, err := w.Read(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	started := w.in == &g.started
	g.mu.Unlock()
	if !started {
		t.Error("reading a waiting request did not make its connection a started one")
	}
}
