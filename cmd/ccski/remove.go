package main

import (
	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
)

// removeLong is the help of ccski remove.
const removeLong = `Delete the installed copy of each SKILL and its links in the other agents'
folders, and drop it from ccski.lock. Only skills the lock names are removed:
ccski never deletes a skill it did not install (turn such a skill off with
ccski disable). A copy whose files differ from the lock is kept unless
--force.`

func newRemove(a *app) *cobra.Command {
	return command(spec{use: "remove SKILL...", args: cobra.MinimumNArgs(1), long: removeLong, run: a.remove,
		short: "Delete skills ccski installed, with their links, and drop them from ccski.lock"},
		jsonFlag(installJSONUsage), installFlags("remove skills whose files were modified on disk"))
}

// remove runs ccski remove.
func (a *app) remove(cmd *cobra.Command, args []string) error {
	return a.installed(act(a, cmd, action.Remove, action.RemoveRequest{Run: a.installRun(cmd), Skills: args}))
}
