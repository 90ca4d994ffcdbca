package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// This file reads an Agent Plugins 1.0 package (agent-plugins.org: a
// root plugin.json, skills/, mcp.json, and client extension folders) as
// a source: its skills are offered, and what else it holds is said, not
// installed. The manifest and the plugin's paths are read as discovery
// reads an installed plugin, by providers.PluginReader: one closed
// schema, one containment rule, one set of messages.

// extensionNamespace is a reverse-domain client extension namespace.
var extensionNamespace = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)+$`)

// agentPlugin is an Agent Plugins package found in a source, and the
// reader that read it (its diagnostics, and the one to plan its skills).
type agentPlugin struct {
	folder providers.PluginFolder
	reader *providers.PluginReader
}

// agentPluginAt finds the Agent Plugins package at base: base itself
// when it holds a plugin.json that claims the format
// (providers.ClaimsAgentPlugins), else the one folder base holds (an
// archive packed with its folder). ok is false when there is none: a
// plugin.json that does not claim the format is another format's, and
// left alone. A manifest the Agent Plugins rules refuse (an unknown
// version, a name or field they do not allow, no JSON object, a path
// resolving outside the plugin) is an error: the spec asks clients to
// reject such a plugin.
func agentPluginAt(root, base string) (p agentPlugin, ok bool, err error) {
	dirs := []string{base}
	if entries, err := os.ReadDir(base); err == nil && len(entries) == 1 && entries[0].IsDir() {
		dirs = append(dirs, filepath.Join(base, entries[0].Name()))
	}
	for _, d := range dirs {
		manifest := filepath.Join(d, providers.ClaimedAgentPluginsFormat.Manifest)
		if _, err := os.Lstat(manifest); err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(d); err != nil || !within(root, real) {
			continue
		}
		what := "the package"
		if d != root {
			what += " in " + relTo(root, d)
		}
		r := &providers.PluginReader{Label: sourceAgent}
		f, read := r.Folder(d, what, providers.ClaimedAgentPluginsFormat)
		if !read {
			var problems []string
			for _, d := range r.Diags {
				if d.Severity != pipeline.SeverityInfo {
					problems = append(problems, relTo(root, d.Path)+": "+d.Message)
				}
			}
			return p, false, errors.New(strings.Join(problems, "; "))
		}
		if !f.Format.Strict {
			continue // another format's plugin.json
		}
		return agentPlugin{folder: f, reader: r}, true, nil
	}
	return p, false, nil
}

// within reports whether the resolved path p lies in root (resolved).
func within(root, p string) bool {
	realRoot, err := filepath.EvalSymlinks(root)
	return err == nil && safefile.Within(realRoot, p)
}

// discoverAgentPlugin offers the skills of the Agent Plugins package p:
// those of its skills/ folder whose SKILL.md stays in the plugin, each
// marked as the plugin's, and what else it holds as the offer's extras.
// What the reader reported (an ignored field, a path refused) is a
// warning.
func discoverAgentPlugin(ctx context.Context, root string, p agentPlugin) (*Offer, error) {
	name := p.folder.Name
	what := "Agent Plugins package " + name
	roots := p.reader.Roots(p.folder, pipeline.Root{Agent: sourceAgent, Provider: sourceAgent,
		Location: pipeline.LocationCustom, Kind: pipeline.KindCustom}, what)
	extras := agentPluginExtras(p, what)
	var warnings []string
	for _, d := range p.reader.Diags {
		warnings = append(warnings, relTo(root, d.Path)+": "+d.Message)
	}
	if len(roots) == 0 {
		msg := what + " has no skill in its skills/ folder (the one place the format keeps skills): ccski installs only a plugin's skills"
		if len(warnings) > 0 {
			msg += ": " + strings.Join(warnings, "; ")
		}
		return nil, errors.New(msg)
	}
	o, err := scanSkills(ctx, root, what, roots, warnings)
	if err != nil {
		return nil, err
	}
	for i := range o.Candidates {
		o.Candidates[i].Plugin = name
	}
	if !extras.Empty() {
		o.Extras = append(o.Extras, extras)
	}
	return o, nil
}

// agentPluginExtras says what the package at dir holds besides skills:
// the MCP servers of its mcp.json, its client extensions (the manifest's
// extensions and the reverse-domain folders at its root), and the hooks,
// agents and commands a Claude-style layout would hold.
func agentPluginExtras(p agentPlugin, what string) PluginExtras {
	dir := p.folder.Dir
	e := readExtras(dir)
	e.Plugin = p.folder.Name
	if mcp := filepath.Join(dir, "mcp.json"); exists(mcp) && p.reader.Inside(p.folder, mcp, what, "mcp.json") {
		e.MCPServers = append(e.MCPServers, mcpServerNames(mcp)...)
	}
	slices.Sort(e.MCPServers)
	e.MCPServers = slices.Compact(e.MCPServers)
	e.Extensions = append(e.Extensions, p.folder.Extensions...)
	if entries, err := os.ReadDir(dir); err == nil {
		for _, d := range entries {
			if d.IsDir() && extensionNamespace.MatchString(d.Name()) {
				e.Extensions = append(e.Extensions, d.Name())
			}
		}
	}
	slices.Sort(e.Extensions)
	e.Extensions = slices.Compact(e.Extensions)
	e.Install = "a host that reads Agent Plugins (Copilot CLI, Cursor, VS Code) installing the package itself"
	return e
}
