// Package marketplace plans the skill folders of installed Claude Code
// plugins, and their command folders.
//
// It reads only Claude's plugin bookkeeping (installed_plugins.json,
// known_marketplaces.json, the settings files' enabledPlugins, and the
// plugin.json and marketplace.json manifests) and lists folders; it never
// opens a SKILL.md and never filters skills. Each enabled plugin gets a
// pipeline.Root for its install folder whose Skills list names exactly the
// skill folders its manifests declare, so that plugins sharing one install
// folder (as the anthropic-agent-skills marketplace does) are each credited
// with their own skills only. A plugin's default skills/ folder is not
// listed here: it becomes a flat root of its own, whose immediate
// sub-folders the scanner finds (and whose listing it caches between
// rescans). The install-folder root is left out when it would name no skill
// and the plugin has a skills/ folder.
//
// With the commands option (on by default), each enabled plugin also gets
// a command root for its commands/ folder, or one per path that the
// plugin's "commands" field lists (which replace commands/, as in Claude
// Code). Plugin commands are named "<plugin>:<command>".
package marketplace

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/claude"
)

// Labels given to every root and diagnostic of this provider.
const (
	providerLabel = "claude"
	sourceLabel   = "marketplace"
)

// Names of the files and folders this provider reads.
const (
	installedPluginsFile  = "installed_plugins.json"
	knownMarketplacesFile = "known_marketplaces.json"
	pluginManifestPath    = ".claude-plugin/plugin.json"
	marketManifestPath    = ".claude-plugin/marketplace.json"
	defaultSkillsFolder   = "skills"
	defaultCommandsFolder = "commands"
)

// Options are the keys under providers.marketplace in ccski.yaml. An empty
// value means the default. A leading "~" stands for the user folder and a
// relative path is taken from the workspace.
type Options struct {
	// PluginsFile is Claude's installed_plugins.json (default
	// <plugins root>/installed_plugins.json).
	PluginsFile string `koanf:"plugins_file" config:"path" trust:"user" doc:"Path of Claude's installed_plugins.json. Empty means plugins/installed_plugins.json in the Claude folder."`
	// PluginsRoot is Claude's plugins folder (default <Claude config
	// folder>/plugins, where the config folder is claude.Dir:
	// providers.claude.home, else $CLAUDE_CONFIG_DIR, else
	// <user dir>/.claude).
	PluginsRoot string `koanf:"plugins_root" config:"path" trust:"user" doc:"Base folder for relative plugin install paths. Empty means plugins/ in the Claude folder."`
	// Commands also plans the command roots of each enabled plugin
	// (default true).
	Commands bool `koanf:"commands" trust:"stricter=true<false" doc:"Also read the commands of enabled plugins (their commands/ folder or the paths plugin.json lists), served by ccski mcp as MCP prompts."`
}

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name:    "marketplace",
		Doc:     "Claude plugin skills, read from installed_plugins.json.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: providerLabel}},
		Folders: []string{".claude"},
		Kinds:   []pipeline.Kind{pipeline.KindPlugin},
		New:     New,
	}
}

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options { return &Options{Commands: true} }

// Marketplace is the provider for the skills of Claude Code plugins. It is
// immutable and safe for concurrent use.
type Marketplace struct{ opts Options }

var _ providers.Provider = (*Marketplace)(nil)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed("marketplace", defaultOptions, func(o *Options) (providers.Provider, error) {
	return &Marketplace{opts: *o}, nil
})

// Name returns "marketplace", the provider's key in ccski.yaml.
func (m *Marketplace) Name() string { return "marketplace" }

// Plan returns the roots of every enabled plugin that is installed for the
// user or for one of the workspace folders, sorted by plugin key: its
// install-folder root and skills/ root (see the package comment), then its
// command roots. Problems in Claude's files become diagnostics; the only
// error is a cancelled context.
func (m *Marketplace) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	if err := ctx.Err(); err != nil {
		return providers.Plan{}, fmt.Errorf("marketplace: planning plugin skills: %w", err)
	}
	p := newPlanner(m.opts, env)
	roots, err := p.run(ctx)
	if err != nil {
		return providers.Plan{}, fmt.Errorf("marketplace: planning plugin skills: %w", err)
	}
	return providers.Plan{Roots: roots, Diagnostics: p.diags, Disabled: p.disabled, Manifests: p.manifests}, nil
}

// planner holds the state of one Plan call.
type planner struct {
	env providers.Env
	// configDir is the Claude configuration folder, claude.Dir(env).
	configDir   string
	pluginsRoot string
	pluginsFile string
	// explicitFile is true when the user named the plugins file, so that
	// its absence is worth a warning.
	explicitFile bool
	// workspaces are the cleaned workspace folders, nearest first.
	workspaces []string
	known      map[string]string
	markets    map[string]*marketManifest
	diags      []pipeline.Diagnostic
	// disabled lists the installed plugins enabledPlugins turns off.
	disabled []pipeline.DisabledPlugin
	// manifests lists every file readObject was asked for, in order
	// (providers.Plan.Manifests).
	manifests []string
	// commands says whether plugin command roots are planned.
	commands bool
	// cmdSource records, per plugin key, where its command paths come
	// from; planPlugin sets it and planCommands reads it.
	cmdSource map[string]commandSource
}

