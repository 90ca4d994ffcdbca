// Package project plans the skill folders that a project lists under
// skill_dirs in its ccski.yaml.
package project

import (
	"context"
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Options are the provider's options. Dirs is the top-level skill_dirs key
// of ccski.yaml (config:"from=skill_dirs"), so the provider has no key of
// its own under providers.project besides enabled.
type Options struct {
	Dirs []string `koanf:"dirs" config:"from=skill_dirs"`
}

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name:    "project",
		Doc:     "The skill folders listed in skill_dirs.",
		Options: func() any { return &Options{} },
		Labels:  []providers.Label{{Name: "project", Shared: true}},
		Kinds:   []pipeline.Kind{pipeline.KindProject},
		New:     New,
	}
}

// Project is the provider for configured project skill folders.
type Project struct{ opts Options }

// New builds the provider from its options, a *Options (nil for none).
var New = providers.Typed("project", func() *Options { return &Options{} }, func(o *Options) (providers.Provider, error) {
	return &Project{opts: *o}, nil
})

// Name returns "project".
func (p *Project) Name() string { return "project" }

// Plan lists one root per configured folder, in the configured order.
// Relative folders are taken relative to the workspace.
func (p *Project) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	var roots []pipeline.Root
	for _, d := range p.opts.Dirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(env.Workspace, d)
		}
		roots = append(roots, pipeline.Root{Path: filepath.Clean(d), Agent: "project", Provider: "project",
			Location: pipeline.LocationProject, Kind: pipeline.KindProject})
	}
	return providers.Plan{Roots: roots}, nil
}

var _ providers.Provider = (*Project)(nil)
