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
	Home string `koanf:"home"`
	// SystemDirs are machine-wide skill folders, scanned when present.
	SystemDirs []string `koanf:"system_dirs"`
	// Precedence is the level whose copy of a skill wins when one name is
	// both in the project and in the Codex folder: "project" (the default,
	// as Codex ranks repo skills over user ones) or "user". Like Home, it
	// is validated here and applied by engine.New through
	// providers.Env.CodexPrecedence, which this provider and commands (for
	// Codex prompts) both read.
	Precedence string `koanf:"precedence"`
}

// SystemFolder is the folder below skills/ in the Codex folder where Codex
// writes its bundled skills.
const SystemFolder = ".system"

// Codex is the Codex provider.
type Codex struct{ opts Options }

// New builds the provider from its options.
func New(options map[string]any) (providers.Provider, error) {
	c := &Codex{}
	if err := providers.Decode("codex", options, &c.opts); err != nil {
		return nil, err
	}
	if _, err := providers.CodexOrder.Precedence(c.opts.Precedence); err != nil {
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
// kind ranks below both levels.
func (c *Codex) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	rule := env.CodexRule()
	roots := providers.WorkspaceRoots(env, filepath.Join(".codex", "skills"), pipeline.Root{
		Agent: "codex", Provider: "codex", Location: pipeline.LocationProject,
		Kind: pipeline.KindWorkspaceAgent, Optional: true, Precedence: rule,
	})
	user := filepath.Join(env.CodexDir(), "skills")
	roots = append(roots, pipeline.Root{
		Path: user, Agent: "codex", Provider: "codex",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true, Precedence: rule,
	}, pipeline.Root{
		Path: filepath.Join(user, SystemFolder), Agent: "codex", Provider: "codex",
		Location: pipeline.LocationSystem, Kind: pipeline.KindSystem, Optional: true,
	})
	for _, d := range c.opts.SystemDirs {
		roots = append(roots, pipeline.Root{
			Path: d, Agent: "codex", Provider: "codex",
			Location: pipeline.LocationSystem, Kind: pipeline.KindSystem, Optional: true,
		})
	}
	return providers.Plan{Roots: roots}, nil
}

var _ providers.Provider = (*Codex)(nil)
