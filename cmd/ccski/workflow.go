package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/providers/all"
)

// workflowLong is the help of ccski install-workflow.
const workflowLong = `Add (or update) a short <workflow name="ccski"> block in each agent's
instructions file that tells it how to find and load the skills it does not
list itself with ccski: CLAUDE.md for Claude Code, AGENTS.md for Codex,
GEMINI.md for Gemini CLI, in the user's agent folder (--scope user, the
default) or in the project (--scope project). Each agent's block runs ccski
with --agent set to that agent, so that the skills the user turned off for
it stay out of its sight. Running it again changes nothing; a changed block
is replaced where it is, and every other byte of the file is kept (a block
in a code fence is not one; one that is not closed before the next
<workflow> is an error). --dry-run prints the diff instead.`

func newInstallWorkflow(a *app) *cobra.Command {
	names := strings.Join(all.HostNames(), ", ")
	return command(spec{use: "install-workflow", args: cobra.NoArgs, long: workflowLong, run: a.installWorkflow,
		short: "Tell agents how to find more skills with ccski, in their instructions files"},
		jsonFlag("print JSON only: the result for each agent"), diffFlag, discoveryFlags, func(cmd *cobra.Command) {
			cmd.Flags().StringSlice("agent", nil, "only these agents: "+names+" or all (default all)")
			ownFlag(cmd, "agent")
			cmd.Flags().String("scope", "user", "user (the agents' own folders) or project (the workspace)")
		})
}

// installWorkflow runs ccski install-workflow.
func (a *app) installWorkflow(cmd *cobra.Command, _ []string) error {
	req := action.WorkflowRequest{Notices: a.stderr}
	req.Scope, _ = cmd.Flags().GetString("scope")
	req.Agents, _ = cmd.Flags().GetStringSlice("agent")
	req.DryRun, _ = cmd.Flags().GetBool("dry-run")
	rep, err := act(a, cmd, action.InstallWorkflow, req)
	if err != nil {
		return err
	}
	if err := a.show(rep, func() { renderWorkflow(a.stdout, style(a.color), rep) }); err != nil {
		return err
	}
	if rep.Failed {
		// The report names each file that failed, and why.
		return failErr(reportedFailure{"the workflow block could not be written everywhere"})
	}
	return nil
}

// renderWorkflow prints a line per agent, with the diff of a dry run.
func renderWorkflow(w io.Writer, st style, rep *action.WorkflowReport) {
	for _, r := range rep.Results {
		mark := map[string]string{"installed": st.Green("✓"), "updated": st.Green("↻"),
			"unchanged": st.Dim("○"), "failed": st.Red("✗")}[r.Status]
		line := fmt.Sprintf("%s %s %s: %s", mark, hostTitle(r.Agent), r.Status, r.Path)
		if r.Error != "" {
			line += ": " + st.Red(r.Error)
		}
		fmt.Fprintln(w, line)
		if rep.DryRun && r.Diff != "" {
			fmt.Fprint(w, r.Diff)
		}
	}
	if rep.DryRun {
		fmt.Fprintln(w, st.Dim("Dry run: nothing was written."))
	}
}
