package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/pipeline"
)

// trustLong is the help of ccski trust.
const trustLong = `Accept the current files of project and plugin skills as trusted.

ccski records the files of every project and plugin skill (each file's size and
SHA-256) the first time it sees the skill, and ccski list and ccski sources flag
a skill whose files changed since. Read what changed, then run ccski trust with
the skill's id (or --all for every project and plugin skill) to accept the new
state. With mcp.require_trusted, ccski mcp serves a project skill only while its
files match a state accepted here. The records are kept in trust.json in ccski's
user config folder.`

func newTrust(a *app) *cobra.Command {
	return command(spec{use: "trust [SKILL...]", long: trustLong, run: a.runTrust,
		short: "Accept the current files of project and plugin skills"},
		jsonFlag("print JSON only: the skills accepted"), discoveryFlags, trustAllFlag)
}

// trustAllFlag makes --all, a discovery flag's name, mean every project
// and plugin skill (disabled ones included) here, not a state filter.
func trustAllFlag(cmd *cobra.Command) {
	ownFlag(cmd, "all")
	cmd.Flags().Lookup("all").Usage = "accept every project and plugin skill, disabled ones included"
}

// runTrust runs ccski trust.
func (a *app) runTrust(cmd *cobra.Command, args []string) error {
	all, _ := cmd.Flags().GetBool("all")
	res, err := actLazy(cmd, action.Trust, action.TrustRequest{Skills: args, All: all})
	if err != nil {
		return err
	}
	if a.json {
		return writeJSONArray(a.stdout, res.Accepted)
	}
	renderAccepted(a.stdout, style(a.color), res.Accepted, res.Asked)
	return nil
}

// renderAccepted says what ccski trust accepted, of n skills asked for.
func renderAccepted(w io.Writer, st style, done []action.Accepted, n int) {
	for _, d := range done {
		what := plural(d.Files, "file", "files")
		switch d.Before {
		case pipeline.IntegrityChanged:
			what += "; since the previous record: " + d.Summary
		case pipeline.IntegrityNew, pipeline.IntegrityRecorded:
			what += "; first acceptance"
		}
		fmt.Fprintf(w, "Trusted %s (%s)\n", st.Cyan(d.ID), what)
	}
	if left := n - len(done); left > 0 || len(done) == 0 {
		fmt.Fprintf(w, "Nothing else to accept: %s already trusted in its current state.\n",
			plural(max(left, 0), "skill", "skills"))
	}
}

// renderChanged prints the sources section of the project and plugin
// skills whose files changed since recorded, or could not be checked.
func renderChanged(w io.Writer, st style, changed []pipeline.ChangedSkill) {
	if len(changed) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n\n", st.Heading(fmt.Sprintf("Changed since recorded (%d)", len(changed))))
	for _, c := range changed {
		fmt.Fprintf(w, "  %s  %s\n", st.Cyan(c.ID), st.Yellow(c.Message))
	}
}

// integrityBadge is the list badge of a skill whose files changed since
// recorded, or "".
func integrityBadge(st style, in pipeline.Integrity, ok bool) string {
	if since := in.Since(); ok && since != "" {
		return " " + st.Red("["+since+"]")
	}
	return ""
}

// changedNote closes a listing with the skills whose files changed since
// recorded, and what to do.
func changedNote(w io.Writer, st style, changed []pipeline.ChangedSkill) {
	for _, c := range changed {
		fmt.Fprintf(w, "%s %s\n", st.Yellow("!"), wrap(c.ID+" "+c.Message, width(w), "  ")[2:])
	}
}
