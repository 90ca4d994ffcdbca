package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	actors "github.com/oklog/run"

	"github.com/ccski/ccski/pipeline"
)

// Shutdown bounds.
const (
	drainTimeout    = 2 * time.Second // tool calls in flight may finish
	shutdownTimeout = 5 * time.Second // HTTP connections close
	idleRelease     = time.Second     // idle time after which freed memory goes back to the system
	// closeGrace is how long HTTP connections may take to close once the
	// calls are drained and the sessions closed, before they are cut; and
	// how long a rescan stuck in a read may hold the exit.
	closeGrace = 500 * time.Millisecond
)

// Discovery keeps the served skills current: it builds the first snapshot
// and every later one, and can switch to the workspace a client names.
// The discovery layer's live refresher (package engine/live) is one; the
// server depends on nothing more, so the file watcher stays out of its
// dependencies.
type Discovery interface {
	// Subscribe registers fn to receive every new snapshot, the first one
	// included. Serve subscribes before it calls Run.
	Subscribe(fn func(*pipeline.Snapshot))
	// Run builds the first snapshot, then keeps it current until ctx is
	// done, and returns nil then. An error of the first discovery ends
	// the server with that error.
	Run(ctx context.Context) error
	// SetWorkspace switches discovery to another workspace folder: the
	// folder the client's roots name, over stdio, where the server has
	// one client.
	SetWorkspace(ctx context.Context, dir string)
}

// ServeOptions configure Serve.
type ServeOptions struct {
	// Options configure the server. OnInitialized and OnRootsChanged
	// default to serving the client's first file root as its workspace
	// (useClientRoots; clients before protocol 2026-07-28 only): over
	// stdio by switching Discovery, over http and sse for that client's
	// session alone (ForWorkspace).
	Options
	// Discovery provides the snapshots; required.
	Discovery Discovery
	// ForWorkspace returns a Discovery of another workspace folder, for
	// the sessions of the http and sse transports whose client roots name
	// one: each session is served its own client's workspace
	// (workspaceRouter). Without it those sessions are served Discovery's
	// workspace, whatever their roots. stdio has one client, whose roots
	// switch Discovery itself (SetWorkspace).
	ForWorkspace func(dir string) (Discovery, error)
	// Transport is "stdio" (the default when empty), "http" (streamable
	// HTTP at /mcp) or "sse".
	Transport string
	// Host and Port are where http and sse listen.
	Host string
	Port int
	// Listening, when set, is called with the address http and sse
	// listen on, once the listener is open and before the first
	// connection is served: with Port 0, the port the system chose
	// (ccski ui prints its URL from it).
	Listening func(addr net.Addr)
	// HTTP configures the http and sse handler; its SSE field is set
	// from Transport.
	HTTP HTTPOptions
	// Signals end the server gracefully, as the end of ctx does, with a
	// line on the log naming the signal. None are caught when empty.
	Signals []os.Signal
	// DrainDelay and DrainTimeout shape the end of http and sse: once a
	// signal arrives, /readyz answers 503 while every request is still
	// served for DrainDelay (0: none), so that a load balancer takes the
	// replica out before its listener closes; then new connections are
	// refused, new calls answered "shutting down", and the calls in
	// flight get DrainTimeout (drainTimeout when 0) to finish before the
	// sessions close. The process is gone within DrainDelay +
	// DrainTimeout + 5 s: keep that under Kubernetes'
	// terminationGracePeriodSeconds.
	DrainDelay, DrainTimeout time.Duration
	// Stdio is the stdio transport; nil means the process's standard
	// input and output.
	Stdio sdk.Transport
	// ClientName, when set, is called over the process's standard input
	// (Stdio nil) with the clientInfo name of the client's initialize
	// request ("" when its first message is none), before discovery
	// starts: the caller may take the view of the host that client is
	// (its skill switches), so that no snapshot ever served it holds a
	// skill that host turned off. Discovery then waits for the client's
	// first message, which a client sends as it connects, for at most
	// clientWait; late is true when it did not wait that long, and the
	// caller then refreshes discovery itself before it returns: the
	// client's initialize is handed on only once ClientName returns, so
	// that nothing is answered from a view that is not its host's.
	ClientName func(name string, late bool)
}

