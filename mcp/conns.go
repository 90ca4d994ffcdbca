package mcp

import (
	"container/list"
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of the HTTP server's connections. A connection costs the server
// a file descriptor and about 20 KB (its goroutine and buffers) whatever
// it does; without a cap, 20,000 connections held open by one local
// process used up the server's descriptors, so that no other client could
// connect for as long as they were held.
const (
	// DefaultMaxConns caps the connections open at once (less when the
	// process may open fewer files; see connLimit). Far above what the
	// clients of one machine open, and, at about 20 KB each, a bounded
	// 40 MB.
	DefaultMaxConns = 2048
	// HeaderTimeout bounds the wait for a request's headers, from the
	// connection's start or the end of its previous request.
	HeaderTimeout = 10 * time.Second
	// DefaultBodyTimeout bounds the wait for a request's body, once its
	// headers are in: a 4 MiB body takes milliseconds on loopback, and
	// half a minute at 1 Mbit/s.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultIdleTimeout closes a kept-alive connection with no request
	// for this long.
	DefaultIdleTimeout = 2 * time.Minute
)

// connGate is the server's listener: it caps the connections open at once
// at max, and keeps a client that sends requests served while others hold
// connections open and send nothing, send their requests slowly, or hold
// streams. At the cap, a new connection closes another, in this order:
//
//   - the connection open longest that has sent nothing yet: what a flood
//     of idle connections is made of;
//   - else the connection that started sending a request longest ago and
//     has not finished it, headers or body (HeaderTimeout and BodyTimeout
//     end those anyway);
//   - else the kept-alive connection idle longest since its last request;
//   - else the connection holding the oldest long-lived request: a stream
//     its client keeps open to hear from the server (a session's GET
//     stream, subscriptions/listen, an SSE session's stream), or a call
//     waiting on its own client (ask waiting for the client's model).
//     Clients open such streams again by design; a session closed by the
//     session cap meanwhile is not, and its stream's end tells its client;
//   - else the connection whose request arrived longest ago and waits in
//     the kernel, unread yet by the server: a client that just connected
//     and sent its request, or sent its next one on a kept-alive
//     connection. Closing one loses a request its client will not send
//     again (clients do not resend a POST), so these go last; the server
//     reads them within moments, after which they are started ones.
//
// Whether bytes wait unread is asked of the fresh and kept-alive
// connections at the front of their lists only, as each comes up to be
// closed, so making room costs a few system calls, not one per connection.
//
// A connection whose request is being answered (a call, once its body is
// in) is never closed so; when every one is, the new connection is closed
// at once. Since calls end on their own (ask's wait has a deadline), no
// client can hold the cap for long. Requests find their connection through
// ConnContext; the handler marks it serving once the request's body is in
// (serving); a connection that reads bytes has started a request
// (gatedConn.Read).
type connGate struct {
	net.Listener
	max int
	log *slog.Logger

	mu sync.Mutex
	// open counts the connections; each one not serving a call is in one
	// of the lists, oldest first: fresh (nothing sent yet), kept (between
	// requests), waiting (a request arrived, unread yet), started (a
	// request's headers or body being read) and long (a long-lived request
	// being served).
	open                                int
	fresh, kept, waiting, started, long list.List
	// evicted and refused count the connections closed to make room and
	// those turned away, since the last line logged about them.
	evicted, refused int
	logged           time.Time
	// handling counts the requests whose handler runs (for tests).
	handling atomic.Int64
}

// gatedConn is a connection the gate counts.
type gatedConn struct {
	net.Conn
	g      *connGate
	in     *list.List    // the list it is closable in; nil while serving a call
	elem   *list.Element // its element in that list
	busy   int           // calls being served
	closed bool
	// quiet is set while the connection is in fresh, kept or waiting: the
	// next bytes it reads start a request.
	quiet atomic.Bool
}

// Read reads from the connection; the first bytes of a request move it to
// the connections that started one.
func (c *gatedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.quiet.Load() {
		c.g.mu.Lock()
		if c.in != nil {
			c.g.move(c, &c.g.started)
		}
		c.g.mu.Unlock()
	}
	return n, err
}

// newConnGate caps the connections ln accepts at max.
func newConnGate(ln net.Listener, max int, log *slog.Logger) *connGate {
	return &connGate{Listener: ln, max: max, log: log}
}

// Accept returns the next connection, making room for it at the cap.
func (g *connGate) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		gc := &gatedConn{Conn: c, g: g}
		victim, ok := g.admit(gc)
		if victim != nil {
			_ = victim.Conn.Close()
		}
		if ok {
			return gc, nil
		}
		_ = c.Close()
	}
}

// admit counts gc in, and returns the idle connection to close for it;
// ok is false when there is no room: every connection is serving.
func (g *connGate) admit(gc *gatedConn) (victim *gatedConn, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	defer g.report()
	if g.open >= g.max {
		victim = g.idlest()
		if victim == nil {
			g.refused++
			return nil, false
		}
		g.drop(victim)
		g.evicted++
	}
	g.open++
	g.move(gc, &g.fresh)
	return victim, true
}

// idlest returns the connection to close to make room, nil if none may
// be. g.mu is held.
func (g *connGate) idlest() *gatedConn {
	if c := g.quietFront(&g.fresh); c != nil {
		return c
	}
	if e := g.started.Front(); e != nil {
		return e.Value.(*gatedConn)
	}
	if c := g.quietFront(&g.kept); c != nil {
		return c
	}
	for _, l := range []*list.List{&g.long, &g.waiting} {
		if e := l.Front(); e != nil {
			return e.Value.(*gatedConn)
		}
	}
	return nil
}

