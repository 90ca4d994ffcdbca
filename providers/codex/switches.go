package codex

// This file reads Codex's skill switches: the [[skills.config]] tables of
// the user's config.toml, each naming a skill by path (its SKILL.md) or by
// name, with enabled = false to turn it off. Codex ignores them in a
// project's .codex/config.toml, so only the user's file counts. ccski's
// enable and disable commands write the same file (ConfigFile).

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/BurntSushi/toml"

	"github.com/ccski/ccski/internal/hostedit"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// Setting names Codex's skill switches in messages.
const Setting = "[[skills.config]]"

// ConfigPath is the array of tables that holds the switches:
// [[skills.config]].
var ConfigPath = []string{"skills", "config"}

// ConfigFile is the user's config.toml in env's Codex folder.
func ConfigFile(env providers.Env) string { return filepath.Join(Dir(env), "config.toml") }

// readSwitches reads the [[skills.config]] tables of config.toml, in file
// order. Tables with enabled = true are kept too: they cancel an earlier
// table's false.
func readSwitches(env providers.Env) ([]pipeline.SkillSwitch, []pipeline.Diagnostic, []string) {
	file := ConfigFile(env)
	warn := func(line int, format string, args ...any) pipeline.Diagnostic {
		return pipeline.Diagnostic{Severity: pipeline.SeverityWarning, Code: "skills-config-invalid",
			Provider: "codex", Path: file, Line: line, Message: fmt.Sprintf(format, args...)}
	}
	data, found, err := hostfile.Read(file)
	if !found {
		return nil, nil, []string{file}
	}
	if err != nil {
		return nil, []pipeline.Diagnostic{warn(0, "cannot read config.toml: %v; the skills it switches off are shown as on", err)}, []string{file}
	}
	// Into maps, not a struct: BurntSushi/toml would match a struct's
	// fields case-insensitively, and read [[Skills.Config]], which Codex
	// ignores, as switches.
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		var pe toml.ParseError
		line := 0
		if errors.As(err, &pe) {
			line, _ = hostedit.Position(data, pe.Position.Start)
			err = errors.New(pe.Message)
		}
		return nil, []pipeline.Diagnostic{warn(line, "config.toml: %v; the skills it switches off are shown as on until it is fixed", err)}, []string{file}
	}
	var out []pipeline.SkillSwitch
	var diags []pipeline.Diagnostic
	skills, _ := doc["skills"].(map[string]any)
	var entries []map[string]any
	switch list := skills["config"].(type) {
	case []map[string]any:
		entries = list
	case []any:
		for _, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				diags = append(diags, warn(0, "%s must be a list of tables; ignored", Setting))
				return nil, diags, []string{file}
			}
			entries = append(entries, m)
		}
	case nil:
	default:
		diags = append(diags, warn(0, "%s must be a list of tables; ignored", Setting))
		return nil, diags, []string{file}
	}
	for i, e := range entries {
		enabled, ok := e["enabled"].(bool)
		if _, set := e["enabled"]; !set {
			continue // switches nothing
		}
		if !ok {
			diags = append(diags, warn(0, "%s entry %d: enabled must be true or false; ignored", Setting, i+1))
			continue
		}
		s := pipeline.SkillSwitch{HostSwitch: pipeline.HostSwitch{Host: HostName, Title: Title, Mode: pipeline.ModeOn,
			File: file, Scope: "user", Setting: Setting}}
		if !enabled {
			s.Mode = pipeline.ModeOff
		}
		path, hasPath := e["path"].(string)
		name, hasName := e["name"].(string)
		switch {
		case hasPath && path != "":
			if !filepath.IsAbs(path) {
				diags = append(diags, warn(0, "%s entry %d: path %q must be the absolute path of a SKILL.md; ignored", Setting, i+1, path))
				continue
			}
			s.Path = path
		case hasName && name != "":
			s.Name = name
		default:
			diags = append(diags, warn(0, "%s entry %d: name a skill with path or name; ignored", Setting, i+1))
			continue
		}
		out = append(out, s)
	}
	return out, diags, []string{file}
}
