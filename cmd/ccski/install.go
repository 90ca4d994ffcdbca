package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/install"
)

// This file holds ccski install and what install, update and remove
// share: their flags and the printing of their report. The work is
// action.Install, action.Update and action.Remove.

// installLong is the help of ccski install.
const installLong = `Install skills from SOURCE and record them in ccski.lock, or, with no SOURCE,
install everything the lock names.

SOURCE is a git URL (https://..., git@host:owner/repo, file://...), owner/repo
for GitHub, each with an optional @ref (branch, tag or commit) and #path in
the repository; a local folder, SKILL.md or marketplace.json (a Claude
.claude-plugin/marketplace.json or a Codex .agents/plugins/marketplace.json);
or the name of a marketplace Claude Code has cloned (installed offline); or
an MCP server speaking the Skills Extension (SEP-2640) as mcp+https://host/mcp
(mcp+http://..., optional #path: the skill paths below it), whose files are
each checked against skills/list's digest and size before anything is
written. A private host (index, archive or MCP server) takes the token of its
origin from http.tokens in the user config or CCSKI_HTTP__TOKENS
("https://host=TOKEN"), sent to that origin only. A
folder is read as the marketplace it holds, else as one skill, else as a
folder of skills.

Choose skills by name (SKILL...), with --all, with --include/--exclude (the
filter grammar of ccski list), or with -i on a terminal. A source with several
skills and no choice is an error that lists them.

Targets: by default the shared .agents/skills of the scope, plus a link in
the folder of each agent installed on the machine that does not read it
(detected as ccski doctor detects it: its folder in your home or its command
on PATH; the report says which and how); with no agent detected, a link in
.claude/skills. --agent picks agents instead (agents, claude, codex, gemini,
cursor, copilot or all) and --dir any folder. --scope project (the default) installs in the project and records in
the ccski.lock beside its ccski.yaml (or at its root); --scope user installs
in your home folder and records in ccski's user config folder.

Each skill is staged, checked by the rules of the agents it is for (ccski
validate's profile of each agent that reads the folder: claude for Claude
Code, codex for Codex and the shared .agents/skills, spec for an agent ccski
has no profile of and for --dir) and moved into place atomically. A skill goes
only to the agents whose rules accept it; the report names each agent that
would reject it and why, and a skill no agent accepts fails. --no-validate
installs it for every agent all the same; --force overwrites local changes
(a skill modified on disk, a folder ccski did not install), never validation. With no SOURCE,
skills whose files match the lock are left alone and missing ones are
installed from their locked commit; --frozen also checks every source against
the lock and fails (exit 1) on any difference, and on a source a clone of the
project does not reproduce (a git entry without its commit, a folder outside
the project, a marketplace Claude Code cloned), for CI. A run that was killed
is finished or undone by the next install, update or remove.

A skill that carries a signature (an OpenSSF model signing skill.oms.sig or
model.sig, or a Sigstore bundle) is verified before anything of it is
written: a changed byte, an extra or a missing file, or a signer the trusted
root does not vouch for fails it, naming the file and what failed. The lock
records the signer (identity, issuer, the signature's digest and format);
--frozen then fails when the source's copy is signed by someone else or no
longer signed, and update refuses such a new version unless --force.
--signer IDENTITY[@ISSUER] requires each skill of SOURCE to be signed by
that identity (ISSUER an https:// URL). A pattern needs ISSUER, and its *
never crosses @: '*@example.com@https://accounts.google.com' is any
example.com address Google vouched for.`

func newInstall(a *app) *cobra.Command {
	return command(spec{use: "install [SOURCE [SKILL...]]", args: cobra.ArbitraryArgs, long: installLong, run: a.install,
		short: "Install skills from a git repository, a folder or a marketplace, recorded in ccski.lock"},
		jsonFlag(installJSONUsage), sourceFlags, timeoutFlag,
		installFlags("install over skills modified on disk or not installed by ccski"), noValidateFlag)
}

