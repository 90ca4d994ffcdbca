// Package codexplugins plans the skill folders of the Codex plugins that
// Codex itself loads, namespaced by plugin as Codex names them
// ("superpowers:brainstorming").
//
// Codex loads a plugin when, and only when, its user config.toml (in the
// Codex folder, codex.Dir) has a [plugins."<plugin>@<market>"]
// table whose enabled is true (the default when the table leaves it out),
// the plugins feature is on ([features] plugins, on by default), and the
// plugin is installed in the cache: $CODEX_HOME/plugins/cache/<market>/
// <plugin>/<version>/. Of several versions there, the one named "local"
// is active if present, else the greatest name in byte order (as Codex
// sorts them: "1.10.0" sorts before "1.9.0"). The install holds a manifest,
// .codex-plugin/plugin.json (or, failing that, .claude-plugin/plugin.json),
// whose name namespaces the plugin's skills and whose "skills" field (a
// "./"-relative path or a list of them) adds skill folders to the default
// skills/. Codex walks each skill folder recursively, so the roots planned
// here are walked, not flat.
//
// Marketplaces (.agents/plugins/marketplace.json in the repository and in
// the user folder, and those `codex plugin marketplace add` keeps under
// $CODEX_HOME/.tmp) are catalogs to install from; Codex loads nothing from
// them directly. They are read only to say how to install a plugin that
// config.toml enables but the cache lacks.
//
// A plugin that config.toml disables gives no roots; it is listed in
// Plan.Disabled, with the names of its skill folders, so that asking for
// one of its skills says where to turn it on.
//
// The provider reads only config.toml, plugin manifests and folder
// listings; it never opens a SKILL.md. Problems in those files are
// diagnostics, never errors: Codex itself skips what it cannot read.
package codexplugins

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/codex"
)

// Name is the provider's key in ccski.yaml (providers.codex_plugins).
const Name = "codex_plugins"

// Label is the agent label of its records: they are Codex's skills.
const Label = "codex"

// Entry describes the provider to the registry (package providers/all).
// It claims no folder: .codex and .agents are the codex and agents
// providers', and the label's ".codex" is claimed through the label.
// Its roots are all of kind plugin: Codex keeps a plugin's skills apart
// by their namespace, so they never compete with local skills of the same
// short name, and rank with the other plugins below every user and
// project skill.
func Entry() providers.Entry {
	return providers.Entry{
		Name: Name,
		Doc: "Codex plugins: the skills of the plugins enabled in $CODEX_HOME/config.toml " +
			"([plugins.\"<plugin>@<marketplace>\"]) and installed in $CODEX_HOME/plugins/cache, " +
			"named <plugin>:<skill> as Codex names them.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: Label}},
		Kinds:   []pipeline.Kind{pipeline.KindPlugin},
		New:     New,
	}
}

// Options are the keys under providers.codex_plugins in ccski.yaml. An
// empty path means the default, which follows the Codex folder
// (providers.codex.home, else $CODEX_HOME, else <user dir>/.codex). A
// leading "~" stands for the user folder and a relative path is taken from
// the workspace.
type Options struct {
	// ConfigFile is Codex's user config.toml, whose [plugins] tables say
	// which plugins are enabled (default <Codex folder>/config.toml).
	ConfigFile string `koanf:"config_file" config:"path" trust:"user" doc:"Codex's user config.toml, whose [plugins.\"<plugin>@<marketplace>\"] tables enable plugins. Empty means config.toml in the Codex folder."`
	// CacheDir is the folder Codex installs plugins into (default
	// <Codex folder>/plugins/cache).
	CacheDir string `koanf:"cache_dir" config:"path" trust:"user" doc:"The folder Codex installs plugins into. Empty means plugins/cache in the Codex folder."`
}

// defaultOptions returns the options a key left out keeps: every path
// empty, so that it follows the Codex folder.
func defaultOptions() *Options { return &Options{} }

// Names of the files and folders this provider reads, relative to their
// base folder.
const (
	configFileName = "config.toml"
	cacheFolder    = "plugins/cache"
	// localVersion is the version folder of a plugin installed without a
	// version: it wins over every numbered one.
	localVersion        = "local"
	defaultSkillsFolder = "skills"
)

// manifestPaths are the plugin manifests Codex looks for, in order.
var manifestPaths = []string{".codex-plugin/plugin.json", ".claude-plugin/plugin.json"}

// Provider is the Codex plugins provider. It is immutable and safe for
// concurrent use.
type Provider struct{ opts Options }

