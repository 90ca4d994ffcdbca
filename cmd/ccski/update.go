package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/suggest"
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
			run, err := a.openInstall(cmd)
			if err != nil {
				return err
			}
			x := run.x
			defer x.Close()
			type pick struct {
				entry install.Entry
				ref   string
			}
			var picks []pick
			if len(args) == 0 {
				for _, e := range x.Lock.Skills {
					picks = append(picks, pick{entry: e})
				}
			}
			for _, arg := range args {
				name, ref, _ := strings.Cut(arg, "@")
				e := x.Lock.Find(name)
				if e == nil {
					return failErr(notInstalled(name, run.layout.LockFile, x.Lock.Names()))
				}
				picks = append(picks, pick{entry: *e, ref: ref})
			}
			rep := installReport{Scope: string(run.layout.Scope), Lock: run.layout.LockFile, DryRun: run.dry}
			if len(picks) == 0 {
				rep.Warnings = append(rep.Warnings, run.layout.LockFile+" names no skill: nothing to update")
			}
			for _, p := range picks {
				rep.Results = append(rep.Results, x.Update(p.entry, p.ref))
			}
			return a.finishInstall(run, &rep)
		},
	}
	installFlags(cmd, "overwrite skills modified on disk, and install skills that fail validation")
	cmd.Flags().Duration("timeout", install.DefaultTimeout, "time limit of each git command")
	return cmd
}

// notInstalled is the error for a skill the lock does not name.
func notInstalled(name, lock string, names []string) error {
	msg := fmt.Sprintf("%s was not installed by ccski (it is not in %s)", name, lock)
	if s := suggest.Names(name, names, 3); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return fmt.Errorf("%s: ccski updates and removes only what it installed; to turn the skill off, use `ccski disable %s`", msg, name)
}
