package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/validate"
)

// discoveryFlagNames are the shared discovery flags; they apply only when
// no PATH is given.
var discoveryFlagNames = []string{"config", "include", "exclude", "all", "disabled", "skill-dir", "user-dir",
	"workspace", "no-plugins", "claude-plugins-file", "claude-plugins-root"}

// validateLong is the help of ccski validate.
const validateLong = `Check skills for everything the Agent Skills specification, Claude Code and
Codex would reject or mangle, and explain how to fix each finding.

Each PATH is a SKILL.md, a skill folder, or any folder: every skill below it
is checked (disabled .SKILL.md and lowercase skill.md ones too), hidden
folders included (searched after the others), but not .git, node_modules or
the folders tools make (.venv, caches, ...). With no PATH, every skill ccski
discovers is checked; the discovery flags apply.

Profiles: spec (the specification), claude (what Claude Code accepts), codex
(what Codex accepts), strict (everything, plus portability). PATHs are
checked with spec unless --profile says otherwise. With no PATH, each skill
is checked as the agents that read it see it: Claude Code's folders and
plugins with claude, Codex's with codex, the shared .agents/skills with the
profiles of every agent that reads it (an agent ccski has no profile of,
such as Gemini CLI, with spec); and a finding in a folder an agent manages
(the Claude Code plugin cache and marketplace clones, Codex's .system skills)
is at most a warning, since a change there is lost: the run fails only when
a skill you own is broken. --profile applies one profile to every skill.

Slash commands are checked only with --kind command or --kind all, against
their own rules: the .md files of commands folders (.claude/commands, a
plugin's commands/) and of .codex/prompts, or the commands discovery finds.

--fix never writes in a folder an agent manages (the Claude Code plugin
cache and marketplace clones, Codex's .system skills): it says what it would
have done there instead, as a managed-tree info.

Exit status: 0 when nothing fails, 1 when a finding is an error or there
are more warnings than --max-warnings, 2 on a usage error.

Every finding code is documented in docs/validate.md.`

// validateExample shows ccski validate at work.
const validateExample = `  ccski validate .claude/skills
  ccski validate --profile strict --max-warnings 0 skills/
  ccski validate --format github skills/          # annotations in GitHub Actions
  ccski validate --format sarif skills/ > ccski.sarif
  ccski validate --fix --dry-run skills/          # show the safe fixes as a diff
  ccski validate --kind all .                     # skills and slash commands`

func newValidate(a *app) *cobra.Command {
	return command(spec{use: "validate [PATH...]", long: validateLong, example: validateExample, run: a.runValidate,
		short: "Check skills against the Agent Skills spec, Claude Code and Codex, for people and CI"},
		validateFlags, reportFlagSet, discoveryFlags)
}

