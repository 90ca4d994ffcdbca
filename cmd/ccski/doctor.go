package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/hostview"
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
named.

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
		})
}

// doctor runs ccski doctor.
func (a *app) doctor(cmd *cobra.Command, _ []string) error {
	hosts, _ := cmd.Flags().GetStringSlice("agent")
	res, err := act(a, cmd, action.Doctor, action.DoctorRequest{Hosts: hosts})
	if err != nil {
		return err
	}
	if err := a.show(res, func() { renderDoctor(a.stdout, style(a.color), res) }); err != nil {
		return err
	}
	return a.verdict(res.Verdict)
}

// renderDoctor prints the doctor's result, host by host.
func renderDoctor(w io.Writer, st style, res *action.DoctorResult) {
	if len(res.Hosts) == 0 {
		fmt.Fprintln(w, "No agent found on this machine.")
	}
	wd := width(w)
	for i, h := range res.Hosts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		title := fmt.Sprintf("%s: %d loaded, %d not loaded", h.Title, len(h.Loads), len(h.NotLoaded))
		fmt.Fprintln(w, st.Heading(title))
		if h.Installed {
			fmt.Fprintln(w, st.Dim("  installed: "+h.Detected))
		} else {
			fmt.Fprintln(w, st.Dim("  not installed"))
		}
		if len(h.Loads) > 0 {
			fmt.Fprintln(w, "\n  Loads:")
			for _, v := range h.Loads {
				line := "    " + st.Green("✓") + " " + v.Name
				if v.Code != hostview.Loads {
					line += "  " + st.Dim(string(v.Code)+": "+v.Detail)
				}
				fmt.Fprintln(w, line)
			}
		}
		if len(h.NotLoaded) > 0 {
			fmt.Fprintln(w, "\n  Not loaded:")
			for _, v := range h.NotLoaded {
				mark := st.Dim("-")
				if v.Problem {
					mark = st.Red("✗")
				}
				name := v.Name
				if name == "" {
					name = "(plugin)"
				}
				fmt.Fprintf(w, "    %s %s  [%s]\n", mark, name, v.Code)
				detail := v.Detail
				if len(v.Skills) > 0 {
					detail += "; its skills: " + strings.Join(v.Skills, ", ")
				}
				if v.Managed != "" {
					detail += " (in " + v.Managed + ": fix it upstream)"
				}
				fmt.Fprintln(w, wrap(detail, wd, "        "))
			}
		}
	}
	if len(res.Absent) > 0 {
		fmt.Fprintf(w, "\n%s\n", st.Dim("Not installed: "+strings.Join(res.Absent, ", ")+" (--agent NAME reports one anyway)"))
	}
	if res.Broken > 0 {
		fmt.Fprintf(w, "\n%s\n", st.Red(fmt.Sprintf("%d of your own will not load.", res.Broken)))
	}
}
