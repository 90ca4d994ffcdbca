package main

import (
	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
)

// updateLong is the help of ccski update.
const updateLong = `Move the skills ccski.lock names (every one, or each SKILL) to the newest
commit of the ref they were installed from, or to SKILL@ref, and record it.
Each result lists the files added (+), changed (~) and removed (-). A skill
whose files on disk differ from the lock was edited by someone: it is skipped
unless --force, which overwrites the edits. The new version is checked by the
rules of the agents the skill is installed for (see ccski install): one that
an agent rejects is not installed (the result names the agent and why) unless
--no-validate. --dry-run shows the changes without writing.`

func newUpdate(a *app) *cobra.Command {
	return command(spec{use: "update [SKILL[@ref]...]", args: cobra.ArbitraryArgs, long: updateLong, run: a.update,
		short: "Move installed skills to the newest commit of their source, showing what changes"},
		jsonFlag(installJSONUsage), installFlags("overwrite skills modified on disk"),
		noValidateFlag, timeoutFlag)
}

// update runs ccski update.
func (a *app) update(cmd *cobra.Command, args []string) error {
	return a.installed(act(a, cmd, action.Update, action.UpdateRequest{Run: a.installRun(cmd), Skills: args}))
}
