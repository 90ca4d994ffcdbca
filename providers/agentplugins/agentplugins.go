// Package agentplugins plans the skill folders of Agent Plugins 1.0
// packages (agentplugins/agent-plugins-spec, published 2026-08-06) kept
// in the vendor-neutral plugin folders: .agents/plugins/<plugin>/ in the
// workspace and its ancestors up to the repository root, and
// ~/.agents/plugins/<plugin>/, the folder the specification's own example
// loads a plugin from (§9.1).
//
// A plugin is a folder holding a root plugin.json, whose closed schema
// (§5) the provider checks as a conformant client must: a $schema of
// 1.0.0, a name of 1-64 lowercase letters, digits, "-" and ".", fields of
// their types; a manifest that breaks it rejects the plugin, and an
// unknown field is reported and ignored. Its skills are the sub-folders
// of its skills/ folder holding SKILL.md (§6.1, §7.1), named
// <plugin>:<skill>. A path that resolves outside the plugin root (a
// skills/ folder or a SKILL.md reached through a link) is refused with a
// diagnostic naming the plugin and the path (§4.1). The data/ folder the
// specification's example gives PLUGIN_DATA, and any folder without a
// plugin.json, is not a plugin and is skipped without a word.
//
// No host measured loads these folders on its own (Copilot CLI 1.0.102
// does not; docs/hosts.md): they have no plugin switch, and `ccski
// disable` of one of their skills says so.
package agentplugins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Name is the provider's key in ccski.yaml (providers.agent_plugins).
const Name = "agent_plugins"

// Label is the agent label of its records: the vendor-neutral agents.
const Label = "agents"

// Marketplace is the marketplace name of its records: Agent Plugins have
// none.
const Marketplace = "agent-plugins"

// Folder is the plugins folder below each workspace folder and below the
// user folder.
const Folder = ".agents/plugins"

// noSwitch is what ccski says when asked to switch one of its plugins.
const noSwitch = "an Agent Plugins package in " + Folder + ", which no host ccski knows keeps a switch for: " +
	"move the plugin folder out of " + Folder + " to turn it off"

// Entry describes the provider to the registry (package providers/all).
// It claims no folder: .agents is the agents provider's.
func Entry() providers.Entry {
	return providers.Entry{
		Name: Name,
		Doc: "Agent Plugins 1.0 packages in .agents/plugins (the workspace and its ancestors) and " +
			"~/.agents/plugins: the skills/ of each plugin whose root plugin.json is valid, named <plugin>:<skill>.",
		Options: func() any { return &Options{} },
		Labels:  []providers.Label{{Name: Label, Shared: true}},
		Kinds:   []pipeline.Kind{pipeline.KindPlugin},
		New:     New,
	}
}

// Options are the keys under providers.agent_plugins in ccski.yaml.
type Options struct {
	// UserDir is the user's plugins folder (default ~/.agents/plugins).
	UserDir string `koanf:"user_dir" config:"path" trust:"user" doc:"The user's Agent Plugins folder. Empty means .agents/plugins in the user folder."`
}

// Provider is the Agent Plugins provider. It is immutable and safe for
// concurrent use.
type Provider struct{ opts Options }

var _ providers.Provider = (*Provider)(nil)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed(Name, func() *Options { return &Options{} }, func(o *Options) (providers.Provider, error) {
	return &Provider{opts: *o}, nil
})

// Name returns "agent_plugins".
func (p *Provider) Name() string { return Name }

// Plan returns the roots of every valid plugin in the workspace's
// .agents/plugins folders, nearest first, then in the user's, each in
// folder order.
func (p *Provider) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	if err := ctx.Err(); err != nil {
		return providers.Plan{}, fmt.Errorf("%s: %w", Name, err)
	}
	var dirs []string
	for _, ws := range env.WorkspaceDirs {
		dirs = append(dirs, filepath.Join(ws, filepath.FromSlash(Folder)))
	}
	user := filepath.Join(env.UserDir, filepath.FromSlash(Folder))
	if p.opts.UserDir != "" {
		user = env.ResolvePath(p.opts.UserDir)
	}
	if !slices.Contains(dirs, user) {
		dirs = append(dirs, user)
	}
	r := &providers.PluginReader{Label: Label}
	var roots []pipeline.Root
	var listings []string
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return providers.Plan{}, fmt.Errorf("%s: %w", Name, err)
		}
		listings = append(listings, dir)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			folder := filepath.Join(dir, e.Name())
			if st, err := os.Stat(folder); err != nil || !st.IsDir() {
				continue // marketplace.json and other files
			}
			if _, err := os.Lstat(filepath.Join(folder, providers.AgentPluginsFormat.Manifest)); err != nil {
				continue // not a plugin: data/, a half-made folder
			}
			what := "plugin " + e.Name()
			pf, ok := r.Folder(folder, what, providers.AgentPluginsFormat)
			if !ok {
				continue
			}
			listings = append(listings, pf.SkillDirs...)
			info := &pipeline.PluginInfo{Plugin: pf.Name, Marketplace: Marketplace, Version: pf.Version, NoSwitch: noSwitch}
			roots = append(roots, r.Roots(pf, pipeline.Root{Agent: Label, Provider: Name,
				Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin, Prefix: pf.Name, Plugin: info,
				Optional: true}, "plugin "+pf.Name)...)
		}
	}
	return providers.Plan{Roots: roots, Diagnostics: r.Diags, Manifests: r.Read, Listings: listings}, nil
}
