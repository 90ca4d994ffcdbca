package action

// This file adds to doctor's per-host views what the host model alone
// does not say: the links a host needs that became text files or are
// gone (and their repair, --fix), what the host's listing budget cuts or
// drops, and the host's own answer (--ask-host).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/hostask"
	"github.com/ccski/ccski/internal/hostview"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/linkfix"
	"github.com/ccski/ccski/internal/listbudget"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/agents"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
	"github.com/ccski/ccski/providers/copilot"
)

// DoctorFix is one repair doctor --fix made or could not make.
type DoctorFix struct {
	// Path is the link repaired; Detail what was wrong.
	Path   string `json:"path"`
	Detail string `json:"detail"`
	// Error is why the repair was not made; "" when it was.
	Error string `json:"error,omitempty"`
	// Target is what the link made (or, with DryRun, to be made) at Path
	// leads to.
	Target string `json:"target"`
	// DryRun is true when nothing was written (doctor --fix --dry-run).
	DryRun bool `json:"dryRun,omitempty"`
}

// plannedFixes are the repairs --fix would make, for --dry-run.
func plannedFixes(problems []linkfix.Problem) []DoctorFix {
	out := []DoctorFix{}
	for _, p := range problems {
		out = append(out, DoctorFix{Path: p.Path, Target: p.Target, Detail: p.Detail(), DryRun: true})
	}
	return out
}

// linkProblems returns the links the hosts need and lack: text files in
// place of links in every skills folder a host reads, and the links the
// project's and the user's ccski.lock record that are gone.
func linkProblems(snap *pipeline.Snapshot, env providers.Env) []linkfix.Problem {
	project, _ := configs.ProjectRoot(env.Workspace, env.UserDir)
	base := func(dir string) string {
		for _, b := range []string{project, env.UserDir} {
			if b != "" && (dir == b || strings.HasPrefix(dir, b+string(filepath.Separator))) {
				return b
			}
		}
		return ""
	}
	var out []linkfix.Problem
	seen := map[string]bool{}
	add := func(p linkfix.Problem) {
		if !seen[p.Path] {
			seen[p.Path] = true
			out = append(out, p)
		}
	}
	for _, r := range snap.Roots {
		if r.Plugin != nil || r.Type.OrSkill() != pipeline.TypeSkill || r.Kind == pipeline.KindSystem {
			continue
		}
		for _, p := range linkfix.TextLinks(r.Path, base(r.Path)) {
			add(p)
		}
	}
	for _, s := range []install.Scope{install.ScopeProject, install.ScopeUser} {
		layout, err := installLayout(env, s)
		if err != nil {
			continue
		}
		lock, err := install.ReadLock(layout.LockFile, layout.Base, s == install.ScopeProject)
		if err != nil {
			continue
		}
		for _, p := range linkfix.MissingLinks(layout, lock) {
			add(p)
		}
	}
	return out
}

// linkVerdicts are the verdicts of host h on the link problems in the
// folders it reads.
func linkVerdicts(h hostview.Host, snap *pipeline.Snapshot, problems []linkfix.Problem) []hostview.Verdict {
	reads := map[string]bool{}
	for _, r := range snap.Roots {
		if h.Reads(r.Root) {
			reads[r.Path] = true
		}
	}
	var out []hostview.Verdict
	for _, p := range problems {
		dir := filepath.Dir(p.Path)
		if !reads[dir] {
			continue
		}
		code := hostview.LinkIsText
		if p.Kind == linkfix.Missing {
			code = hostview.LinkMissing
		}
		out = append(out, hostview.Verdict{Name: filepath.Base(p.Path), File: p.Path, Code: code, Problem: true,
			Detail: p.Detail(), Setting: p.Lock})
	}
	return out
}

// fixLinks repairs problems, in order.
func fixLinks(problems []linkfix.Problem) []DoctorFix {
	out := []DoctorFix{}
	for _, p := range problems {
		f := DoctorFix{Path: p.Path, Target: p.Target, Detail: p.Detail()}
		if err := linkfix.Fix(p); err != nil {
			f.Error = err.Error()
		}
		out = append(out, f)
	}
	return out
}