// quietFront returns the oldest connection of l with no request waiting
// unread, moving those ahead of it, whose request does wait, to waiting.
// g.mu is held.
func (g *connGate) quietFront(l *list.List) *gatedConn {
	for e := l.Front(); e != nil; e = l.Front() {
		c := e.Value.(*gatedConn)
		if !unreadBytes(c.Conn) {
			return c
		}
		g.move(c, &g.waiting)
	}
	return nil
}

// move makes c idle in list l, at its end; a nil l marks it serving. g.mu
// is held.
func (g *connGate) move(c *gatedConn, l *list.List) {
	if c.in != nil {
		c.in.Remove(c.elem)
		c.in, c.elem = nil, nil
	}
	if l != nil && !c.closed {
		c.in, c.elem = l, l.PushBack(c)
	}
	c.quiet.Store(c.in == &g.fresh || c.in == &g.kept || c.in == &g.waiting)
}

// drop stops counting c. g.mu is held.
func (g *connGate) drop(c *gatedConn) {
	if c.closed {
		return
	}
	g.move(c, nil)
	c.closed = true
	g.open--
}

// report logs, at most once a second, how many connections were closed to
// make room or turned away. g.mu is held.
func (g *connGate) report() {
	if g.evicted+g.refused == 0 || time.Since(g.logged) < time.Second {
		return
	}
	g.log.Warn("too many HTTP connections: closed idle ones to make room, or turned new ones away",
		"max_connections", g.max, "closed_idle", g.evicted, "turned_away", g.refused)
	g.evicted, g.refused, g.logged = 0, 0, time.Now()
}

// Close stops counting the connection and closes it.
func (c *gatedConn) Close() error {
	c.g.mu.Lock()
	c.g.drop(c)
	c.g.mu.Unlock()
	return c.Conn.Close()
}

// connKey is the context key of a request's *gatedConn.
type connKey struct{}

// connContext is the http.Server's ConnContext: it lets a request find
// its connection.
func (g *connGate) connContext(ctx context.Context, c net.Conn) context.Context {
	if gc, ok := c.(*gatedConn); ok {
		return context.WithValue(ctx, connKey{}, gc)
	}
	return ctx
}

// connUse is a request's use of its connection, from the handler's start
// to its end.
type connUse struct {
	g       *connGate
	c       *gatedConn
	serving bool // counted in c.busy
}

// track lets each request mark its connection serving (see serving) and,
// once its handler returns, makes the connection the most recently used
// of the kept-alive ones. Until then the connection stays where reading
// the request put it: among those that started one, closable, for as long
// as its body takes to arrive.
func (g *connGate) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gc, ok := r.Context().Value(connKey{}).(*gatedConn)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		g.handling.Add(1)
		u := &connUse{g: g, c: gc}
		defer func() {
			g.handling.Add(-1)
			g.mu.Lock()
			if u.serving {
				gc.busy--
			}
			if gc.busy == 0 {
				g.move(gc, &g.kept)
			}
			g.mu.Unlock()
		}()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), connUseKey{}, u)))
	})
}

// connUseKey is the context key of a request's *connUse.
type connUseKey struct{}

// serving marks the connection of the request of ctx as serving it, once
// its body is in: a call is never closed to make room; a long-lived
// request (long) is, after every connection idle or still sending. A
// request not behind the gate is left alone.
func serving(ctx context.Context, long bool) {
	u, ok := ctx.Value(connUseKey{}).(*connUse)
	if !ok {
		return
	}
	g, c := u.g, u.c
	g.mu.Lock()
	defer g.mu.Unlock()
	if long {
		if u.serving {
			u.serving = false
			c.busy--
		}
		if c.busy == 0 {
			g.move(c, &g.long)
		}
		return
	}
	if !u.serving {
		u.serving = true
		c.busy++
		g.move(c, nil)
	}
}

// count returns the connections open.
func (g *connGate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

// filesReserved are the file descriptors kept for the server's own work
// (skill files, the watcher, logs) when the process may open few.
const filesReserved = 128

// connLimit is the cap on connections: max, or DefaultMaxConns when max is
// 0, lowered so that the connections leave filesReserved descriptors of
// the process's limit free.
func connLimit(n int) int {
	if n <= 0 {
		n = DefaultMaxConns
	}
	if files := openFilesLimit(); files > 0 {
		n = min(n, files-filesReserved)
	}
	return max(n, 16)
}

// httpServer returns the server for the http and sse transports, and the
// listener it serves: ln behind the connection gate. It applies
// o.MaxConns, o.IdleTimeout and HeaderTimeout (o.BodyTimeout is applied
// by the handler).
func (s *Server) httpServer(o HTTPOptions, ln net.Listener) (*http.Server, *connGate) {
	gate := newConnGate(ln, connLimit(o.MaxConns), s.log)
	idle := o.IdleTimeout
	switch {
	case idle == 0:
		idle = DefaultIdleTimeout
	case idle < 0:
		idle = 0 // never
	}
	hs := &http.Server{
		Handler:           gate.track(s.Handler(o)),
		ReadHeaderTimeout: HeaderTimeout,
		IdleTimeout:       idle,
		ConnContext:       gate.connContext,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	return hs, gate
}
