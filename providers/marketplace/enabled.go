package marketplace

import (
	"encoding/json"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/claude"
)

// This file merges enabledPlugins from the settings files.

// enablement is the last enabledPlugins value seen for a plugin.
type enablement struct {
	enabled bool
	file    string
}

// loadEnablement merges enabledPlugins from every settings file Claude
// Code reads (claude.SettingsFilesIn, the list the enable and disable
// commands write in); later files override earlier ones.
func (p *planner) loadEnablement() map[string]enablement {
	out := map[string]enablement{}
	for _, f := range claude.SettingsFilesIn(p.configDir, p.workspaces) {
		p.mergeEnabled(f.Path, out)
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
