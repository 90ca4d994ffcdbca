package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
)

// policyLong is the help of ccski policy.
const policyLong = `The organisation's policy says which sources skills may be installed from,
whose signatures a source's skills must carry, which skills are blocked (by
name or by a file's sha256: digest), the verdict of the security scan a skill
must reach, and whether unsigned skills are allowed. install, update, enable,
profile use and ccski mcp all enforce it, and every refusal names the rule and
the file it comes from.

The policy is read from the managed config, which an administrator writes for
every user of the machine (/etc/ccski/config.yaml on Linux and other Unix
systems, /Library/Application Support/ccski/config.yaml on macOS,
%ProgramData%\ccski\config.yaml on Windows; readable by everyone, writable by
administrators only), and from the user config; never from a project's
ccski.yaml (its policy is ignored, with a warning) nor from a CCSKI_ variable.
A policy that cannot be read refuses everything it guards.`

func newPolicy(a *app) *cobra.Command {
	cmd := command(spec{use: "policy", long: policyLong,
		short: "Explain the organisation's policy on this machine"})
	cmd.AddCommand(command(spec{use: "check [PATH|SOURCE]", args: cobra.MaximumNArgs(1), run: a.policyCheck,
		short: "Explain the policy in force; with a skill folder or a source, whether it is allowed and by which rule"},
		jsonFlag("print JSON only: the rules, the files they come from and the decision"), discoveryFlags))
	return cmd
}

// policyCheck runs ccski policy check; a target the policy refuses exits 1.
func (a *app) policyCheck(cmd *cobra.Command, args []string) error {
	req := action.PolicyCheckRequest{}
	if len(args) == 1 {
		req.Target = args[0]
	}
	res, err := act(a, cmd, action.PolicyCheck, req)
	if err != nil {
		return err
	}
	if err := a.show(res, func() { renderPolicy(a.stdout, style(a.color), res) }); err != nil {
		return err
	}
	if res.Decision != nil && !res.Decision.Allow {
		return failErr(fmt.Errorf("%w: refused by the policy: %s", errReported, res.Decision))
	}
	return nil
}

// renderPolicy prints the rules in force, each with the file it comes
// from, then the decision on the target or the skills refused.
func renderPolicy(w io.Writer, st style, res *action.PolicyCheckResult) {
	wd := width(w)
	fmt.Fprintln(w, st.Heading("Policy on this machine"))
	for _, r := range res.Rules {
		from := "built-in default"
		if r.From != "" {
			from = r.From
		}
		fmt.Fprintf(w, "  %s %s\n%s\n", st.Bold(r.Rule), st.Dim("("+from+")"), wrap(r.Says, wd, "      "))
	}
	for _, ig := range res.Ignored {
		fmt.Fprintln(w, wrap(st.Yellow("warning: ")+ig, wd, "  "))
	}
	if res.Decision != nil {
		fmt.Fprintln(w)
		verdict := st.Green("allowed")
		if !res.Decision.Allow {
			verdict = st.Red("refused")
		}
		fmt.Fprintf(w, "%s %s: %s\n", res.Kind, res.Target, verdict)
		fmt.Fprintln(w, wrap(res.Decision.String(), wd, "  "))
		return
	}
	if len(res.Refused) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, st.Heading(fmt.Sprintf("Refused on this machine (%d): not served by ccski mcp, not turned on by enable", len(res.Refused))))
		for _, r := range res.Refused {
			fmt.Fprintf(w, "  %s %s\n%s\n", st.Red("✗"), r.Skill, wrap(r.Decision.String(), wd, "      "))
		}
	}
}
