package mcp

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Defaults of HTTPOptions.SessionIdleTimeout and MaxSessions, as the
// configuration sets them (mcp.session_idle_timeout, mcp.max_sessions).
const (
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultMaxSessions        = 1000
)

// sessionLimiter bounds the sessions of the stateful streamable HTTP
// handler, which otherwise keeps every session it ever created (about 13
// KB each) until its client sends DELETE, which a client that crashed or
// an attacker never does, and those of the SSE handler, each a GET stream
// its client may hold forever.
//
// A session is idle when none of its requests is open, a GET stream
// included: a client that listens on its stream for list_changed is not
// idle. After idle it is closed, and the SDK answers its next request
// with 404, which tells the client to start a new session. (The go-sdk's
// own StreamableHTTPOptions.SessionTimeout counts only POSTs, and would
// close the session of a client that only listens.)
//
// At most max sessions live at once, those being created included. A
// request that would create one more closes the session that has gone
// longest without a request of its own (POST or DELETE; a GET stream held
// open, or an ask call waiting for the client's model, counts as idle
// here), so that sessions nobody uses, or whose client does not answer,
// cannot lock new clients out. A session with a call in flight is never
// closed so: when
// every session has one, the new session is refused with HTTP 503 and a
// JSON-RPC error saying why, before the SDK allocates anything.
type sessionLimiter struct {
	s    *Server
	idle time.Duration // 0: never close idle sessions
	max  int           // 0: no cap

	mu      sync.Mutex
	live    map[string]*liveSession
	pending int // sessions being created (a POST without a session id in flight, an SSE stream starting)
}

// liveSession is one session the limiter tracks.
type liveSession struct {
	calls int // requests of the session being served, streams aside
	// streams counts the session's GET streams open, and its calls that
	// wait on its client (ask waiting for the client's model).
	streams int
	gets    int // its GET streams open
	// listened is set once the session opened a GET stream: from then
	// on, the notifications that answer no request are kept for it
	// (streamStore) while no stream is open.
	listened bool
	// last is when the session last began a call or wrote a byte of an
	// answer to one: its client's last activity, in the order the client
	// saw it (a handler returns only after its answer is out).
	last  time.Time
	timer *time.Timer // closes the session once idle; nil while a request is open
	// close ends the session; nil for a streamable session, which is
	// closed through the SDK by its id.
	close func()
}

func newSessionLimiter(s *Server, idle time.Duration, max int) *sessionLimiter {
	return &sessionLimiter{s: s, idle: idle, max: max, live: map[string]*liveSession{}}
}

