// Package cursorplugins plans the skill folders of the plugins Cursor
// loads: those in ~/.cursor/plugins/local/<plugin>/ (where Cursor's
// documentation has a plugin put to load it at once), and those Cursor
// installed from a marketplace into ~/.cursor/plugins/cache/<marketplace>/
// <plugin>/<version>/ (of several versions, the greatest name in byte
// order).
//
// Cursor reads two manifests (cursor.com/docs/plugins/building): its own
// .cursor-plugin/plugin.json, whose "skills" field ("./" paths) replaces
// skills/, and an Agent Plugins 1.0 root plugin.json, read unchanged and
// held to the specification's closed schema. Of the two, ccski takes
// Cursor's own first. Skills are named <plugin>:<skill>. A path that
// resolves outside the plugin root is refused with a diagnostic naming
// the plugin and the path, as the Agent Plugins specification requires.
//
// Cursor keeps whether a plugin is on in its state database
// (globalStorage/state.vscdb, cursor/plugins#136), not in a file ccski can
// read or edit: every installed plugin is listed, and `ccski disable` of
// one of their skills says to use Cursor's Customize page instead.
package cursorplugins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/cursor"
)

// Name is the provider's key in ccski.yaml (providers.cursor_plugins).
const Name = "cursor_plugins"

// Label is the agent label of its records: they are Cursor's skills.
const Label = cursor.Name

// LocalMarketplace is the marketplace name of the plugins in
// ~/.cursor/plugins/local.
const LocalMarketplace = "local"

// Folders below ~/.cursor/plugins.
const (
	pluginsFolder = ".cursor/plugins"
	localFolder   = "local"
	cacheFolder   = "cache"
)

// noSwitch is what ccski says when asked to switch one of its plugins.
const noSwitch = "which Cursor turns on and off in its state database, not in a file ccski edits: " +
	"use Cursor's Customize page (or /plugins in the Cursor CLI)"

// Entry describes the provider to the registry (package providers/all).
// It claims no folder: .cursor is the cursor provider's.
func Entry() providers.Entry {
	return providers.Entry{
		Name: Name,
		Doc: "Cursor plugins: the skills of the plugins in ~/.cursor/plugins/local and of those Cursor installed " +
			"in ~/.cursor/plugins/cache, from .cursor-plugin/plugin.json or an Agent Plugins plugin.json, named <plugin>:<skill>.",
		Options: func() any { return &Options{} },
		Labels:  []providers.Label{{Name: Label}},
		Kinds:   []pipeline.Kind{pipeline.KindPlugin},
		New:     New,
	}
}

// Options are the keys under providers.cursor_plugins in ccski.yaml.
type Options struct {
	// PluginsDir is Cursor's plugins folder (default ~/.cursor/plugins).
	PluginsDir string `koanf:"plugins_dir" config:"path" trust:"user" doc:"Cursor's plugins folder, holding local/ and cache/. Empty means .cursor/plugins in the user folder."`
}

// Provider is the Cursor plugins provider. It is immutable and safe for
// concurrent use.
type Provider struct{ opts Options }

var _ providers.Provider = (*Provider)(nil)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed(Name, func() *Options { return &Options{} }, func(o *Options) (providers.Provider, error) {
	return &Provider{opts: *o}, nil
})

// Name returns "cursor_plugins".
func (p *Provider) Name() string { return Name }

// formats are the manifests Cursor reads, in the order ccski takes them.
var formats = []providers.PluginFormat{providers.CursorFormat, providers.AgentPluginsFormat}

// Plan returns the roots of the local plugins, in folder order, then of
// the installed ones, by marketplace and plugin.
func (p *Provider) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	if err := ctx.Err(); err != nil {
		return providers.Plan{}, fmt.Errorf("%s: %w", Name, err)
	}
	base := filepath.Join(env.UserDir, filepath.FromSlash(pluginsFolder))
	if p.opts.PluginsDir != "" {
		base = env.ResolvePath(p.opts.PluginsDir)
	}
	pl := &planner{r: &providers.PluginReader{Label: Label}}
	local := filepath.Join(base, localFolder)
	pl.listings = append(pl.listings, local)
	for _, n := range folders(local) {
		pl.plugin(filepath.Join(local, n), LocalMarketplace, "")
	}
	cache := filepath.Join(base, cacheFolder)
	pl.listings = append(pl.listings, cache)
	for _, market := range folders(cache) {
		if err := ctx.Err(); err != nil {
			return providers.Plan{}, fmt.Errorf("%s: %w", Name, err)
		}
		mdir := filepath.Join(cache, market)
		pl.listings = append(pl.listings, mdir)
		for _, plugin := range folders(mdir) {
			pdir := filepath.Join(mdir, plugin)
			pl.listings = append(pl.listings, pdir)
			versions := folders(pdir)
			if len(versions) == 0 {
				continue
			}
			v := slices.Max(versions)
			pl.plugin(filepath.Join(pdir, v), market, v)
		}
	}
	return providers.Plan{Roots: pl.roots, Diagnostics: pl.r.Diags, Manifests: pl.r.Read, Listings: pl.listings}, nil
}

// planner holds the state of one Plan call.
type planner struct {
	r        *providers.PluginReader
	roots    []pipeline.Root
	listings []string
}

// plugin plans the plugin in dir, from marketplace market.
func (p *planner) plugin(dir, market, version string) {
	what := fmt.Sprintf("plugin %s@%s", filepath.Base(dir), market)
	if version != "" {
		what = fmt.Sprintf("plugin %s@%s", filepath.Base(filepath.Dir(dir)), market)
	}
	pf, ok := p.r.Folder(dir, what, formats...)
	if !ok {
		return
	}
	if version == "" {
		version = pf.Version
	}
	p.listings = append(p.listings, pf.SkillDirs...)
	info := &pipeline.PluginInfo{Plugin: pf.Name, Marketplace: market, Version: version, NoSwitch: noSwitch}
	p.roots = append(p.roots, p.r.Roots(pf, pipeline.Root{Agent: Label, Provider: Name,
		Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin, Prefix: pf.Name, Plugin: info,
		Optional: true}, what)...)
}

// folders returns the names of the folders (or links to folders) in dir,
// hidden ones left out, sorted.
func folders(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.Name()[0] == '.' {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && st.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}
