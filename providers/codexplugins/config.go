package codexplugins

// This file reads Codex's user config.toml: the plugins feature switch and
// the [plugins."<plugin>@<marketplace>"] tables.

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ccski/ccski/internal/hostedit"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// config is what config.toml says about plugins.
type config struct {
	// plugins are the configured plugins with a valid key, sorted by key.
	plugins []configEntry
}

// configEntry is one [plugins."<plugin>@<marketplace>"] table.
type configEntry struct {
	key, plugin, market string
	enabled             bool
}

// Valid key segments, as Codex checks them: a marketplace name of ASCII
// letters, digits, "_" and "-"; a plugin name may hold dots too, between
// non-empty parts.
var (
	marketSegment = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	pluginSegment = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
)

// parseKey splits "<plugin>@<marketplace>" at its last "@", as Codex does,
// and checks both parts; the error says what is wrong.
func parseKey(key string) (plugin, market string, err error) {
	i := strings.LastIndexByte(key, '@')
	if i <= 0 || i == len(key)-1 {
		return "", "", errors.New("expected <plugin>@<marketplace>")
	}
	plugin, market = key[:i], key[i+1:]
	if !pluginSegment.MatchString(plugin) {
		return "", "", fmt.Errorf("invalid plugin name %q: use ASCII letters, digits, \"_\", \"-\" and dots between them", plugin)
	}
	if !marketSegment.MatchString(market) {
		return "", "", fmt.Errorf("invalid marketplace name %q: use ASCII letters, digits, \"_\" and \"-\"", market)
	}
	return plugin, market, nil
}

// readConfig reads config.toml. ok is false when no plugin is to be
// loaded: the file is missing, unreadable or malformed, the plugins
// feature is off, or the [plugins] tables are invalid (Codex then ignores
// all of them). Every case but the missing file is reported.
func (p *planner) readConfig() (config, bool) {
	file := p.configFile
	p.read(file)
	data, found, err := hostfile.Read(file)
	if !found {
		return config{}, false
	}
	if err != nil {
		p.report(pipeline.SeverityWarning, "codex-config-unreadable", file,
			"cannot read %s: %v; Codex loads no plugin from it until it can be read", filepath.Base(file), err)
		return config{}, false
	}
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		d := pipeline.Diagnostic{Severity: pipeline.SeverityWarning, Code: "codex-config-malformed",
			Provider: Label, Path: file}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// The line of the offending byte: the parser counts an
			// unexpected newline as the start of the next line.
			d.Line, _ = hostedit.Position(data, pe.Position.Start)
			d.Message = fmt.Sprintf("%s is not valid TOML (line %d: %s); Codex loads no plugin until it is fixed",
				filepath.Base(file), d.Line, pe.Message)
		} else {
			d.Message = fmt.Sprintf("%s is not valid TOML (%v); Codex loads no plugin until it is fixed",
				filepath.Base(file), err)
		}
		p.diags = append(p.diags, d)
		return config{}, false
	}
	if !p.featureOn(doc) {
		return config{}, false
	}
	return p.pluginTables(doc)
}

// featureOn reports whether [features] plugins leaves plugins on (the
// default), reporting a switch that turns them off or is no boolean.
func (p *planner) featureOn(doc map[string]any) bool {
	features, ok := doc["features"].(map[string]any)
	if !ok {
		return true
	}
	v, set := features["plugins"]
	if !set {
		return true
	}
	on, isBool := v.(bool)
	switch {
	case !isBool:
		p.report(pipeline.SeverityWarning, "codex-config-invalid", p.configFile,
			"[features] plugins in %s must be true or false, not %s; Codex cannot read its configuration, so no plugin is loaded",
			filepath.Base(p.configFile), tomlType(v))
		return false
	case !on:
		p.report(pipeline.SeverityInfo, "codex-plugins-off", p.configFile,
			"[features] plugins = false in %s turns every Codex plugin off; remove it to load plugin skills",
			filepath.Base(p.configFile))
		return false
	}
	return true
}

// pluginTables reads the [plugins] tables. Codex decodes them all at once:
// one table of the wrong shape makes it ignore every one, which is
// reported naming the culprit. A key that is not "<plugin>@<marketplace>"
// only loses its own plugin.
func (p *planner) pluginTables(doc map[string]any) (config, bool) {
	raw, set := doc["plugins"]
	if !set {
		return config{}, false
	}
	tables, ok := raw.(map[string]any)
	if !ok {
		p.report(pipeline.SeverityWarning, "codex-config-invalid", p.configFile,
			"plugins in %s must be a table of [plugins.\"<plugin>@<marketplace>\"] tables, not %s; Codex loads no plugin",
			filepath.Base(p.configFile), tomlType(raw))
		return config{}, false
	}
	keys := make([]string, 0, len(tables))
	for k := range tables {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var cfg config
	for _, key := range keys {
		e, err := entry(key, tables[key])
		if err != nil {
			p.report(pipeline.SeverityWarning, "codex-config-invalid", p.configFile,
				"[plugins.%q] in %s: %v; Codex then ignores every [plugins] table, so no plugin is loaded: fix this one",
				key, filepath.Base(p.configFile), err)
			return config{}, false
		}
		plugin, market, err := parseKey(key)
		if err != nil {
			p.report(pipeline.SeverityWarning, "plugin-key-invalid", p.configFile,
				"[plugins.%q] in %s: %v; Codex does not load it", key, filepath.Base(p.configFile), err)
			continue
		}
		e.key, e.plugin, e.market = key, plugin, market
		cfg.plugins = append(cfg.plugins, e)
	}
	return cfg, true
}

// entry decodes one plugin table: enabled, a boolean that defaults to
// true, and mcp_servers, a table this provider does not use. Other keys
// are ignored, as Codex ignores them.
func entry(key string, v any) (configEntry, error) {
	t, ok := v.(map[string]any)
	if !ok {
		return configEntry{}, fmt.Errorf("must be a table, not %s", tomlType(v))
	}
	e := configEntry{enabled: true}
	if raw, set := t["enabled"]; set {
		b, ok := raw.(bool)
		if !ok {
			return configEntry{}, fmt.Errorf("enabled must be true or false, not %s", tomlType(raw))
		}
		e.enabled = b
	}
	if raw, set := t["mcp_servers"]; set {
		if _, ok := raw.(map[string]any); !ok {
			return configEntry{}, fmt.Errorf("mcp_servers must be a table, not %s", tomlType(raw))
		}
	}
	return e, nil
}

// tomlType names the TOML type of a decoded value for a message.
func tomlType(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case bool:
		return "a boolean"
	case int64, float64:
		return fmt.Sprintf("the number %v", v)
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}
