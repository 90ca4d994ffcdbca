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
	skills, present, valid := obj.stringList("skills")
	if !valid {
		p.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
			"\"skills\" of plugin %s must be a path or an array of paths; only skills/ is used", key)
	} else if present {
		m.skills, m.hasSkills = skills, true
	}
	cmds, present, valid := obj.stringList("commands")
	if !valid {
		p.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
			"\"commands\" of plugin %s must be a path or an array of paths; only commands/ is used", key)
	} else if present {
		m.commands, m.hasCommands = cmds, true
	}
	return m, true
}