// serve passes r to next, the stateful handler, counting the requests of
// each session and making room for a new session at the cap.
func (l *sessionLimiter) serve(w http.ResponseWriter, r *http.Request, body *postBody, next http.Handler) {
	if id := r.Header.Get(sessionHeader); id != "" {
		if r.Method == http.MethodPost && !body.asks() {
			// Notifications, or answers to the server's requests: the
			// client's activity, but no call of its own to wait for.
			l.touch(id)
			next.ServeHTTP(w, r)
			return
		}
		// A GET stream, or a call waiting on the client's own model (ask),
		// lasts as long as the client wants: it keeps the session from
		// the idle timeout, but not from being closed to make room.
		stream := r.Method == http.MethodGet || body.waitsOnClient()
		if !l.begin(id, stream) {
			next.ServeHTTP(w, r) // the SDK answers 404 for a session it does not know
			return
		}
		defer l.end(id, stream)
		if r.Method == http.MethodGet {
			l.listen(id, 1)
			defer l.listen(id, -1)
		}
		if !stream {
			w = &touchWriter{ResponseWriter: w, touch: func() { l.touch(id) }}
		}
		if r.Method == http.MethodDelete {
			// The client ends the session: forget it as the SDK answers,
			// before the client can send its next request.
			w = &hookWriter{ResponseWriter: w, before: func(code int) {
				if code < 300 {
					l.forget(id)
				}
			}}
		}
		next.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost || !body.initializes() {
		// No session outlives this request: the SDK closes at once a
		// session it starts for anything but initialize.
		next.ServeHTTP(w, r)
		return
	}
	if !l.reserve() {
		l.refuse(w, body)
		return
	}
	var id string
	hw := &hookWriter{ResponseWriter: w, before: func(int) {
		if id = w.Header().Get(sessionHeader); id != "" {
			l.track(id, nil)
		}
	}}
	defer func() { l.created(id) }() // a panic too ends the reservation
	next.ServeHTTP(hw, r)
}

// serveSSE passes r, the GET that opens an SSE session, to next, the SSE
// handler, making room for the session at the cap; the session is
// tracked from the moment the handler announces its id until the stream
// ends. Closing the session ends the stream.
func (l *sessionLimiter) serveSSE(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if !l.reserve() {
		l.s.log.Warn("refused a new SSE session: every session has a call in flight", "max_sessions", l.max)
		w.Header().Set("Retry-After", "60")
		http.Error(w, l.refusal(), http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	id := ""
	sw := &sseIDWriter{ResponseWriter: w, found: func(sid string) {
		id = sid
		l.track(sid, cancel)
		l.begin(sid, true) // the GET is the session's stream
	}}
	defer func() {
		if id == "" {
			l.unreserve()
			return
		}
		l.forget(id)
	}()
	next.ServeHTTP(sw, r.WithContext(ctx))
}

// serveSSEMessage passes r, a message to SSE session id, to next,
// counting it as a call of that session.
func (l *sessionLimiter) serveSSEMessage(w http.ResponseWriter, r *http.Request, id string, next http.Handler) {
	if id != "" && l.begin(id, false) {
		defer l.end(id, false)
		w = &touchWriter{ResponseWriter: w, touch: func() { l.touch(id) }}
	}
	next.ServeHTTP(w, r)
}

// track turns the reservation into session id as soon as the handler
// announces it: before the client can send the session's next request.
// The request that creates it is not counted as a call: its answer is
// being written, and nothing in it could be lost (the SDK's handler may
// return some time after). close ends the session (nil: close it through
// the SDK).
func (l *sessionLimiter) track(id string, close func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending--
	if l.live[id] == nil {
		ls := &liveSession{last: time.Now(), close: close}
		l.live[id] = ls
		l.arm(id, ls)
	}
}

// begin counts a request of session id, a GET stream or a call, stopping
// its idle timer. It reports whether the session is tracked.
func (l *sessionLimiter) begin(id string, stream bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := l.live[id]
	if ls == nil {
		return false
	}
	if stream {
		ls.streams++
	} else {
		ls.calls++
		ls.last = time.Now()
	}
	if ls.timer != nil {
		ls.timer.Stop()
		ls.timer = nil
	}
	return true
}

// end counts a request of session id done, starting its idle timer when
// it was the last one open.
func (l *sessionLimiter) end(id string, stream bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := l.live[id]
	if ls == nil {
		return
	}
	if stream {
		ls.streams--
	} else {
		ls.calls--
	}
	if ls.calls == 0 && ls.streams == 0 {
		l.arm(id, ls)
	}
}

// listen counts a GET stream of session id opened (1) or closed (-1).
func (l *sessionLimiter) listen(id string, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ls := l.live[id]; ls != nil {
		ls.gets += n
		ls.listened = ls.listened || n > 0
	}
}

// streamOpen reports whether session id is tracked and, if so, whether it
// has a GET stream open.
func (l *sessionLimiter) streamOpen(id string) (tracked, open bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := l.live[id]
	return ls != nil, ls != nil && ls.gets > 0
}

// everListened reports whether session id is tracked and, if so, whether
// it ever opened a GET stream, where the SDK writes the notifications
// that answer no request (or keeps them, for when the client comes back).
func (l *sessionLimiter) everListened(id string) (tracked, listened bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := l.live[id]
	return ls != nil, ls != nil && ls.listened
}

// touch records activity of session id: a call's answer being written,
// or a message that asks for none. An idle session's timer starts again.
func (l *sessionLimiter) touch(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ls := l.live[id]; ls != nil {
		ls.last = time.Now()
		if ls.timer != nil {
			ls.timer.Stop()
			l.arm(id, ls)
		}
	}
}

// arm starts the idle timer of a session with no request open. l.mu is
// held.
func (l *sessionLimiter) arm(id string, ls *liveSession) {
	if l.idle <= 0 {
		return
	}
	ls.timer = time.AfterFunc(l.idle, func() { l.expire(id, ls) })
}

// expire closes session id if it is still idle.
func (l *sessionLimiter) expire(id string, ls *liveSession) {
	l.mu.Lock()
	if l.live[id] != ls || ls.calls > 0 || ls.streams > 0 {
		l.mu.Unlock()
		return // a request came in meanwhile, or it is gone
	}
	delete(l.live, id)
	l.mu.Unlock()
	l.s.log.Info("closing an idle HTTP session", "session", id, "idle", l.idle)
	l.close(id, ls)
}

// close ends session id, which the limiter no longer tracks. Its ask
// calls waiting for its client end first: closing a session waits for its
// calls to return.
func (l *sessionLimiter) close(id string, ls *liveSession) {
	for ss := range l.s.sdk.Sessions() {
		if ss.ID() == id {
			l.s.endAsks(ss)
			if ls.close == nil {
				_ = ss.Close()
			}
			break
		}
	}
	if ls.close != nil {
		ls.close()
	}
}

// forget stops tracking session id.
func (l *sessionLimiter) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ls := l.live[id]; ls != nil {
		if ls.timer != nil {
			ls.timer.Stop()
		}
		delete(l.live, id)
	}
}

// reserve makes room for a session about to be created, and reports
// whether there was room. At the cap it first drops the streamable
// sessions the SDK closed by other means (CloseSessions, a failed
// initialize), then closes the session idle the longest among those with
// no call open.
func (l *sessionLimiter) reserve() bool {
	l.mu.Lock()
	if l.max <= 0 || len(l.live)+l.pending < l.max {
		l.pending++
		l.mu.Unlock()
		return true
	}
	open := map[string]bool{}
	for ss := range l.s.sdk.Sessions() {
		open[ss.ID()] = true
	}
	for id, ls := range l.live {
		if ls.close == nil && !open[id] {
			if ls.timer != nil {
				ls.timer.Stop()
			}
			delete(l.live, id)
		}
	}
	if len(l.live)+l.pending < l.max {
		l.pending++
		l.mu.Unlock()
		return true
	}
	var victim string
	var oldest *liveSession
	for id, ls := range l.live {
		if ls.calls == 0 && (oldest == nil || ls.last.Before(oldest.last)) {
			victim, oldest = id, ls
		}
	}
	if oldest == nil {
		l.mu.Unlock()
		return false
	}
	if oldest.timer != nil {
		oldest.timer.Stop()
	}
	delete(l.live, victim)
	l.pending++
	l.mu.Unlock()
	l.s.log.Info("closing the longest-idle HTTP session to make room for a new one", "session", victim,
		"idle", time.Since(oldest.last).Round(time.Second), "max_sessions", l.max)
	l.close(victim, oldest)
	return true
}

// unreserve ends a reservation that created no session.
func (l *sessionLimiter) unreserve() {
	l.mu.Lock()
	l.pending--
	l.mu.Unlock()
}

// created ends a reservation: id is the session the SDK announced in its
// answer (track already made the reservation that session), or "" when it
// created none. A session the SDK closed at once (a request that was not
// initialize, or a failed one) is no longer tracked.
func (l *sessionLimiter) created(id string) {
	if id == "" {
		l.unreserve()
		return
	}
	for ss := range l.s.sdk.Sessions() {
		if ss.ID() == id {
			return
		}
	}
	l.forget(id)
}

// count returns how many sessions are tracked.
func (l *sessionLimiter) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.live)
}

