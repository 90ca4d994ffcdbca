// Package custom plans the folders given with --skill-dir (or
// providers.custom.dirs). They have the highest priority. A folder may be a
// tree of skills or a single skill folder. "DIR?scope=name" prefixes every
// skill name found there with "name:".
package custom

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Options are the keys under providers.custom in ccski.yaml.
type Options struct {
	// Dirs are skill folders, each optionally followed by ?scope=name.
	Dirs []Folder `koanf:"dirs" config:"path,query" trust:"user" doc:"Each entry is a tree of skills or one skill folder, optionally followed by ?scope=NAME to prefix its skill names with \"NAME:\"."`
}

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name:    "custom",
		Doc:     "Explicit skill folders, with the highest priority.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: "custom", Shared: true}},
		Kinds:   []pipeline.Kind{pipeline.KindCustom},
		New:     New,
	}
}

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options { return &Options{Dirs: []Folder{}} }

// Folder is an entry of the dirs option: a skill folder, optionally
// followed by "?scope=NAME".
type Folder string

// Check returns what is wrong with value as an entry of the dirs option
// (see Split), or nil. Package configs calls it for each entry of each
// layer, so that the error names the file, variable or flag that set it.
func (Folder) Check(value string) error {
	_, _, err := Split(value)
	return err
}

// Custom is the provider for explicitly given skill folders.
type Custom struct{ dirs []dir }

type dir struct{ path, scope string }

// New builds the provider from its options, a *Options (nil for the
// defaults). Package configs has checked each entry (Folder.Check); an
// entry a configuration built by hand gives unchecked is checked here.
var New = providers.Typed("custom", defaultOptions, func(o *Options) (providers.Provider, error) {
	c := &Custom{}
	for _, d := range o.Dirs {
		p, s, err := Split(string(d))
		if err != nil {
			return nil, err
		}
		c.dirs = append(c.dirs, dir{p, s})
	}
	return c, nil
})

// Split separates "path?scope=name" into the path and the scope.
func Split(spec string) (path, scope string, err error) {
	path, query, ok := strings.Cut(spec, "?")
	if path == "" {
		return "", "", fmt.Errorf("custom: empty skill folder in %q", spec)
	}
	if !ok {
		return path, "", nil
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", "", fmt.Errorf("custom: skill folder %q: bad query: %w", spec, err)
	}
	for k := range q {
		if k != "scope" {
			return "", "", fmt.Errorf("custom: skill folder %q: unknown parameter %q; only scope=name is supported", spec, k)
		}
	}
	scope = q.Get("scope")
	if strings.ContainsAny(scope, ": \t") {
		return "", "", fmt.Errorf("custom: skill folder %q: scope %q must not contain ':' or spaces", spec, scope)
	}
	return path, scope, nil
}

// Name returns "custom".
func (c *Custom) Name() string { return "custom" }

// Plan lists one root per folder, in the order given. Relative folders are
// taken relative to the workspace.
func (c *Custom) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	var roots []pipeline.Root
	for _, d := range c.dirs {
		p := d.path
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.Workspace, p)
		}
		roots = append(roots, pipeline.Root{Path: filepath.Clean(p), Agent: "custom", Provider: "custom",
			Location: pipeline.LocationCustom, Kind: pipeline.KindCustom, Prefix: d.scope})
	}
	return providers.Plan{Roots: roots}, nil
}

var _ providers.Provider = (*Custom)(nil)
