package main

import (
	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/install"
)

func newUpdate(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "update [SKILL[@ref]...]",
		Short: "Move installed skills to the newest commit of their source, showing what changes",
		Long: `Move the skills ccski.lock names (every one, or each SKILL) to the newest
commit of the ref they were installed from, or to SKILL@ref, and record it.
Each result lists the files added (+), changed (~) and removed (-). A skill
whose files on disk differ from the lock was edited by someone: it is skipped
unless --force, which overwrites the edits. --dry-run shows the changes
without writing.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.config(cmd)
			if err != nil {
				return err
			}
			rep, err := action.Update(cmd.Context(), c, action.UpdateRequest{Run: a.installRun(cmd), Skills: args})
			if err != nil {
				return exitOf(err)
			}
			return a.printInstall(c.Cwd, rep)
		},
	}
	installFlags(cmd, "overwrite skills modified on disk, and install skills that fail validation")
	cmd.Flags().Duration("timeout", install.DefaultTimeout, "time limit of each git command")
	return cmd
}
