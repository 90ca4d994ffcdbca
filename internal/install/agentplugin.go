package install

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
)

// This file reads an Agent Plugins 1.0 package (agent-plugins.org: a
// root plugin.json, skills/, mcp.json, and client extension folders) as
// a source: its skills are offered, and what else it holds is said, not
// installed. It reads only what install needs (the manifest's $schema
// and name, the MCP servers' names, the extension namespaces); the
// discovery of installed Agent Plugins is the providers' concern.

// agentPluginSchema is the $schema of an Agent Plugins 1.0.0 manifest.
const agentPluginSchema = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"

// agentPluginSchemas starts the $schema of every Agent Plugins version.
const agentPluginSchemas = "https://agent-plugins.org/schemas/"

// agentPluginName is a plugin name as the 1.0.0 schema allows it.
var agentPluginName = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]{0,62}[a-z0-9])?$`)

// extensionNamespace is a reverse-domain client extension namespace.
var extensionNamespace = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)+$`)

// agentPluginAt finds the Agent Plugins package at base: base itself
// when it holds a plugin.json with the Agent Plugins $schema, else the
// one folder base holds (an archive packed with its folder). dir is ""
// when there is none. A plugin.json of another $schema, or one that
// breaks the 1.0.0 manifest rules, is an error: the spec asks clients to
// reject such a plugin. A plugin.json without an Agent Plugins $schema
// is another format's manifest and is left alone.
func agentPluginAt(root, base string) (dir, name string, err error) {
	dirs := []string{base}
	if entries, err := os.ReadDir(base); err == nil && len(entries) == 1 && entries[0].IsDir() {
		dirs = append(dirs, filepath.Join(base, entries[0].Name()))
	}
	for _, d := range dirs {
		f := filepath.Join(d, "plugin.json")
		st, err := os.Lstat(f)
		if err != nil || !st.Mode().IsRegular() {
			continue // none, or a link: not read
		}
		if real, err := filepath.EvalSymlinks(d); err != nil || !within(root, real) {
			continue
		}
		b, err := safefile.Read(f, 1<<20)
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", relTo(root, f), err)
		}
		var m struct {
			Schema *string `json:"$schema"`
			Name   any     `json:"name"`
		}
		if err := json.NewDecoder(bytes.NewReader(b)).Decode(&m); err != nil {
			continue // no JSON object: no manifest of this format
		}
		if m.Schema == nil || !strings.HasPrefix(*m.Schema, agentPluginSchemas) {
			continue // another format's plugin.json
		}
		if *m.Schema != agentPluginSchema {
			return "", "", fmt.Errorf("%s declares Agent Plugins $schema %q, a version this ccski does not read (it "+
				"reads %s): the plugin is refused, as the spec asks", relTo(root, f), *m.Schema, agentPluginSchema)
		}
		n, _ := m.Name.(string)
		if !agentPluginName.MatchString(n) || strings.Contains(n, "--") || strings.Contains(n, "..") {
			return "", "", fmt.Errorf("%s has name %v, which Agent Plugins 1.0.0 does not allow (lowercase letters, "+
				"digits, dots and hyphens, at most 64): the plugin is refused, as the spec asks", relTo(root, f), m.Name)
		}
		return d, n, nil
	}
	return "", "", nil
}

// within reports whether the resolved path p lies in root (resolved).
func within(root, p string) bool {
	realRoot, err := filepath.EvalSymlinks(root)
	return err == nil && safefile.Within(realRoot, p)
}

// discoverAgentPlugin offers the skills of the Agent Plugins package at
// dir, named name: those of its skills/ folder, each marked as the
// plugin's, and what else it holds as the offer's extras.
func discoverAgentPlugin(ctx context.Context, root, dir, name string) (*Offer, error) {
	skills := filepath.Join(dir, "skills")
	what := "Agent Plugins package " + name
	if st, err := os.Lstat(skills); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s has no skills/ folder (a symlink is not followed): ccski installs only a plugin's skills", what)
	}
	r := pipeline.Root{Path: skills, Agent: sourceAgent, Provider: sourceAgent, Location: pipeline.LocationCustom,
		Kind: pipeline.KindCustom}
	o, err := scanSkills(ctx, root, what, []pipeline.Root{r}, nil)
	if err != nil {
		return nil, err
	}
	for i := range o.Candidates {
		o.Candidates[i].Plugin = name
	}
	if e := agentPluginExtras(dir, name); !e.Empty() {
		o.Extras = append(o.Extras, e)
	}
	return o, nil
}

// agentPluginExtras says what the package at dir holds besides skills:
// the MCP servers of its mcp.json, its client extensions (the manifest's
// extensions and the reverse-domain folders at its root), and the hooks,
// agents and commands a Claude-style layout would hold.
func agentPluginExtras(dir, name string) PluginExtras {
	e := readExtras(dir)
	e.Plugin = name
	if b, err := safefile.Read(filepath.Join(dir, "mcp.json"), 1<<20); err == nil {
		var doc struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if json.Unmarshal(b, &doc) == nil {
			e.MCPServers = append(e.MCPServers, sortedKeys(doc.MCPServers)...)
		}
	}
	slices.Sort(e.MCPServers)
	e.MCPServers = slices.Compact(e.MCPServers)
	if b, err := safefile.Read(filepath.Join(dir, "plugin.json"), 1<<20); err == nil {
		var m struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		}
		if json.Unmarshal(b, &m) == nil {
			e.Extensions = append(e.Extensions, sortedKeys(m.Extensions)...)
		}
	}
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
