package codexplugins

// This file reads a Codex marketplace as a catalog to install skills from
// (ccski install), with the same reading of plugin manifests and skill
// folders as the plugins Codex installed.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// ReadCatalog reads the Codex marketplace file: an
// .agents/plugins/marketplace.json, whose root is the folder holding
// .agents, or a marketplace file elsewhere, whose root is its folder. A
// plugin's source is {"source": "local", "path": "./..."} or a relative
// {"source": "url", "url": "./..."}, resolved in the root and kept inside
// it; other sources are remote.
func ReadCatalog(file string) (providers.Catalog, error) {
	c, err := providers.OpenCatalog(file, ".agents/plugins", ".claude-plugin")
	if err != nil {
		return c, err
	}
	file, root := c.File, c.Dir
	data, found, err := hostfile.Read(file)
	switch {
	case !found:
		return providers.Catalog{}, fmt.Errorf("marketplace %s: %w", file, os.ErrNotExist)
	case err != nil:
		return providers.Catalog{}, fmt.Errorf("marketplace %s: %w", file, err)
	}
	var raw struct {
		Name    string `json:"name"`
		Plugins []struct {
			Name   string `json:"name"`
			Source any    `json:"source"`
		} `json:"plugins"`
	}
	if err := hostfile.DecodeJSON(data, &raw); err != nil {
		return providers.Catalog{}, fmt.Errorf("marketplace %s is not a valid marketplace file: %w", file, err)
	}
	p := &planner{}
	if raw.Name != "" {
		c.Name = raw.Name
	}
	for i, pl := range raw.Plugins {
		if pl.Name == "" {
			p.report(pipeline.SeverityWarning, "marketplace-entry-invalid", file,
				"plugins[%d] has no name; it is skipped", i)
			continue
		}
		rel, ok := localSource(pl.Source)
		if !ok {
			c.Plugins = append(c.Plugins, providers.CatalogPlugin{Name: pl.Name, Remote: true})
			continue
		}
		dir := filepath.Join(root, rel)
		if !isDir(dir) {
			p.report(pipeline.SeverityWarning, "plugin-source-missing", file,
				"plugin %s has source %q, which is not a folder in the marketplace; it is skipped", pl.Name, rel)
			continue
		}
		in := install{dir: dir}
		m, ok := p.readManifest(pl.Name, in)
		if !ok {
			m = manifest{}
		}
		var skills []string
		for _, sr := range p.skillRoots(pl.Name, in, m) {
			skills = append(skills, skillFolders(sr)...)
		}
		slices.Sort(skills)
		c.Plugins = append(c.Plugins, providers.CatalogPlugin{Name: pl.Name, Dir: dir, Skills: slices.Compact(skills)})
	}
	c.Diagnostics = p.diags
	return c, nil
}

// localSource returns the path below the marketplace root that a plugin
// source names, when it is a relative path: a string, a {"source":
// "local", "path": ...} or a {"source": "url", "url": ...} with a relative
// URL. ok is false for anything else, and for a path that leaves the root.
func localSource(src any) (string, bool) {
	var s string
	switch v := src.(type) {
	case string:
		s = v
	case map[string]any:
		if path, ok := v["path"].(string); ok {
			s = path
		} else if url, ok := v["url"].(string); ok && (strings.HasPrefix(url, "./") || url == ".") {
			s = url
		}
	}
	if s == "" {
		return "", false
	}
	if s == "." || s == "./" {
		return ".", true
	}
	if !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") && !strings.HasPrefix(s, "/") {
		s = "./" + s // a bare "plugins/x" is relative too
	}
	rel, problem := providers.PluginPath(s)
	if problem != "" {
		return "", false
	}
	return rel, true
}

// skillFolders returns root when it holds a SKILL.md, else the folders
// directly in it that hold one; hidden folders are skipped.
func skillFolders(root string) []string {
	if providers.IsSkill(root) {
		return []string{root}
	}
	var out []string
	for _, n := range providers.SkillNames(root) {
		out = append(out, filepath.Join(root, n))
	}
	return out
}
