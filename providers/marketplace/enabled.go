package marketplace

import (
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/ccski/ccski/pipeline"
)

// This file merges enabledPlugins from the settings files.

// enablement is the last enabledPlugins value seen for a plugin.
type enablement struct {
	enabled bool
	file    string
}

// settingsFiles lists the settings files in override order: user, then
// each workspace folder from the farthest to the nearest, project file
// before local file.
func (p *planner) settingsFiles() []string {
	files := []string{filepath.Join(p.configDir, "settings.json")}
	for _, ws := range slices.Backward(p.workspaces) {
		files = append(files,
			filepath.Join(ws, ".claude", "settings.json"),
			filepath.Join(ws, ".claude", "settings.local.json"))
	}
	return files
}

// loadEnablement merges enabledPlugins from every settings file; later
// files override earlier ones.
func (p *planner) loadEnablement() map[string]enablement {
	out := map[string]enablement{}
	seen := map[string]bool{}
	for _, file := range p.settingsFiles() {
		if seen[file] {
			continue
		}
		seen[file] = true
		p.mergeEnabled(file, out)
	}
	return out
}

func (p *planner) mergeEnabled(file string, out map[string]enablement) {
	settings, _, ok := p.readObject(file, "settings")
	if !ok {
		return
	}
	raw, present := settings["enabledPlugins"]
	if !present || string(raw) == "null" {
		return
	}
	plugins, isObj := asObject(raw)
	if !isObj {
		p.report(pipeline.SeverityWarning, "settings-invalid", file,
			`"enabledPlugins" must be an object of "plugin@marketplace": true|false; ignored`)
		return
	}
	for _, key := range plugins.sortedKeys() {
		var on bool
		if err := json.Unmarshal(plugins[key], &on); err != nil {
			p.report(pipeline.SeverityWarning, "settings-invalid", file,
				"enabledPlugins[%q] must be true or false; ignored", key)
			continue
		}
		out[key] = enablement{enabled: on, file: file}
	}
}
