package action

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/policy"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/skillsext"
	"github.com/ccski/ccski/internal/suggest"
	"github.com/ccski/ccski/internal/trust"
	"github.com/ccski/ccski/internal/userdirs"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/marketplace"
)

// This file holds install, update and remove, and what they share: the
// scope's layout and lock, the run that holds them, and the report.

// Run is what install, update and remove share: the scope they work on
// and how.
type Run struct {
	// Scope is project (the project's folders and ccski.lock) or user
	// (the home folder, and the lock in ccski's user config folder).
	Scope string
	// Force overwrites skills modified on disk (install and update: also
	// replaces folders ccski did not install; remove: deletes modified
	// copies).
	Force bool
	// NoValidate (install and update) installs a skill for every agent
	// asked for, even those whose rules reject it; without it a skill
	// goes only to the agents that accept it.
	NoValidate bool
	// DryRun writes nothing; the report says what would change.
	DryRun bool
	// Timeout limits each git command, each request to an MCP server and
	// each HTTP download; 0 leaves git's own default (and
	// skillsext.DefaultTimeout).
	Timeout time.Duration
	// GitPrompt lets git ask for credentials (stdin is a terminal).
	GitPrompt bool
	// Progress, when not nil, receives git's progress and the progress
	// line of the skills installed, updated or restored (a terminal's;
	// report.Progress).
	Progress io.Writer
	// Notices, when not nil, receives what the run says while it waits
	// (another ccski run holding the scope's lock).
	Notices io.Writer
}

// InstallRequest is ccski install: skills from Source, or, with no
// Source, every skill the lock names.
type InstallRequest struct {
	Run
	// Source is a git URL, owner/repo, the http(s) URL of a site with a
	// well-known skills index, of an index.json or of an archive, a local
	// folder, SKILL.md or marketplace.json, the name of a marketplace
	// Claude Code cloned, or an MCP server (mcp+https://...); "" installs
	// what the lock names.
	Source string
	// Ref and Path are the branch, tag or commit and the path inside
	// Source (as Source@ref and Source#path).
	Ref, Path string
	// Skills, All, Include and Exclude choose among Source's skills (see
	// install.Selection).
	Skills           []string
	All              bool
	Include, Exclude []string
	// Pick, when set and no Skills are named, lets the person choose
	// among the candidates Include and Exclude leave (the -i picker).
	Pick func(ctx context.Context, source string, cands []install.Candidate) ([]string, error)
	// Agents are the agents to install for, as install.ParseAgents reads
	// them; none: the shared folder and the agents detected on the
	// machine (see chooseAgents). Dir, when set, a folder to install into
	// instead, taken from Cwd.
	Agents []string
	Dir    string
	// Copy installs copies where links would go.
	Copy bool
	// Frozen, with no Source, also checks every source against the lock
	// and never writes the lock.
	Frozen bool
	// Signer, when set, is who must have signed each skill installed
	// from Source: IDENTITY[@ISSUER] (provenance.ParseIdentity).
	Signer string
}

// UpdateRequest is ccski update.
type UpdateRequest struct {
	Run
	// Skills are the skills to update, each as NAME or NAME@ref; none:
	// every skill the lock names.
	Skills []string
}

// RemoveRequest is ccski remove.
type RemoveRequest struct {
	Run
	// Skills are the skills to remove: each one the lock names.
	Skills []string
}

// Report is the result of install, update and remove, and their --json
// output.
type Report struct {
	Scope    string           `json:"scope"`
	Lock     string           `json:"lock"`
	Source   string           `json:"source,omitempty"`
	DryRun   bool             `json:"dryRun"`
	Results  []install.Result `json:"results"`
	Warnings []string         `json:"warnings,omitempty"`
	Counts   map[string]int   `json:"counts"`
	// Agents are the agents an install from a source was for, and how
	// each was chosen (named, detected on the machine, or the default).
	Agents []AgentChoice `json:"agents,omitempty"`
	// NotInstalled are, per plugin the installed skills come from, its
	// hooks, agents, commands and MCP servers, which ccski does not
	// install, and how to get them.
	NotInstalled []install.PluginExtras `json:"notInstalled,omitempty"`
	// Cwd and Home are the folder the user ran in and the user folder,
	// for showing the paths below them.
	Cwd, Home string `json:"-"`
	// NonePicked is set when the picker returned no skill: nothing was
	// done, and Results is empty.
	NonePicked bool `json:"-"`
}

