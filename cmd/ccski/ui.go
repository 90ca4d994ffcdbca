package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
)

// uiLong is the help of ccski ui.
const uiLong = `Browse this machine's skills in your web browser.

Serves the catalogue page of "ccski mcp --transport http" (every skill grouped
by provider and plugin, search as you type, filters, and a page per skill with
its SKILL.md, files, scan findings, where ccski installed it from, which agents
load it and the command that installs it elsewhere) on 127.0.0.1, at a free
port unless --port or --listen names one, and opens it in the browser.

The page is behind a token, fresh each run (or mcp.auth_token when set), which
is in no URL: the URL printed carries a one-time code, which its first visit
within 60 seconds exchanges for a cookie. Restart ccski ui for a new one.
The browser is $BROWSER when set (commands separated by ':', %s for the URL),
else xdg-open, open (macOS) or rundll32 (Windows), started apart from ccski:
Ctrl-C stops the server, not the browser. --no-open only prints the URL. When
the browser cannot be opened, ccski says so and keeps serving. /mcp is served
too, behind the same token.`

func newUI(a *app) *cobra.Command {
	return command(spec{use: "ui", args: cobra.NoArgs, long: uiLong, run: a.ui,
		short:   "Browse the skills in a web page served on this machine",
		example: "  ccski ui\n  ccski ui --port 8080 --no-open"},
		discoveryFlags, func(cmd *cobra.Command) {
			f := cmd.Flags()
			f.Int("port", 0, "port to listen on at 127.0.0.1 (default: a free port)")
			ownFlag(cmd, "port")
			f.String("listen", "", "host:port to listen on instead, such as 127.0.0.1:8080")
			f.Bool("no-open", false, "print the URL without opening the browser")
			cmd.MarkFlagsMutuallyExclusive("port", "listen")
		})
}

// ui runs ccski ui.
func (a *app) ui(cmd *cobra.Command, _ []string) error {
	c, err := a.config(cmd)
	if err != nil {
		return err
	}
	f := cmd.Flags()
	port, _ := f.GetInt("port")
	listen, _ := f.GetString("listen")
	noOpen, _ := f.GetBool("no-open")
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	ready := func(url string) {
		fmt.Fprintf(out, "Serving the skills at %s\n", url)
		if noOpen {
			return
		}
		// The server starts serving once this returns: the browser is
		// opened beside it.
		go func() {
			if err := action.OpenBrowser(url, c.Getenv); err != nil {
				fmt.Fprintf(errOut, "ccski: %v; still serving\n", err)
			}
		}()
	}
	return exitOf(action.Serve(cmd.Context(), c, action.ServeRequest{Version: buildVersion(), Log: os.Stderr,
		Signals: []os.Signal{os.Interrupt, syscall.SIGTERM},
		UI:      &action.UIRequest{Listen: listen, Port: port, Ready: ready}}))
}
