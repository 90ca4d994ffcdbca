package mcp

import (
	"fmt"
	"net/http"
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
// an attacker never does.
//
// A session is idle when none of its requests is open, a GET stream
// included: a client that listens on its stream for list_changed is not
// idle. After idle it is closed, and the SDK answers its next request
// with 404, which tells the client to start a new session. (The go-sdk's
// own StreamableHTTPOptions.SessionTimeout counts only POSTs, and would
// close the session of a client that only listens.)
//
// At most max sessions live at once, those being created included; beyond
// that a request that would create one is refused with HTTP 503 and a
// JSON-RPC error saying why, before the SDK allocates anything.
type sessionLimiter struct {
	s    *Server
	idle time.Duration // 0: never close idle sessions
	max  int           // 0: no cap

	mu      sync.Mutex
	live    map[string]*liveSession
	pending int // sessions being created (a POST without a session id in flight)
}

// liveSession is one session the limiter tracks.
type liveSession struct {
	open  int         // requests of the session being served
	timer *time.Timer // closes the session once idle; nil while open > 0
}

func newSessionLimiter(s *Server, idle time.Duration, max int) *sessionLimiter {
	return &sessionLimiter{s: s, idle: idle, max: max, live: map[string]*liveSession{}}
}

// serve passes r to next, the stateful handler, counting the requests of
// each session and refusing a new session beyond the cap.
func (l *sessionLimiter) serve(w http.ResponseWriter, r *http.Request, body *postBody, next http.Handler) {
	if id := r.Header.Get(sessionHeader); id != "" {
		if !l.begin(id) {
			next.ServeHTTP(w, r) // the SDK answers 404 for a session it does not know
			return
		}
		defer l.end(id)
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
			l.track(id)
		}
	}}
	defer func() { l.created(id) }() // a panic too ends the reservation
	next.ServeHTTP(hw, r)
}

// track turns the reservation into session id, with the request that
// creates it open, as soon as the SDK announces it: before the client can
// send the session's next request.
func (l *sessionLimiter) track(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending--
	if l.live[id] == nil {
		l.live[id] = &liveSession{open: 1}
	}
}

// begin counts a request of session id, stopping its idle timer. It
// reports whether the session is tracked.
func (l *sessionLimiter) begin(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := l.live[id]
	if ls == nil {
		return false
	}
	ls.open++
	if ls.timer != nil {
		ls.timer.Stop()
		ls.timer = nil
	}
	return true
}

// end counts a request of session id done, starting its idle timer when
// it was the last one open.
func (l *sessionLimiter) end(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := l.live[id]
	if ls == nil {
		return
	}
	ls.open--
	if ls.open == 0 {
		l.arm(id, ls)
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
	if l.live[id] != ls || ls.open > 0 {
		l.mu.Unlock()
		return // a request came in meanwhile, or it is gone
	}
	delete(l.live, id)
	l.mu.Unlock()
	for ss := range l.s.sdk.Sessions() {
		if ss.ID() == id {
			l.s.log.Info("closing an idle HTTP session", "session", id, "idle", l.idle)
			_ = ss.Close()
			return
		}
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
// whether there was room. At the cap it first drops the sessions the SDK
// closed by other means (CloseSessions, a failed initialize).
func (l *sessionLimiter) reserve() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max <= 0 || len(l.live)+l.pending < l.max {
		l.pending++
		return true
	}
	open := map[string]bool{}
	for ss := range l.s.sdk.Sessions() {
		open[ss.ID()] = true
	}
	for id, ls := range l.live {
		if !open[id] {
			if ls.timer != nil {
				ls.timer.Stop()
			}
			delete(l.live, id)
		}
	}
	if len(l.live)+l.pending < l.max {
		l.pending++
		return true
	}
	return false
}

// created ends a reservation: id is the session the SDK announced in its
// answer (track already made the reservation that session), or "" when it
// created none. A session the SDK closed at once (a request that was not
// initialize, or a failed one) is no longer tracked.
func (l *sessionLimiter) created(id string) {
	alive := false
	if id != "" {
		for ss := range l.s.sdk.Sessions() {
			if ss.ID() == id {
				alive = true
				break
			}
		}
	}
	if id == "" {
		l.mu.Lock()
		l.pending--
		l.mu.Unlock()
	}
	switch {
	case id == "":
	case alive:
		l.end(id) // the creating request is done: idle from now
	default:
		l.forget(id)
	}
}

// count returns how many sessions are tracked.
func (l *sessionLimiter) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.live)
}

// refuse answers a request for a new session beyond the cap: HTTP 503
// with a JSON-RPC error carrying the request's id.
func (l *sessionLimiter) refuse(w http.ResponseWriter, body *postBody) {
	l.s.log.Warn("refused a new HTTP session: too many open", "max_sessions", l.max)
	msg := fmt.Sprintf("ccski: %d MCP sessions are open, the most this server keeps (mcp.max_sessions); "+
		"end one (DELETE /mcp), wait for idle ones to time out (mcp.session_idle_timeout), or raise the cap", l.max)
	resp := errorResponse(idOf(body.raw), -32000, msg)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "60")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(resp)
}

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
