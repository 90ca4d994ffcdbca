// Package agents plans the skill roots shared between agents and those of
// agents without a provider of their own:
//
//   - .agents/skills (and the legacy .agent/skills) in the workspace, its
//     ancestors up to the repository root, and the user folder;
//   - skills/ at the top of each workspace folder;
//   - .gemini/skills and .openclaw/skills;
//   - dynamic agents: every other immediate hidden child ".<agent>" of the
//     workspace folders or the user folder that holds a skills folder
//     (.cursor/skills gives provider "cursor"). Only immediate children are
//     looked at; .git, caches and the folders of dedicated providers never.
package agents

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Options are the keys under providers.agents in ccski.yaml.
type Options struct {
	// Dynamic turns on discovery of .<agent>/skills folders.
	Dynamic bool `koanf:"dynamic" trust:"stricter=true<false" doc:"Also discover .<agent>/skills folders of agents without a provider of their own (.cursor/skills, ...)."`
	// Precedence is the level whose copy of a skill wins when one name is
	// both in a project folder and in a user folder of this provider:
	// "project" (the default, as Codex, Gemini CLI and OpenClaw rank them)
	// or "user". It applies to every agent this provider plans, the
	// dynamic ones included.
	Precedence providers.PrecedenceOption `koanf:"precedence" trust:"project" doc:"Which copy wins when a skill is both in a project folder and in a user folder of these agents: project (as Codex, Gemini CLI and OpenClaw rank them) or user."`
}

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name: "agents",
		Doc: "Shared agent folders (.agents/skills, skills/, .gemini/skills, ...) and dynamic agents: " +
			"the .<agent>/skills folders of agents without a provider of their own.",
		Options: func() any { return defaultOptions() },
		Labels:  append([]providers.Label{{Name: "agents", Shared: true}}, namedLabels()...),
		Folders: folders(),
		Kinds: []pipeline.Kind{pipeline.KindWorkspaceAgent, pipeline.KindWorkspaceShared, pipeline.KindWorkspaceRoot,
			pipeline.KindUserAgent, pipeline.KindUserShared},
		New: New,
	}
}

// Order is the rule of the agents this provider plans for a skill found
// both in a project folder and in a user folder. Their folders follow the
// hosts that read them: Codex (.agents/skills), Gemini CLI (.gemini/skills
// and .agents/skills) and OpenClaw (skills/, .agents/skills,
// .openclaw/skills) all rank the project first; a dynamic .<agent> follows
// the same rule, as every documented host but Claude Code does.
var Order = providers.HostOrder{Provider: "agents", Prefers: pipeline.LocationProject,
	Rule: "Codex, Gemini CLI and OpenClaw rank project over user"}

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options {
	return &Options{Dynamic: true, Precedence: providers.PrecedenceOption(Order.Prefers)}
}

// Agents is the shared and dynamic agents provider.
type Agents struct {
	opts Options
	rule *pipeline.Precedence
}

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed("agents", defaultOptions, func(o *Options) (providers.Provider, error) {
	return &Agents{opts: *o, rule: Order.Precedence(o.Precedence)}, nil
})

// Rule returns the agents' precedence rule as the precedence option sets
// it.
func (a *Agents) Rule() *pipeline.Precedence { return a.rule }

// Host returns Gemini CLI, whose skill switches the provider reads.
func (a *Agents) Host() providers.Host { return geminiHost }

// Name returns "agents".
func (a *Agents) Name() string { return "agents" }

// named lists the agents that have fixed folders in this provider.
var named = []string{"gemini", "openclaw"}

// shared lists the folders, below a workspace folder or the user folder,
// that several agents read.
var shared = []string{".agents", ".agent"}

// namedLabels returns the labels of the named agents.
func namedLabels() []providers.Label {
	labels := make([]providers.Label, len(named))
	for i, n := range named {
		labels[i] = providers.Label{Name: n}
	}
	return labels
}

// folders returns the hidden folders this provider plans itself.
func folders() []string {
	out := slices.Clone(shared)
	for _, n := range named {
		out = append(out, "."+n)
	}
	return out
}

// notAgents are hidden folders that are never dynamic agents whatever the
// registry holds: version control, caches and tool folders, and the
// filter keywords (".file" is an alias of custom, "all" and "auto" are
// tokens). The folders and names of the registered providers, this one's
// included, come on top of them (providers.Env.Claimed). Names are
// lower-case and matched case-insensitively, since the agent label is
// lower-cased too (".Claude" must not become a second "claude" agent).
var notAgents = []string{
	".git", ".hg", ".svn", ".cache", ".npm", ".yarn", ".pnpm-store", ".local", ".venv", ".tox", ".idea",
	".trash", ".ds_store",
	".file", ".all", ".auto",
}

