// Package copilotplugins plans the skill folders of the plugins GitHub
// Copilot CLI loads, as Copilot CLI 1.0.102 keeps them (measured with the
// real program, docs/hosts.md):
//
//   - Its folder is $COPILOT_HOME, else ~/.copilot.
//   - config.json (JSON with comments, "managed automatically") lists the
//     plugins installed from a git marketplace in installedPlugins: name,
//     marketplace, version and cache_path, a copy in
//     installed-plugins/<marketplace>/<plugin>/.
//   - settings.json's enabledPlugins ("<plugin>@<marketplace>": true or
//     false) decides whether each is loaded: a plugin it leaves out is off,
//     whatever config.json's own enabled says. `copilot plugin enable` and
//     `disable` write both files.
//   - A plugin of a marketplace that settings.json's extraKnownMarketplaces
//     gives as a local folder ({"source": "directory", "path": ...}) is
//     loaded live from that folder, never copied: its folder is the
//     plugin's source in the marketplace's .github/plugin/marketplace.json
//     (or .claude-plugin/marketplace.json).
//
// A plugin's manifest is its root plugin.json, then .github/plugin/
// plugin.json, then .claude-plugin/plugin.json: a root plugin.json that
// claims Agent Plugins (an agent-plugins.org $schema) is held to Agent
// Plugins 1.0's closed schema (a plugin whose name breaks it loads no
// skill), any other is Copilot's own lenient manifest. Skills are the sub-folders of skills/, named
// <plugin>:<skill> by ccski; a path resolving outside the plugin root is
// refused, as the Agent Plugins specification requires. A plugin that
// settings.json turns off gives no roots; it is listed in Plan.Disabled.
package copilotplugins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/copilot"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// Name is the provider's key in ccski.yaml (providers.copilot_plugins).
const Name = "copilot_plugins"

// Label is the agent label of its records: they are Copilot's skills.
const Label = copilot.Name

// HomeVar moves Copilot CLI's folder.
const HomeVar = "COPILOT_HOME"

// Files in Copilot CLI's folder.
const (
	configFile    = "config.json"
	SettingsFile  = "settings.json"
	installedDir  = "installed-plugins"
	defaultFolder = ".copilot"
)

// marketManifests are the marketplace files of a local marketplace, in
// the order read.
var marketManifests = []string{".github/plugin/marketplace.json", ".claude-plugin/marketplace.json"}

// formats are the manifests Copilot CLI reads, in its order.
var formats = []providers.PluginFormat{providers.ClaimedAgentPluginsFormat, providers.CopilotGitHubFormat,
	providers.ClaudeManifestFormat}

// Entry describes the provider to the registry (package providers/all).
// It claims no folder: .copilot is the copilot provider's.
func Entry() providers.Entry {
	return providers.Entry{
		Name: Name,
		Doc: "GitHub Copilot CLI plugins: the skills of the plugins in $COPILOT_HOME/config.json (installed in " +
			"installed-plugins/) and of local marketplaces, that settings.json's enabledPlugins turns on, named <plugin>:<skill>.",
		Options: func() any { return &Options{} },
		Labels:  []providers.Label{{Name: Label}},
		Kinds:   []pipeline.Kind{pipeline.KindPlugin},
		New:     New,
	}
}

// Options are the keys under providers.copilot_plugins in ccski.yaml.
type Options struct {
	// Home is Copilot CLI's folder (default $COPILOT_HOME, else
	// ~/.copilot).
	Home string `koanf:"home" config:"path" trust:"user" doc:"Copilot CLI's folder, holding config.json, settings.json and installed-plugins/. Empty means $COPILOT_HOME, else .copilot in the user folder."`
}

// Provider is the Copilot CLI plugins provider. It is immutable and safe
// for concurrent use.
type Provider struct{ opts Options }

var _ providers.Provider = (*Provider)(nil)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed(Name, func() *Options { return &Options{} }, func(o *Options) (providers.Provider, error) {
	return &Provider{opts: *o}, nil
})

// Name returns "copilot_plugins".
func (p *Provider) Name() string { return Name }

// Dir returns Copilot CLI's folder in env: $COPILOT_HOME, else
// ~/.copilot.
func Dir(env providers.Env) string {
	return providers.HomeFolder{Var: HomeVar, Folder: defaultFolder}.Resolve(env, "")
}

