package marketplace

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// This file reads known_marketplaces.json and the marketplaces'
// marketplace.json manifests.

// loadKnownMarketplaces maps marketplace names to their folders as given
// by installLocation.
func (p *planner) loadKnownMarketplaces() map[string]string {
	file := filepath.Join(p.pluginsRoot, knownMarketplacesFile)
	root, _, ok := p.readObject(file, "known-marketplaces")
	if !ok {
		return nil
	}
	out := map[string]string{}
	for _, name := range root.sortedKeys() {
		entry, isObj := asObject(root[name])
		if !isObj {
			p.report(pipeline.SeverityWarning, "known-marketplaces-invalid", file,
				"marketplace %q is not an object; its default folder is used", name)
			continue
		}
		loc, present, isStr := entry.stringField("installLocation")
		if present && !isStr {
			p.report(pipeline.SeverityWarning, "known-marketplaces-invalid", file,
				"installLocation of marketplace %q is not a string; its default folder is used", name)
			continue
		}
		if loc != "" {
			out[name] = resolve(p.pluginsRoot, loc)
		}
	}
	return out
}

// marketFolder returns the folder a marketplace is cloned into.
func (p *planner) marketFolder(name string) string {
	if dir, ok := p.known[name]; ok {
		return dir
	}
	return filepath.Join(p.pluginsRoot, "marketplaces", name)
}

// marketManifest is a parsed .claude-plugin/marketplace.json.
type marketManifest struct {
	dir        string
	file       string
	pluginRoot string
	entries    map[string]*marketEntry
	// name is the manifest's own "name"; order lists the entries' names
	// in the file's order.
	name  string
	order []string
}

// marketEntry is one plugin entry of a marketplace.json.
type marketEntry struct {
	// source is the entry's relative source path; sourceIsPath is false
	// for object (remote) sources, whose plugin lives in the install path.
	source       string
	sourceIsPath bool
	skills       []string
	hasSkills    bool
	commands     []string
	hasCommands  bool
	strict       bool
	version      string
}

// marketplace returns the parsed manifest of a marketplace, reading it
// once per Plan. A missing or unusable manifest yields no entries.
func (p *planner) marketplace(name string) *marketManifest {
	if m, ok := p.markets[name]; ok {
		return m
	}
	dir := p.marketFolder(name)
	m := p.readMarket(dir, filepath.Join(dir, filepath.FromSlash(marketManifestPath)))
	p.markets[name] = m
	return m
}

// readMarket reads the marketplace.json file of the marketplace whose
// folder is dir. A missing or unusable manifest yields no entries.
func (p *planner) readMarket(dir, file string) *marketManifest {
	m := &marketManifest{dir: dir, file: file, entries: map[string]*marketEntry{}}
	root, _, ok := p.readObject(m.file, "marketplace-manifest")
	if !ok {
		return m
	}
	m.name = root.str("name")
	if meta, isObj := asObject(root["metadata"]); isObj {
		m.pluginRoot = meta.str("pluginRoot")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(root["plugins"], &list); err != nil {
		p.report(pipeline.SeverityWarning, "marketplace-manifest-invalid", m.file,
			`key "plugins" is missing or not an array; its plugins are read from their install folders`)
		return m
	}
	for i, raw := range list {
		p.addMarketEntry(m, i, raw)
	}
	return m
}

// addMarketEntry decodes plugins[i] of a marketplace.json; the first entry
// with a given name wins.
func (p *planner) addMarketEntry(m *marketManifest, i int, raw json.RawMessage) {
	obj, isObj := asObject(raw)
	name := ""
	if isObj {
		name = obj.str("name")
	}
	if name == "" {
		p.report(pipeline.SeverityWarning, "marketplace-manifest-invalid", m.file,
			"plugins[%d] is not an object with a \"name\" string; entry skipped", i)
		return
	}
	if _, dup := m.entries[name]; dup {
		return
	}
	e := &marketEntry{strict: true, version: obj.str("version")}
	var strict bool
	if raw, ok := obj["strict"]; ok && json.Unmarshal(raw, &strict) == nil {
		e.strict = strict
	}
	// A string source is a path in the marketplace; an object source is
	// remote and its copy lives in the install folder.
	src, present, isStr := obj.stringField("source")
	e.source, e.sourceIsPath = src, present && isStr
	quoted := strconv.Quote(name)
	e.skills, e.hasSkills = p.declaredPaths(obj, "skills", "marketplace-manifest", m.file, quoted, "ignored")
	e.commands, e.hasCommands = p.declaredPaths(obj, "commands", "marketplace-manifest", m.file, quoted, "ignored")
	m.entries[name] = e
	m.order = append(m.order, name)
}

// sourceDir resolves a path source of an entry inside the marketplace
// folder; bare names go under metadata.pluginRoot.
func (m *marketManifest) sourceDir(e *marketEntry) string {
	src := filepath.FromSlash(e.source)
	bare := !filepath.IsAbs(src) && !strings.HasPrefix(e.source, "./") && !strings.HasPrefix(e.source, "../") &&
		e.source != "." && e.source != ".."
	if bare && m.pluginRoot != "" {
		return filepath.Join(m.dir, filepath.FromSlash(m.pluginRoot), src)
	}
	return resolve(m.dir, src)
}
