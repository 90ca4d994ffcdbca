package mcp

// When list_changed notifications go out. The go-sdk sends one to every
// session when a list changes; notifyGate, sending middleware, decides for
// each session whether it is time:
//
//   - A 2025-era session between its initialize and its
//     notifications/initialized is not told yet: the lifecycle lets the
//     server send only pings and logging before initialized. What changed
//     meanwhile is held, and sent once initialized only if the client
//     already asked for a list (it should not have; a compliant client
//     asks after initialized, and gets the current lists then).
//   - A 2026-07-28 subscriptions/listen stream must begin with
//     notifications/subscriptions/acknowledged (SEP-2575), and the SDK
//     registers the subscription before it sends that: a change in
//     between is held, and sent right after the acknowledgement (the
//     client may have fetched its lists before it subscribed).
//   - A streamable HTTP session with no GET stream open cannot receive a
//     notification (the SDK has nowhere to write it, and used to log a
//     warning each time): it is dropped at DEBUG. A client that left
//     without DELETE is closed after mcp.session_idle_timeout, and is no
//     longer notified at all from then on.

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// heldTimeout bounds the sending of notifications held for a session.
const heldTimeout = 10 * time.Second

// notifyGate holds list_changed notifications until their session may
// receive them (see the top of this file).
type notifyGate struct {
	ops *opLog
	// streams tracks the sessions of the streamable HTTP handler, and
	// their GET streams; nil until Handler serves one.
	streams atomic.Pointer[sessionLimiter]

	mu      sync.Mutex
	waiting map[*sdk.ServerSession]*waitingSession
}

// waitingSession is a session not yet ready for list_changed: initialized
// (2025 era) or acknowledged (a 2026-07-28 subscription) is still to come.
type waitingSession struct {
	listed bool              // the client asked for something a list_changed would concern
	held   map[string]func() // the notifications to send once ready, by method
}

func newNotifyGate(ops *opLog) *notifyGate {
	return &notifyGate{ops: ops, waiting: map[*sdk.ServerSession]*waitingSession{}}
}

// wait starts holding the notifications of ss until ready(ss); the
// session's end forgets it.
func (g *notifyGate) wait(ss *sdk.ServerSession, forgetOnEnd bool) {
	g.mu.Lock()
	if g.waiting[ss] == nil {
		g.waiting[ss] = &waitingSession{held: map[string]func(){}}
		if forgetOnEnd {
			go func() { _ = ss.Wait(); g.forget(ss) }()
		}
	}
	g.mu.Unlock()
}

// forget stops holding anything for ss.
func (g *notifyGate) forget(ss *sdk.ServerSession) {
	g.mu.Lock()
	delete(g.waiting, ss)
	g.mu.Unlock()
}

// ready lets ss receive notifications from now on. What was held is sent
// when flush is set, or the client asked for a list while it waited.
func (g *notifyGate) ready(ss *sdk.ServerSession, flush bool) {
	g.mu.Lock()
	w := g.waiting[ss]
	delete(g.waiting, ss)
	g.mu.Unlock()
	if w == nil {
		return
	}
	for method, send := range w.held {
		if flush || w.listed {
			send()
		} else {
			g.ops.notDelivered(context.Background(), method, ss, "the lists changed before the client's initialized; it fetches them after")
		}
	}
}

// receiving is receiving middleware: it starts waiting for an initialize
// or a subscriptions/listen, and notes the requests for lists made while
// waiting.
func (g *notifyGate) receiving(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ss, ok := req.GetSession().(*sdk.ServerSession)
		if !ok {
			return next(ctx, method, req)
		}
		switch {
		case method == "initialize":
			g.wait(ss, true)
		case method == "subscriptions/listen":
			g.wait(ss, false)
			defer g.forget(ss) // the stream is over
		case needsSnapshot(method):
			g.mu.Lock()
			if w := g.waiting[ss]; w != nil {
				w.listed = true
			}
			g.mu.Unlock()
		}
		return next(ctx, method, req)
	}
}

// sending is sending middleware: a list_changed goes out only to a
// session ready for it, and an acknowledgement of a subscription makes its
// session ready.
func (g *notifyGate) sending(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ss, ok := req.GetSession().(*sdk.ServerSession)
		if !ok {
			return next(ctx, method, req)
		}
		if method == "notifications/subscriptions/acknowledged" {
			res, err := next(ctx, method, req)
			g.ready(ss, err == nil)
			return res, err
		}
		if !isListChanged(method) {
			return next(ctx, method, req)
		}
		if l := g.streams.Load(); l != nil && ss.ID() != "" {
			if tracked, open := l.streamOpen(ss.ID()); tracked && !open {
				g.ops.notDelivered(ctx, method, ss, "the session has no stream open")
				return nil, nil
			}
		}
		g.mu.Lock()
		if w := g.waiting[ss]; w != nil {
			w.held[method] = func() {
				ctx, cancel := context.WithTimeout(context.Background(), heldTimeout)
				defer cancel()
				if _, err := next(ctx, method, req); err != nil {
					g.ops.notDelivered(ctx, method, ss, err.Error())
				}
			}
			g.mu.Unlock()
			g.ops.notDelivered(ctx, method, ss, "held: the session is not initialized or its subscription not acknowledged yet")
			return nil, nil
		}
		g.mu.Unlock()
		return next(ctx, method, req)
	}
}

// isListChanged reports whether method is a list_changed notification.
func isListChanged(method string) bool {
	return strings.HasPrefix(method, "notifications/") && strings.HasSuffix(method, "/list_changed")
}