// Plan returns the roots of every enabled plugin, installed ones first
// in config.json's order, then live ones by key, and lists the disabled
// ones. Problems in Copilot's files are diagnostics; the only error is a
// cancelled context.
func (p *Provider) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	if err := ctx.Err(); err != nil {
		return providers.Plan{}, fmt.Errorf("%s: %w", Name, err)
	}
	home := p.Home(env)
	pl := &planner{home: home, r: &providers.PluginReader{Label: Label},
		settings: filepath.Join(home, SettingsFile)}
	pl.readSettings()
	seen := map[string]bool{}
	for _, in := range pl.readInstalled() {
		if err := ctx.Err(); err != nil {
			return providers.Plan{}, fmt.Errorf("%s: %w", Name, err)
		}
		seen[in.key()] = true
		pl.plugin(in)
	}
	for _, key := range pl.liveKeys() {
		if !seen[key] {
			if in, ok := pl.live(key); ok {
				pl.plugin(in)
			}
		}
	}
	return providers.Plan{Roots: pl.roots, Diagnostics: pl.r.Diags, Disabled: pl.disabled,
		Manifests: pl.r.Read, Listings: pl.listings}, nil
}

// planner holds the state of one Plan call.
type planner struct {
	home, settings string
	r              *providers.PluginReader
	// enabled is settings.json's enabledPlugins; markets its local
	// marketplaces by name.
	enabled  map[string]bool
	markets  map[string]string
	roots    []pipeline.Root
	disabled []pipeline.DisabledPlugin
	listings []string
}

// install is one plugin Copilot CLI would load if enabled.
type install struct {
	name, market, version, dir string
}

func (in install) key() string { return in.name + "@" + in.market }

// readJSON reads a JSON (with comments) object file into v. A missing
// file is not reported; a broken one is.
func (p *planner) readJSON(file string, v any) bool {
	p.r.Read = append(p.r.Read, file)
	data, found, err := hostfile.Read(file)
	if !found {
		return false
	}
	if err == nil {
		err = hostfile.DecodeJSONC(data, v)
	}
	if err != nil {
		d := pipeline.Diagnostic{Severity: pipeline.SeverityWarning, Code: "copilot-config-malformed", Provider: Label,
			Path: file, Message: fmt.Sprintf("cannot read %s (%v); Copilot CLI loads no plugin from it until it is fixed",
				filepath.Base(file), err)}
		if se, ok := err.(*hostfile.SyntaxError); ok {
			d.Line = se.Line
		}
		p.r.Diags = append(p.r.Diags, d)
		return false
	}
	return true
}

// readSettings reads enabledPlugins and the local marketplaces of
// settings.json.
func (p *planner) readSettings() {
	var raw struct {
		EnabledPlugins map[string]any `json:"enabledPlugins"`
		Markets        map[string]struct {
			Source struct {
				Source string `json:"source"`
				Path   string `json:"path"`
			} `json:"source"`
		} `json:"extraKnownMarketplaces"`
	}
	p.enabled, p.markets = map[string]bool{}, map[string]string{}
	if !p.readJSON(p.settings, &raw) {
		return
	}
	for k, v := range raw.EnabledPlugins {
		on, ok := v.(bool)
		if !ok {
			p.report(pipeline.SeverityWarning, "copilot-settings-invalid", p.settings,
				"enabledPlugins[%q] in %s must be true or false; the plugin counts as off", k, SettingsFile)
			continue
		}
		p.enabled[k] = on
	}
	for name, m := range raw.Markets {
		if m.Source.Source == "directory" && m.Source.Path != "" {
			p.markets[name] = m.Source.Path
		}
	}
}

// readInstalled reads config.json's installedPlugins.
func (p *planner) readInstalled() []install {
	var raw struct {
		Installed []struct {
			Name        string `json:"name"`
			Marketplace string `json:"marketplace"`
			Version     string `json:"version"`
			CachePath   string `json:"cache_path"`
		} `json:"installedPlugins"`
	}
	if !p.readJSON(filepath.Join(p.home, configFile), &raw) {
		return nil
	}
	var out []install
	for _, e := range raw.Installed {
		if e.Name == "" {
			continue
		}
		dir := e.CachePath
		if dir == "" {
			dir = filepath.Join(p.home, installedDir, e.Marketplace, e.Name)
		}
		out = append(out, install{name: e.Name, market: e.Marketplace, version: e.Version, dir: filepath.Clean(dir)})
	}
	return out
}