// commandSource says where a plugin's commands are: the paths a manifest
// declares (relative to base, inside bound), or the default commands/
// folder of dir.
type commandSource struct {
	declared bool
	paths    []string
	manifest string
	dir      string
	bound    string
}

func newPlanner(opts Options, env providers.Env) *planner {
	p := &planner{env: env, markets: map[string]*marketManifest{}, commands: opts.Commands,
		cmdSource: map[string]commandSource{}}
	p.configDir = claude.Dir(env)
	p.pluginsRoot = filepath.Join(p.configDir, "plugins")
	if opts.PluginsRoot != "" {
		p.pluginsRoot = p.env.ResolvePath(opts.PluginsRoot)
	}
	p.pluginsFile = filepath.Join(p.pluginsRoot, installedPluginsFile)
	if opts.PluginsFile != "" {
		p.pluginsFile, p.explicitFile = p.env.ResolvePath(opts.PluginsFile), true
	}
	dirs := env.WorkspaceDirs
	if len(dirs) == 0 && env.Workspace != "" {
		dirs = []string{env.Workspace}
	}
	for _, d := range dirs {
		if d != "" {
			p.workspaces = append(p.workspaces, filepath.Clean(d))
		}
	}
	return p
}

// run plans every plugin key in sorted order.
func (p *planner) run(ctx context.Context) ([]pipeline.Root, error) {
	installs, keys := p.loadInstalls()
	keys = dropPlaceholders(installs, keys)
	mark := len(p.diags)
	enabled := p.loadEnablement()
	p.notInstalled(enabled, installs)
	if len(keys) == 0 {
		// Broken settings do not matter while nothing is installed; a
		// plugin they enable does, as nothing of it loads.
		kept := p.diags[:mark]
		for _, d := range p.diags[mark:] {
			if d.Code == providers.CodePluginNotInstalled {
				kept = append(kept, d)
			}
		}
		p.diags = kept
		return nil, nil
	}
	p.known = p.loadKnownMarketplaces()
	var roots []pipeline.Root
	var off []install // the disabled plugins
	var at []int      // the index of each in p.disabled
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		in, ok := p.activeInstall(installs[key])
		if !ok {
			p.report(pipeline.SeverityInfo, "plugin-other-project", p.pluginsFile,
				"plugin %s is installed only for other projects; it is not loaded here", key)
			continue
		}
		if e, ok := enabled[key]; ok && !e.enabled {
			p.report(pipeline.SeverityInfo, "plugin-disabled", e.file,
				"plugin %s is disabled in %s; set enabledPlugins[%q] to true there to load its skills", key, e.file, key)
			at = append(at, len(p.disabled))
			p.disabled = append(p.disabled, pipeline.DisabledPlugin{Provider: providerLabel, Plugin: in.plugin,
				Marketplace: in.market, Settings: e.file})
			off = append(off, in)
			continue
		}
		if planned, ok := p.planPlugin(in); ok {
			roots = append(roots, planned...)
			if p.commands {
				roots = append(roots, p.planCommands(in, planned[0])...)
			}
		}
	}
	// After the enabled plugins, so that the problems of a marketplace
	// they share are reported by them (memberNames drops its own).
	for i, in := range off {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.disabled[at[i]].Skills, p.disabled[at[i]].Commands = p.memberNames(in)
	}
	return roots, nil
}

// notInstalled reports each plugin the settings enable that
// installed_plugins.json does not list, in key order: Claude Code loads
// nothing of it and says nothing.
func (p *planner) notInstalled(enabled map[string]enablement, installs map[string][]install) {
	keys := make([]string, 0, len(enabled))
	for key, e := range enabled {
		if _, ok := installs[key]; e.enabled && !ok {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	for _, key := range keys {
		p.report(pipeline.SeverityWarning, providers.CodePluginNotInstalled, enabled[key].file,
			"plugin %s is enabled in %s but not installed (%s does not list it), so Claude Code loads nothing of it; "+
				"install it with `claude plugin install %s`, or remove it from enabledPlugins", key, enabled[key].file,
			p.pluginsFile, key)
	}
}

// report adds a diagnostic.
func (p *planner) report(sev pipeline.Severity, code, path, format string, args ...any) {
	p.diags = append(p.diags, pipeline.Diagnostic{Severity: sev, Code: code, Provider: providerLabel,
		Path: path, Message: fmt.Sprintf(format, args...)})
}
