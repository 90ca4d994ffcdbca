// Package claude plans the skill roots of Claude Code: skills/ in the
// Claude configuration folder (Dir: the home option, else
// $CLAUDE_CONFIG_DIR, else ~/.claude) and .claude/skills in the
// workspace and each ancestor up to the repository root. Claude plugin
// skills are planned by package marketplace.
package claude

import (
	"context"
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Name is the provider's key in ccski.yaml.
const Name = "claude"

// Options are the keys under providers.claude in ccski.yaml.
type Options struct {
	// Home replaces the Claude configuration folder (default
	// $CLAUDE_CONFIG_DIR, else <user dir>/.claude). The provider gives it
	// to the others as a HomeOwner, so that the option moves every Claude
	// root at once: this provider's, the commands provider's and the
	// marketplace provider's (see Dir).
	Home string `koanf:"home" config:"path" trust:"user" doc:"Claude configuration folder. Empty means $CLAUDE_CONFIG_DIR, else <user dir>/.claude."`
	// Precedence is the level whose copy of a skill wins when one name is
	// both in the Claude folder and in the project: "user" (the default,
	// as Claude Code ranks personal skills over project ones) or
	// "project". The provider gives its rule to the others as a Ranker,
	// so that the commands provider ranks .claude/commands alike.
	Precedence providers.PrecedenceOption `koanf:"precedence" trust:"project" doc:"Which copy wins when a skill (or command) is both in the Claude folder and in the project: user (personal, as Claude Code ranks them) or project."`
}

// Order is Claude Code's rule for a skill found both in the Claude folder
// and in a project: Claude Code documents personal skills
// (~/.claude/skills) above project ones.
var Order = providers.HostOrder{Provider: Name, Prefers: pipeline.LocationUser,
	Rule: "Claude Code ranks personal over project"}

// Home is the Claude configuration folder: the home option, else
// $CLAUDE_CONFIG_DIR, else <user dir>/.claude.
var Home = providers.HomeFolder{Provider: Name, Var: "CLAUDE_CONFIG_DIR", Folder: ".claude"}

// Dir returns the Claude configuration folder in env: the one the claude
// provider set (its home option), else $CLAUDE_CONFIG_DIR, else
// <user dir>/.claude. Every reader of Claude's files takes it from here.
func Dir(env providers.Env) string { return Home.From(env) }

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name:    Name,
		Doc:     "Claude Code: ~/.claude/skills and .claude/skills in the workspace and its ancestors up to the repository root.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: Name}},
		Folders: []string{".claude"},
		Kinds:   []pipeline.Kind{pipeline.KindWorkspaceAgent, pipeline.KindUserAgent},
		New:     New,
	}
}

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options {
	return &Options{Precedence: providers.PrecedenceOption(Order.Prefers)}
}

// Claude is the Claude Code provider.
type Claude struct {
	opts Options
	rule *pipeline.Precedence
}

var (
	_ providers.Provider  = (*Claude)(nil)
	_ providers.Ranker    = (*Claude)(nil)
	_ providers.HomeOwner = (*Claude)(nil)
	_ providers.HostOwner = (*Claude)(nil)
)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed(Name, defaultOptions, func(o *Options) (providers.Provider, error) {
	return &Claude{opts: *o, rule: Order.Precedence(o.Precedence)}, nil
})

// Name returns "claude".
func (c *Claude) Name() string { return Name }

// Rule returns Claude's precedence rule as the precedence option sets it.
func (c *Claude) Rule() *pipeline.Precedence { return c.rule }

// Home returns the Claude configuration folder in env, as the home option
// sets it.
func (c *Claude) Home(env providers.Env) string { return Home.Resolve(env, c.opts.Home) }

// Host returns Claude Code, whose skill switches the provider reads.
func (c *Claude) Host() providers.Host { return host }

// Plan lists the workspace roots, nearest first, then the user root,
// skills/ in the Claude folder. Every root carries the provider's rule.
// It also reads the skill switches of the settings files
// (skillOverrides; see SettingsFiles).
func (c *Claude) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	env = env.WithHome(Name, c.Home(env))
	roots := providers.AgentRoots(env, filepath.Join(".claude", "skills"), filepath.Join(Dir(env), "skills"),
		pipeline.Root{Agent: Name, Provider: Name, Precedence: c.rule, Hosts: []string{HostName},
			FolderNames: true})
	switches, diags, files := readSwitches(env)
	return providers.Plan{Roots: roots, Switches: switches, Diagnostics: diags, Manifests: files}, nil
}
