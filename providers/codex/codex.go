// Package codex plans the skill roots of OpenAI Codex: skills/ in the Codex
// folder (providers.Env.CodexHome: the home option, else $CODEX_HOME, else
// ~/.codex), .codex/skills in the workspace and its ancestors up to the
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

// Options are the keys under providers.codex in ccski.yaml.
type Options struct {
	// Home replaces the Codex folder (default $CODEX_HOME, else
	// <user dir>/.codex). It is decoded here only to be validated:
	// engine.New puts it in providers.Env.CodexHome, which this provider
	// and commands both read.
	Home string `koanf:"home" config:"path" doc:"Codex folder. Empty means $CODEX_HOME, else <user dir>/.codex."`
	// SystemDirs are machine-wide skill folders, scanned when present.
	SystemDirs []string `koanf:"system_dirs" config:"path" doc:"Machine-wide skill folders, scanned when present."`
	// Precedence is the level whose copy of a skill wins when one name is
	// both in the project and in the Codex folder: "project" (the default,
	// as Codex ranks repo skills over user ones) or "user". Like Home, it
	// is validated here and applied by engine.New through
	// providers.Env.CodexPrecedence, which this provider and commands (for
	// Codex prompts) both read.
	Precedence providers.PrecedenceOption `koanf:"precedence" doc:"Which copy wins when a skill is both in the project and in the Codex folder: project (repo, as Codex ranks them) or user."`
}

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name: "codex",
		Doc: "OpenAI Codex: ~/.codex/skills, .codex/skills in the workspace and its ancestors, " +
			"Codex's bundled skills (~/.codex/skills/.system) and machine-wide folders; " +
			"the last two are listed at location system, below user skills.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: "codex"}},
		Folders: []string{".codex"},
		Kinds:   []pipeline.Kind{pipeline.KindWorkspaceAgent, pipeline.KindUserAgent, pipeline.KindSystem},
		New:     New,
		Host:    Host(),
	}
}

// DefaultSystemDir is the machine-wide skill folder Codex reads, the
// default of the system_dirs option.
const DefaultSystemDir = "/etc/codex/skills"

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options {
	return &Options{SystemDirs: []string{DefaultSystemDir},
		Precedence: providers.PrecedenceOption(providers.CodexOrder.Prefers)}
}

// SystemFolder is the folder below skills/ in the Codex folder where Codex
// writes its bundled skills.
const SystemFolder = ".system"

// Codex is the Codex provider.
type Codex struct{ opts Options }

// New builds the provider from its options.
func New(options map[string]any) (providers.Provider, error) {
	c := &Codex{opts: *defaultOptions()}
	if err := providers.Decode("codex", options, &c.opts); err != nil {
		return nil, err
	}
	if _, err := providers.CodexOrder.Precedence(string(c.opts.Precedence)); err != nil {
		return nil, err
	}
	return c, nil
}

// Name returns "codex".
func (c *Codex) Name() string { return "codex" }

// Plan lists the workspace roots, nearest first, the user root (skills/ in
// env's Codex folder), the bundled skills (skills/.system there), then the
// machine-wide system roots. The workspace and user roots carry env's
// Codex rule (providers.Env.CodexRule); system roots need none, as their
// kind ranks below both levels. It also reads the skill switches of the
// user's config.toml ([[skills.config]]; see ConfigFile).
func (c *Codex) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	rule := env.CodexRule()
	hosts := []string{HostName}
	roots := providers.WorkspaceRoots(env, filepath.Join(".codex", "skills"), pipeline.Root{
		Agent: "codex", Provider: "codex", Location: pipeline.LocationProject,
		Kind: pipeline.KindWorkspaceAgent, Optional: true, Precedence: rule, Hosts: hosts,
	})
	user := filepath.Join(env.CodexDir(), "skills")
	roots = append(roots, pipeline.Root{
		Path: user, Agent: "codex", Provider: "codex",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true, Precedence: rule, Hosts: hosts,
	}, pipeline.Root{
		Path: filepath.Join(user, SystemFolder), Agent: "codex", Provider: "codex",
		Location: pipeline.LocationSystem, Kind: pipeline.KindSystem, Optional: true, Hosts: hosts,
	})
	for _, d := range c.opts.SystemDirs {
		roots = append(roots, pipeline.Root{
			Path: d, Agent: "codex", Provider: "codex",
			Location: pipeline.LocationSystem, Kind: pipeline.KindSystem, Optional: true, Hosts: hosts,
		})
	}
	switches, diags, files := readSwitches(env)
	return providers.Plan{Roots: roots, Switches: switches, Diagnostics: diags, Manifests: files}, nil
}

var _ providers.Provider = (*Codex)(nil)
