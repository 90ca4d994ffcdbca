// Package cursor plans the skill folders of Cursor: .cursor/skills in the
// workspace and its ancestors up to the repository root, and
// ~/.cursor/skills.
//
// Before this provider, the agents provider found these folders as the
// dynamic agent "cursor"; this one plans them with the same label,
// locations, kinds and depths, so that every record keeps its id, and
// claims .cursor so that the agents provider leaves it alone. Cursor reads
// .agents/skills, .claude/skills and .codex/skills too; those folders are
// the agents, claude and codex providers'.
//
// Cursor's documentation (cursor.com/docs/skills) lists its folders but no
// order between a project and a personal skill of the same name; ccski
// ranks the project's first, as the agents provider did and as most hosts
// do. providers.cursor.precedence changes that.
package cursor

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Name is the provider's key in ccski.yaml, and the agent label of its
// records.
const Name = "cursor"

// Folder is the folder below each workspace folder and below the user
// folder that holds Cursor's skills.
const Folder = ".cursor/skills"

// Order is the rule for a skill found both in a project folder and in the
// user folder. Cursor documents none; the project's copy wins, as it did
// when the agents provider planned these folders.
var Order = providers.HostOrder{Provider: Name, Prefers: pipeline.LocationProject,
	Rule: "Cursor documents no order; ccski ranks project over personal"}

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name:    Name,
		Doc:     "Cursor: .cursor/skills in the workspace and its ancestors, and ~/.cursor/skills.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: Name}},
		Folders: []string{".cursor"},
		Kinds:   []pipeline.Kind{pipeline.KindWorkspaceAgent, pipeline.KindUserAgent},
		New:     New,
	}
}

// Options are the keys under providers.cursor in ccski.yaml.
type Options struct {
	// Precedence is the level whose copy of a skill wins when one name is
	// both in a project folder and in ~/.cursor/skills: "project" (the
	// default) or "user".
	Precedence providers.PrecedenceOption `koanf:"precedence" trust:"project" doc:"Which copy wins when a skill is both in a project's .cursor/skills and in ~/.cursor/skills: project (the default; Cursor documents no order) or user."`
}

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options {
	return &Options{Precedence: providers.PrecedenceOption(Order.Prefers)}
}

// Provider is the Cursor provider. It is immutable and safe for
// concurrent use.
type Provider struct {
	rule *pipeline.Precedence
}

var (
	_ providers.Provider = (*Provider)(nil)
	_ providers.Ranker   = (*Provider)(nil)
)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed(Name, defaultOptions, func(o *Options) (providers.Provider, error) {
	return &Provider{rule: Order.Precedence(o.Precedence)}, nil
})

// Rule returns Cursor's precedence rule as the precedence option sets it.
func (p *Provider) Rule() *pipeline.Precedence { return p.rule }

// Name returns "cursor".
func (p *Provider) Name() string { return Name }

// Plan lists .cursor/skills in each workspace folder, nearest first, then
// ~/.cursor/skills, every root with the provider's precedence rule.
func (p *Provider) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	if err := ctx.Err(); err != nil {
		return providers.Plan{}, fmt.Errorf("%s: %w", Name, err)
	}
	folder := filepath.FromSlash(Folder)
	roots := providers.AgentRoots(env, folder, filepath.Join(env.UserDir, folder),
		pipeline.Root{Agent: Name, Provider: Name, Precedence: p.rule})
	return providers.Plan{Roots: roots}, nil
}
