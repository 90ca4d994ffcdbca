package pipeline

import "strings"

// PluginOffSkill is a skill or command of a disabled plugin. A disabled
// plugin is not scanned, so it has no record; list --all and --disabled
// and search still show it, with why it is off and how to turn it on.
type PluginOffSkill struct {
	// ID is the id its record would have ("claude:@linter:lint-fix"), a
	// name Lookup and `ccski enable` take; Name its name within its
	// plugin, prefixed with the plugin ("linter:lint-fix").
	ID   string `json:"id"`
	Name string `json:"name"`
	Type Type   `json:"type"`
	// Plugin is the disabled plugin.
	Plugin DisabledPlugin `json:"plugin"`
}

// Reason says why it is off: `its plugin linter@tools-market is disabled
// (enable it in ...)`.
func (p PluginOffSkill) Reason() string {
	return "its " + DisabledReason([]DisabledPlugin{p.Plugin})
}

// PluginOffSkills returns the skills and commands of the disabled plugins
// of the scan (Disabled), of type typ ("" for both), by plugin then name.
func (s *Snapshot) PluginOffSkills(typ Type) []PluginOffSkill {
	var out []PluginOffSkill
	// One plugin disabled in two settings files is listed once per
	// install (plugin@marketplace).
	seen := map[string]bool{}
	for _, p := range s.Disabled {
		add := func(t Type, names []string) {
			if typ != "" && typ.OrSkill() != t {
				return
			}
			for _, n := range names {
				if k := string(t) + "\x00" + p.Provider + "\x00" + p.Key() + "\x00" + n; seen[k] {
					continue
				} else {
					seen[k] = true
				}
				id := "@" + p.Plugin + ":" + n
				if t == TypeCommand {
					id = "/" + id
				}
				if p.Provider != "" {
					id = p.Provider + ":" + id
				}
				out = append(out, PluginOffSkill{ID: id, Name: p.Plugin + ":" + n, Type: t, Plugin: p})
			}
		}
		add(TypeSkill, p.Skills)
		add(TypeCommand, p.Commands)
	}
	return out
}

// Matches reports whether every word of query is in its id or name,
// case-insensitively, as search matches names.
func (p PluginOffSkill) Matches(query string) bool {
	hay := strings.ToLower(p.ID + " " + p.Name + " " + p.Plugin.Key())
	words := strings.Fields(strings.ToLower(query))
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return len(words) > 0
}
