package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/install"
)

// installedLong is the help of ccski installed.
const installedLong = `Show what ccski installed: every skill the project's and the user's
ccski.lock name, with its scope, source, ref and commit, the agents it is
installed for, who signed it as the lock records it (or unsigned), local
edits (files on disk that differ from the lock) and whether an update is
available.

The answer never uses the network: a git source is compared with its ref as
ccski last fetched it on this machine (any project's install or update
fetches it), a folder or a marketplace Claude Code cloned with the skill's
files there now; "unknown" when nothing on the machine tells. To ask the
sources themselves, run ccski update --check.`

func newInstalled(a *app) *cobra.Command {
	return command(spec{use: "installed", args: cobra.NoArgs, long: installedLong, run: a.showInstalled,
		short: "Show the skills ccski installed: scope, source, commit, agents, local edits, updates"},
		jsonFlag("print JSON only: the skills and the locks read"), func(cmd *cobra.Command) {
			f := cmd.Flags()
			f.String("scope", "", "project or user (default: both)")
			f.String("user-dir", "", "use this folder instead of the home folder")
			f.String("workspace", "", "project folder (default: the current folder)")
			f.String("config", "", "read this config file instead of the nearest "+configs.ProjectFile)
		})
}

// showInstalled runs ccski installed.
func (a *app) showInstalled(cmd *cobra.Command, _ []string) error {
	scope, _ := cmd.Flags().GetString("scope")
	rep, err := act(a, cmd, action.Installed, action.InstalledRequest{Scope: scope})
	if err != nil {
		return err
	}
	return a.show(rep, func() { a.renderInstalled(a.stdout, rep) })
}

// renderInstalled prints a block per installed skill.
func (a *app) renderInstalled(w io.Writer, rep *action.InstalledReport) {
	st := style(a.color)
	if len(rep.Skills) == 0 {
		fmt.Fprintln(w, "ccski installed no skill here (locks read: "+strings.Join(rep.Locks, ", ")+").")
		return
	}
	for _, s := range rep.Skills {
		from := s.Source
		if s.Commit != "" {
			from += " " + short(s.Commit)
		}
		fmt.Fprintf(w, "%s %s  %s\n", st.Bold(s.Skill), st.Dim("("+string(s.Scope)+")"), from)
		agents := make([]string, len(s.Agents))
		for i, ag := range s.Agents {
			if ag == "" {
				ag = "--dir"
			}
			agents[i] = ag
		}
		fmt.Fprintln(w, "    agents: "+strings.Join(agents, ", "))
		if s.Signer != nil {
			fmt.Fprintln(w, "    signed by "+s.Signer.String()+st.Dim(" ("+s.Signer.Format+", "+s.Signer.File+")"))
		} else {
			fmt.Fprintln(w, "    "+st.Dim("unsigned"))
		}
		switch {
		case s.Missing:
			fmt.Fprintln(w, "    "+st.Yellow("missing on disk: ccski install puts it back"))
		}
		if !s.Edited.Empty() {
			fmt.Fprintln(w, "    "+st.Yellow("local edits: "+s.Edited.String()+" (ccski update skips it unless --force)"))
		}
		line := "    update: " + s.Update
		switch s.Update {
		case install.UpdateAvailable:
			line = "    " + st.Green("update available")
			if s.Latest != "" {
				line += " (" + short(s.Latest) + ")"
			}
		}
		if s.UpdateNote != "" {
			line += st.Dim(" — " + s.UpdateNote)
		}
		fmt.Fprintln(w, line)
	}
}
