package main

import (
	"context"
	"log/slog"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/engine/live"
	"github.com/ccski/ccski/mcp"
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
Changes on disk reach clients within a second (file watcher: skill folders and
the settings and plugin files, so enabling a plugin in settings.json counts) and
at every --refresh-interval (rescan); clients are told with
notifications/tools/list_changed.

Transports: stdio (default); http, streamable HTTP at /mcp, where clients of
protocol 2026-07-28 are served without a session and older clients get one
(--stateless: no client gets one, so older clients miss list_changed); sse,
GET /mcp opens a stream and POST /messages?sessionId=<id> delivers messages.
The workspace is an older client's first MCP root, else --workspace, else the
current folder. HTTP binds
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
	mc := l.cfg.Config.MCP
	log := newLogger(mc.LogLevel, mc.LogFormat)
	lo := live.Options{Interval: mc.RefreshInterval, Watch: mc.Watch, Logger: log}
	if !mc.Refresh {
		lo.Interval, lo.Watch = 0, false
	}
	disc := live.New(l.engine, lo)
	guardServer(l.engine, disc, mc.Scan, log)
	trustServer(l.engine, disc, mc.RequireTrusted, log)
	// The server catches SIGINT and SIGTERM itself, to log the signal and
	// drain the calls in flight: the command's context, which the same
	// signals cancel, must not cut that short.
	err = mcp.Serve(context.WithoutCancel(cmd.Context()), mcp.ServeOptions{
		Options: mcp.Options{Version: buildVersion(), Logger: log, SkillPrompts: mc.SkillPrompts,
			// Optional tools, catalogue budget, ask context cap.
			Tools: mc.Tools, Catalog: mc.Catalog, AskContext: mc.AskContext,
			// Clients may cache lists until the next rescan.
			ListTTL: lo.Interval},
		Discovery: disc,
		Transport: mc.Transport, Host: mc.Host, Port: mc.Port,
		HTTP: mcp.HTTPOptions{Stateless: mc.Stateless, AuthToken: mc.AuthToken, AllowedOrigins: mc.AllowedOrigins,
			SessionIdleTimeout: mc.SessionIdleTimeout, MaxSessions: mc.MaxSessions},
		Signals: []os.Signal{os.Interrupt, syscall.SIGTERM},
	})
	switch {
	case err == nil:
		return nil
	case engine.IsConfigError(err): // a filter token that names nothing in the scan
		return usageErr(err)
	}
	return failErr(err)
}
