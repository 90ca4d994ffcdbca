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
	"sort"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Options are the keys under providers.agents in ccski.yaml.
type Options struct {
	// Dynamic turns on discovery of .<agent>/skills folders.
	Dynamic bool `koanf:"dynamic"`
	// Precedence is the level whose copy of a skill wins when one name is
	// both in a project folder and in a user folder of this provider:
	// "project" (the default, as Codex, Gemini CLI and OpenClaw rank them)
	// or "user". It applies to every agent this provider plans, the
	// dynamic ones included.
	Precedence string `koanf:"precedence"`
}

// Agents is the shared and dynamic agents provider.
type Agents struct {
	opts Options
	rule *pipeline.Precedence
}

// New builds the provider from its options.
func New(options map[string]any) (providers.Provider, error) {
	a := &Agents{opts: Options{Dynamic: true}}
	if err := providers.Decode("agents", options, &a.opts); err != nil {
		return nil, err
	}
	rule, err := providers.AgentsOrder.Precedence(a.opts.Precedence)
	if err != nil {
		return nil, err
	}
	a.rule = rule
	return a, nil
}

// Name returns "agents".
func (a *Agents) Name() string { return "agents" }

// named lists the agents that have fixed folders in this provider.
var named = []string{"gemini", "openclaw"}

// reserved folders are never dynamic agents: version control, caches and
// tool folders, the folders that dedicated providers or this one already
// plan, and names that would pose as another provider or a filter keyword
// (".project" would pass for skill_dirs, ".file" is an alias of custom,
// "all" and "auto" are tokens). Keys are lower-case and matched
// case-insensitively, since the provider name is lower-cased too (".Claude"
// must not become a second "claude" provider).
var reserved = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".cache": true, ".npm": true, ".yarn": true,
	".pnpm-store": true, ".local": true, ".venv": true, ".tox": true, ".idea": true,
	".agents": true, ".agent": true, ".claude": true, ".codex": true, ".gemini": true, ".openclaw": true,
	".trash": true, ".ds_store": true,
	".custom": true, ".project": true, ".marketplace": true, ".file": true, ".all": true, ".auto": true,
}

var agentName = regexp.MustCompile(`^\.[a-zA-Z][a-zA-Z0-9_-]*$`)

// Plan lists workspace roots before user roots; within each level, agent
// folders, then shared folders, then skills/. Every root carries the
// provider's precedence rule.
func (a *Agents) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	var roots []pipeline.Root
	for i, ws := range env.WorkspaceDirs {
		for _, n := range named {
			roots = append(roots, root(filepath.Join(ws, "."+n, "skills"), n, pipeline.LocationProject, pipeline.KindWorkspaceAgent, i))
		}
		if a.opts.Dynamic {
			roots = append(roots, dynamic(ws, pipeline.LocationProject, pipeline.KindWorkspaceAgent, i)...)
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
		roots = append(roots, dynamic(env.UserDir, pipeline.LocationUser, pipeline.KindUserAgent, 0)...)
	}
	roots = append(roots,
		root(filepath.Join(env.UserDir, ".agents", "skills"), "agents", pipeline.LocationUser, pipeline.KindUserShared, 0),
		root(filepath.Join(env.UserDir, ".agent", "skills"), "agents", pipeline.LocationUser, pipeline.KindUserShared, 0))
	for i := range roots {
		roots[i].Precedence = a.rule
	}
	return providers.Plan{Roots: roots}, nil
}

func root(path, provider string, loc pipeline.Location, kind pipeline.Kind, depth int) pipeline.Root {
	return pipeline.Root{Path: path, Agent: provider, Provider: "agents", Location: loc, Kind: kind,
		Depth: depth, Optional: true}
}

// dynamic returns a root for each immediate hidden child of dir that holds
// a skills folder, sorted by agent name.
func dynamic(dir string, loc pipeline.Location, kind pipeline.Kind, depth int) []pipeline.Root {
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

var _ providers.Provider = (*Agents)(nil)
