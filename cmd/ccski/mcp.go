package main

import (
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/action"
)

// mcpLong is the help of ccski mcp.
const mcpLong = `Serve skills to agents over the Model Context Protocol.

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
"Authorization: Bearer <token>" when --auth-token or CCSKI_AUTH_TOKEN is set.`

func newMCP(a *app) *cobra.Command {
	return command(spec{use: "mcp", args: cobra.NoArgs, long: mcpLong, run: a.serve,
		short: "Serve skills to agents over MCP (stdio, streamable HTTP or SSE)"},
		discoveryFlags, func(cmd *cobra.Command) { configs.AddMCPFlags(cmd.Flags()) })
}

// serve runs ccski mcp.
func (a *app) serve(cmd *cobra.Command, _ []string) error {
	c, err := a.config(cmd)
	if err != nil {
		return err
	}
	return exitOf(action.Serve(cmd.Context(), c, action.ServeRequest{Version: buildVersion(), Log: os.Stderr,
		Signals: []os.Signal{os.Interrupt, syscall.SIGTERM}}))
}
