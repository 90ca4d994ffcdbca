package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/toggle"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// toggleLong is the help of ccski enable and disable, for the state (on
// or off) and the hosts named.
const toggleLong = `Turn skills %[1]s where each agent reads its switches (%[2]s), so
that the agent itself and every ccski view agree.

Each SKILL is a name or id as "ccski info" takes it. By default every agent
that reads the skill is switched; --agent names some (%[2]s, or all).
Claude Code's switch is skillOverrides in settings.json (user, project or
local scope; by default the user's for a personal skill and the project's
local file for a project skill), Codex's a [[skills.config]] table in
~/.codex/config.toml, Gemini CLI's skills.disabled in settings.json (user or
project). A plugin's skill is switched through its plugin (enabledPlugins,
[plugins."p@m"]), which turns the whole plugin %[1]s: ccski never edits a
plugin's files. A skill no agent with a switch of its own reads falls back
to the host-neutral switch: SKILL.md renamed .SKILL.md.

Only the setting changes: every other byte of a settings file is kept, a
file that does not parse is left alone (the error names its line), and each
file is replaced atomically. --dry-run prints the diff of each file instead.`

func newEnable(a *app) *cobra.Command  { return newToggle(a, true) }
func newDisable(a *app) *cobra.Command { return newToggle(a, false) }

// newToggle builds enable (on) or disable.
func newToggle(a *app, on bool) *cobra.Command {
	verb, state := "disable", "off"
	if on {
		verb, state = "enable", "on"
	}
	hosts := strings.Join(all.HostNames(), ", ")
	return command(spec{use: verb + " SKILL...", args: cobra.MinimumNArgs(1), long: fmt.Sprintf(toggleLong, state, hosts),
		short: fmt.Sprintf("Turn skills %s in each agent's own settings", state),
		run: func(cmd *cobra.Command, args []string) error {
			sw, err := toggleRequest(cmd, on)
			if err != nil {
				return err
			}
			req := action.ToggleRequest{Request: sw, Skills: args, Notices: a.stderr}
			req.DryRun, _ = cmd.Flags().GetBool("dry-run")
			return a.toggled(act(a, cmd, action.Toggle, req))
		}},
		jsonFlag(toggleJSONUsage), diffFlag, discoveryFlags, func(cmd *cobra.Command) {
			cmd.Flags().StringSlice("agent", nil, "switch only for these agents: "+hosts+" or all (default: every agent that reads the skill)")
			ownFlag(cmd, "agent")
			cmd.Flags().String("scope", "", "where to write: user, project or local (default: where the skill lives; see above)")
			if !on {
				cmd.Flags().String("mode", "", "Claude Code only: off (default), name-only or user-invocable-only")
			}
		})
}

// toggleJSONUsage is the usage of --json of enable, disable and profile
// use.
const toggleJSONUsage = "print JSON only: the results, the diffs and counts"

// diffFlag adds --dry-run to a command that edits settings files.
func diffFlag(cmd *cobra.Command) {
	cmd.Flags().Bool("dry-run", false, "write nothing; print the diff of each file that would change")
}

// ownFlag marks a command's flag that is no configuration key, although
// ccski mcp has a flag of that name that is one (see configs.CommandFlag).
func ownFlag(cmd *cobra.Command, name string) {
	cmd.Flags().SetAnnotation(name, configs.CommandFlag, []string{"true"})
}

// toggleRequest reads --agent, --scope and --mode.
func toggleRequest(cmd *cobra.Command, on bool) (toggle.Request, error) {
	agents, _ := cmd.Flags().GetStringSlice("agent")
	scope, err := scopeFlag(cmd)
	if err != nil {
		return toggle.Request{}, err
	}
	req := toggle.Request{On: on, Agents: agents, Scope: scope}
	if f := cmd.Flags().Lookup("mode"); f != nil {
		req.Mode = strings.ToLower(strings.TrimSpace(f.Value.String()))
		switch req.Mode {
		case "", pipeline.ModeOff, pipeline.ModeNameOnly, pipeline.ModeUserInvocableOnly:
		default:
			return req, usageErr(fmt.Errorf("invalid --mode %q: use off, name-only or user-invocable-only", req.Mode))
		}
	}
	return req, nil
}