// Serve runs the MCP server until the client closes stdin (stdio), a
// signal of o.Signals arrives or ctx is done, then shuts down: new calls
// are refused, calls in flight get drainTimeout to finish and be answered,
// and HTTP connections are closed. Discovery runs while the transport
// already answers initialize, so a client's start-up timeout does not
// wait for a large scan. After a burst of work, freed memory is given back
// to the system once the server is idle. Serve returns nil on a clean
// shutdown; an error of the first discovery is returned as Discovery.Run
// gave it.
func Serve(ctx context.Context, o ServeOptions) error {
	if o.Discovery == nil {
		return errors.New("mcp.Serve: no Discovery to serve skills from")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	log := o.Logger
	// The server asks clients for their roots under asking, which ends
	// first on shutdown: closing a session waits for the requests the
	// server sent on it, and a client slow to answer roots/list would hold
	// the exit.
	asking, stopAsking := context.WithCancel(context.WithoutCancel(ctx))
	defer stopAsking()
	if o.Transport == "" {
		o.Transport = "stdio"
	}
	// Over stdio the one client's roots switch discovery; over HTTP each
	// session is routed to its own workspace's server, never moving
	// another's.
	var router *workspaceRouter
	setWorkspace := o.Discovery.SetWorkspace
	if o.Transport != "stdio" {
		setWorkspace = func(context.Context, string) {
			log.Warn("a client's roots name a workspace, which this server cannot serve per session; serving its own")
		}
	}
	roots := func(_ context.Context, ss *sdk.ServerSession) {
		useClientRoots(asking, ss, func(ctx context.Context, dir string) {
			if router != nil {
				router.use(ss, dir)
				return
			}
			setWorkspace(ctx, dir)
		})
	}
	if o.OnInitialized == nil {
		o.OnInitialized = roots
	}
	if o.OnRootsChanged == nil {
		o.OnRootsChanged = roots
	}
	srv := New(nil, o.Options)
	defer srv.closeCount() // after the workspaces' servers, which share its count
	if o.Transport != "stdio" && o.ForWorkspace != nil {
		wo := o.Options
		wo.OnInitialized, wo.OnRootsChanged = nil, nil
		baseDir := ""
		if d, ok := o.Discovery.(interface{ Workspace() string }); ok {
			baseDir = d.Workspace()
		}
		router = newWorkspaceRouter(srv, baseDir, log, serveWorkspace(srv, wo, o.ForWorkspace))
		defer router.close()
	}
	o.Discovery.Subscribe(func(snap *pipeline.Snapshot) {
		srv.Update(snap)
		srv.Touch() // the old snapshot is garbage now: release it once idle
	})
	log.Info("ccski MCP server starting", "version", o.Version, "transport", o.Transport)
	// The actors stop in their own order when interrupted (stdio drains
	// before it cancels), so their contexts do not end with ctx.
	base := context.WithoutCancel(ctx)

	var g actors.Group
	// Signals, and the end of ctx: a line on the log, then every actor is
	// interrupted.
	{
		execute, interrupt := actors.ContextHandler(ctx)
		if len(o.Signals) > 0 {
			execute, interrupt = actors.SignalHandler(ctx, o.Signals...)
		}
		g.Add(func() error {
			err := execute()
			if errors.Is(err, actors.ErrSignal) {
				log.Info("signal received; shutting down", "signal", signalName(err))
			}
			return err
		}, interrupt)
	}
	// Transport.
	// client is closed once the stdio client's name is known (at once
	// when it is not asked for).
	// started is claimed once, by whichever comes first: the client's
	// name (discovery then starts after ClientName, in its view) or
	// discovery giving up waiting for it (the name is then late).
	client := make(chan struct{})
	var started atomic.Bool
	switch {
	case o.Transport == "stdio" && o.Stdio == nil && o.ClientName != nil:
		var once sync.Once
		o.Stdio = guardStdioFirst(os.Stdin, os.Stdout, srv.ops, func(name string) {
			once.Do(func() {
				o.ClientName(name, !started.CompareAndSwap(false, true))
				close(client)
			})
		})
	default:
		close(client)
	}
	switch o.Transport {
	case "stdio":
		addStdio(base, &g, srv, o.Stdio, log, stopAsking)
	case "http", "sse":
		if err := addHTTP(&g, srv, router, o, log, stopAsking); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown transport %q: use stdio, http or sse", o.Transport)
	}
	// Memory: after a burst of work, give freed memory back once idle.
	{
		ctx, cancel := context.WithCancel(base)
		g.Add(func() error { return srv.ReleaseWhenIdle(ctx, idleRelease) }, func(error) { cancel() })
	}
	// Discovery: the first snapshot while the transport already answers
	// initialize, then rescans. A rescan blocked in a read the context
	// cannot interrupt (a named pipe, a hung network mount) must not hold
	// the exit.
	{
		ctx, cancel := context.WithCancel(base)
		g.Add(func() error {
			// A client writes its first message as it connects; one
			// that has not within clientWait (or a stdin kept open with
			// nothing on it) does not hold discovery, whose errors end
			// the server.
			select {
			case <-client:
			case <-time.After(clientWait):
				if !started.CompareAndSwap(false, true) {
					// The name came just now: discovery starts in its
					// view, once ClientName has taken it.
					select {
					case <-client:
					case <-ctx.Done():
						return nil
					}
				}
			case <-ctx.Done():
				return nil
			}
			started.Store(true)
			ran := make(chan error, 1)
			go func() { ran <- o.Discovery.Run(ctx) }()
			select {
			case err := <-ran:
				if err == nil && ctx.Err() == nil {
					<-ctx.Done() // nothing left to refresh: keep serving
				}
				return err
			case <-ctx.Done():
				select {
				case <-ran:
				case <-time.After(closeGrace):
					log.Warn("a rescan is still running; exiting without it")
				}
			}
			return nil
		}, func(error) { cancel() })
	}
	err := g.Run()
	if err == nil || errors.Is(err, actors.ErrSignal) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// addStdio adds the stdio transport's actor: it serves until the client
// closes stdin, and on interrupt stops asking the client for roots
// (stopAsking) and drains the calls in flight before it closes the
// session.
func addStdio(base context.Context, g *actors.Group, srv *Server, tr sdk.Transport, log *slog.Logger, stopAsking func()) {
	if tr == nil {
		tr = guardStdio(os.Stdin, os.Stdout, srv.ops) // malformed lines are answered, not fatal
	}
	ctx, cancel := context.WithCancel(base)
	stopped := make(chan struct{})
	g.Add(func() error {
		ran := make(chan error, 1)
		go func() { ran <- srv.SDK().Run(ctx, srv.Track(tr)) }()
		var err error
		select {
		case err = <-ran:
		case <-stopped:
			// Closing the session waits for every handler; one stuck
			// past the drain (a hung read) must not hold the exit.
			select {
			case err = <-ran:
			case <-time.After(shutdownTimeout - drainTimeout):
				log.Warn("a tool call did not finish; exiting without it")
				return nil
			}
		}
		// A notification written after the client went away fails with
		// a closed pipe: that is the client leaving, not a failure.
		if err == nil || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) {
			log.Info("client closed stdin; shutting down")
			return nil
		}
		return err
	}, func(error) {
		stopAsking()
		srv.Drain(drainTimeout)
		cancel()
		close(stopped)
	})
}

// addHTTP adds the HTTP listener actor for the http and sse transports.
// On interrupt it stops accepting connections, stops asking clients for
// roots (stopAsking), drains the calls in flight (on every workspace's
// server, with router) and closes every session.
func addHTTP(g *actors.Group, srv *Server, router *workspaceRouter, o ServeOptions, log *slog.Logger, stopAsking func()) error {
	addr := net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
	ln, err := listenConfig().Listen(context.Background(), "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (use --port to pick another port)", addr, err)
	}
	if !LoopbackHost(strings.Trim(o.Host, "[]")) && o.HTTP.AuthToken == "" {
		log.Warn("listening on a non-loopback address without a token: anyone who can reach it can read your skills; set --auth-token or CCSKI_AUTH_TOKEN",
			"addr", ln.Addr().String())
	}
	ho := o.HTTP
	ho.SSE = o.Transport == "sse"
	hs, gate := srv.httpServer(ho, ln)
	path := "/mcp"
	if ho.SSE {
		path = "/mcp (messages at /messages)"
	}
	log.Info("listening", "url", "http://"+ln.Addr().String()+path)
	if o.Listening != nil {
		o.Listening(ln.Addr())
	}
	g.Add(func() error {
		if err := hs.Serve(gate); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}, func(error) {
		// Not ready from now on; still serving for the delay.
		srv.Stopping()
		if o.DrainDelay > 0 {
			log.Info("not ready; serving on while the load balancer lets go", "drain_delay", o.DrainDelay)
			time.Sleep(o.DrainDelay)
		}
		drain := o.DrainTimeout
		if drain <= 0 {
			drain = drainTimeout
		}
		ctx, cancel := context.WithTimeout(context.Background(), drain+shutdownTimeout-drainTimeout)
		defer cancel()
		done := make(chan struct{})
		go func() { _ = hs.Shutdown(ctx); close(done) }() // stop accepting; wait for requests
		stopAsking()
		if router != nil {
			router.drain(drain)
		} else {
			srv.Drain(drain)
		}
		// Open streams would hold Shutdown. Closing a session waits for its
		// handlers, so a stuck one is bounded by the shutdown timeout.
		closed := make(chan struct{})
		go func() { srv.CloseSessions(); close(closed) }()
		select {
		case <-closed:
		case <-ctx.Done():
			log.Warn("a session did not close in time; exiting without it")
		}
		// Requests in flight are answered and sessions closed. A connection
		// a client opened but never sent a request on still holds Shutdown
		// for 5 s (net/http counts it idle only then): close what is left.
		select {
		case <-done:
		case <-time.After(closeGrace):
			_ = hs.Close()
			<-done
		}
	})
	return nil
}

