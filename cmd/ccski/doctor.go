package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/hostview"
	"github.com/ccski/ccski/internal/report"
)

// doctorLong is the help of ccski doctor.
const doctorLong = `Answer "will my agents see this skill, and if not, why?" for every agent on
this machine that loads skills on its own: Claude Code, Codex, Gemini CLI,
GitHub Copilot and Cursor. An agent counts as installed when its folder
(~/.claude, ~/.codex, ~/.gemini, ~/.copilot, ~/.cursor) exists or its command is
on PATH; --agent reports one even when it is not.

For each agent, doctor lists the skills it loads and those it does not, with
the reason: a skill folder nested in another (Claude Code loads only
<skills>/<name>/SKILL.md), the agent's name and frontmatter rules (the
validate profile of that agent), a switch in the agent's own settings and the
file that sets it, a plugin turned off or whose manifest the agent refuses, a
plugin enabled but not installed, a broken link, a .SKILL.md file, or another
copy of the same name that wins. Skills Codex keeps out of its model's listing
(agents/openai.yaml policy.allow_implicit_invocation: false) load only when
named. A link in a skills folder that is a plain text file holding its target
(a repository cloned where symlinks are off, as on Windows) and a link ccski
install made that is gone are reported too.

Doctor also says whose description an agent's listing budget cuts or drops:
Claude Code lists skills in about 1% of its context window
(skillListingBudgetFraction; each description at most skillListingMaxDescChars,
1,536), Codex in 2% (model_context_window in config.toml; 272,000 tokens
assumed when unset).

--fix repairs what is safely repairable: it makes the link a text file stands
for, and makes again a link ccski install made, never writing through a link
that leads elsewhere (--dry-run: print them, write nothing).

--ask-host asks each agent, offline, what it loads and shows where it differs
from doctor: Codex through codex debug prompt-input, Gemini CLI through gemini
skills list, Copilot through copilot skill list (skills), Claude Code through
claude plugin list --json (plugins; Claude Code prints its skill listing only
in a session, which would run your hooks and write to your home, so doctor
does not start one).

Exit status 1 when something you own will not load: a problem outside the
folders the agents manage themselves (the Claude plugin cache and marketplace
clones, Codex's .system skills), which are fixed upstream.`

func newDoctor(a *app) *cobra.Command {
	return command(spec{use: "doctor", args: cobra.NoArgs, long: doctorLong, run: a.doctor,
		short: "Show, for every agent on this machine, which skills it loads and why not"},
		jsonFlag("print JSON only: per agent, the verdict on each skill"), discoveryFlags, func(cmd *cobra.Command) {
			names := make([]string, 0, 5)
			for _, h := range hostview.Hosts() {
				names = append(names, h.Name)
			}
			cmd.Flags().StringSlice("agent", nil, "report only these agents: "+strings.Join(names, ", ")+
				" (default: every agent installed)")
			ownFlag(cmd, "agent")
			cmd.Flags().Bool("fix", false, "repair the links the agents need: a link that became a text file, a link ccski install made that is gone")
			cmd.Flags().Bool("dry-run", false, "with --fix: write nothing; print the links that would be made")
			cmd.Flags().Bool("ask-host", false, "ask each agent, offline, what it loads (codex debug prompt-input, gemini skills list, copilot skill list, claude plugin list --json) and show the differences")
		})
}

// doctor runs ccski doctor.
func (a *app) doctor(cmd *cobra.Command, _ []string) error {
	hosts, _ := cmd.Flags().GetStringSlice("agent")
	fix, _ := cmd.Flags().GetBool("fix")
	ask, _ := cmd.Flags().GetBool("ask-host")
	dry, _ := cmd.Flags().GetBool("dry-run")
	if dry && !fix {
		return usageErr(errors.New("--dry-run goes with --fix: add --fix to see the links doctor would make"))
	}
	res, err := act(a, cmd, action.Doctor, action.DoctorRequest{Hosts: hosts, Fix: fix, AskHost: ask, DryRun: dry})
	if err != nil {
		return err
	}
	if err := a.show(res, func() { renderDoctor(a.stdout, style(a.color), res) }); err != nil {
		return err
	}
	return a.verdict(res.Verdict)
}