// reservedSet returns the folder names, lower-cased, that are never
// dynamic agents in env: notAgents, this provider's own folders and
// names, and env.Claimed.
func reservedSet(env providers.Env) map[string]bool {
	set := map[string]bool{}
	for _, list := range [][]string{notAgents, providers.Claimed([]providers.Entry{Entry()}), env.Claimed} {
		for _, n := range list {
			set[strings.ToLower(n)] = true
		}
	}
	return set
}

var agentName = regexp.MustCompile(`^\.[a-zA-Z][a-zA-Z0-9_-]*$`)

// Plan lists workspace roots before user roots; within each level, agent
// folders, then shared folders, then skills/. Every root carries the
// provider's precedence rule. The skills of .agents/skills are read by
// Codex and Gemini CLI, those of .gemini/skills by Gemini CLI (Root.Hosts),
// whose skill switches Plan reads too (skills.disabled; see
// GeminiSettingsFiles).
func (a *Agents) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	var roots []pipeline.Root
	reserved := reservedSet(env)
	for i, ws := range env.WorkspaceDirs {
		for _, n := range named {
			roots = append(roots, root(filepath.Join(ws, "."+n, "skills"), n, pipeline.LocationProject, pipeline.KindWorkspaceAgent, i))
		}
		if a.opts.Dynamic {
			roots = append(roots, dynamic(ws, reserved, pipeline.LocationProject, pipeline.KindWorkspaceAgent, i)...)
		}
		roots = append(roots,
			root(filepath.Join(ws, ".agents", "skills"), "agents", pipeline.LocationProject, pipeline.KindWorkspaceShared, i),
			root(filepath.Join(ws, ".agent", "skills"), "agents", pipeline.LocationProject, pipeline.KindWorkspaceShared, i),
			root(filepath.Join(ws, "skills"), "agents", pipeline.LocationProject, pipeline.KindWorkspaceRoot, i))
	}
	for _, n := range named {
		roots = append(roots, root(filepath.Join(env.UserDir, "."+n, "skills"), n, pipeline.LocationUser, pipeline.KindUserAgent, 0))
	}
	if a.opts.Dynamic {
		roots = append(roots, dynamic(env.UserDir, reserved, pipeline.LocationUser, pipeline.KindUserAgent, 0)...)
	}
	roots = append(roots,
		root(filepath.Join(env.UserDir, ".agents", "skills"), "agents", pipeline.LocationUser, pipeline.KindUserShared, 0),
		root(filepath.Join(env.UserDir, ".agent", "skills"), "agents", pipeline.LocationUser, pipeline.KindUserShared, 0))
	for i := range roots {
		roots[i].Precedence = a.rule
		switch filepath.Base(filepath.Dir(roots[i].Path)) {
		case ".agents":
			roots[i].Hosts = sharedHosts
		case ".gemini":
			roots[i].Hosts = geminiHosts
		}
	}
	switches, diags, files := readGeminiSwitches(env)
	return providers.Plan{Roots: roots, Switches: switches, Diagnostics: diags, Manifests: files}, nil
}

func root(path, provider string, loc pipeline.Location, kind pipeline.Kind, depth int) pipeline.Root {
	return pipeline.Root{Path: path, Agent: provider, Provider: "agents", Location: loc, Kind: kind,
		Depth: depth, Optional: true}
}

// dynamic returns a root for each immediate hidden child of dir that holds
// a skills folder and whose lower-cased name is not reserved, sorted by
// agent name.
func dynamic(dir string, reserved map[string]bool, loc pipeline.Location, kind pipeline.Kind, depth int) []pipeline.Root {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var roots []pipeline.Root
	for _, e := range ents {
		n := e.Name()
		if reserved[strings.ToLower(n)] || !agentName.MatchString(n) {
			continue
		}
		skills := filepath.Join(dir, n, "skills")
		if st, err := os.Stat(skills); err != nil || !st.IsDir() {
			continue
		}
		roots = append(roots, root(skills, strings.ToLower(n[1:]), loc, kind, depth))
	}
	sort.SliceStable(roots, func(i, j int) bool { return roots[i].Agent < roots[j].Agent })
	return roots
}

var (
	_ providers.Provider  = (*Agents)(nil)
	_ providers.Ranker    = (*Agents)(nil)
	_ providers.HostOwner = (*Agents)(nil)
)