// toggled prints what enable, disable or profile use did, unless err
// says it could not be done, and fails when a switch failed or the files
// could not all be written.
func (a *app) toggled(rep *action.ToggleReport, err error) error {
	if err != nil {
		return err
	}
	if a.json {
		if err := a.writeJSON(rep); err != nil {
			return err
		}
	} else {
		renderToggle(a, rep)
	}
	if n := rep.Failed; n > 0 {
		return failErr(fmt.Errorf("%w: %s failed; nothing was written for %s", errReported,
			plural(n, "switch", "switches"), map[bool]string{true: "it", false: "them"}[n == 1]))
	}
	if rep.ApplyErr != nil {
		return failErr(fmt.Errorf("%w: %w", errReported, rep.ApplyErr))
	}
	return nil
}

// errReported marks a failure the command's output already reports in
// full (with --json, in its JSON): no error object follows it.
var errReported = errors.New("not every skill could be switched")

// renderToggle prints one line per result, then the diffs of a dry run.
func renderToggle(a *app, rep *action.ToggleReport) {
	st := style(a.color)
	w := a.stdout
	dry, left := rep.DryRun, rep.Left
	for _, r := range rep.Results {
		mark, what := "", ""
		switch r.Status {
		case toggle.Changed:
			mark = st.Green("✓")
		case toggle.Unchanged:
			mark = st.Dim("○")
			what = "already so: "
		case toggle.Skipped:
			mark = st.Dim("-")
			what = "skipped: "
		case toggle.Failed:
			mark = st.Red("✗")
		}
		line := fmt.Sprintf("%s %s", mark, st.Bold(r.Skill))
		switch {
		case r.Status == toggle.Failed:
			line += ": " + st.Red(r.Error)
		case r.Setting == toggle.FallbackSetting:
			line += fmt.Sprintf(": %s%s (%s)", what, r.Mode, r.File)
		case r.File != "":
			line += fmt.Sprintf(": %s%s in %s: %s %s", what, r.Mode, hostTitle(r.Host), r.File, r.Setting)
			if r.Scope != "" {
				line += " (" + r.Scope + ")"
			}
		case r.Note != "" && r.Status != toggle.Changed:
			if r.Status == toggle.Skipped {
				line += ": skipped"
			}
			line += ": " + r.Note
			r.Note = ""
		}
		fmt.Fprintln(w, line)
		if r.Note != "" {
			fmt.Fprintln(w, "  "+st.Yellow("note: ")+r.Note)
		}
	}
	for _, rn := range rep.Renames {
		verb := "renamed"
		if dry {
			verb = "would rename"
		}
		fmt.Fprintf(w, "%s %s -> %s\n", verb, rn.From, rn.To)
	}
	if dry {
		if len(rep.Files) > 0 {
			fmt.Fprintln(w)
		}
		for _, d := range rep.Files {
			fmt.Fprint(w, d.Diff)
		}
	}
	summary := fmt.Sprintf("%d changed, %d already so, %d skipped, %d failed", rep.Changed,
		rep.Unchanged, rep.Skipped, rep.Failed)
	if left > 0 {
		summary += fmt.Sprintf("; %s not in the profile left as they are", plural(left, "skill", "skills"))
	}
	if dry {
		summary += "; dry run: nothing was written"
	}
	fmt.Fprintln(w, st.Dim(summary+"."))
}

// hostTitle names a host for people.
func hostTitle(name string) string { return providers.HostTitle(all.Hosts(), name) }

// Scopes are the values of --scope of enable, disable and profile use:
// every scope some host's switches take.
var scopes = []string{"user", "project", "local"}

// scopeFlag reads --scope: "" or one of scopes, in lower case.
func scopeFlag(cmd *cobra.Command) (string, error) {
	raw, _ := cmd.Flags().GetString("scope")
	scope := strings.ToLower(strings.TrimSpace(raw))
	if scope != "" && !slices.Contains(scopes, scope) {
		return "", usageErr(fmt.Errorf("invalid --scope %q: use %s", raw, strings.Join(scopes, ", ")))
	}
	return scope, nil
}
