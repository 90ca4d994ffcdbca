package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	actors "github.com/oklog/run"
	"github.com/spf13/cobra"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/engine"
	"github.com/ccski/ccski/mcp"
	"github.com/ccski/ccski/providers"
)

// Shutdown bounds.
const (
	drainTimeout    = 2 * time.Second // tool calls in flight may finish
	shutdownTimeout = 5 * time.Second // HTTP connections close
	idleRelease     = time.Second     // idle time after which freed memory goes back to the system
	// closeGrace is how long HTTP connections may take to close once the
	// calls are drained and the sessions closed, before they are cut.
	closeGrace = 500 * time.Millisecond
)

func newMCP(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve skills to agents over MCP (stdio, streamable HTTP or SSE)",
		Long: `Serve skills to agents over the Model Context Protocol.

One tool, "skill", lists every visible skill in its description and loads one
by name. Slash commands (.claude/commands, ~/.claude/commands, plugin commands,
Codex prompts) are served as MCP prompts, and with --skill-prompts every skill
is a prompt too. The same discovery flags and ccski.yaml filters as
"ccski list" apply.
--tools adds skills_list, skills_search, sources and ask. When the list of
skills is longer than --catalog characters (default 16000) it degrades: every
skill named first, then shortened descriptions, then full entries, shared
across providers and plugins; skills_search is served. Skill files are
resources: skill://<id>/<path>.
Changes on disk reach clients within a second (file watcher) and at every
--refresh-interval (rescan); clients are told with notifications/tools/list_changed.

Transports: stdio (default); http, streamable HTTP at /mcp; sse, GET /mcp
opens a stream and POST /messages?sessionId=<id> delivers messages. HTTP binds
to 127.0.0.1 by default, rejects non-loopback browser origins, and requires
"Authorization: Bearer <token>" when --auth-token or CCSKI_AUTH_TOKEN is set.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.serveMCP(cmd)
		},
	}
	discoveryFlags(cmd)
	configs.AddMCPFlags(cmd.Flags())
	return cmd
}

func newLogger(level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	o := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, o))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, o))
}

func (a *app) serveMCP(cmd *cobra.Command) error {
	l, err := a.load(cmd, engineOnly) // discovery runs once the server is serving
	if err != nil {
		return err
	}
	cfg := l.cfg.Config
	mc := cfg.MCP
	log := newLogger(mc.LogLevel, mc.LogFormat)
	build := func(ws string) (*engine.Engine, error) {
		env := l.engine.Env()
		return engine.New(cfg, providers.NewEnv(env.UserDir, ws, os.Getenv))
	}

	var refresher *mcp.Refresher
	onRoots := func(ctx context.Context, ss *sdk.ServerSession) {
		if refresher != nil {
			refresher.UseClientRoots(ctx, ss)
		}
	}
	srv := mcp.New(nil, mcp.Options{Version: buildVersion(), Logger: log, OnInitialized: onRoots, OnRootsChanged: onRoots,
		SkillPrompts: mc.SkillPrompts,
		// Optional tools, catalogue budget, ask context cap.
		Tools: mc.Tools, Catalog: mc.Catalog, AskContext: mc.AskContext})
	interval := mc.RefreshInterval
	if !mc.Refresh {
		interval = 0
	}
	refresher = mcp.NewRefresher(srv, l.engine, interval, log, build)
	log.Info("ccski MCP server starting", "version", buildVersion(), "transport", mc.Transport)

	var g actors.Group
	// Signals: a line on stderr, then every actor is interrupted.
	{
		execute, interrupt := actors.SignalHandler(context.Background(), os.Interrupt, syscall.SIGTERM)
		g.Add(func() error {
			err := execute()
			if errors.Is(err, actors.ErrSignal) {
				log.Info("signal received; shutting down", "signal", signalName(err))
			}
			return err
		}, interrupt)
	}
	// Transport.
	switch mc.Transport {
	case "stdio":
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		g.Add(func() error {
			ran := make(chan error, 1)
			go func() { ran <- srv.SDK().Run(ctx, srv.Track(&sdk.StdioTransport{})) }()
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
			if err == nil {
				log.Info("client closed stdin; shutting down")
			}
			return err
		}, func(error) {
			srv.Drain(drainTimeout)
			cancel()
			close(stopped)
		})
	case "http", "sse":
		if err := a.addHTTP(&g, srv, mc, log); err != nil {
			return err
		}
	default:
		return usageErr(fmt.Errorf("unknown transport %q: use stdio, http or sse", mc.Transport))
	}
	// Memory: after a burst of work, give freed memory back once idle.
	{
		ctx, cancel := context.WithCancel(context.Background())
		g.Add(func() error { return srv.ReleaseWhenIdle(ctx, idleRelease) }, func(error) { cancel() })
	}
	// Discovery: the first snapshot while the transport already answers
	// initialize, then rescans. A rescan blocked in a read the context
	// cannot interrupt (a named pipe, a hung network mount) must not hold
	// the exit.
	{
		ctx, cancel := context.WithCancel(context.Background())
		g.Add(func() error {
			ran := make(chan error, 1)
			go func() { ran <- discover(ctx, refresher, log, mc.Refresh) }()
			select {
			case err := <-ran:
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
	if mc.Refresh {
		if mc.Watch {
			w, err := mcp.NewWatcher(refresher.Poke, log)
			if err != nil {
				log.Warn("file watcher unavailable; relying on periodic rescans", "err", err)
			} else {
				refresher.OnSnapshot = w.Sync // from the first snapshot on
				wctx, wcancel := context.WithCancel(context.Background())
				g.Add(func() error { return w.Run(wctx) }, func(error) { wcancel() })
			}
		}
	}
	err = g.Run()
	if err == nil || errors.Is(err, actors.ErrSignal) || errors.Is(err, context.Canceled) {
		return nil
	}
	if ee := (*exitError)(nil); errors.As(err, &ee) {
		return err // an actor chose the exit code
	}
	return failErr(err)
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

// discover builds the first snapshot, logs what it found, then rescans
// until ctx is done when refresh is on.
func discover(ctx context.Context, r *mcp.Refresher, log *slog.Logger, refresh bool) error {
	snap, stats, err := r.First(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		if engine.IsConfigError(err) { // a filter token that names nothing in the scan
			return usageErr(err)
		}
		return failErr(fmt.Errorf("discovery failed: %w", err))
	}
	log.Info("skills discovered", "skills", len(snap.Skills()), "commands", len(snap.Commands()),
		"discovered", len(snap.All), "took", stats.Duration.Round(time.Microsecond))
	// A config file's filter token that names nothing here does not stop
	// the server (see engine.Snapshot), so say so where its operator looks.
	for _, d := range snap.Diagnostics {
		if d.Code == engine.FilterNamesNothing {
			log.Warn("a filter token names nothing; serving without it", "warning", d.Message)
		}
	}
	if !refresh {
		<-ctx.Done()
		return nil
	}
	return r.Run(ctx)
}

// addHTTP adds the HTTP listener actor for the http and sse transports.
func (a *app) addHTTP(g *actors.Group, srv *mcp.Server, mc configs.MCP, log *slog.Logger) error {
	addr := net.JoinHostPort(mc.Host, strconv.Itoa(mc.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return failErr(fmt.Errorf("listen on %s: %w (use --port to pick another port)", addr, err))
	}
	if !mcp.LoopbackHost(strings.Trim(mc.Host, "[]")) && mc.AuthToken == "" {
		log.Warn("listening on a non-loopback address without a token: anyone who can reach it can read your skills; set --auth-token or CCSKI_AUTH_TOKEN",
			"addr", ln.Addr().String())
	}
	hs := &http.Server{
		Handler: srv.Handler(mcp.HTTPOptions{SSE: mc.Transport == "sse", Stateless: mc.Stateless,
			AuthToken: mc.AuthToken, AllowedOrigins: mc.AllowedOrigins}),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	path := "/mcp"
	if mc.Transport == "sse" {
		path = "/mcp (messages at /messages)"
	}
	log.Info("listening", "url", "http://"+ln.Addr().String()+path)
	g.Add(func() error {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}, func(error) {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		done := make(chan struct{})
		go func() { _ = hs.Shutdown(ctx); close(done) }() // stop accepting; wait for requests
		srv.Drain(drainTimeout)
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
