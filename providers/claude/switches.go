package claude

// This file reads Claude Code's skill switches: skillOverrides in its
// settings files. ccski's enable and disable commands write them at the
// paths SettingsPath gives, so that what they write is read back here.

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// The scopes of Claude Code's settings files.
const (
	ScopeUser    = "user"    // <Claude folder>/settings.json
	ScopeProject = "project" // <project>/.claude/settings.json, shared with the team
	ScopeLocal   = "local"   // <project>/.claude/settings.local.json, this machine only
)

// Setting is the name of the settings key that switches skills.
const Setting = "skillOverrides"

// SettingsFile is one of Claude Code's settings files.
type SettingsFile struct {
	Path  string
	Scope string
}

// SettingsPath is the settings file of scope: the user's in env's Claude
// folder, or the project's or local one in the project folder dir.
func SettingsPath(env providers.Env, scope, dir string) string {
	return settingsPath(Dir(env), scope, dir)
}

func settingsPath(claudeDir, scope, dir string) string {
	switch scope {
	case ScopeProject:
		return filepath.Join(dir, ".claude", "settings.json")
	case ScopeLocal:
		return filepath.Join(dir, ".claude", "settings.local.json")
	}
	return filepath.Join(claudeDir, "settings.json")
}

// SettingsFiles lists the settings files Claude Code reads for env, in
// its order of precedence, lowest first (see SettingsFilesIn). The
// workspace folders are env's, or its workspace alone when it lists
// none.
func SettingsFiles(env providers.Env) []SettingsFile {
	dirs := env.WorkspaceDirs
	if len(dirs) == 0 && env.Workspace != "" {
		dirs = []string{env.Workspace}
	}
	return SettingsFilesIn(Dir(env), dirs)
}

// SettingsFilesIn lists the settings files Claude Code reads with the
// Claude folder claudeDir and the workspace folders workspaces (nearest
// first), in its order of precedence, lowest first: the user's, then for
// each workspace folder from the farthest to the nearest the project
// file and the local file. A later file's value for a key wins. It is
// the one list of them: the skill switches (skillOverrides) and the
// plugin switches (enabledPlugins, read by the marketplace provider)
// are read and written in these files.
func SettingsFilesIn(claudeDir string, workspaces []string) []SettingsFile {
	files := []SettingsFile{{settingsPath(claudeDir, ScopeUser, ""), ScopeUser}}
	for _, ws := range slices.Backward(workspaces) {
		files = append(files,
			SettingsFile{settingsPath(claudeDir, ScopeProject, ws), ScopeProject},
			SettingsFile{settingsPath(claudeDir, ScopeLocal, ws), ScopeLocal})
	}
	seen := map[string]bool{}
	out := files[:0]
	for _, f := range files {
		if !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	}
	return out
}

// Modes are the values skillOverrides takes.
var Modes = []string{pipeline.ModeOn, pipeline.ModeNameOnly, pipeline.ModeUserInvocableOnly, pipeline.ModeOff}

// readSwitches reads skillOverrides from every settings file, in order.
// It returns the switches, the problems met, and the files read or
// looked for.
func readSwitches(env providers.Env) ([]pipeline.SkillSwitch, []pipeline.Diagnostic, []string) {
	var out []pipeline.SkillSwitch
	var diags []pipeline.Diagnostic
	var files []string
	warn := func(file, format string, args ...any) {
		diags = append(diags, pipeline.Diagnostic{Severity: pipeline.SeverityWarning, Code: "skill-overrides-invalid",
			Provider: "claude", Path: file, Message: fmt.Sprintf(format, args...)})
	}
	for _, f := range SettingsFiles(env) {
		files = append(files, f.Path)
		data, found, err := hostfile.Read(f.Path)
		if !found {
			continue
		}
		if err != nil {
			warn(f.Path, "cannot read %s: %v; the skills it switches off are shown as on", filepath.Base(f.Path), err)
			continue
		}
		var settings map[string]json.RawMessage
		if err := hostfile.DecodeJSON(data, &settings); err != nil {
			var se *hostfile.SyntaxError
			d := pipeline.Diagnostic{Severity: pipeline.SeverityWarning, Code: "skill-overrides-invalid",
				Provider: "claude", Path: f.Path,
				Message: fmt.Sprintf("%s is not valid JSON (%v); Claude Code cannot read it either: fix it", filepath.Base(f.Path), err)}
			if errors.As(err, &se) {
				d.Line = se.Line
			}
			diags = append(diags, d)
			continue
		}
		raw, ok := settings[Setting]
		if !ok || string(raw) == "null" {
			continue
		}
		var overrides map[string]json.RawMessage
		if err := json.Unmarshal(raw, &overrides); err != nil {
			warn(f.Path, "%s in %s must be an object of \"skill\": \"on\"|\"name-only\"|\"user-invocable-only\"|\"off\"; ignored",
				Setting, filepath.Base(f.Path))
			continue
		}
		names := make([]string, 0, len(overrides))
		for n := range overrides {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			var mode string
			if json.Unmarshal(overrides[name], &mode) != nil || !slices.Contains(Modes, mode) {
				warn(f.Path, "%s[%q] in %s must be one of %q; ignored", Setting, name, filepath.Base(f.Path), Modes)
				continue
			}
			out = append(out, pipeline.SkillSwitch{Folder: name, HostSwitch: pipeline.HostSwitch{
				Host: HostName, Title: Title, Mode: mode, File: f.Path, Scope: f.Scope, Setting: Setting}})
		}
	}
	return out, diags, files
}