// refusal says why a new session was refused.
func (l *sessionLimiter) refusal() string {
	return fmt.Sprintf("ccski: %d MCP sessions are open, each with a call in flight, the most this server keeps "+
		"(mcp.max_sessions); retry once a call is answered, or raise the cap", l.max)
}

// refuse answers a request for a new session when every session at the
// cap has a call in flight: HTTP 503 with a JSON-RPC error carrying the
// request's id.
func (l *sessionLimiter) refuse(w http.ResponseWriter, body *postBody) {
	l.s.log.Warn("refused a new HTTP session: every session has a call in flight", "max_sessions", l.max)
	resp := errorResponse(idOf(body.raw), -32000, l.refusal())
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "60")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(resp)
}

// touchWriter passes an answer through, calling touch before each write.
type touchWriter struct {
	http.ResponseWriter
	touch func()
}

func (w *touchWriter) WriteHeader(code int) {
	w.touch()
	w.ResponseWriter.WriteHeader(code)
}

func (w *touchWriter) Write(b []byte) (int, error) {
	w.touch()
	return w.ResponseWriter.Write(b)
}

// Flush lets the SDK stream events through the wrapper.
func (w *touchWriter) Flush() {
	w.touch()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *touchWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sseIDWriter passes the SSE handler's answer through, and calls found
// once with the session id the handler announces in its first event
// (endpoint, "/messages?sessionid=<id>").
type sseIDWriter struct {
	http.ResponseWriter
	found func(id string)
	head  []byte // the answer so far, until the id is found
	done  bool
}

func (w *sseIDWriter) Write(b []byte) (int, error) {
	if !w.done {
		w.head = append(w.head, b...)
		if i := bytes.Index(w.head, []byte("sessionid=")); i >= 0 {
			rest := w.head[i+len("sessionid="):]
			if j := bytes.IndexAny(rest, "&\r\n"); j >= 0 {
				w.done = true
				if id, err := url.QueryUnescape(string(rest[:j])); err == nil && id != "" {
					w.found(id)
				}
				w.head = nil
			}
		}
		if len(w.head) > 4096 { // no endpoint in the first event: never track it
			w.done, w.head = true, nil
		}
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets the SDK stream events through the wrapper.
func (w *sseIDWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *sseIDWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// hookWriter calls before with the status code once, before the header
// of the answer goes out.
type hookWriter struct {
	http.ResponseWriter
	before func(code int)
	called bool
}

func (w *hookWriter) hook(code int) {
	if !w.called {
		w.called = true
		w.before(code)
	}
}

func (w *hookWriter) WriteHeader(code int) {
	w.hook(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *hookWriter) Write(b []byte) (int, error) {
	w.hook(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

// Flush lets the SDK stream events through the wrapper.
func (w *hookWriter) Flush() {
	w.hook(http.StatusOK)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *hookWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
