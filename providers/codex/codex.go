// Package codex plans the skill roots of OpenAI Codex: skills/ in the Codex
// folder (providers.Env.CodexHome: the home option, else $CODEX_HOME, else
// ~/.codex), .codex/skills in the workspace and its ancestors up to the
// repository root, and the machine-wide /etc/codex/skills. Codex keeps its bundled skills in the hidden .system
// folder, which the scanner skips like every hidden folder.
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
}

// Codex is the Codex provider.
type Codex struct{ opts Options }

// New builds the provider from its options.
func New(options map[string]any) (providers.Provider, error) {
	c := &Codex{}
	if err := providers.Decode("codex", options, &c.opts); err != nil {
		return nil, err
	}
	return c, nil
}

// Name returns "codex".
func (c *Codex) Name() string { return "codex" }

// Plan lists the workspace roots, nearest first, the user root (skills/ in
// env's Codex folder), then the system roots.
func (c *Codex) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	roots := providers.WorkspaceRoots(env, filepath.Join(".codex", "skills"), pipeline.Root{
		Provider: "codex", Source: "codex", Location: pipeline.LocationProject,
		Kind: pipeline.KindWorkspaceAgent, Optional: true,
	})
	roots = append(roots, pipeline.Root{
		Path: filepath.Join(env.CodexDir(), "skills"), Provider: "codex", Source: "codex",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true,
	})
	for _, d := range c.opts.SystemDirs {
		roots = append(roots, pipeline.Root{
			Path: d, Provider: "codex", Source: "codex",
			Location: pipeline.LocationUser, Kind: pipeline.KindSystem, Optional: true,
		})
	}
	return providers.Plan{Roots: roots}, nil
}

var _ providers.Provider = (*Codex)(nil)
