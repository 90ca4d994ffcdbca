// Package claude plans the skill roots of Claude Code: skills/ in the
// Claude configuration folder (providers.Env.ClaudeHome: the home option,
// else $CLAUDE_CONFIG_DIR, else ~/.claude) and .claude/skills in the
// workspace and each ancestor up to the repository root. Claude plugin
// skills are planned by package marketplace.
package claude

import (
	"context"
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Options are the keys under providers.claude in ccski.yaml.
type Options struct {
	// Home replaces the Claude configuration folder (default
	// $CLAUDE_CONFIG_DIR, else <user dir>/.claude). It is decoded here only
	// to be validated: engine.New puts it in providers.Env.ClaudeHome, which
	// this provider, commands and marketplace all read, so that the option
	// moves every Claude root at once.
	Home string `koanf:"home" config:"path" doc:"Claude configuration folder. Empty means $CLAUDE_CONFIG_DIR, else <user dir>/.claude."`
	// Precedence is the level whose copy of a skill wins when one name is
	// both in the Claude folder and in the project: "user" (the default,
	// as Claude Code ranks personal skills over project ones) or
	// "project". Like Home, it is validated here and applied by engine.New
	// through providers.Env.ClaudePrecedence, which this provider and
	// commands (for .claude/commands) both read.
	Precedence providers.PrecedenceOption `koanf:"precedence" doc:"Which copy wins when a skill (or command) is both in the Claude folder and in the project: user (personal, as Claude Code ranks them) or project."`
}

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name:    "claude",
		Doc:     "Claude Code: ~/.claude/skills and .claude/skills in the workspace and its ancestors up to the repository root.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: "claude"}},
		Folders: []string{".claude"},
		Kinds:   []pipeline.Kind{pipeline.KindWorkspaceAgent, pipeline.KindUserAgent},
		New:     New,
		Host:    Host(),
	}
}

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options {
	return &Options{Precedence: providers.PrecedenceOption(providers.ClaudeOrder.Prefers)}
}

// Claude is the Claude Code provider.
type Claude struct{ opts Options }

// New builds the provider from its options.
func New(options map[string]any) (providers.Provider, error) {
	c := &Claude{opts: *defaultOptions()}
	if err := providers.Decode("claude", options, &c.opts); err != nil {
		return nil, err
	}
	if _, err := providers.ClaudeOrder.Precedence(string(c.opts.Precedence)); err != nil {
		return nil, err
	}
	return c, nil
}

// Name returns "claude".
func (c *Claude) Name() string { return "claude" }

// Plan lists the workspace roots, nearest first, then the user root,
// skills/ in env's Claude folder. Every root carries env's Claude rule
// (providers.Env.ClaudeRule). It also reads the skill switches of the
// settings files (skillOverrides; see SettingsFiles).
func (c *Claude) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	rule := env.ClaudeRule()
	hosts := []string{HostName}
	roots := providers.WorkspaceRoots(env, filepath.Join(".claude", "skills"), pipeline.Root{
		Agent: "claude", Provider: "claude", Location: pipeline.LocationProject,
		Kind: pipeline.KindWorkspaceAgent, Optional: true, Precedence: rule, Hosts: hosts,
	})
	roots = append(roots, pipeline.Root{
		Path: filepath.Join(env.ClaudeDir(), "skills"), Agent: "claude", Provider: "claude",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true, Precedence: rule, Hosts: hosts,
	})
	switches, diags, files := readSwitches(env)
	return providers.Plan{Roots: roots, Switches: switches, Diagnostics: diags, Manifests: files}, nil
}

var _ providers.Provider = (*Claude)(nil)