// renderDoctor prints the doctor's result, host by host: the skills each
// loads as one wrapped list, those it loads with a limit, then each thing
// it does not load with the reason.
func renderDoctor(w io.Writer, st style, res *action.DoctorResult) {
	if len(res.Hosts) == 0 {
		fmt.Fprintln(w, "No agent found on this machine.")
	}
	wd := width(w)
	if len(res.Fixed) > 0 {
		head := "Repaired"
		if res.Fixed[0].DryRun {
			head = "Would repair (--dry-run: nothing written)"
		}
		fmt.Fprintf(w, "%s (%d):\n", head, len(res.Fixed))
		for _, f := range res.Fixed {
			if f.DryRun {
				fmt.Fprintf(w, "  %s %s -> %s\n", st.Yellow("~"), f.Path, f.Target)
				continue
			}
			if f.Error != "" {
				fmt.Fprintf(w, "  %s %s\n%s\n", st.Red("✗"), f.Path, wrap("not repaired: "+f.Error, wd, "      "))
				continue
			}
			fmt.Fprintf(w, "  %s %s is a link again\n", st.Green("✓"), f.Path)
		}
		fmt.Fprintln(w)
	}
	if len(res.Policy) > 0 {
		fmt.Fprintln(w, st.Heading(fmt.Sprintf("Refused by the policy (%d): not served by ccski mcp, not turned on by enable", len(res.Policy))))
		for _, r := range res.Policy {
			fmt.Fprintf(w, "  %s %s\n%s\n", st.Red("✗"), r.Skill, wrap(r.Decision.String(), wd, "      "))
		}
		fmt.Fprintln(w)
	}
	for i, h := range res.Hosts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, st.Heading(fmt.Sprintf("%s: %d loaded, %d not loaded", h.Title, len(h.Loads), len(h.NotLoaded))))
		found := "not installed (reported because --agent names it)"
		if h.Installed {
			found = "found: " + h.Detected
		}
		fmt.Fprintln(w, wrap(st.Dim(found), wd, "  "))
		var plain []string
		var limited []hostview.Verdict
		for _, v := range h.Loads {
			if v.Code == hostview.Loads {
				plain = append(plain, verdictName(v))
			} else {
				limited = append(limited, v)
			}
		}
		if len(plain) > 0 {
			fmt.Fprintf(w, "\n  Loads (%d):\n%s\n", len(plain), wrap(strings.Join(plain, ", "), wd, "    "))
		}
		if len(limited) > 0 {
			fmt.Fprintf(w, "\n  Loads, with a note (%d):\n", len(limited))
			for _, v := range limited {
				fmt.Fprintf(w, "    %s %s  [%s]\n%s\n", st.Yellow("~"), verdictName(v), v.Code, wrap(v.Detail, wd, "        "))
			}
		}
		if len(h.NotLoaded) > 0 {
			fmt.Fprintf(w, "\n  Does not load (%d):\n", len(h.NotLoaded))
			for _, v := range h.NotLoaded {
				mark := st.Dim("-") // a choice: a switch, a disabled plugin, a copy that wins
				switch {
				case v.Problem && v.Owned():
					mark = st.Red("✗")
				case v.Problem:
					mark = st.Yellow("!") // to fix upstream
				}
				detail := v.Detail
				if len(v.Skills) > 0 {
					detail += "; its skills: " + strings.Join(v.Skills, ", ")
				}
				if v.Managed != "" {
					detail += " (it lies in " + v.Managed + ": fix it upstream)"
				}
				fmt.Fprintf(w, "    %s %s  [%s]\n%s\n", mark, verdictName(v), v.Code, wrap(detail, wd, "        "))
			}
		}
		renderListing(w, st, wd, h)
		renderAskHost(w, st, wd, h)
	}
	renderSignatures(w, st, wd, res.Signatures)
	if len(res.Diagnostics) > 0 {
		// What ccski sources warns of, as it prints it.
		renderDiagnostics(w, st, "Warnings of the sources (ccski sources)", res.Diagnostics)
	}
	if len(res.Absent) > 0 {
		fmt.Fprintf(w, "\n%s\n", wrap(st.Dim("Not found on this machine: "+strings.Join(res.Absent, ", ")+
			" (--agent NAME reports one anyway)."), wd, ""))
	}
	if res.Broken > 0 {
		fmt.Fprintf(w, "\n%s\n", st.Red(report.Plural(res.Broken, "problem", "problems")+
			" in your own skills (marked ✗; ! marks one to fix upstream)."))
	}
}