var _ providers.Provider = (*Provider)(nil)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed(Name, defaultOptions, func(o *Options) (providers.Provider, error) {
	return &Provider{opts: *o}, nil
})

// Name returns "codex_plugins", the provider's key in ccski.yaml.
func (p *Provider) Name() string { return Name }

// Plan returns the skill roots of every plugin config.toml enables and the
// cache holds, sorted by plugin key, and lists the plugins config.toml
// disables. Problems in Codex's files are diagnostics; the only error is
// a cancelled context.
func (p *Provider) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	if err := ctx.Err(); err != nil {
		return providers.Plan{}, fmt.Errorf("%s: planning plugin skills: %w", Name, err)
	}
	pl := &planner{env: env, configFile: filepath.Join(codex.Dir(env), configFileName),
		cacheDir: filepath.Join(codex.Dir(env), filepath.FromSlash(cacheFolder))}
	if p.opts.ConfigFile != "" {
		pl.configFile = env.ResolvePath(p.opts.ConfigFile)
	}
	if p.opts.CacheDir != "" {
		pl.cacheDir = env.ResolvePath(p.opts.CacheDir)
	}
	if err := pl.run(ctx); err != nil {
		return providers.Plan{}, fmt.Errorf("%s: planning plugin skills: %w", Name, err)
	}
	return providers.Plan{Roots: pl.roots, Diagnostics: pl.diags, Disabled: pl.disabled,
		Manifests: pl.manifests, Listings: pl.listings}, nil
}

// planner holds the state of one Plan call.
type planner struct {
	env        providers.Env
	configFile string
	cacheDir   string
	roots      []pipeline.Root
	diags      []pipeline.Diagnostic
	disabled   []pipeline.DisabledPlugin
	manifests  []string
	// listings are the version folders of the configured plugins: a new
	// version (or a first install) is a new folder there.
	listings []string
	// markets are the marketplaces found so far, read on demand.
	markets *marketplaces
}

// run plans every configured plugin in key order.
func (p *planner) run(ctx context.Context) error {
	cfg, ok := p.readConfig()
	if !ok {
		return nil
	}
	for _, e := range cfg.plugins {
		if err := ctx.Err(); err != nil {
			return err
		}
		p.plan(e)
	}
	return nil
}

// plan plans one configured plugin.
func (p *planner) plan(e configEntry) {
	if !e.enabled {
		p.report(pipeline.SeverityInfo, "plugin-disabled", p.configFile,
			"plugin %s is disabled in %s; set enabled = true in its [plugins.%q] table to load its skills",
			e.key, p.configFile, e.key)
		d := pipeline.DisabledPlugin{Provider: Label, Plugin: e.plugin, Marketplace: e.market,
			Settings: p.configFile, Enable: p.enableHint(e.key)}
		if in, ok := p.activeInstall(e); ok {
			d.Skills = p.memberNames(in)
		}
		p.disabled = append(p.disabled, d)
		return
	}
	in, ok := p.activeInstall(e)
	if !ok {
		p.report(pipeline.SeverityWarning, providers.CodePluginNotInstalled, p.configFile,
			"plugin %s is enabled in %s but not installed in %s, so Codex does not load it; %s",
			e.key, p.configFile, filepath.Join(p.cacheDir, e.market, e.plugin), p.installHint(e))
		return
	}
	m, ok := p.readManifest(e.key, in)
	if !ok {
		return
	}
	namespace := m.name
	if namespace == "" {
		namespace = e.plugin
	}
	info := &pipeline.PluginInfo{Plugin: e.plugin, Marketplace: e.market, Version: in.version}
	for _, dir := range p.skillRoots(e.key, in, m) {
		p.roots = append(p.roots, pipeline.Root{
			Path: dir, Agent: Label, Provider: Name, Location: pipeline.LocationPlugin,
			Kind: pipeline.KindPlugin, Prefix: namespace, Plugin: info, Optional: true,
		})
	}
}

// enableHint says where Codex turns the plugin key on.
func (p *planner) enableHint(key string) string {
	return fmt.Sprintf("%s: [plugins.%q] enabled = true", p.configFile, key)
}

// report adds a diagnostic.
func (p *planner) report(sev pipeline.Severity, code, path, format string, args ...any) {
	p.diags = append(p.diags, pipeline.Diagnostic{Severity: sev, Code: code, Provider: Label,
		Path: path, Message: fmt.Sprintf(format, args...)})
}

// read records that file was read (or looked for), for the watcher.
func (p *planner) read(file string) { p.manifests = append(p.manifests, file) }
