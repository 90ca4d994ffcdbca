package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/providers/all"
)

func newInstallWorkflow(a *app) *cobra.Command {
	names := strings.Join(all.HostNames(), ", ")
	cmd := &cobra.Command{
		Use:   "install-workflow",
		Short: "Tell agents how to find more skills with ccski, in their instructions files",
		Long: `Add (or update) a short <workflow name="ccski"> block in each agent's
instructions file that tells it how to find and load the skills it does not
list itself with ccski: CLAUDE.md for Claude Code, AGENTS.md for Codex,
GEMINI.md for Gemini CLI, in the user's agent folder (--scope user, the
default) or in the project (--scope project). Each agent's block runs ccski
with --agent set to that agent, so that the skills the user turned off for
it stay out of its sight. Running it again changes nothing; a changed block
is replaced where it is, and every other byte of the file is kept (a block
in a code fence is not one; one that is not closed before the next
<workflow> is an error). --dry-run prints the diff instead.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.config(cmd)
			if err != nil {
				return err
			}
			req := action.WorkflowRequest{}
			req.Scope, _ = cmd.Flags().GetString("scope")
			req.Agents, _ = cmd.Flags().GetStringSlice("agent")
			req.DryRun, _ = cmd.Flags().GetBool("dry-run")
			rep, err := action.InstallWorkflow(c, req)
			if err != nil {
				return exitOf(err)
			}
			if a.json {
				if err := a.writeJSON(rep); err != nil {
					return err
				}
			} else {
				renderWorkflow(a.stdout, style(a.color), rep)
			}
			if rep.Failed {
				return failErr(fmt.Errorf("the workflow block could not be written everywhere"))
			}
			return nil
		},
	}
	cmd.Flags().StringSlice("agent", nil, "only these agents: "+names+" or all (default all)")
	ownFlag(cmd, "agent")
	cmd.Flags().String("scope", "user", "user (the agents' own folders) or project (the workspace)")
	cmd.Flags().Bool("dry-run", false, "write nothing; print the diff of each file that would change")
	cmd.Flags().Bool("json", false, "print JSON only: the result for each agent")
	discoveryFlags(cmd)
	return cmd
}

// renderWorkflow prints a line per agent, with the diff of a dry run.
func renderWorkflow(w io.Writer, st style, rep *action.WorkflowReport) {
	for _, r := range rep.Results {
		mark := map[string]string{"installed": st.green("✓"), "updated": st.green("↻"),
			"unchanged": st.dim("○"), "failed": st.red("✗")}[r.Status]
		line := fmt.Sprintf("%s %s %s: %s", mark, hostTitle(r.Agent), r.Status, r.Path)
		if r.Error != "" {
			line += ": " + st.red(r.Error)
		}
		fmt.Fprintln(w, line)
		if rep.DryRun && r.Diff != "" {
			fmt.Fprint(w, r.Diff)
		}
	}
	if rep.DryRun {
		fmt.Fprintln(w, st.dim("Dry run: nothing was written."))
	}
}
