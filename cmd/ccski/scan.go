package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/pipeline"
)

// scanLong is the help of ccski scan.
const scanLong = `Check skills for what they should not do to the agent that loads them or to the
person who runs them: text aimed at the agent (prompt injection, fake system or
tool framing, instructions to leak secrets or turn safety off), text a person
does not see (bidirectional controls, zero-width and tag characters, hidden
Markdown), what Claude Code runs on its own (!` + "`command`" + ` lines, hooks,
allowed-tools that allow every command), bundled programs, code downloaded or
decoded and run, encoded blobs, references to credentials, symlinks out of the
skill folder, and folders over 512 files or 16 MiB. Nothing leaves the machine.

Each PATH is a SKILL.md, a skill folder, or any folder: every skill below it is
scanned, found as "ccski validate" finds them. With no PATH, every skill ccski
discovers that an agent can be served is scanned; the discovery flags apply.

Formats and exit status are those of "ccski validate": 0 when nothing fails, 1
when a finding is an error or there are more warnings than --max-warnings, 2 on
a usage error. "ccski mcp" runs the same scan under mcp.scan (warn, block or
off). Every rule is documented in docs/security-rules.md.`

// scanExample shows ccski scan at work.
const scanExample = `  ccski scan                                      # every skill discovered
  ccski scan ~/Downloads/some-skill               # before installing it
  ccski scan --max-warnings 0 skills/             # a CI gate
  ccski scan --format sarif skills/ > scan.sarif  # GitHub code scanning`

func newScan(a *app) *cobra.Command {
	return command(spec{use: "scan [PATH...]", long: scanLong, example: scanExample, run: a.runScan,
		short: "Check skills for prompt injection, hidden text, risky commands and bundled code, offline"},
		reportFlagSet, discoveryFlags)
}

func (a *app) runScan(cmd *cobra.Command, args []string) error {
	a.setup(cmd)
	format, maxWarnings, err := a.reportFlags(cmd)
	if err != nil {
		return err
	}
	if err := pathsOrDiscovery(cmd, args, "scan"); err != nil {
		return err
	}
	res, err := actLazy(cmd, action.Scan, action.ScanRequest{Paths: args, MaxWarnings: maxWarnings,
		Progress: progressWriter()})
	if err != nil {
		return err
	}
	a.color = a.color && format == report.FormatText
	if err := report.Write(a.stdout, format, res.Report, report.WriteOptions{Color: a.color,
		Version: buildVersion(), Rules: res.Rules}); err != nil {
		return failErr(err)
	}
	return a.verdict(res.Verdict)
}

// renderFlagged prints the sources section of the skills the security
// scan flagged: each with its findings' codes and the first finding.
func renderFlagged(w io.Writer, st style, flagged []pipeline.FlaggedSkill) {
	if len(flagged) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n\n", st.Heading(fmt.Sprintf("Flagged by the security scan (%d)", len(flagged))))
	for _, f := range flagged {
		var codes []string
		errs := false
		for _, d := range f.Findings {
			if !slices.Contains(codes, d.Code) {
				codes = append(codes, d.Code)
			}
			errs = errs || d.Severity == pipeline.SeverityError
		}
		sev := st.Yellow("warning")
		if errs {
			sev = st.Red("error")
		}
		fmt.Fprintf(w, "  %s  %s %s\n", st.Cyan(f.ID), sev, strings.Join(codes, ", "))
		first := f.Findings[0]
		where := first.Path
		if first.Line > 0 {
			where = fmt.Sprintf("%s:%d", first.Path, first.Line)
		}
		fmt.Fprintf(w, "      %s\n", st.Dim(where+": "+first.Message))
	}
	fmt.Fprintln(w, "\n"+wrap("ccski mcp serves these skills and logs the findings (mcp.scan: warn, the default); "+
		"with mcp.scan: block it does not serve the ones with an error. ccski scan SKILL-FOLDER shows every finding.",
		width(w), ""))
}
