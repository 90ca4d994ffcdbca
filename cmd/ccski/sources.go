package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/pipeline"
)

// sourcesLong is the help of ccski sources.
const sourcesLong = `Show every root ccski considered, its provider and location, whether it
exists and how many skills (or commands) it gave; then every skill or command
hidden by dedupe or filters with the reason; the skills the agents installed
here do not load on their own and why (see ccski doctor); the skills the security scan
flags (see ccski scan; not with mcp.scan: off); the project and plugin skills
whose files changed since ccski recorded them (see ccski trust); then every
problem found while
reading skills, commands and plugin manifests. This answers "why is my skill
missing?". --kind skill or --kind command shows the roots, counts and hidden
copies of one type only.`

func newSources(a *app) *cobra.Command {
	return command(spec{use: "sources", args: cobra.NoArgs, long: sourcesLong, run: a.sources,
		short: "Show every place searched for skills and commands, what each gave, and every problem"},
		jsonFlag("print JSON only: roots, hidden skills and commands, and diagnostics"), kindFlags, discoveryFlags)
}

// sources runs ccski sources.
func (a *app) sources(cmd *cobra.Command, _ []string) error {
	kind, err := kindFlag(cmd)
	if err != nil {
		return err
	}
	res, err := act(a, cmd, action.Sources, action.SourcesRequest{Kind: kind})
	if err != nil {
		return err
	}
	return a.show(res.Report, func() { renderSources(a, res) })
}

// renderSources prints the sources report.
func renderSources(a *app, res *action.SourcesResult) {
	s := res.Report
	st := style(a.color)
	w := a.stdout
	fmt.Fprintf(w, "%s\n\n", st.Heading(fmt.Sprintf("Roots (%d)", len(s.Roots))))
	renderRoots(w, st, s.Roots)
	fmt.Fprintln(w)
	if res.ShowSkills {
		fmt.Fprintf(w, "%d skills discovered, %d visible.\n", res.Skills.Discovered, res.Skills.Visible)
	}
	if res.ShowCommands {
		fmt.Fprintf(w, "%d commands discovered, %d visible.\n", res.Commands.Discovered, res.Commands.Visible)
	}
	renderPrecedence(w, st, s)
	if len(s.Hidden) > 0 {
		fmt.Fprintf(w, "\n%s\n\n", st.Heading(fmt.Sprintf("Hidden (%d)", len(s.Hidden))))
		for _, d := range s.Hidden {
			fmt.Fprintf(w, "  %s  %s\n", st.Cyan(d.ID), st.Dim(d.Reason))
		}
	}
	if len(s.Switched) > 0 {
		fmt.Fprintf(w, "\n%s\n\n", st.Heading(fmt.Sprintf("Switched off by agents (%d)", len(s.Switched))))
		for _, sw := range s.Switched {
			fmt.Fprintf(w, "  %s  %s\n", st.Cyan(sw.ID), st.Dim(pipeline.DescribeOff(sw.Switches)))
		}
	}
	if len(s.NotLoaded) > 0 {
		fmt.Fprintf(w, "\n%s\n\n", st.Heading(fmt.Sprintf("Not loaded by their agents (%d)", len(s.NotLoaded))))
		for _, n := range s.NotLoaded {
			name := n.ID
			if name == "" {
				name = n.Name
			}
			fmt.Fprintf(w, "  %s  %s\n", st.Cyan(name), st.Dim(n.Title+", "+n.Code+": "+n.Reason))
		}
	}
	renderFlagged(w, st, s.Flagged)
	renderChanged(w, st, s.Changed)
	if len(s.Unlisted) > 0 {
		fmt.Fprintf(w, "\n%s\n\n", st.Heading(fmt.Sprintf("Not in MCP skills/list (%d)", len(s.Unlisted))))
		for _, u := range s.Unlisted {
			fmt.Fprintf(w, "  %s  %s\n", st.Cyan(u.ID), st.Dim(u.Reason+"; still served by the skill tool"))
		}
	}
	if len(s.Diagnostics) == 0 {
		fmt.Fprintf(w, "\nNo problems found.\n")
		return
	}
	renderDiagnostics(w, st, "Diagnostics", pipeline.AtLeast(s.Diagnostics, pipeline.SeverityInfo))
}

// renderDiagnostics prints diagnostics (in the order given: most serious
// first, pipeline.AtLeast) under heading with their count: the one
// printer of discovery's diagnostics, for ccski sources and doctor.
func renderDiagnostics(w io.Writer, st style, heading string, diags []pipeline.Diagnostic) {
	fmt.Fprintf(w, "\n%s\n\n", st.Heading(fmt.Sprintf("%s (%d)", heading, len(diags))))
	for _, d := range diags {
		sev := string(d.Severity)
		switch d.Severity {
		case pipeline.SeverityError:
			sev = st.Red(sev)
		case pipeline.SeverityWarning:
			sev = st.Yellow(sev)
		default:
			sev = st.Dim(sev)
		}
		where := d.Path
		if d.Line > 0 {
			where = fmt.Sprintf("%s:%d", d.Path, d.Line)
		}
		fmt.Fprintf(w, "  %s [%s] %s\n      %s\n", sev, d.Code, where, d.Message)
	}
}

// renderPrecedence says how copies of one skill are ranked: the root kind
// order, then each provider's rule for its own user and project copies.
func renderPrecedence(w io.Writer, st style, s pipeline.SourcesReport) {
	fmt.Fprintf(w, "\n%s\n\n", st.Heading("Precedence"))
	kinds := make([]string, len(s.Priority))
	for i, k := range s.Priority {
		kinds[i] = string(k)
	}
	wd := width(w)
	text := "Copies of one skill rank by root kind (priority): " + strings.Join(kinds, ", ") + "."
	if len(s.Precedence) > 0 {
		text += " Each provider's user and project copies rank by its rule:"
	}
	fmt.Fprintln(w, wrap(text, wd, "  "))
	for _, r := range s.Precedence {
		item := wrap(strings.Join(r.Providers, ", ")+": "+r.Rule, wd, "    ")
		fmt.Fprintln(w, "  -"+item[3:])
	}
}