// validateFlags adds the flags only validate has.
func validateFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.String("kind", string(validate.KindSkill), "what to check: skill, command (slash commands) or all")
	fs.String("profile", "", "rule set for every skill: spec, claude, codex or strict (default: spec for PATHs; "+
		"with no PATH, each skill by the agents that read it)")
	fs.Bool("fix", false, "apply the safe fixes (BOM, CRLF, --- spacing, quoting, unknown keys to metadata), then check")
	fs.Bool("dry-run", false, "with --fix: print the fixes as a unified diff and write nothing")
	_ = cmd.RegisterFlagCompletionFunc("kind", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		names := make([]string, len(validate.Kinds))
		for i, k := range validate.Kinds {
			names[i] = string(k)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

// reportFlagSet adds the flags of a command that prints a report (validate
// and scan), which reportFlags reads.
func reportFlagSet(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.String("format", "text", "output: text, json, github (workflow annotations) or sarif (2.1.0)")
	fs.Bool("json", false, "same as --format json")
	fs.Int("max-warnings", -1, "fail when there are more warnings than this (-1: no limit)")
}

func (a *app) runValidate(cmd *cobra.Command, args []string) error {
	a.setup(cmd)
	fs := cmd.Flags()
	format, maxWarnings, err := a.reportFlags(cmd)
	if err != nil {
		return err
	}
	kindName, _ := fs.GetString("kind")
	kind, err := validate.ParseKind(kindName)
	if err != nil {
		return usageErr(err)
	}
	var profile validate.Profile
	if profileName, _ := fs.GetString("profile"); flagChanged(fs, "profile") {
		if profile, err = validate.ParseProfile(profileName); err != nil {
			return usageErr(err)
		}
	}
	fix, _ := fs.GetBool("fix")
	dryRun, _ := fs.GetBool("dry-run")
	if dryRun && !fix {
		return usageErr(errors.New("--dry-run works only with --fix: use --fix --dry-run to preview the fixes"))
	}
	if err := pathsOrDiscovery(cmd, args, "validate"); err != nil {
		return err
	}
	res, err := actLazy(cmd, action.Validate, action.ValidateRequest{Paths: args, Kind: kind, Profile: profile,
		Fix: fix, DryRun: dryRun, MaxWarnings: maxWarnings})
	if err != nil {
		return err
	}
	a.color = a.color && format == report.FormatText
	// Fix reports and diffs go to stdout with the text format and to
	// stderr otherwise, so that stdout stays one parseable document.
	fixOut := a.stdout
	if format != report.FormatText {
		fixOut = a.stderr
	}
	printFixes(fixOut, style(a.color), res.Dir, res.Fixes, dryRun)
	if err := report.Write(a.stdout, format, res.Report, report.WriteOptions{Color: a.color,
		Version: buildVersion(), Fixing: fix, Rules: res.Rules}); err != nil {
		return failErr(err)
	}
	return a.verdict(res.Verdict)
}

// pathsOrDiscovery refuses the discovery flags when PATHs are given:
// they choose the skills discovered, which verb then checks.
func pathsOrDiscovery(cmd *cobra.Command, paths []string, verb string) error {
	if len(paths) == 0 {
		return nil
	}
	for _, name := range discoveryFlagNames {
		if flagChanged(cmd.Flags(), name) {
			return usageErr(fmt.Errorf("--%s applies only when no PATH is given: drop it, or drop the PATHs "+
				"to %s the discovered skills", name, verb))
		}
	}
	return nil
}

// verdict is the exit of validate and scan, whose report is on stdout:
// nil when the run passes, else exit 1 with failed, the action's verdict,
// and no JSON error object after the report.
func (a *app) verdict(failed error) error {
	if failed == nil {
		return nil
	}
	a.json = false
	return failErr(failed)
}

// printFixes reports what --fix did or, with dryRun, would do, naming
// the files as the user sees them from cwd, the folder they ran in.
func printFixes(w io.Writer, st style, cwd string, fixes []validate.FileFix, dryRun bool) {
	for _, f := range fixes {
		name := report.DisplayPath(cwd, f.File)
		switch {
		case f.Refused != nil:
			fmt.Fprintf(w, "%s %s: it lies in %s; it would have %s\n", st.Yellow("left alone"), name,
				f.Refused.What, strings.Join(f.Changes, "; "))
		case f.Err != nil:
			fmt.Fprintf(w, "%s %s: %v\n", st.Red("not fixed"), name, f.Err)
		case dryRun:
			fmt.Fprintf(w, "%s %s: %s\n", st.Yellow("would fix"), name, strings.Join(f.Changes, "; "))
			fmt.Fprint(w, report.Diff(cwd, f.File, f.Before, f.After, true))
		default:
			fmt.Fprintf(w, "%s %s: %s\n", st.Green("fixed"), name, strings.Join(f.Changes, "; "))
		}
	}
	if len(fixes) > 0 {
		fmt.Fprintln(w)
	}
}

// reportFlags reads the report flags validate and scan share: --format
// (or --json) and --max-warnings. With JSON output, usage errors too are
// printed as a JSON object from then on.
func (a *app) reportFlags(cmd *cobra.Command) (report.Format, int, error) {
	fs := cmd.Flags()
	formatName, _ := fs.GetString("format")
	if a.json {
		if flagChanged(fs, "format") && formatName != string(report.FormatJSON) {
			return "", 0, usageErr(fmt.Errorf("--json and --format %s disagree: give one of them", formatName))
		}
		formatName = string(report.FormatJSON)
	}
	format, err := report.ParseFormat(formatName)
	if err != nil {
		return "", 0, usageErr(err)
	}
	a.json = format == report.FormatJSON
	maxWarnings, _ := fs.GetInt("max-warnings")
	if err := report.CheckMaxWarnings(maxWarnings); err != nil {
		return "", 0, usageErr(err)
	}
	return format, maxWarnings, nil
}
