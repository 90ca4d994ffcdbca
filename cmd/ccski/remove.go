package main

import (
	"github.com/ccski/ccski/internal/action"
	"github.com/spf13/cobra"
)

func newRemove(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "remove SKILL...",
		Short: "Delete skills ccski installed, with their links, and drop them from ccski.lock",
		Long: `Delete the installed copy of each SKILL and its links in the other agents'
folders, and drop it from ccski.lock. Only skills the lock names are removed:
ccski never deletes a skill it did not install (turn such a skill off with
ccski disable). A copy whose files differ from the lock is kept unless
--force.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.config(cmd)
			if err != nil {
				return err
			}
			rep, err := action.Remove(cmd.Context(), c, action.RemoveRequest{Run: a.installRun(cmd), Skills: args})
			if err != nil {
				return exitOf(err)
			}
			return a.printInstall(c.Cwd, rep)
		},
	}
	installFlags(cmd, "remove skills whose files were modified on disk")
	return cmd
}