// renderSignatures prints who signed the skills that are signed and why
// each invalid signature fails; under mcp.require_signed, also the
// unsigned skills, which ccski mcp does not serve.
func renderSignatures(w io.Writer, st style, wd int, sg action.DoctorSignatures) {
	n := len(sg.Signed) + len(sg.Invalid) + len(sg.Unsigned)
	switch {
	case n == 0:
		return
	case len(sg.Signed)+len(sg.Invalid) == 0 && !sg.RequireSigned:
		fmt.Fprintf(w, "\n%s\n", wrap(st.Dim(fmt.Sprintf("Signatures: none of the %s carries one.",
			report.Plural(n, "skill", "skills"))), wd, ""))
		return
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading(fmt.Sprintf("Signatures: %d signed, %d invalid, %d unsigned",
		len(sg.Signed), len(sg.Invalid), len(sg.Unsigned))))
	for _, s := range sg.Signed {
		fmt.Fprintf(w, "  %s %s\n%s\n", st.Green("✓"), s.ID, wrap(s.Signature.Describe(), wd, "      "))
	}
	for _, s := range sg.Invalid {
		fmt.Fprintf(w, "  %s %s\n%s\n", st.Red("✗"), s.ID, wrap(s.Signature.Describe(), wd, "      "))
	}
	if !sg.RequireSigned {
		return
	}
	if len(sg.Unsigned) > 0 {
		fmt.Fprintf(w, "  %s unsigned:\n%s\n", st.Red("✗"), wrap(strings.Join(sg.Unsigned, ", "), wd, "      "))
	}
	if k := len(sg.Invalid) + len(sg.Unsigned); k > 0 {
		fmt.Fprintf(w, "%s\n", wrap(st.Red(fmt.Sprintf("mcp.require_signed is on: ccski mcp serves only the %d signed; "+
			"it does not serve the %s marked ✗ to agents.", len(sg.Signed), report.Plural(k, "skill", "skills"))), wd, "  "))
	}
}

// verdictName names what a verdict is about: a record by its id, a plugin
// by its key, a link by its name.
func verdictName(v hostview.Verdict) string {
	switch {
	case v.ID != "":
		return v.ID
	case v.Name != "":
		return v.Name
	}
	return "(plugin)"
}

// renderListing prints the skills whose description the host's listing
// budget cuts or drops, grouped by what it does.
func renderListing(w io.Writer, st style, wd int, h action.DoctorHost) {
	if len(h.Listing) == 0 {
		return
	}
	groups := map[hostview.Code][]string{}
	detail := map[hostview.Code]string{}
	for _, v := range h.Listing {
		groups[v.Code] = append(groups[v.Code], verdictName(v))
		if detail[v.Code] == "" {
			detail[v.Code] = v.Detail
		}
	}
	fmt.Fprintf(w, "\n  Listing budget (%d):\n", len(h.Listing))
	for _, c := range []hostview.Code{hostview.ListingDropped, hostview.ListingNameOnly, hostview.ListingCut} {
		if len(groups[c]) == 0 {
			continue
		}
		title := map[hostview.Code]string{hostview.ListingDropped: "left out of the listing",
			hostview.ListingNameOnly: "listed by name alone", hostview.ListingCut: "description cut"}[c]
		fmt.Fprintf(w, "    %s %s (%d)  [%s]\n%s\n%s\n", st.Yellow("~"), title, len(groups[c]), c,
			wrap(st.Dim("e.g. "+detail[c]), wd, "        "), wrap(strings.Join(groups[c], ", "), wd, "        "))
	}
}

// renderAskHost prints what the host itself said, where it differs.
func renderAskHost(w io.Writer, st style, wd int, h action.DoctorHost) {
	switch {
	case h.AskHostError != "":
		fmt.Fprintf(w, "\n  Asked %s: %s\n", h.Title, wrap(st.Red(h.AskHostError), wd, "    "))
	case h.AskHost == nil:
		return
	case len(h.AskHost.OnlyHost)+len(h.AskHost.OnlyModel) == 0:
		fmt.Fprintf(w, "\n  Asked %s (%s): %s\n", h.Title, h.AskHost.Command, st.Green("it agrees"))
	default:
		fmt.Fprintf(w, "\n  Asked %s (%s): it differs, please report it as a ccski bug\n", h.Title, h.AskHost.Command)
		if len(h.AskHost.OnlyHost) > 0 {
			fmt.Fprintf(w, "    only %s: %s\n", h.Title, wrap(strings.Join(h.AskHost.OnlyHost, ", "), wd, "      "))
		}
		if len(h.AskHost.OnlyModel) > 0 {
			fmt.Fprintf(w, "    only ccski: %s\n", wrap(strings.Join(h.AskHost.OnlyModel, ", "), wd, "      "))
		}
	}
}
