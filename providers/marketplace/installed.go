package marketplace

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// This file reads installed_plugins.json, in both of its shapes.

// install is one install record of a plugin.
type install struct {
	key         string // "plugin@marketplace"
	plugin      string
	market      string
	path        string // cleaned absolute install folder
	version     string
	scope       string
	projectPath string
}

// loadInstalls reads installed_plugins.json in either shape and returns the
// valid install records by plugin key, with the keys sorted.
func (p *planner) loadInstalls() (map[string][]install, []string) {
	file := p.pluginsFile
	root, found, ok := p.readObject(file, "installed-plugins")
	if !found {
		sev := pipeline.SeverityInfo
		if p.explicitFile {
			sev = pipeline.SeverityWarning
		}
		p.report(sev, "installed-plugins-missing", file,
			"no Claude plugins are installed (file not found); install plugins with /plugin in Claude Code")
		return nil, nil
	}
	if !ok {
		return nil, nil
	}
	plugins, isObj := asObject(root["plugins"])
	if !isObj {
		p.report(pipeline.SeverityWarning, "installed-plugins-invalid", file,
			`key "plugins" is missing or not an object; no plugin can be loaded: reinstall your plugins or fix the file`)
		return nil, nil
	}
	installs := map[string][]install{}
	var keys []string
	for _, key := range plugins.sortedKeys() {
		plugin, market, valid := splitKey(key)
		if !valid {
			p.report(pipeline.SeverityWarning, "plugin-key-invalid", file,
				`plugin key %q is not of the form "plugin@marketplace"; entry skipped`, key)
			continue
		}
		for _, rec := range p.installRecords(file, key, plugins[key]) {
			rec.key, rec.plugin, rec.market = key, plugin, market
			installs[key] = append(installs[key], rec)
		}
		if len(installs[key]) > 0 {
			keys = append(keys, key)
		}
	}
	return installs, keys
}

// splitKey splits "plugin@marketplace" on the last "@".
func splitKey(key string) (plugin, market string, ok bool) {
	i := strings.LastIndexByte(key, '@')
	if i <= 0 || i == len(key)-1 {
		return "", "", false
	}
	return key[:i], key[i+1:], true
}

// installRecords decodes the value of one plugin key: an object (v1) or an
// array of objects (v2).
func (p *planner) installRecords(file, key string, raw json.RawMessage) []install {
	entries := []json.RawMessage{raw}
	var list []json.RawMessage
	isArray := string(raw) != "null" && json.Unmarshal(raw, &list) == nil
	if isArray {
		entries = list
	}
	var out []install
	for i, e := range entries {
		where := fmt.Sprintf("%q", key)
		if isArray {
			where = fmt.Sprintf("%q (install %d)", key, i+1)
		}
		obj, ok := asObject(e)
		if !ok {
			p.report(pipeline.SeverityWarning, "plugin-entry-invalid", file,
				"install record of plugin %s is not an object; skipped: reinstall the plugin", where)
			continue
		}
		path := obj.str("installPath")
		if strings.TrimSpace(path) == "" {
			p.report(pipeline.SeverityWarning, "plugin-install-path-missing", file,
				"install record of plugin %s has no installPath string; skipped: reinstall the plugin", where)
			continue
		}
		out = append(out, install{
			path:        resolve(p.pluginsRoot, path),
			version:     obj.str("version"),
			scope:       obj.str("scope"),
			projectPath: obj.str("projectPath"),
		})
	}
	return out
}

// activeInstall picks the install that applies to the workspace: a project
// or local install for the nearest workspace folder (local before project
// in the same folder), else a user install. Project and local installs for
// other folders never apply. Ties keep the file order.
func (p *planner) activeInstall(installs []install) (install, bool) {
	const userRank = 1 << 30
	best, bestRank := -1, userRank+1
	for i, in := range installs {
		rank := userRank
		if in.scope == "project" || in.scope == "local" {
			d := p.workspaceIndex(in.projectPath)
			if d < 0 {
				continue
			}
			rank = 2 * d
			if in.scope == "project" {
				rank++
			}
		}
		if rank < bestRank {
			best, bestRank = i, rank
		}
	}
	if best < 0 {
		return install{}, false
	}
	return installs[best], true
}

// workspaceIndex returns the index in the workspace list of the folder
// path names, or -1.
func (p *planner) workspaceIndex(path string) int {
	if path == "" || !filepath.IsAbs(path) {
		return -1
	}
	for i, ws := range p.workspaces {
		if samePath(ws, path) {
			return i
		}
	}
	return -1
}

// samePath reports whether a and b name the same folder, lexically or
// after resolving symlinks.
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
