package marketplace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// This file reads a marketplace as a catalog to install from (ccski
// install), with the same reading of marketplace.json and plugin.json as
// the plugins Claude Code installed from it.

// ReadCatalog reads the marketplace whose manifest is file: a
// .claude-plugin/marketplace.json, whose marketplace folder is the one
// above .claude-plugin, or a marketplace.json elsewhere, whose folder is
// its own. An error means the file is missing or no usable marketplace
// manifest; problems with single plugins are Diagnostics.
func ReadCatalog(file string) (providers.Catalog, error) {
	c, err := providers.OpenCatalog(file, ".claude-plugin")
	if err != nil {
		return c, err
	}
	file, dir := c.File, c.Dir
	p := &planner{markets: map[string]*marketManifest{}, cmdSource: map[string]commandSource{}}
	m := p.readMarket(dir, file)
	if len(p.diags) > 0 && len(m.order) == 0 {
		return providers.Catalog{}, errors.New(p.diags[0].Message + " (" + file + ")")
	}
	if m.name != "" {
		c.Name = m.name
	}
	name := c.Name
	p.markets[name] = m
	for _, plugin := range m.order {
		e := m.entries[plugin]
		if !e.sourceIsPath {
			c.Plugins = append(c.Plugins, providers.CatalogPlugin{Name: plugin, Remote: true})
			continue
		}
		if d := m.sourceDir(e); !safefile.Within(dir, d) {
			p.report(pipeline.SeverityWarning, "marketplace-source-outside", file,
				"plugin %q has source %q, which leads outside the marketplace folder %s; plugin skipped", plugin, e.source, dir)
			continue
		}
		// The plugin is "installed" in the marketplace folder itself, so
		// that its relative source is resolved there, inside it.
		in := install{key: plugin + "@" + name, plugin: plugin, market: name, path: dir}
		l, ok := p.resolvePlugin(in)
		if !ok {
			continue
		}
		skills := slices.Clone(l.skills.dirs)
		for _, w := range l.skills.walk {
			children, _ := p.skillChildren(in, w)
			for _, ch := range children {
				if !slices.Contains(skills, ch) {
					skills = append(skills, ch)
				}
			}
		}
		c.Plugins = append(c.Plugins, providers.CatalogPlugin{Name: plugin, Dir: l.dir, Skills: skills})
	}
	c.Diagnostics = p.diags
	return c, nil
}

// KnownMarketplace returns the folder of the marketplace Claude Code
// knows by name: its installLocation in known_marketplaces.json below
// pluginsRoot (Claude's plugins folder), else marketplaces/<name>. ok is
// false when that folder does not exist; known then lists the names of
// the marketplaces that do, sorted, for a suggestion.
func KnownMarketplace(pluginsRoot, name string) (dir string, ok bool, known []string) {
	p := &planner{pluginsRoot: pluginsRoot, markets: map[string]*marketManifest{}}
	p.known = p.loadKnownMarketplaces()
	exists := func(d string) bool {
		st, err := os.Stat(d)
		return err == nil && st.IsDir()
	}
	if name != "" && !strings.ContainsAny(name, `/\`) && name != "." && name != ".." {
		if d := p.marketFolder(name); exists(d) {
			return d, true, nil
		}
	}
	seen := map[string]bool{}
	for n, d := range p.known {
		if exists(d) {
			seen[n] = true
		}
	}
	if ents, err := os.ReadDir(filepath.Join(pluginsRoot, "marketplaces")); err == nil {
		for _, e := range ents {
			if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
				seen[e.Name()] = true
			}
		}
	}
	for n := range seen {
		known = append(known, n)
	}
	slices.Sort(known)
	return "", false, known
}