// liveKeys returns the keys of enabledPlugins whose marketplace is a
// local folder, sorted.
func (p *planner) liveKeys() []string {
	var keys []string
	for k := range p.enabled {
		if i := strings.LastIndexByte(k, '@'); i > 0 {
			if _, ok := p.markets[k[i+1:]]; ok {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// live finds the folder of a live plugin in its local marketplace.
func (p *planner) live(key string) (install, bool) {
	i := strings.LastIndexByte(key, '@')
	name, market := key[:i], key[i+1:]
	root := p.markets[market]
	for _, rel := range marketManifests {
		file := filepath.Join(root, filepath.FromSlash(rel))
		var raw struct {
			Plugins []struct {
				Name    string `json:"name"`
				Source  any    `json:"source"`
				Version string `json:"version"`
			} `json:"plugins"`
		}
		if _, err := os.Lstat(file); err != nil {
			p.r.Read = append(p.r.Read, file)
			continue
		}
		if !p.readJSON(file, &raw) {
			return install{}, false
		}
		for _, e := range raw.Plugins {
			if e.Name != name {
				continue
			}
			src, _ := e.Source.(string)
			if src == "." || src == "./" {
				return install{name: name, market: market, version: e.Version, dir: root}, true
			}
			if !strings.HasPrefix(src, "./") {
				src = "./" + src
			}
			rel, problem := providers.PluginPath(src)
			if problem != "" {
				p.report(pipeline.SeverityWarning, "marketplace-entry-invalid", file,
					"the source %q of plugin %s %s; Copilot CLI cannot load it", src, key, problem)
				return install{}, false
			}
			return install{name: name, market: market, version: e.Version, dir: filepath.Join(root, rel)}, true
		}
		p.report(pipeline.SeverityWarning, providers.CodePluginNotInstalled, p.settings,
			"plugin %s is enabled in %s but its marketplace %s does not list it, so Copilot CLI loads nothing of it",
			key, p.settings, file)
		return install{}, false
	}
	return install{}, false
}

// plugin plans one plugin: its roots when enabled, else a disabled entry.
func (p *planner) plugin(in install) {
	what := "plugin " + in.key()
	p.listings = append(p.listings, in.dir)
	pf, ok := p.r.Folder(in.dir, what, formats...)
	if !ok {
		return
	}
	if !p.enabled[in.key()] {
		state := "leaves it out of enabledPlugins"
		if _, set := p.enabled[in.key()]; set {
			state = "sets enabledPlugins[\"" + in.key() + "\"] to false"
		}
		p.report(pipeline.SeverityInfo, "plugin-disabled", p.settings,
			"plugin %s is off: %s %s; run `copilot plugin enable %s` to load its skills", in.key(), p.settings, state, in.key())
		p.disabled = append(p.disabled, pipeline.DisabledPlugin{Provider: Label, Plugin: in.name, Marketplace: in.market,
			Settings: p.settings, Skills: providers.SkillNamesOf(pf),
			Enable: fmt.Sprintf("`copilot plugin enable %s` (%s enabledPlugins)", in.key(), p.settings)})
		return
	}
	version := in.version
	if version == "" {
		version = pf.Version
	}
	p.listings = append(p.listings, pf.SkillDirs...)
	info := &pipeline.PluginInfo{Plugin: in.name, Marketplace: in.market, Version: version}
	p.roots = append(p.roots, p.r.Roots(pf, pipeline.Root{Agent: Label, Provider: Name,
		Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin, Prefix: pf.Name, Plugin: info,
		Optional: true}, what)...)
}

func (p *planner) report(sev pipeline.Severity, code, path, format string, args ...any) {
	p.r.Diags = append(p.r.Diags, pipeline.Diagnostic{Severity: sev, Code: code, Provider: Label, Path: path,
		Message: fmt.Sprintf(format, args...)})
}