// signalName names the signal of the signal actor's error. The actor
// returns a *run.SignalError. Ask errors.As for the pointer type: with a
// run.SignalError value as target, SignalError's own As method reports a
// match without filling the target in, and its nil Signal panics.
func signalName(err error) string {
	var se *actors.SignalError
	if errors.As(err, &se) && se != nil && se.Signal != nil {
		return se.Signal.String()
	}
	return "unknown"
}

// clientWait bounds how long discovery waits for a stdio client's first
// message (ServeOptions.ClientName).
const clientWait = 2 * time.Second

// rootsTimeout bounds the wait for a client's answer to roots/list.
var rootsTimeout = 5 * time.Second

// useClientRoots asks the session for its roots, if the client has them,
// and hands the first file root to setWorkspace. It is meant for the
// server's initialized and roots-changed hooks, and returns at once. ctx
// bounds the question (besides rootsTimeout): pass one that lives as long
// as the server, not the hook's, which ends with the notification. The
// rescan of a new workspace is not cut short by it.
//
// Sessions of protocol 2026-07-28 or later never switch the workspace: they
// send no initialize, and the SDK refuses ListRoots on them at once (that
// revision deprecates roots and lets no server send a request of its
// own), so the workspace stays --workspace or the server's working folder.
func useClientRoots(ctx context.Context, ss *sdk.ServerSession, setWorkspace func(context.Context, string)) {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		return
	}
	go func() {
		// The deadline is for the client's answer only: the rescan of the
		// new workspace is a cold scan that may take longer, and cutting
		// it short would leave the old skills served.
		base := context.WithoutCancel(ctx)
		lctx, cancel := context.WithTimeout(ctx, rootsTimeout)
		res, err := ss.ListRoots(lctx, nil)
		cancel()
		if err != nil || res == nil {
			return
		}
		for _, root := range res.Roots {
			u, err := url.Parse(root.URI)
			if err == nil && u.Scheme == "file" && filepath.IsAbs(u.Path) {
				setWorkspace(base, u.Path)
				return
			}
		}
	}()
}
