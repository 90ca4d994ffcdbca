package main

import (
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
			run, err := a.openInstall(cmd)
			if err != nil {
				return err
			}
			defer run.x.Close()
			for _, name := range args {
				if run.x.Lock.Find(name) == nil {
					return failErr(notInstalled(name, run.layout.LockFile, run.x.Lock.Names()))
				}
			}
			rep := installReport{Scope: string(run.layout.Scope), Lock: run.layout.LockFile, DryRun: run.dry}
			for _, name := range args {
				rep.Results = append(rep.Results, run.x.Remove(name))
			}
			return a.finishInstall(run, &rep)
		},
	}
	installFlags(cmd, "remove skills whose files were modified on disk")
	return cmd
}
