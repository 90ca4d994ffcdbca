package marketplace

import (
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
)

// This file reads a plugin's .claude-plugin/plugin.json.

// pluginManifest is the part of a plugin.json this provider uses.
type pluginManifest struct {
	file        string
	name        string
	version     string
	skills      []string
	hasSkills   bool
	commands    []string
	hasCommands bool
}

// readPluginManifest reads <dir>/.claude-plugin/plugin.json. ok is false
// when the file is absent or unusable (the latter with a warning).
func (p *planner) readPluginManifest(key, dir string) (pluginManifest, bool) {
	file := filepath.Join(dir, filepath.FromSlash(pluginManifestPath))
	obj, _, ok := p.readObject(file, "plugin-manifest")
	if !ok {
		return pluginManifest{}, false
	}
	m := pluginManifest{file: file, name: obj.str("name"), version: obj.str("version")}
	m.skills, m.hasSkills = p.declaredPaths(obj, "skills", "plugin-manifest", file, key, "only skills/ is used")
	m.commands, m.hasCommands = p.declaredPaths(obj, "commands", "plugin-manifest", file, key, "only commands/ is used")
	return m, true
}

// declaredPaths reads the path list at key ("skills" or "commands") of a
// plugin's entry in a marketplace.json or of its plugin.json, obj, read
// from file. declared is false when the key is absent, or invalid: that
// is reported as kind+"-invalid", naming the plugin and saying what is
// done instead.
func (p *planner) declaredPaths(obj object, key, kind, file, plugin, instead string) (paths []string, declared bool) {
	paths, present, ok := obj.stringList(key)
	if !ok {
		p.report(pipeline.SeverityWarning, kind+"-invalid", file,
			"%q of plugin %s must be a path or an array of paths; %s", key, plugin, instead)
		return nil, false
	}
	return paths, present
}
