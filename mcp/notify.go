package mcp

// When list_changed notifications go out. The go-sdk sends one to every
// session when a list changes; notifyGate, sending middleware, decides for
// each session whether it is time:
//
//   - A 2025-era session between its initialize and its
//     notifications/initialized is not told: the lifecycle lets the server
//     send only pings and logging before initialized, and the client has
//     fetched no list yet, so the lists it fetches after are current and
//     the notification is dropped. A client that asks for a list before
//     its initialized (or never sends one) is told of the changes after
//     that request.
//   - A 2026-07-28 subscriptions/listen stream must begin with
//     notifications/subscriptions/acknowledged (SEP-2575), and the SDK
//     registers the subscription before it sends that: a change in
//     between is held, and sent right after the acknowledgement (the
//     client may have fetched its lists before it subscribed).
//   - A streamable HTTP session that never opened its GET stream does not
//     listen: a notification is dropped at DEBUG (the SDK would keep it
//     for a stream that never comes, and used to log a warning each
//     time). Once it has opened one, a notification sent while no stream
//     is open is kept in the session's event store (streamStore, bounded)
//     and sent when the client listens again, resuming with
//     Last-Event-ID or not. A client that left without DELETE is closed
//     after mcp.session_idle_timeout, and is no longer notified at all
//     from then on.

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
	// hold keeps the notifications for when the session is ready (a
	// subscription); without it they are dropped (a session before
	// initialized).
	hold bool
	held map[string]func() // the notifications to send once ready, by method
}

func newNotifyGate(ops *opLog) *notifyGate {
	return &notifyGate{ops: ops, waiting: map[*sdk.ServerSession]*waitingSession{}}
}

// wait starts holding back the notifications of ss until ready(ss):
// holding them when hold is set, else dropping them. With forgetOnEnd the
// session's end forgets it.
func (g *notifyGate) wait(ss *sdk.ServerSession, hold, forgetOnEnd bool) {
	g.mu.Lock()
	if g.waiting[ss] == nil {
		g.waiting[ss] = &waitingSession{hold: hold, held: map[string]func(){}}
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

// ready lets ss receive notifications from now on, and sends what was
// held for it.
func (g *notifyGate) ready(ss *sdk.ServerSession) {
	g.mu.Lock()
	w := g.waiting[ss]
	delete(g.waiting, ss)
	g.mu.Unlock()
	if w == nil {
		return
	}
	for _, send := range w.held {
		send()
	}
}

// receiving is receiving middleware: an initialize or a
// subscriptions/listen starts the wait, and a request for a list before
// initialized ends it (the client acts as initialized).
func (g *notifyGate) receiving(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ss, ok := req.GetSession().(*sdk.ServerSession)
		if !ok {
			return next(ctx, method, req)
		}
		switch {
		case method == "initialize":
			g.wait(ss, false, true)
		case method == "subscriptions/listen":
			g.wait(ss, true, false)
			defer g.forget(ss) // the stream is over
		case needsSnapshot(method):
			g.mu.Lock()
			w := g.waiting[ss]
			g.mu.Unlock()
			if w != nil && !w.hold {
				g.ready(ss)
			}
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
			if err == nil {
				g.ready(ss)
			}
			return res, err
		}
		if !isListChanged(method) {
			return next(ctx, method, req)
		}
		if l := g.streams.Load(); l != nil && ss.ID() != "" {
			if tracked, listened := l.everListened(ss.ID()); tracked && !listened {
				g.ops.notDelivered(ctx, method, ss, "the session never opened its stream")
				return nil, nil
			}
		}
		g.mu.Lock()
		w := g.waiting[ss]
		if w != nil && w.hold {
			w.held[method] = func() {
				ctx, cancel := context.WithTimeout(context.Background(), heldTimeout)
				defer cancel()
				if _, err := next(ctx, method, req); err != nil {
					g.ops.notDelivered(ctx, method, ss, err.Error())
				}
			}
		}
		g.mu.Unlock()
		switch {
		case w == nil:
			return next(ctx, method, req)
		case w.hold:
			g.ops.notDelivered(ctx, method, ss, "held until the subscription is acknowledged")
		default:
			g.ops.notDelivered(ctx, method, ss, "the client has not sent initialized; it fetches its lists after")
		}
		return nil, nil
	}
}

// isListChanged reports whether method is a list_changed notification.
func isListChanged(method string) bool {
	return strings.HasPrefix(method, "notifications/") && strings.HasSuffix(method, "/list_changed")
}