// listingVerdicts are the verdicts on the skills host v loads whose
// description its listing budget cuts or drops, or that it leaves out of
// the listing, for the hosts whose budget ccski knows (Claude Code,
// Codex).
func listingVerdicts(v hostview.View, snap *pipeline.Snapshot, env providers.Env) []hostview.Verdict {
	type item struct {
		x     hostview.Verdict
		r     *pipeline.Record
		entry listbudget.Entry
		rank  int
	}
	var items []item
	for _, x := range v.Loads {
		r := snap.ByID(x.ID)
		if r == nil || x.Code == hostview.ExplicitOnly {
			continue
		}
		it := item{x: x, r: r}
		switch v.Host {
		case claude.HostName:
			it.entry = listbudget.Entry{Name: claudeListedName(r), Description: r.Description}
			it.rank = map[pipeline.Location]int{pipeline.LocationUser: 0, pipeline.LocationProject: 1}[r.Location]
			if r.Plugin != nil {
				it.rank = 2
			}
		case codex.HostName:
			rel, err := filepath.Rel(r.Root, r.File)
			if err != nil {
				rel = filepath.Base(r.Dir) + "/SKILL.md"
			}
			it.entry = listbudget.Entry{Name: r.Name, Description: r.Description,
				Suffix: " (file: r0/" + filepath.ToSlash(rel) + ")"}
			it.rank = map[pipeline.Location]int{pipeline.LocationSystem: 0, pipeline.LocationProject: 1}[r.Location]
			if r.Location != pipeline.LocationSystem && r.Location != pipeline.LocationProject {
				it.rank = 2
			}
		default:
			return nil
		}
		items = append(items, it)
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].rank != items[j].rank {
			return items[i].rank < items[j].rank
		}
		return items[i].entry.Name < items[j].entry.Name
	})
	entries := make([]listbudget.Entry, len(items))
	for i, it := range items {
		entries[i] = it.entry
	}
	var fates []listbudget.Outcome
	var where string
	switch v.Host {
	case claude.HostName:
		opt := claudeBudget(env)
		fates = listbudget.Claude(entries, opt)
		where = fmt.Sprintf("Claude Code's listing budget (%d characters: skillListingBudgetFraction %g of a %d-token context window)",
			opt.Budget(), orDefault(opt.Fraction, listbudget.ClaudeFraction), orDefaultInt(opt.ContextTokens, listbudget.ClaudeContextTokens))
	case codex.HostName:
		opt := codexBudget(env)
		fates = listbudget.Codex(entries, opt)
		where = fmt.Sprintf("Codex's listing budget (%d tokens: 2%% of a %d-token context window)", opt.Budget(),
			orDefaultInt(opt.ContextTokens, listbudget.CodexContextTokens))
	}
	var out []hostview.Verdict
	for i, f := range fates {
		x := items[i].x
		x.Loads = true
		switch f.Fate {
		case listbudget.Whole:
			continue
		case listbudget.Cut:
			x.Code = hostview.ListingCut
			x.Detail = fmt.Sprintf("its description is cut to %d of %d characters by %s", f.Shown, f.Length, where)
		case listbudget.NameOnly:
			x.Code = hostview.ListingNameOnly
			x.Detail = fmt.Sprintf("listed by name alone, its %d-character description dropped by %s", f.Length, where)
		case listbudget.Dropped:
			x.Code = hostview.ListingDropped
			x.Detail = "left out of the listing by " + where + ": the model does not know it exists unless the user names it"
		}
		out = append(out, x)
	}
	return out
}

// claudeListedName is the name Claude Code lists r by: its folder's name
// (after the plugin's and ":" for a plugin's skill), the frontmatter name
// following in parentheses when it differs.
func claudeListedName(r *pipeline.Record) string {
	prefix := ""
	if r.Plugin != nil {
		prefix = r.Plugin.Plugin + ":"
	}
	name := prefix + filepath.Base(r.Dir)
	if fm := strings.TrimPrefix(r.Name, prefix); fm != filepath.Base(r.Dir) {
		name += " (" + prefix + fm + ")"
	}
	return name
}

