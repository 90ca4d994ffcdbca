package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/userdirs"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/marketplace"
)

// This file holds ccski install and what install, update and remove
// share: the scope's layout and lock, and the report.

func newInstall(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "install [SOURCE [SKILL...]]",
		Short: "Install skills from a git repository, a folder or a marketplace, recorded in ccski.lock",
		Long: `Install skills from SOURCE and record them in ccski.lock, or, with no SOURCE,
install everything the lock names.

SOURCE is a git URL (https://..., git@host:owner/repo, file://...), owner/repo
for GitHub, each with an optional @ref (branch, tag or commit) and #path in
the repository; a local folder, SKILL.md or marketplace.json (a Claude
.claude-plugin/marketplace.json or a Codex .agents/plugins/marketplace.json);
or the name of a marketplace Claude Code has cloned (installed offline). A
folder is read as the marketplace it holds, else as one skill, else as a
folder of skills.

Choose skills by name (SKILL...), with --all, with --include/--exclude (the
filter grammar of ccski list), or with -i on a terminal. A source with several
skills and no choice is an error that lists them.

Targets: by default the shared .agents/skills of the scope, plus a link in
.claude/skills (Claude Code does not read .agents/skills); --agent picks
agents (agents, claude, codex, gemini, cursor, copilot or all) and --dir any
folder. --scope project (the default) installs in the project and records in
the ccski.lock beside its ccski.yaml (or at its root); --scope user installs
in your home folder and records in ccski's user config folder.

Each skill is staged, checked with "ccski validate --profile spec" (errors
refuse it unless --force) and moved into place atomically. With no SOURCE,
skills whose files match the lock are left alone and missing ones are
installed from their locked commit; --frozen also checks every source against
the lock and fails (exit 1) on any difference, for CI.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.runInstall(cmd, args) },
	}
	f := cmd.Flags()
	f.StringSlice("agent", nil, "install for these agents: "+strings.Join(install.Agents(), ", ")+" or all (default: agents, with a link for claude)")
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
	f.Bool("frozen", false, "with no SOURCE: also check every source against the lock; fail when a source or a file on disk differs")
	f.Duration("timeout", install.DefaultTimeout, "time limit of each git command")
	installFlags(cmd, "install over skills modified on disk or not installed by ccski, and skills that fail validation")
	return cmd
}

// installFlags adds the flags install, update and remove share.
func installFlags(cmd *cobra.Command, force string) {
	f := cmd.Flags()
	f.String("scope", "project", "project (the project's folders and ccski.lock) or user (your home folder)")
	f.Bool("force", false, force)
	f.Bool("dry-run", false, "write nothing; print what would change")
	f.Bool("json", false, "print JSON only: a result per skill and counts")
	f.String("user-dir", "", "use this folder instead of the home folder")
	f.String("workspace", "", "project folder (default: the current folder)")
	f.String("config", "", "read this config file instead of the nearest "+configs.ProjectFile)
}

// installRun is what one run of install, update or remove works with.
type installRun struct {
	x      *install.Installer
	layout install.Layout
	dry    bool
	cwd    string
}

// openInstall reads the flags every install command shares, the scope's
// layout and its lock, and cleans up after an interrupted earlier run.
func (a *app) openInstall(cmd *cobra.Command) (*installRun, error) {
	l, err := a.load(cmd, engineOnly)
	if err != nil {
		return nil, err
	}
	env := l.engine.Env()
	f := cmd.Flags()
	scope, _ := f.GetString("scope")
	cwd, _ := os.Getwd()
	layout, err := installLayout(env, install.Scope(strings.ToLower(strings.TrimSpace(scope))))
	if err != nil {
		return nil, err
	}
	force, _ := f.GetBool("force")
	dry, _ := f.GetBool("dry-run")
	release := func() {}
	if !dry {
		release, err = install.LockRun(layout, func() {
			fmt.Fprintf(a.stderr, "ccski: waiting for another ccski run on %s to finish\n", layout.LockFile)
		})
		if err != nil {
			return nil, failErr(err)
		}
	}
	lock, err := install.ReadLock(layout.LockFile, layout.Base, layout.Scope == install.ScopeProject)
	if err != nil {
		release()
		return nil, failErr(err)
	}
	gitCache := userdirs.Cache("git")
	if gitCache == "" {
		gitCache = filepath.Join(env.UserDir, ".cache", "ccski", "git")
	}
	g := &install.Git{CacheDir: gitCache, Prompt: isTerminalFile(os.Stdin)}
	if t := f.Lookup("timeout"); t != nil {
		g.Timeout, _ = f.GetDuration("timeout")
	}
	if !a.json && isTerminalFile(os.Stderr) {
		g.Progress = os.Stderr
	}
	pluginsRoot := filepath.Join(claude.Dir(env), "plugins")
	x := &install.Installer{Ctx: cmd.Context(), Layout: layout, Lock: lock, Git: g, Force: force, DryRun: dry,
		SaveLock: true, Release: release,
		Marketplace: func(name string) (string, bool, []string) { return marketplace.KnownMarketplace(pluginsRoot, name) }}
	if !dry {
		x.Recover()
	}
	return &installRun{x: x, layout: layout, dry: dry, cwd: cwd}, nil
}

// installLayout is where the skills and lock of scope live.
func installLayout(env providers.Env, scope install.Scope) (install.Layout, error) {
	layout := install.Layout{Scope: scope, Env: env}
	switch scope {
	case install.ScopeProject:
		base, ok := configs.ProjectRoot(env.Workspace, env.UserDir)
		if !ok {
			return layout, failErr(fmt.Errorf("%s is in no project (no %s and no .git in it or above it): "+
				"use --scope user to install for yourself, or create %s in the project's folder",
				env.Workspace, configs.ProjectFile, configs.ProjectFile))
		}
		layout.Base = base
		layout.LockFile = filepath.Join(layout.Base, install.LockName)
	case install.ScopeUser:
		dir, err := userdirs.ConfigDir(env.UserDir, os.Getenv)
		if err != nil {
			return layout, failErr(err)
		}
		layout.Base, layout.LockFile = env.UserDir, filepath.Join(dir, install.LockName)
	default:
		return layout, usageErr(fmt.Errorf("invalid --scope %q: use project or user", scope))
	}
	return layout, nil
}

// installedIndex maps the skills the project's and the user's locks name
// to where they came from (see install.IndexInstalled).
func installedIndex(env providers.Env) map[string]*install.Installed {
	var layouts []install.Layout
	for _, s := range []install.Scope{install.ScopeProject, install.ScopeUser} {
		if l, err := installLayout(env, s); err == nil {
			layouts = append(layouts, l)
		}
	}
	return install.IndexInstalled(layouts)
}

// isTerminalFile reports whether f is a terminal.
func isTerminalFile(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func (a *app) runInstall(cmd *cobra.Command, args []string) error {
	f := cmd.Flags()
	frozen, _ := f.GetBool("frozen")
	interactive, _ := f.GetBool("interactive")
	if len(args) == 0 {
		for _, name := range []string{"agent", "dir", "ref", "path", "all", "include", "exclude", "interactive", "copy"} {
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
	run, err := a.openInstall(cmd)
	if err != nil {
		return err
	}
	x := run.x
	defer x.Close()
	x.Copy, _ = f.GetBool("copy")
	x.SaveLock = !frozen // --frozen never writes the lock
	rep := installReport{Scope: string(run.layout.Scope), Lock: run.layout.LockFile, DryRun: run.dry}
	if len(args) == 0 {
		if _, err := os.Stat(run.layout.LockFile); err != nil && frozen {
			return failErr(fmt.Errorf("no lock at %s: --frozen checks one (install skills first, then commit the lock)", run.layout.LockFile))
		}
		if len(x.Lock.Skills) == 0 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s names no skill: nothing to install (give a SOURCE)", run.layout.LockFile))
		}
		for _, e := range x.Lock.Skills {
			rep.Results = append(rep.Results, x.Restore(e, frozen))
		}
		if frozen {
			x.Changed = false // --frozen never writes the lock
		}
		return a.finishInstall(run, &rep)
	}
	ref, _ := f.GetString("ref")
	path, _ := f.GetString("path")
	src, err := install.ParseSource(args[0], install.ParseOptions{Cwd: run.cwd, Home: run.layout.Home(), Ref: ref, Path: path,
		Marketplace: x.Marketplace})
	if err != nil {
		return usageErr(err)
	}
	rep.Source = src.String()
	root, commit, err := x.Materialize(src, src.Ref)
	if err != nil {
		return failErr(err)
	}
	offer, err := install.Discover(cmd.Context(), root, src.Path)
	if err != nil {
		return failErr(fmt.Errorf("%s: %w", src, err))
	}
	rep.Warnings = append(rep.Warnings, offer.Warnings...)
	sel := install.Selection{Names: args[1:]}
	sel.All, _ = f.GetBool("all")
	sel.Include, _ = f.GetStringSlice("include")
	sel.Exclude, _ = f.GetStringSlice("exclude")
	if interactive && len(sel.Names) == 0 {
		cands, err := install.Filter(offer.Candidates, sel.Include, sel.Exclude)
		if err != nil {
			return usageErr(err)
		}
		picked, err := pickSkills(cmd.Context(), src.String(), cands, os.Stdin, os.Stderr)
		if err != nil {
			return failErr(err)
		}
		if len(picked) == 0 {
			fmt.Fprintln(a.stderr, "No skill selected; nothing was installed.")
			return nil
		}
		sel = install.Selection{Names: picked}
	}
	cands, err := install.Select(src.String(), offer, sel)
	if err != nil {
		return usageErr(err)
	}
	if dir != "" {
		dir = absFrom(run.cwd, dir)
		if err := run.layout.CheckTarget(dir); err != nil {
			return usageErr(fmt.Errorf("--dir: %w", err))
		}
	}
	rep.Results = x.Install(src, root, commit, cands, run.layout.Targets(agents, dir))
	return a.finishInstall(run, &rep)
}

// installReport is the --json output of install, update and remove.
type installReport struct {
	Scope    string           `json:"scope"`
	Lock     string           `json:"lock"`
	Source   string           `json:"source,omitempty"`
	DryRun   bool             `json:"dryRun"`
	Results  []install.Result `json:"results"`
	Warnings []string         `json:"warnings,omitempty"`
	Counts   map[string]int   `json:"counts"`
}

// reportedFailure is the error of a run whose report already lists what
// failed: with --json no error object follows the report.
type reportedFailure struct{ msg string }

func (e reportedFailure) Error() string        { return e.msg }
func (e reportedFailure) Is(target error) bool { return target == errReported }

// finishInstall writes the lock when it changed, then the report; any
// failed skill makes the exit code 1.
func (a *app) finishInstall(run *installRun, rep *installReport) error {
	if run.x.Changed && !run.dry {
		if err := run.x.Lock.Write(run.layout.LockFile, run.layout.Base); err != nil {
			return failErr(err)
		}
	}
	rep.Counts = map[string]int{}
	failed := 0
	for _, r := range rep.Results {
		rep.Counts[string(r.Status)]++
		if r.Status == install.StatusFailed {
			failed++
		}
	}
	if rep.Results == nil {
		rep.Results = []install.Result{}
	}
	if a.json {
		if err := a.writeJSON(rep); err != nil {
			return err
		}
	} else {
		a.renderInstall(a.stdout, run, rep)
	}
	if failed > 0 {
		return failErr(reportedFailure{fmt.Sprintf("%d of %d skills failed", failed, len(rep.Results))})
	}
	return nil
}

// renderInstall prints a line per skill, its changes and message, then
// the counts.
func (a *app) renderInstall(w io.Writer, run *installRun, rep *installReport) {
	st := style(a.color)
	for _, warn := range rep.Warnings {
		fmt.Fprintln(a.stderr, "ccski: warning: "+warn)
	}
	marks := map[install.Status]string{
		install.StatusInstalled: st.green("✓"), install.StatusUpdated: st.green("↻"),
		install.StatusUnchanged: st.dim("○"), install.StatusSkipped: st.yellow("○"),
		install.StatusFailed: st.red("✗"), install.StatusRemoved: st.green("✓"),
	}
	for _, r := range rep.Results {
		var where []string
		for i, p := range r.Paths {
			p = shownPath(run.cwd, run.layout.Home(), p)
			if i > 0 {
				p += st.dim(" (link)")
			}
			where = append(where, p)
		}
		line := fmt.Sprintf("%s %-9s %s", marks[r.Status], r.Status, st.bold(r.Skill))
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
			line += st.dim("  [" + from + "]")
		}
		fmt.Fprintln(w, line)
		if !r.Changes.Empty() {
			fmt.Fprintln(w, "    changes: "+r.Changes.String())
		}
		if r.Message != "" {
			msg := r.Message
			if r.Status == install.StatusFailed {
				msg = st.red(msg)
			}
			fmt.Fprintln(w, "    "+msg)
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
	if run.dry {
		fmt.Fprintln(w, st.dim("Dry run: nothing was written."))
	}
}

// short is a commit's first 12 hex digits.
func short(commit string) string {
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
