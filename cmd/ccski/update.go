package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/install"
)

// updateLong is the help of ccski update.
const updateLong = `Move the skills ccski.lock names (every one, or each SKILL) to the newest
commit of the ref they were installed from, or to SKILL@ref, and record it.
Each result lists the files added (+), changed (~) and removed (-). A skill
whose files on disk differ from the lock was edited by someone: it is skipped
unless --force, which overwrites the edits. The new version is checked by the
rules of the agents the skill is installed for (see ccski install): one that
an agent rejects is not installed (the result names the agent and why) unless
--no-validate. A new version signed by another signer than the one the lock
records, or no longer signed where the lock records a signature, is refused
unless --force; one whose signature does not verify is refused always. Each change is shown as a unified diff against the copy on
disk (local edits that --force overwrites are named). --dry-run shows the
changes without writing; --check does too, and exits 10 when a skill would
update (0 when none would), for CI. Without --scope, update works on the
scope whose lock names the SKILLs (the project's when none is named).

Update follows the history the lock recorded: a git source (or a folder or
marketplace pinned to the repository it is a clone of) whose new commit does
not descend from the locked one is refused, saying whether it looks like a
force-push (the history was rewritten) or a replaced repository (no commit in
common: re-registered by someone else). Review the new history; --force
accepts it. SKILL@ref may move to another branch, tag or an older commit that
shares history with the locked one.`

func newUpdate(a *app) *cobra.Command {
	return command(spec{use: "update [SKILL[@ref]...]", args: cobra.ArbitraryArgs, long: updateLong, run: a.update,
		short: "Move installed skills to the newest commit of their source, showing what changes"},
		jsonFlag(installJSONUsage), installFlags("overwrite skills modified on disk; accept a source whose history was rewritten"),
		noValidateFlag, timeoutFlag, func(cmd *cobra.Command) {
			cmd.Flags().Bool("check", false, "write nothing; list what would update and exit 10 when a skill would")
		})
}

// update runs ccski update.
func (a *app) update(cmd *cobra.Command, args []string) error {
	check, _ := cmd.Flags().GetBool("check")
	req := action.UpdateRequest{Run: a.installRun(cmd), Skills: args}
	req.DryRun = req.DryRun || check
	rep, err := act(a, cmd, action.Update, req)
	if err := a.installed(rep, err); err != nil || !check {
		return err
	}
	if n := rep.Counts[string(install.StatusUpdated)]; n > 0 {
		return &exitError{code: exitUpdates, err: reportedFailure{fmt.Sprintf("%d of %d skills would update", n, len(rep.Results))}}
	}
	return nil
}