// Failed is how many skills failed.
func (r *Report) Failed() int { return r.Counts[string(install.StatusFailed)] }

// installRun is one run of install, update or remove: the scope's layout
// and the Installer holding its lock.
type installRun struct {
	x      *install.Installer
	layout install.Layout
	cwd    string
	// recovered says what finishing or undoing an interrupted earlier
	// run did, for the report's warnings.
	recovered []string
	// trustFile is the trust store, where the run records the files it
	// writes (see written); "" for none.
	trustFile string
	// pol is the organisation's policy the run installs under.
	pol *policy.Policy
}

// openInstall reads the scope's layout and its lock, taking the run's
// lock first (unless DryRun), and cleans up after an interrupted earlier
// run. With frozen (install --frozen, which never writes the lock) an
// interrupted change is an error instead: settling it would write the
// lock. The caller closes run.x.
func (c *Config) openInstall(ctx context.Context, r Run, frozen bool) (*installRun, error) {
	e, err := c.Engine()
	if err != nil {
		return nil, err
	}
	env := e.Env()
	layout, err := installLayout(env, install.Scope(strings.ToLower(strings.TrimSpace(r.Scope))))
	if err != nil {
		return nil, err
	}
	release := func() {}
	if !r.DryRun {
		// The journal of the scope's changes, in the user state folder
		// (a project could ship one beside its lock).
		state, err := userdirs.StateDir(env.UserDir, env.Getenv)
		if err != nil {
			return nil, err
		}
		if layout.Journal, err = install.JournalFile(state, layout.LockFile); err != nil {
			return nil, err
		}
		if layout.RunLock, err = install.RunLockFile(state, layout.LockFile); err != nil {
			return nil, err
		}
		release, err = install.LockRun(layout, func() {
			if r.Notices != nil {
				fmt.Fprintf(r.Notices, "ccski: waiting for another ccski run on %s to finish\n", layout.LockFile)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	lock, err := install.ReadLock(layout.LockFile, layout.Base, layout.Scope == install.ScopeProject)
	if err != nil {
		release()
		return nil, err
	}
	g := &gitfetch.Git{CacheDir: gitCache(env.UserDir), Prompt: r.GitPrompt, Timeout: r.Timeout, Progress: r.Progress}
	pluginsRoot := filepath.Join(claude.Dir(env), "plugins")
	// Every source read over HTTP (index, archive, MCP server) carries
	// the tokens of the user's http.tokens, each to its own origin only.
	h := &install.HTTP{Timeout: r.Timeout, Progress: r.Progress, Tokens: env.Tokens, Limits: c.installLimits()}
	x := &install.Installer{Ctx: ctx, Layout: layout, Lock: lock, Git: g, HTTP: h, Force: r.Force, NoValidate: r.NoValidate,
		DryRun:   r.DryRun,
		SaveLock: true, Release: release,
		Marketplace: func(name string) (string, bool, []string) { return marketplace.KnownMarketplace(pluginsRoot, name) }}
	run := &installRun{x: x, layout: layout, cwd: c.Cwd, trustFile: c.TrustFile()}
	x.MCP = func(string) skillsext.Options { return skillsext.Options{Tokens: env.Tokens, Timeout: r.Timeout} }
	if !r.DryRun {
		if frozen {
			if err := x.Unsettled(); err != nil {
				x.Close()
				return nil, err
			}
		}
		run.recovered = x.Recover()
	}
	return run, nil
}

// report starts the report of the run.
func (run *installRun) report() *Report {
	return &Report{Scope: string(run.layout.Scope), Lock: run.layout.LockFile, DryRun: run.x.DryRun,
		Warnings: slices.Clone(run.recovered), Cwd: run.cwd, Home: run.layout.Home()}
}

// verifySignatures gives the run the Verifier that checks the signature
// each skill it installs carries (install.Installer.Verifier; see
// Config.Verifier): a trusted root or key file that cannot be read fails
// the run, naming it, so that no skill is installed unverified.
func (c *Config) verifySignatures(run *installRun) error {
	v, err := c.Verifier()
	if err != nil {
		return err
	}
	run.x.Verifier = v
	return nil
}

// installLimits are the limits of HTTP downloads the configuration sets
// (0: install.DefaultLimits).
func (c *Config) installLimits() install.Limits {
	if c.Loaded == nil {
		return install.Limits{}
	}
	l := c.Loaded.Config.Install
	return install.Limits{MaxDownload: int64(l.MaxDownload), MaxUnpacked: int64(l.MaxUnpacked), MaxFiles: l.MaxFiles}
}

// installLayout is where the skills and lock of scope live.
func installLayout(env providers.Env, scope install.Scope) (install.Layout, error) {
	layout := install.Layout{Scope: scope, Env: env}
	switch scope {
	case install.ScopeProject:
		base, ok := configs.ProjectRoot(env.Workspace, env.UserDir)
		if !ok {
			return layout, fmt.Errorf("%s is in no project (no %s and no .git in it or above it): "+
				"use --scope user to install for yourself, or create %s in the project's folder",
				env.Workspace, configs.ProjectFile, configs.ProjectFile)
		}
		layout.Base = base
		layout.LockFile = lockFile(layout.Base)
	case install.ScopeUser:
		// The user scope's lock is in ccski's user config folder as seen
		// from the user folder (the home folder, or --user-dir).
		dir, err := userdirs.ConfigDir(env.UserDir, env.Getenv)
		if err != nil {
			return layout, err
		}
		layout.Base, layout.LockFile = env.UserDir, lockFile(dir)
	default:
		return layout, usage(fmt.Errorf("invalid --scope %q: use project or user", scope))
	}
	return layout, nil
}

// InstalledIndex maps the skills the project's and the user's locks name
// to where they came from (see install.IndexInstalled).
func InstalledIndex(env providers.Env) map[string]*install.Installed {
	return install.IndexInstalled(lockLayouts(env))
}

// Install installs the skills req chooses from its Source, or, with no
// Source, every skill the lock names that is missing (checking every
// source against the lock with Frozen). A skill that fails is a result,
// not an error: see Report.Failed.
func Install(ctx context.Context, c *Config, req InstallRequest) (*Report, error) {
	pol, err := c.Policy()
	if err != nil {
		return nil, err
	}
	return c.inScope(ctx, req.Run, req.Frozen, func(run *installRun, rep *Report) error {
		if err := c.verifySignatures(run); err != nil {
			return err
		}
		run.x.Admit = c.admit(ctx, pol)
		run.pol = pol
		rep.Warnings = append(rep.Warnings, c.policyIgnored()...)
		run.x.Copy = req.Copy
		run.x.SaveLock = !req.Frozen // --frozen never writes the lock
		if req.Source == "" {
			return run.restore(rep, req.Frozen)
		}
		return run.install(ctx, c, rep, req)
	})
}

// restore installs the skills of the lock that are missing (with frozen,
// also checking every source against the lock).
func (run *installRun) restore(rep *Report, frozen bool) error {
	x := run.x
	if _, err := os.Stat(run.layout.LockFile); err != nil && frozen {
		return fmt.Errorf("no lock at %s: --frozen checks one (install skills first, then commit the lock)", run.layout.LockFile)
	}
	if len(x.Lock.Skills) == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s names no skill: nothing to install (give a SOURCE)", run.layout.LockFile))
	}
	p := report.NewProgress(x.Progress(), "restoring", len(x.Lock.Skills))
	defer p.Done()
	for _, e := range x.Lock.Skills {
		p.Step(e.Name)
		rep.Results = append(rep.Results, x.Restore(e, frozen))
	}
	if frozen {
		x.Changed = false // --frozen never writes the lock
	}
	return nil
}

// install installs the skills req chooses from its Source.
func (run *installRun) install(ctx context.Context, c *Config, rep *Report, req InstallRequest) error {
	x := run.x
	src, err := install.ParseSource(req.Source, install.ParseOptions{Cwd: c.Cwd, Home: run.layout.Home(), Ref: req.Ref,
		Path: req.Path, Marketplace: x.Marketplace})
	if err != nil {
		return usage(err)
	}
	rep.Source = src.String()
	if req.Signer != "" {
		id, err := provenance.ParseIdentity(req.Signer)
		if err != nil {
			return usage(fmt.Errorf("--signer: %w", err))
		}
		x.Signer = &id
	}
	// A source the policy does not allow is refused before anything is
	// fetched from it.
	if d := run.pol.DecideSource(*PolicySource(src)); !d.Allow {
		if ignored := c.policyIgnored(); len(ignored) > 0 {
			return fmt.Errorf("%w (%s)", d.Err(), strings.Join(ignored, "; "))
		}
		return d.Err()
	}
	root, commit, err := x.Materialize(src, src.Ref)
	if err != nil {
		return err
	}
	offer, err := install.Discover(ctx, root, src.Path)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	rep.Warnings = append(rep.Warnings, x.SourceWarnings(root)...)
	rep.Warnings = append(rep.Warnings, offer.Warnings...)
	sel := install.Selection{Names: req.Skills, All: req.All, Include: req.Include, Exclude: req.Exclude}
	if req.Pick != nil && len(sel.Names) == 0 {
		cands, err := install.Filter(offer.Candidates, sel.Include, sel.Exclude)
		if err != nil {
			return usage(err)
		}
		picked, err := req.Pick(ctx, src.String(), cands)
		if err != nil {
			return err
		}
		if len(picked) == 0 {
			rep.NonePicked = true
			return nil
		}
		sel = install.Selection{Names: picked}
	}
	cands, err := install.Select(src.String(), offer, sel)
	if err != nil {
		if left := x.SourceWarnings(root); len(left) > 0 {
			// The skill asked for may be one an index left out.
			err = fmt.Errorf("%w (%s)", err, strings.Join(left, "; "))
		}
		return usage(err)
	}
	rep.NotInstalled = pluginExtras(src, offer.ExtrasOf(cands))
	for _, e := range rep.NotInstalled {
		rep.Warnings = append(rep.Warnings, e.String())
	}
	var agents []string
	dir := req.Dir
	if dir != "" {
		dir = absFrom(c.Cwd, c.Home, dir)
		if err := run.layout.CheckTarget(dir); err != nil {
			return usage(fmt.Errorf("--dir: %w", err))
		}
	} else {
		named, err := install.ParseAgents(req.Agents)
		if err != nil {
			return usage(err)
		}
		if len(req.Agents) == 0 {
			named = nil
		}
		rep.Agents = chooseAgents(named, run.layout.Env)
		agents = agentNames(rep.Agents)
	}
	rep.Results = x.Install(src, root, commit, cands, install.Want{Agents: agents, Dir: dir})
	return nil
}

// Update moves each skill req names (every skill of the lock when none)
// to the newest commit of the ref it was installed from, or to its @ref.
// A skill the lock does not name is an error, and nothing is updated.
func Update(ctx context.Context, c *Config, req UpdateRequest) (*Report, error) {
	names := make([]string, len(req.Skills))
	for i, arg := range req.Skills {
		names[i], _, _ = strings.Cut(arg, "@")
	}
	var err error
	if req.Scope, err = c.findScope(req.Scope, names); err != nil {
		return nil, err
	}
	pol, err := c.Policy()
	if err != nil {
		return nil, err
	}
	return c.inScope(ctx, req.Run, false, func(run *installRun, rep *Report) error {
		if err := c.verifySignatures(run); err != nil {
			return err
		}
		x := run.x
		x.Admit = c.admit(ctx, pol)
		rep.Warnings = append(rep.Warnings, c.policyIgnored()...)
		type pick struct {
			entry install.Entry
			ref   string
		}
		var picks []pick
		if len(req.Skills) == 0 {
			for _, e := range x.Lock.Skills {
				picks = append(picks, pick{entry: e})
			}
		}
		for _, arg := range req.Skills {
			name, ref, _ := strings.Cut(arg, "@")
			e := x.Lock.Find(name)
			if e == nil {
				return notInstalled(name, run.layout.LockFile, x.Lock.Names())
			}
			picks = append(picks, pick{entry: *e, ref: ref})
		}
		if len(picks) == 0 {
			rep.Warnings = append(rep.Warnings, run.layout.LockFile+" names no skill: nothing to update")
		}
		progress := report.NewProgress(x.Progress(), "updating", len(picks))
		defer progress.Done()
		for _, p := range picks {
			progress.Step(p.entry.Name)
			if r := refuseSource(pol, p.entry); r != nil {
				rep.Results = append(rep.Results, *r) // nothing is fetched from a source the policy refuses
				continue
			}
			rep.Results = append(rep.Results, x.Update(p.entry, p.ref))
		}
		return nil
	})
}

// Remove deletes each skill req names, with its links, and drops it from
// the lock. A skill the lock does not name is an error, and nothing is
// removed: ccski never deletes a skill it did not install.
func Remove(ctx context.Context, c *Config, req RemoveRequest) (*Report, error) {
	var err error
	if req.Scope, err = c.findScope(req.Scope, req.Skills); err != nil {
		return nil, err
	}
	return c.inScope(ctx, req.Run, false, func(run *installRun, rep *Report) error {
		for _, name := range req.Skills {
			if run.x.Lock.Find(name) == nil {
				return notInstalled(name, run.layout.LockFile, run.x.Lock.Names())
			}
		}
		for _, name := range req.Skills {
			rep.Results = append(rep.Results, run.x.Remove(name))
		}
		return nil
	})
}

// inScope opens the run on the scope r names (frozen: see openInstall),
// lets work fill the report, then finishes it (unless the picker chose
// nothing) and closes the run.
func (c *Config) inScope(ctx context.Context, r Run, frozen bool, work func(run *installRun, rep *Report) error) (*Report, error) {
	run, err := c.openInstall(ctx, r, frozen)
	if err != nil {
		return nil, err
	}
	defer run.x.Close()
	rep := run.report()
	if err := work(run, rep); err != nil {
		return nil, err
	}
	if rep.NonePicked {
		return rep, nil
	}
	return run.finish(rep)
}

// finish writes the lock when it changed (not in a dry run), then counts
// the results.
func (run *installRun) finish(rep *Report) (*Report, error) {
	if run.x.Changed && !run.x.DryRun {
		if err := run.x.Lock.Write(run.layout.LockFile, run.layout.Base); err != nil {
			return nil, err
		}
	}
	rep.Counts = map[string]int{}
	for _, r := range rep.Results {
		rep.Counts[string(r.Status)]++
	}
	if !run.x.DryRun {
		if err := trust.Rewritten(run.trustFile, run.written(rep.Results), time.Now()); err != nil {
			rep.Warnings = append(rep.Warnings, "the skills are installed, but ccski could not record its own writes "+
				"in the trust store, so ccski list may say they changed since first seen: "+err.Error())
		}
	}
	if rep.Results == nil {
		rep.Results = []install.Result{}
	}
	return rep, nil
}

// written are the files this run wrote into the folders of the skills
// it installed or updated, by the folder's real path (trust.Key): the
// trust store takes them as seen (trust.Rewritten).
func (run *installRun) written(results []install.Result) map[string][]manifest.File {
	out := map[string][]manifest.File{}
	for _, r := range results {
		if r.Status != install.StatusInstalled && r.Status != install.StatusUpdated {
			continue
		}
		e := run.x.Lock.Find(r.Skill)
		if e == nil || len(e.Targets) == 0 {
			continue
		}
		if real, err := filepath.EvalSymlinks(filepath.Join(e.Targets[0].Dir, e.Name)); err == nil {
			out[real] = e.Files
		}
	}
	return out
}

// notInstalled is the error for a skill the lock does not name.
func notInstalled(name, lock string, names []string) error {
	msg := fmt.Sprintf("%s was not installed by ccski (it is not in %s)", name, lock)
	if s := suggest.Names(name, names, 3); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return fmt.Errorf("%s: ccski updates and removes only what it installed; to turn the skill off, use `ccski disable %s`", msg, name)
}

// findScope is the scope update and remove work on: scope when given;
// else the one whose lock names the skills (the project's when no skill
// is named, or when no lock names them, for the error to say so). Skills
// both locks name, or skills of both scopes in one run, are a usage
// error asking for --scope.
func (c *Config) findScope(scope string, names []string) (string, error) {
	if strings.TrimSpace(scope) != "" {
		return scope, nil
	}
	project := string(install.ScopeProject)
	if len(names) == 0 {
		return project, nil
	}
	locked, err := LockedSkills(c)
	if err != nil {
		return "", err
	}
	found := map[install.Scope][]string{}
	for _, l := range locked {
		if slices.Contains(names, l.Name) {
			found[l.Scope] = append(found[l.Scope], l.Name)
		}
	}
	p, u := found[install.ScopeProject], found[install.ScopeUser]
	for _, n := range p {
		if slices.Contains(u, n) {
			return "", usage(fmt.Errorf("%s is installed in the project and for the user (both locks name it): "+
				"give --scope project or --scope user", n))
		}
	}
	switch {
	case len(p) > 0 && len(u) > 0:
		return "", usage(fmt.Errorf("%s are installed in the project and %s for the user: give --scope, one run per scope",
			strings.Join(p, ", "), strings.Join(u, ", ")))
	case len(u) > 0:
		return string(install.ScopeUser), nil
	}
	return project, nil
}

// InstalledRequest is ccski installed.
type InstalledRequest struct {
	// Scope is project or user; "" shows both (the project's when the
	// folder is in a project).
	Scope string
}

// InstalledReport is what ccski installed shows: every skill the locks
// name.
type InstalledReport struct {
	Skills []install.Inspection `json:"skills"`
	// Locks are the locks read.
	Locks []string `json:"locks"`
	// Cwd and Home are for showing paths.
	Cwd, Home string `json:"-"`
}

// Installed lists what ccski installed in the scope req names (both when
// none): each skill's source, commit, agents, local edits and whether an
// update is available as far as this machine can tell without the
// network (install.Installer.Inspect). It writes nothing and takes no
// lock.
func Installed(ctx context.Context, c *Config, req InstalledRequest) (*InstalledReport, error) {
	scopes := []string{string(install.ScopeProject), string(install.ScopeUser)}
	if s := strings.TrimSpace(req.Scope); s != "" {
		scopes = []string{s}
	}
	rep := &InstalledReport{Skills: []install.Inspection{}, Locks: []string{}, Cwd: c.Cwd, Home: c.Home}
	for _, s := range scopes {
		run, err := c.openInstall(ctx, Run{Scope: s, DryRun: true}, false)
		if err != nil {
			if len(scopes) > 1 && s == string(install.ScopeProject) {
				continue // in no project: the user's skills only
			}
			return nil, err
		}
		rep.Locks = append(rep.Locks, run.layout.LockFile)
		rep.Home = run.layout.Home()
		for _, e := range run.x.Lock.Skills {
			rep.Skills = append(rep.Skills, run.x.Inspect(e))
		}
		run.x.Close()
	}
	return rep, nil
}