// claudeBudget reads skillListingBudgetFraction and
// skillListingMaxDescChars from Claude Code's settings files, a later
// file winning.
func claudeBudget(env providers.Env) listbudget.ClaudeOptions {
	var opt listbudget.ClaudeOptions
	for _, f := range claude.SettingsFiles(env) {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			continue
		}
		var s struct {
			Fraction *float64 `json:"skillListingBudgetFraction"`
			MaxDesc  *int     `json:"skillListingMaxDescChars"`
		}
		if json.Unmarshal(data, &s) != nil {
			continue
		}
		if s.Fraction != nil && *s.Fraction > 0 {
			opt.Fraction = *s.Fraction
		}
		if s.MaxDesc != nil && *s.MaxDesc > 0 {
			opt.MaxDescChars = *s.MaxDesc
		}
	}
	return opt
}

// contextWindow is a top-level model_context_window in Codex's
// config.toml.
var contextWindow = regexp.MustCompile(`(?m)^\s*model_context_window\s*=\s*(\d+)\s*(?:#.*)?$`)

// codexBudget reads model_context_window from Codex's config.toml (its
// top level, before the first table).
func codexBudget(env providers.Env) listbudget.CodexOptions {
	data, err := os.ReadFile(filepath.Join(codex.Dir(env), "config.toml"))
	if err != nil {
		return listbudget.CodexOptions{}
	}
	top := string(data)
	if i := regexp.MustCompile(`(?m)^\s*\[`).FindStringIndex(top); i != nil {
		top = top[:i[0]]
	}
	if m := contextWindow.FindStringSubmatch(top); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return listbudget.CodexOptions{ContextTokens: n}
		}
	}
	return listbudget.CodexOptions{}
}

func orDefault(v, d float64) float64 {
	if v <= 0 {
		return d
	}
	return v
}

func orDefaultInt(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// askHost runs the host's own offline way of saying what it loads, when
// it has one and its command is on PATH, and diffs it with v: Codex's
// `codex debug prompt-input`, Gemini CLI's `gemini skills list` and
// Copilot's `copilot skill list` by skill name, Claude Code's `claude
// plugin list --json` by plugin. It returns nil when the host offers none
// (Cursor).
//
// Claude Code prints its skill listing only inside a session, which
// writes to the home folder (a transcript, ~/.claude.json, its plugin
// bookkeeping) and runs the user's hooks and MCP servers: doctor does not
// start one.
func askHost(ctx context.Context, v hostview.View, snap *pipeline.Snapshot, env providers.Env) (*AskHostDiff, error) {
	listers := map[string]struct {
		list    func(ctx context.Context, bin, dir string, env []string) ([]hostask.Listed, error)
		command string
	}{
		codex.HostName:    {hostask.Codex, hostask.CodexCommand},
		agents.GeminiHost: {hostask.Gemini, hostask.GeminiCommand},
		copilot.Name:      {hostask.Copilot, hostask.CopilotCommand},
	}
	if l, ok := listers[v.Host]; ok {
		listed, err := l.list(ctx, "", env.Workspace, nil)
		if err != nil {
			return nil, err
		}
		var host, model []string
		for _, x := range listed {
			host = append(host, x.Name)
		}
		for _, x := range v.Loads {
			// A skill the host lists only when named is in neither
			// listing (verdict ExplicitOnly, Codex only).
			if x.Code != hostview.ExplicitOnly {
				model = append(model, x.Name)
			}
		}
		d := &AskHostDiff{Command: l.command}
		d.OnlyHost, d.OnlyModel = hostask.Diff(host, model)
		return d, nil
	}
	switch v.Host {
	case claude.HostName:
		plugins, err := hostask.ClaudePlugins(ctx, "", env.Workspace, nil)
		if err != nil {
			return nil, err
		}
		// A plugin that loads and has no skills is not a difference.
		var host, model []string
		for _, p := range plugins {
			if fi, err := os.Stat(filepath.Join(p.InstallPath, "skills")); p.Loads() && err == nil && fi.IsDir() {
				host = append(host, p.ID)
			}
		}
		for _, x := range v.Loads {
			if r := snap.ByID(x.ID); r != nil && r.Plugin != nil && !slices.Contains(model, r.Plugin.Key()) {
				model = append(model, r.Plugin.Key())
			}
		}
		d := &AskHostDiff{Command: hostask.ClaudePluginsCommand + " (plugins that load; Claude Code prints its skill " +
			"listing only in a session, which doctor does not start)"}
		d.OnlyHost, d.OnlyModel = hostask.Diff(host, model)
		return d, nil
	}
	return nil, nil
}
