package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
)

// PluginExtras is what a Claude Code plugin (or an Agent Plugins package)
// holds besides skills, which ccski does not install: the hooks, agents, commands and MCP servers
// Claude Code gets only when it installs the plugin itself
// (superpowers' SessionStart hook, for one, is what makes Claude use its
// skills).
type PluginExtras struct {
	Plugin      string `json:"plugin"`
	Marketplace string `json:"marketplace"`
	// Hooks are "file: Event, Event" per hooks file (or "plugin.json:
	// ..." for hooks declared inline).
	Hooks      []string `json:"hooks,omitempty"`
	Agents     []string `json:"agents,omitempty"`
	Commands   []string `json:"commands,omitempty"`
	MCPServers []string `json:"mcpServers,omitempty"`
	// Extensions are the client extension namespaces of an Agent Plugins
	// package (com.example.client), each a client's own components.
	Extensions []string `json:"extensions,omitempty"`
	// Install is how to get them: the commands that install the plugin
	// in Claude Code (for an Agent Plugins package: what installs it).
	Install string `json:"install"`
}

// Empty reports whether the plugin holds nothing but skills.
func (e PluginExtras) Empty() bool {
	return len(e.Hooks)+len(e.Agents)+len(e.Commands)+len(e.MCPServers)+len(e.Extensions) == 0
}

// String says what was not installed and how to get it, in one line.
func (e PluginExtras) String() string {
	var parts []string
	add := func(what string, names []string) {
		if len(names) > 0 {
			parts = append(parts, what+" ("+strings.Join(names, "; ")+")")
		}
	}
	add("hooks", e.Hooks)
	add("agents", e.Agents)
	add("commands", e.Commands)
	add("MCP servers", e.MCPServers)
	add("client extensions", e.Extensions)
	if e.Marketplace == "" {
		return fmt.Sprintf("plugin %s also has %s, which ccski does not install (it installs skills only): they come with %s",
			e.Plugin, strings.Join(parts, ", "), e.Install)
	}
	return fmt.Sprintf("plugin %s also has %s, which ccski does not install (it installs skills only): to get them, run %s",
		e.Plugin, strings.Join(parts, ", "), e.Install)
}

// readExtras reads what the plugin folder dir holds besides skills, as
// Claude Code finds it: hooks/hooks.json, agents/*.md, commands/*.md and
// .mcp.json, and the hooks, agents, commands and mcpServers of its
// .claude-plugin/plugin.json. Unreadable parts are left out: this is a
// notice, not a check.
func readExtras(dir string) PluginExtras {
	var e PluginExtras
	var manifest map[string]json.RawMessage
	if b, err := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json")); err == nil {
		_ = json.Unmarshal(b, &manifest)
	}
	// paths reads a manifest key that is a path or a list of paths.
	paths := func(key string) []string {
		raw, ok := manifest[key]
		if !ok {
			return nil
		}
		var one string
		if json.Unmarshal(raw, &one) == nil {
			return []string{one}
		}
		var many []string
		_ = json.Unmarshal(raw, &many)
		return many
	}
	// Hooks: hooks/hooks.json, plus a file or an inline object in
	// plugin.json.
	hookFiles := []string{"hooks/hooks.json"}
	if raw, ok := manifest["hooks"]; ok {
		var inline map[string]json.RawMessage
		if json.Unmarshal(raw, &inline) == nil {
			if ev := hookEvents(raw); len(ev) > 0 {
				e.Hooks = append(e.Hooks, ".claude-plugin/plugin.json: "+strings.Join(ev, ", "))
			}
		} else {
			hookFiles = append(hookFiles, paths("hooks")...)
		}
	}
	for _, f := range uniqueRel(hookFiles) {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
			if ev := hookEvents(b); len(ev) > 0 {
				e.Hooks = append(e.Hooks, f+": "+strings.Join(ev, ", "))
			}
		}
	}
	e.Agents = markdownNames(dir, append([]string{"agents"}, paths("agents")...))
	e.Commands = markdownNames(dir, append([]string{"commands"}, paths("commands")...))
	// MCP servers: .mcp.json, plus a file or an inline object in
	// plugin.json.
	mcpFiles := []string{".mcp.json"}
	if raw, ok := manifest["mcpServers"]; ok {
		var inline map[string]json.RawMessage
		if json.Unmarshal(raw, &inline) == nil {
			e.MCPServers = append(e.MCPServers, sortedKeys(inline)...)
		} else {
			mcpFiles = append(mcpFiles, paths("mcpServers")...)
		}
	}
	for _, f := range uniqueRel(mcpFiles) {
		e.MCPServers = append(e.MCPServers, mcpServerNames(filepath.Join(dir, filepath.FromSlash(f)))...)
	}
	slices.Sort(e.MCPServers)
	e.MCPServers = slices.Compact(e.MCPServers)
	return e
}

// mcpServerNames returns the names of the servers of the MCP
// configuration file (.mcp.json, an Agent Plugins mcp.json: an object
// whose mcpServers are keyed by name), sorted; none when it is missing or
// unreadable.
func mcpServerNames(file string) []string {
	b, err := safefile.Read(file, 1<<20)
	if err != nil {
		return nil
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return nil
	}
	return sortedKeys(doc.MCPServers)
}

// hookEvents lists the events of a hooks document ({"hooks": {"Event":
// [...]}}, or the events at its top level), sorted.
func hookEvents(b []byte) []string {
	var doc struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(b, &doc) == nil && len(doc.Hooks) > 0 {
		return sortedKeys(doc.Hooks)
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) == nil {
		delete(top, "description")
		return sortedKeys(top)
	}
	return nil
}

// markdownNames lists the names (without .md) of the Markdown files in
// the folders or files rels of dir, sorted, each once.
func markdownNames(dir string, rels []string) []string {
	var out []string
	for _, rel := range uniqueRel(rels) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		st, err := os.Stat(p)
		switch {
		case err != nil:
		case st.IsDir():
			_ = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".md") {
					out = append(out, strings.TrimSuffix(d.Name(), filepath.Ext(d.Name())))
				}
				return nil
			})
		case strings.EqualFold(filepath.Ext(p), ".md"):
			out = append(out, strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// uniqueRel cleans the '/'-separated relative paths rels ("./hooks" and
// "hooks" are one), keeping those that stay inside the plugin.
func uniqueRel(rels []string) []string {
	var out []string
	for _, r := range rels {
		r = filepath.ToSlash(filepath.Clean(filepath.FromSlash(r)))
		if filepath.IsLocal(filepath.FromSlash(r)) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
