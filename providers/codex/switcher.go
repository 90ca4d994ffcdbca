package codex

// This file writes Codex's switches in the user's config.toml:
// [[skills.config]] tables for a skill, [plugins."<plugin>@<marketplace>"]
// enabled for a plugin.

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/hostedit"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// HostName is Codex's agent label, and Title how messages name it.
const (
	HostName = "codex"
	Title    = "Codex"
)

// host describes Codex's switches (Codex.Host).
var host = providers.Host{Name: HostName, Title: Title, Switcher: switcher{}, Home: Dir, Clients: []string{"codex-mcp-client"},
	Instructions: func(env providers.Env, scope string) string {
		if scope == "project" {
			return filepath.Join(env.Workspace, "AGENTS.md")
		}
		return filepath.Join(Dir(env), "AGENTS.md")
	}}

type switcher struct{}

// Modes: Codex's switch is on or off.
func (switcher) Modes() []string { return []string{pipeline.ModeOff} }

// Scopes: Codex reads [[skills.config]] from the user's config.toml only.
func (switcher) Scopes() []string { return []string{"user"} }

var tomlEdit = hostedit.TOML{}

// matches reports whether the [[skills.config]] entry e names r: by
// its SKILL.md path, or by its frontmatter name (Codex's name for it; a
// folder name is not one).
func matches(e map[string]any, r *pipeline.Record) bool {
	if p, ok := e["path"].(string); ok && p != "" {
		return filepath.Clean(p) == filepath.Clean(r.File)
	}
	n, ok := e["name"].(string)
	return ok && n == r.Name
}

// byName reports whether the entry e names its skill by name, not path.
func byName(e map[string]any) bool {
	p, _ := e["path"].(string)
	return p == ""
}

// SetSkill turns a skill off by setting enabled = false in the
// [[skills.config]] tables that name it, or by adding one. The new table
// names the skill by name, which survives worktrees and moves, unless
// Codex reads another skill of that name: then by path, so as not to
// switch that one too; for the same reason a table that names a shared
// name is never edited. Turning a skill on removes the tables that turn
// it off when they hold nothing else, and sets enabled = true in the
// others; a table that turns off every skill of a shared name is an
// error, since turning it on would turn them all on.
func (switcher) SetSkill(req providers.SkillRequest) ([]providers.Edit, error) {
	r := req.Record
	file := ConfigFile(req.Env)
	data, _, err := req.Files.Read(file)
	if err != nil {
		return nil, err
	}
	entries, err := tomlEdit.ArrayEntries(data, ConfigPath)
	if err != nil {
		return nil, providers.NewFileError(file, err)
	}
	var edits []providers.Edit
	edit := func(setting string, f func([]byte) ([]byte, error)) error {
		changed, err := providers.EditFile(req.Files, file, f)
		if err == nil {
			edits = append(edits, providers.Edit{File: file, Scope: "user", Setting: setting, Changed: changed})
		}
		return err
	}
	off := req.Mode != pipeline.ModeOn
	others := sameName(r, req.All)
	found := false
	// From the last table to the first, so that removing one leaves the
	// index of the earlier ones as it was.
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !matches(e, r) {
			continue
		}
		label := describe(e)
		enabled, set := e["enabled"].(bool)
		if len(others) > 0 && byName(e) {
			switch {
			case off && set && !enabled:
				found = true // off already, with the others
			case !off && set && !enabled:
				return nil, fmt.Errorf("%s in %s turns off every Codex skill named %q, this one and %s; "+
					"ccski will not turn them all on: remove or change that table by hand",
					label, file, r.Name, strings.Join(others, ", "))
			}
			continue // the others' switch too: left alone
		}
		found = true
		switch {
		case off:
			err = edit(label+" enabled = false", func(d []byte) ([]byte, error) {
				return tomlEdit.SetInArray(d, ConfigPath, i, "enabled", false)
			})
		case !set || enabled:
			continue
		case onlySwitch(e):
			err = edit(label+" removed", func(d []byte) ([]byte, error) {
				return tomlEdit.RemoveFromArray(d, ConfigPath, i)
			})
		default:
			err = edit(label+" enabled = true", func(d []byte) ([]byte, error) {
				return tomlEdit.SetInArray(d, ConfigPath, i, "enabled", true)
			})
		}
		if err != nil {
			return nil, err
		}
	}
	if !off || found {
		return edits, nil
	}
	kv := hostedit.KV{Key: "name", Value: r.Name}
	if len(others) > 0 {
		kv = hostedit.KV{Key: "path", Value: r.File}
	}
	err = edit(describe(map[string]any{kv.Key: kv.Value})+" enabled = false", func(d []byte) ([]byte, error) {
		return tomlEdit.AppendToArray(d, ConfigPath, []hostedit.KV{kv, {Key: "enabled", Value: false}})
	})
	return edits, err
}

// onlySwitch reports whether the table holds nothing but what names the
// skill and enabled, so that removing it loses nothing.
func onlySwitch(e map[string]any) bool {
	for k := range e {
		if k != "path" && k != "name" && k != "enabled" {
			return false
		}
	}
	return true
}

// describe names a [[skills.config]] table by what it names.
func describe(e map[string]any) string {
	if p, ok := e["path"].(string); ok && p != "" {
		return fmt.Sprintf("%s path = %q", Setting, p)
	}
	return fmt.Sprintf("%s name = %q", Setting, e["name"])
}

// sameName lists the SKILL.md files of the other skills Codex reads
// that are named like r: a [[skills.config]] name switches them too.
func sameName(r *pipeline.Record, all []*pipeline.Record) []string {
	var out []string
	for _, o := range all {
		if o.File == r.File || o.IsCommand() || o.Plugin != nil || o.Name != r.Name || !slices.Contains(o.Hosts, HostName) {
			continue
		}
		if !slices.Contains(out, o.File) {
			out = append(out, o.File)
		}
	}
	return out
}

// SetPlugin sets enabled in the plugin's [plugins."<key>"] table.
func (switcher) SetPlugin(req providers.PluginRequest) ([]providers.Edit, error) {
	file := ConfigFile(req.Env)
	changed, err := providers.EditFile(req.Files, file, func(d []byte) ([]byte, error) {
		return tomlEdit.SetInTable(d, []string{"plugins", req.Key}, "enabled", req.On)
	})
	if err != nil {
		return nil, err
	}
	return []providers.Edit{{File: file, Scope: "user", Changed: changed,
		Setting: fmt.Sprintf("[plugins.%q] enabled = %v", req.Key, req.On)}}, nil
}
