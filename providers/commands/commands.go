// Package commands plans the roots of slash commands: Markdown files whose
// body is a prompt template, served by `ccski mcp` as MCP prompts.
//
// Claude Code keeps its legacy commands in .claude/commands (in the
// workspace and each ancestor up to the repository root) and in
// <Claude folder>/commands, where the Claude folder is claude.Dir
// (providers.claude.home, else $CLAUDE_CONFIG_DIR, else ~/.claude);
// sub-folders nest ("frontend/review.md" is "frontend:review"). Codex keeps
// custom prompts as top-level *.md files in <Codex folder>/prompts, where
// the Codex folder is codex.Dir (providers.codex.home, else $CODEX_HOME,
// else ~/.codex). Each host's commands follow that host's precedence rule
// (providers.claude.precedence, providers.codex.precedence), which the
// claude and codex providers set in the Env (see providers.Ranker).
// The commands of Claude plugins are planned by package marketplace.
package commands

import (
	"context"
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
)

// Options are the keys under providers.commands in ccski.yaml. Both are
// true unless set.
type Options struct {
	// Claude reads .claude/commands in the workspace and in the Claude
	// configuration folder.
	Claude bool `koanf:"claude" trust:"stricter=true<false" doc:"Read .claude/commands in the workspace (up to the repository root) and in the Claude configuration folder."`
	// Codex reads the Codex custom prompts in <Codex folder>/prompts.
	Codex bool `koanf:"codex" trust:"stricter=true<false" doc:"Read the Codex custom prompts in ~/.codex/prompts (or $CODEX_HOME/prompts)."`
}

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name: "commands",
		Doc: "Slash commands, served by ccski mcp as MCP prompts: .claude/commands and the Codex custom prompts. " +
			"The commands of Claude plugins come from the marketplace provider.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: "claude"}, {Name: "codex"}},
		Folders: []string{".claude", ".codex"},
		Kinds:   []pipeline.Kind{pipeline.KindWorkspaceAgent, pipeline.KindUserAgent},
		New:     New,
	}
}

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options { return &Options{Claude: true, Codex: true} }

// Commands is the slash-command provider. It is immutable and safe for
// concurrent use.
type Commands struct{ opts Options }

var _ providers.Provider = (*Commands)(nil)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed("commands", defaultOptions, func(o *Options) (providers.Provider, error) {
	return &Commands{opts: *o}, nil
})

// Name returns "commands", the provider's key in ccski.yaml.
func (c *Commands) Name() string { return "commands" }

// Plan lists the Claude workspace roots, nearest first, the Claude user
// root, then the Codex prompts root. Every root is optional: most machines
// have none of them, and a missing one only means no commands. Claude's
// roots carry the Claude rule the claude provider set in env, and Codex's
// the Codex rule, so that commands rank their copies as the host's skills
// do.
func (c *Commands) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	var roots []pipeline.Root
	if c.opts.Claude {
		roots = providers.AgentRoots(env, filepath.Join(".claude", "commands"), filepath.Join(claude.Dir(env), "commands"),
			pipeline.Root{Agent: "claude", Provider: "commands", Type: pipeline.TypeCommand, Precedence: claude.Order.From(env)})
	}
	if c.opts.Codex {
		roots = append(roots, pipeline.Root{
			Path: filepath.Join(codex.Dir(env), "prompts"), Agent: "codex", Provider: "commands",
			Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true,
			Type: pipeline.TypeCommand, Flat: true, Precedence: codex.Order.From(env),
		})
	}
	return providers.Plan{Roots: roots}, nil
}