// sourceFlags adds the flags of install that choose a SOURCE's skills and
// where they go.
func sourceFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringSlice("agent", nil, "install for these agents: "+strings.Join(install.Agents(), ", ")+" or all (default: agents, plus the agents detected on the machine)")
	ownFlag(cmd, "agent")
	f.String("dir", "", "install into this folder instead of the agents' folders")
	f.String("ref", "", "branch, tag or commit of a git SOURCE (like SOURCE@ref)")
	f.String("path", "", "path inside SOURCE: a folder, SKILL.md or marketplace.json (like SOURCE#path)")
	f.Bool("all", false, "install every skill of SOURCE")
	ownFlag(cmd, "all")
	f.StringSlice("include", nil, "install the skills of SOURCE these filters select (the grammar of ccski list)")
	ownFlag(cmd, "include")
	f.StringSlice("exclude", nil, "leave out the skills of SOURCE these filters select")
	ownFlag(cmd, "exclude")
	f.BoolP("interactive", "i", false, "pick the skills in a list (needs a terminal)")
	f.Bool("copy", false, "install copies where links would go")
	f.Bool("frozen", false, "with no SOURCE: also check every source against the lock; fail when a source, its signer or a file on disk differs")
	f.String("signer", "", "require each skill of SOURCE to carry a signature by IDENTITY[@ISSUER] (a pattern needs ISSUER: '*@example.com@https://accounts.google.com')")
}

// noValidateFlag adds --no-validate to install and update.
func noValidateFlag(cmd *cobra.Command) {
	cmd.Flags().Bool("no-validate", false, "install skills for every agent asked for, even those whose rules reject them")
}

// installJSONUsage is the usage of --json of install, update and remove.
const installJSONUsage = "print JSON only: a result per skill and counts"

// timeoutFlag adds --timeout to a command that fetches sources.
func timeoutFlag(cmd *cobra.Command) {
	cmd.Flags().Duration("timeout", gitfetch.DefaultTimeout,
		"time limit of each git command, of each request to an MCP server and of each HTTP download")
}

// installFlags returns what adds the flags install, update and remove
// share; force is the usage of --force.
func installFlags(force string) func(*cobra.Command) {
	return func(cmd *cobra.Command) {
		f := cmd.Flags()
		f.String("scope", "project", "project (the project's folders and ccski.lock) or user (your home folder)")
		f.Bool("force", false, force)
		f.Bool("dry-run", false, "write nothing; print what would change")
		f.String("user-dir", "", "use this folder instead of the home folder")
		f.String("workspace", "", "project folder (default: the current folder)")
		f.String("config", "", "read this config file instead of the nearest "+configs.ProjectFile)
	}
}

// installRun reads the flags every install command shares.
func (a *app) installRun(cmd *cobra.Command) action.Run {
	f := cmd.Flags()
	r := action.Run{Notices: a.stderr, GitPrompt: isTerminalFile(os.Stdin)}
	r.Scope, _ = f.GetString("scope")
	if (cmd.Name() == "update" || cmd.Name() == "remove") && !flagChanged(f, "scope") {
		r.Scope = "" // the scope whose lock names the skills (action.Update, action.Remove)
	}
	r.Force, _ = f.GetBool("force")
	if f.Lookup("no-validate") != nil {
		r.NoValidate, _ = f.GetBool("no-validate")
	}
	r.DryRun, _ = f.GetBool("dry-run")
	if t := f.Lookup("timeout"); t != nil {
		r.Timeout, _ = f.GetDuration("timeout")
	}
	if !a.json {
		r.Progress = progressWriter()
	}
	return r
}

// progressWriter is where long operations draw their progress (git's, and
// report.Progress): stderr when it is a terminal, else nil, so that piped
// and redirected output carries none.
func progressWriter() io.Writer {
	if isTerminalFile(os.Stderr) {
		return os.Stderr
	}
	return nil
}

