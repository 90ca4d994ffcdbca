package marketplace

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

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
	// refused is what Claude Code's schema refuses in the file (see
	// claudeRefuses).
	refused []string
}

// readPluginManifest reads <dir>/.claude-plugin/plugin.json. ok is false
// when the file is absent or unusable (the latter with a warning).
func (p *planner) readPluginManifest(key, dir string) (pluginManifest, bool) {
	file := filepath.Join(dir, filepath.FromSlash(pluginManifestPath))
	obj, _, ok := p.readObject(file, "plugin-manifest")
	if !ok {
		return pluginManifest{}, false
	}
	m := pluginManifest{file: file, name: obj.str("name"), version: obj.str("version"), refused: claudeRefuses(obj)}
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

// claudeRefuses returns what Claude Code's manifest schema refuses in a
// plugin.json, obj, in its own words ("agents.0: Invalid string: must end
// with \".md\""), or nil when it accepts it. Claude Code then loads none
// of the plugin's skills (`claude plugin list`: "failed to load"). Only
// the rules of the fields that say where a plugin's parts are, and its
// name, are checked; a key Claude Code does not know is accepted, as it
// accepts it.
func claudeRefuses(obj object) []string {
	var out []string
	name, present, ok := obj.stringField("name")
	switch {
	case !present || !ok:
		out = append(out, "name: Invalid input: expected string")
	case name == "":
		out = append(out, "name: Plugin name cannot be empty")
	case strings.ContainsRune(name, ' '):
		out = append(out, "name: Plugin name cannot contain spaces")
	}
	relative := func(s string) string {
		if !strings.HasPrefix(s, "./") {
			return `Invalid string: must start with "./"`
		}
		return ""
	}
	paths := map[string]func(string) string{
		"agents": func(s string) string {
			if why := relative(s); why != "" {
				return why
			}
			if !strings.HasSuffix(s, ".md") {
				return `Invalid string: must end with ".md"`
			}
			return ""
		},
		"skills": func(s string) string {
			if s == "." {
				return ""
			}
			return relative(s)
		},
		"commands":     relative,
		"outputStyles": relative,
	}
	for _, key := range []string{"agents", "commands", "outputStyles", "skills"} {
		if key == "commands" {
			if _, isObj := asObject(obj[key]); isObj {
				continue // a mapping of command names to their sources
			}
		}
		raw, exists := obj[key]
		if !exists {
			continue
		}
		var one string
		if err := json.Unmarshal(raw, &one); err == nil {
			if why := paths[key](one); why != "" {
				out = append(out, key+": "+why)
			}
			continue
		}
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			out = append(out, key+": Invalid input")
			continue
		}
		for i, s := range list {
			if why := paths[key](s); why != "" {
				out = append(out, fmt.Sprintf("%s.%d: %s", key, i, why))
			}
		}
	}
	return out
}
