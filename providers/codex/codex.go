// Package codex plans the skill roots of OpenAI Codex: skills/ in the Codex
// folder (Dir: the home option, else $CODEX_HOME, else ~/.codex), .codex/skills in the workspace and its ancestors up to the
// repository root, Codex's bundled skills and the machine-wide
// /etc/codex/skills.
//
// Codex writes its bundled skills (skill-creator, skill-installer, ...)
// to the hidden skills/.system folder of the Codex folder and loads them
// in its System scope, below the user's skills. The walk of skills/ skips
// hidden folders, so .system is planned as a root of its own, at location
// and kind system: its skills are listed as Codex system skills and lose
// to a user or project copy of the same name.
package codex

import (
	"context"
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Name is the provider's key in ccski.yaml.
const Name = "codex"

// Options are the keys under providers.codex in ccski.yaml.
type Options struct {
	// Home replaces the Codex folder (default $CODEX_HOME, else
	// <user dir>/.codex). The provider gives it to the others as a
	// HomeOwner: the commands and codex_plugins providers read the same
	// folder (see Dir).
	Home string `koanf:"home" config:"path" trust:"user" doc:"Codex folder. Empty means $CODEX_HOME, else <user dir>/.codex."`
	// SystemDirs are machine-wide skill folders, scanned when present.
	SystemDirs []string `koanf:"system_dirs" config:"path" trust:"user" doc:"Machine-wide skill folders, scanned when present."`
	// Precedence is the level whose copy of a skill wins when one name is
	// both in the project and in the Codex folder: "project" (the default,
	// as Codex ranks repo skills over user ones) or "user". The provider
	// gives its rule to the others as a Ranker, so that the commands
	// provider ranks Codex prompts alike.
	Precedence providers.PrecedenceOption `koanf:"precedence" trust:"project" doc:"Which copy wins when a skill is both in the project and in the Codex folder: project (repo, as Codex ranks them) or user."`
}

// Order is Codex's rule for a skill found both in a project and in the
// Codex folder: Codex ranks repo skills (.agents/skills and the legacy
// .codex/skills, from the workspace up to the repository root) above user
// ones ($HOME/.agents/skills, $CODEX_HOME/skills).
var Order = providers.HostOrder{Provider: Name, Prefers: pipeline.LocationProject,
	Rule: "Codex ranks repo over user"}

// Home is the Codex folder: the home option, else $CODEX_HOME, else
// <user dir>/.codex.
var Home = providers.HomeFolder{Provider: Name, Var: "CODEX_HOME", Folder: ".codex"}

// Dir returns the Codex folder in env: the one the codex provider set (its
// home option), else $CODEX_HOME, else <user dir>/.codex. Every reader of
// Codex's files takes it from here.
func Dir(env providers.Env) string { return Home.From(env) }

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name: Name,
		Doc: "OpenAI Codex: ~/.codex/skills, .codex/skills in the workspace and its ancestors, " +
			"Codex's bundled skills (~/.codex/skills/.system) and machine-wide folders; " +
			"the last two are listed at location system, below user skills.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: Name}},
		Folders: []string{".codex"},
		Kinds:   []pipeline.Kind{pipeline.KindWorkspaceAgent, pipeline.KindUserAgent, pipeline.KindSystem},
		New:     New,
	}
}

// DefaultSystemDir is the machine-wide skill folder Codex reads, the
// default of the system_dirs option.
const DefaultSystemDir = "/etc/codex/skills"

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options {
	return &Options{SystemDirs: []string{DefaultSystemDir},
		Precedence: providers.PrecedenceOption(Order.Prefers)}
}

// SystemFolder is the folder below skills/ in the Codex folder where Codex
// writes its bundled skills.
const SystemFolder = ".system"

// Codex is the Codex provider.
type Codex struct {
	opts Options
	rule *pipeline.Precedence
}

var (
	_ providers.Provider  = (*Codex)(nil)
	_ providers.Ranker    = (*Codex)(nil)
	_ providers.HomeOwner = (*Codex)(nil)
	_ providers.HostOwner = (*Codex)(nil)
)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed(Name, defaultOptions, func(o *Options) (providers.Provider, error) {
	return &Codex{opts: *o, rule: Order.Precedence(o.Precedence)}, nil
})

// Name returns "codex".
func (c *Codex) Name() string { return Name }

// Rule returns Codex's precedence rule as the precedence option sets it.
func (c *Codex) Rule() *pipeline.Precedence { return c.rule }

// Home returns the Codex folder in env, as the home option sets it.
func (c *Codex) Home(env providers.Env) string { return Home.Resolve(env, c.opts.Home) }

// Host returns Codex, whose skill switches the provider reads.
func (c *Codex) Host() providers.Host { return host }

// Plan lists the workspace roots, nearest first, the user root (skills/ in
// the Codex folder), the bundled skills (skills/.system there), then the
// machine-wide system roots. The workspace and user roots carry the
// provider's rule; system roots need none, as their kind ranks below both
// levels. It also reads the skill switches of the user's config.toml
// ([[skills.config]]; see ConfigFile).
func (c *Codex) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	env = env.WithHome(Name, c.Home(env))
	hosts := []string{HostName}
	user := filepath.Join(Dir(env), "skills")
	roots := providers.AgentRoots(env, filepath.Join(".codex", "skills"), user,
		pipeline.Root{Agent: Name, Provider: Name, Precedence: c.rule, Hosts: hosts})
	roots = append(roots, pipeline.Root{
		Path: filepath.Join(user, SystemFolder), Agent: Name, Provider: Name,
		Location: pipeline.LocationSystem, Kind: pipeline.KindSystem, Optional: true, Hosts: hosts,
	})
	for _, d := range c.opts.SystemDirs {
		roots = append(roots, pipeline.Root{
			Path: d, Agent: Name, Provider: Name,
			Location: pipeline.LocationSystem, Kind: pipeline.KindSystem, Optional: true, Hosts: hosts,
		})
	}
	switches, diags, files := readSwitches(env)
	return providers.Plan{Roots: roots, Switches: switches, Diagnostics: diags, Manifests: files}, nil
}