// isTerminalFile reports whether f is a terminal.
func isTerminalFile(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// install runs ccski install.
func (a *app) install(cmd *cobra.Command, args []string) error {
	f := cmd.Flags()
	frozen, _ := f.GetBool("frozen")
	interactive, _ := f.GetBool("interactive")
	if len(args) == 0 {
		for _, name := range []string{"agent", "dir", "ref", "path", "all", "include", "exclude", "interactive", "copy", "signer"} {
			if flagChanged(f, name) {
				return usageErr(fmt.Errorf("--%s needs a SOURCE; with no SOURCE, ccski install installs what ccski.lock names", name))
			}
		}
	} else if frozen {
		return usageErr(errors.New("--frozen checks the lock: run ccski install --frozen with no SOURCE"))
	}
	if force, _ := f.GetBool("force"); force && frozen {
		return usageErr(errors.New("--frozen checks the lock and --force overwrites what differs: give one"))
	}
	if interactive && (!isTerminalFile(os.Stdin) || !isTerminalFile(os.Stderr)) {
		return usageErr(errors.New("-i needs a terminal: name the skills, or use --all or --include"))
	}
	agentFlag, _ := f.GetStringSlice("agent")
	dir, _ := f.GetString("dir")
	if dir != "" && len(agentFlag) > 0 {
		return usageErr(errors.New("give --dir or --agent, not both"))
	}
	agents, err := install.ParseAgents(agentFlag)
	if err != nil {
		return usageErr(err)
	}
	if len(agentFlag) == 0 {
		agents = nil // none named: the action detects the agents on the machine
	}
	req := action.InstallRequest{Run: a.installRun(cmd), Agents: agents, Dir: dir, Frozen: frozen}
	if len(args) > 0 {
		req.Source, req.Skills = args[0], args[1:]
	}
	req.Ref, _ = f.GetString("ref")
	req.Path, _ = f.GetString("path")
	req.All, _ = f.GetBool("all")
	req.Include, _ = f.GetStringSlice("include")
	req.Exclude, _ = f.GetStringSlice("exclude")
	req.Copy, _ = f.GetBool("copy")
	req.Signer, _ = f.GetString("signer")
	if interactive {
		req.Pick = func(ctx context.Context, source string, cands []install.Candidate) ([]string, error) {
			return pickSkills(ctx, source, cands, os.Stdin, os.Stderr)
		}
	}
	return a.installed(act(a, cmd, action.Install, req))
}

// reportedFailure is the error of a run whose report already lists what
// failed: with --json no error object follows the report.
type reportedFailure struct{ msg string }

func (e reportedFailure) Error() string        { return e.msg }
func (e reportedFailure) Is(target error) bool { return target == errReported }

// installed prints the report of install, update or remove, unless err
// says the run could not be done; any failed skill makes the exit code 1.
func (a *app) installed(rep *action.Report, err error) error {
	if err != nil {
		return err
	}
	if rep.NonePicked {
		fmt.Fprintln(a.stderr, "No skill selected; nothing was installed.")
		return nil
	}
	if err := a.show(rep, func() { a.renderInstall(a.stdout, rep) }); err != nil {
		return err
	}
	if failed := rep.Failed(); failed > 0 {
		return failErr(reportedFailure{fmt.Sprintf("%d of %d skills failed", failed, len(rep.Results))})
	}
	return nil
}

// renderInstall prints a line per skill, its changes and message, then
// the counts.
func (a *app) renderInstall(w io.Writer, rep *action.Report) {
	st := style(a.color)
	for _, warn := range rep.Warnings {
		fmt.Fprintln(a.stderr, "ccski: warning: "+warn)
	}
	renderAgents(w, rep.Agents)
	marks := map[install.Status]string{
		install.StatusInstalled: st.Green("✓"), install.StatusUpdated: st.Green("↻"),
		install.StatusUnchanged: st.Dim("○"), install.StatusSkipped: st.Yellow("○"),
		install.StatusFailed: st.Red("✗"), install.StatusRemoved: st.Green("✓"),
	}
	for _, r := range rep.Results {
		var where []string
		for i, p := range r.Paths {
			p = shownPath(rep.Cwd, rep.Home, p)
			if i > 0 {
				p += st.Dim(" (link)")
			}
			where = append(where, p)
		}
		line := fmt.Sprintf("%s %-9s %s", marks[r.Status], r.Status, st.Bold(r.Skill))
		if len(where) > 0 {
			line += " → " + strings.Join(where, ", ")
		}
		if r.Source != "" {
			from := r.Source
			if r.Commit != "" {
				if r.From != "" {
					from += " " + short(r.From) + ".." + short(r.Commit)
				} else {
					from += " " + short(r.Commit)
				}
			}
			line += st.Dim("  [" + from + "]")
		}
		fmt.Fprintln(w, line)
		if !r.Changes.Empty() {
			fmt.Fprintln(w, "    changes: "+r.Changes.String())
		}
		if r.Signer != nil && r.Status != install.StatusFailed {
			fmt.Fprintln(w, "    signed by "+r.Signer.String()+st.Dim(" (verified: "+r.Signer.File+")"))
		}
		if !r.Overwritten.Empty() {
			verb := "overwrote"
			if rep.DryRun {
				verb = "would overwrite"
			}
			fmt.Fprintln(w, "    "+st.Yellow(verb+" local edits (--force): "+r.Overwritten.String()))
		}
		if r.Diff != "" {
			fmt.Fprint(w, r.Diff) // as it is, so that patch and git apply read it
		}
		if r.Message != "" {
			msg := r.Message
			if r.Status == install.StatusFailed {
				msg = st.Red(msg)
			}
			fmt.Fprintln(w, "    "+msg)
		}
		if r.Status != install.StatusFailed {
			for _, rj := range r.Rejected {
				fmt.Fprintln(w, "    "+st.Yellow(rejectedLine(rj)))
			}
			for _, rj := range r.Flawed {
				fmt.Fprintln(w, "    "+st.Yellow(rejectedLine(rj)))
			}
		}
	}
	var parts []string
	for _, s := range []install.Status{install.StatusInstalled, install.StatusUpdated, install.StatusRemoved,
		install.StatusUnchanged, install.StatusSkipped, install.StatusFailed} {
		if n := rep.Counts[string(s)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintln(w, "Summary: "+strings.Join(parts, ", "))
	}
	if rep.DryRun {
		fmt.Fprintln(w, st.Dim("Dry run: nothing was written."))
	}
}

// rejectedLine says which agent's rules reject an installed skill, and
// whether it was installed for that agent all the same.
func rejectedLine(r install.Rejection) string {
	agent := r.Agent
	if agent == "" {
		agent = "--dir"
	}
	if r.Loads {
		return "installed for " + agent + ", a warning: " + r.String()
	}
	if r.Installed {
		return "installed for " + agent + " all the same (--no-validate): " + r.String()
	}
	return "not installed for " + agent + ": " + r.String()
}

// short is a commit's first 12 hex digits.
func short(commit string) string {
	if hex, ok := strings.CutPrefix(commit, "sha256:"); ok && len(hex) > 12 {
		return "sha256:" + hex[:12] // an HTTP source's digest
	}
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// shownPath writes p relative to the current folder when below it,
// else with ~ for the home folder.
func shownPath(cwd, home, p string) string {
	if rel, err := filepath.Rel(cwd, p); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	if rel, err := filepath.Rel(home, p); err == nil && filepath.IsLocal(rel) {
		return "~/" + filepath.ToSlash(rel)
	}
	return p
}

// renderAgents says which agents an install is for and how each was
// chosen, one line: "for agents (shared folder), claude (detected:
// ~/.claude exists)".
func renderAgents(w io.Writer, choices []action.AgentChoice) {
	if len(choices) == 0 {
		return
	}
	var parts []string
	for _, c := range choices {
		parts = append(parts, c.Agent+" ("+c.Why+")")
	}
	fmt.Fprintln(w, "Agents: "+strings.Join(parts, ", "))
}
