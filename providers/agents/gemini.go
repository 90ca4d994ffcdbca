package agents

// This file reads Gemini CLI's skill switches: the skills.disabled list of
// names in its settings.json, the user's (~/.gemini/settings.json) and
// each workspace folder's (.gemini/settings.json). Gemini CLI's
// settings allow comments. ccski's enable and disable commands write the
// same files (GeminiSettingsPath).

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// GeminiSetting names Gemini CLI's skill switch in messages.
const GeminiSetting = "skills.disabled"

// GeminiDisabledPath is the key of the list of disabled skill names.
var GeminiDisabledPath = []string{"skills", "disabled"}

// GeminiSettingsPath is Gemini CLI's settings file of scope: "user" (in
// the user folder) or "project" (in the project folder dir).
func GeminiSettingsPath(env providers.Env, scope, dir string) string {
	if scope == "project" {
		return filepath.Join(dir, ".gemini", "settings.json")
	}
	return filepath.Join(env.UserDir, ".gemini", "settings.json")
}

// GeminiSettingsFile is one of Gemini CLI's settings files.
type GeminiSettingsFile struct {
	Path, Scope string
}

// GeminiSettingsFiles lists the settings files whose skills.disabled
// lists count: the user's, then each workspace folder's from the
// farthest to the nearest. Gemini CLI merges the lists.
func GeminiSettingsFiles(env providers.Env) []GeminiSettingsFile {
	files := []GeminiSettingsFile{{GeminiSettingsPath(env, "user", ""), "user"}}
	for _, ws := range slices.Backward(env.WorkspaceDirs) {
		p := GeminiSettingsPath(env, "project", ws)
		if p != files[0].Path {
			files = append(files, GeminiSettingsFile{p, "project"})
		}
	}
	return files
}

// geminiHosts are the hosts of .gemini/skills, and sharedHosts those of
// .agents/skills, which Codex and Gemini CLI both read.
var (
	geminiHosts = []string{GeminiHost}
	sharedHosts = []string{"codex", GeminiHost}
)

// GeminiHost is Gemini CLI's agent label, and GeminiTitle how messages
// name it.
const (
	GeminiHost  = "gemini"
	GeminiTitle = "Gemini CLI"
)

// readGeminiSwitches reads skills.disabled from every settings file.
func readGeminiSwitches(env providers.Env) ([]pipeline.SkillSwitch, []pipeline.Diagnostic, []string) {
	var out []pipeline.SkillSwitch
	var diags []pipeline.Diagnostic
	var files []string
	for _, f := range GeminiSettingsFiles(env) {
		files = append(files, f.Path)
		data, found, err := hostfile.Read(f.Path)
		if !found {
			continue
		}
		d := pipeline.Diagnostic{Severity: pipeline.SeverityWarning, Code: "gemini-settings-invalid",
			Provider: "gemini", Path: f.Path}
		if err != nil {
			d.Message = fmt.Sprintf("cannot read settings.json: %v; the skills it switches off are shown as on", err)
			diags = append(diags, d)
			continue
		}
		// Into maps, not a struct: encoding/json would match a struct's
		// fields case-insensitively, and read "Skills", which Gemini CLI
		// ignores, as its switch.
		var settings map[string]json.RawMessage
		if err := hostfile.DecodeJSONC(data, &settings); err != nil {
			if se, ok := err.(*hostfile.SyntaxError); ok {
				d.Line = se.Line
			}
			d.Message = fmt.Sprintf("settings.json: %v; the skills it switches off are shown as on until it is fixed", err)
			diags = append(diags, d)
			continue
		}
		var skills map[string]json.RawMessage
		if raw, ok := settings["skills"]; ok && json.Unmarshal(raw, &skills) != nil {
			d.Message = fmt.Sprintf("skills in settings.json must be an object; its %s is ignored", GeminiSetting)
			diags = append(diags, d)
			continue
		}
		disabled := skills["disabled"]
		if len(disabled) == 0 || string(disabled) == "null" {
			continue
		}
		var names []string
		if err := json.Unmarshal(disabled, &names); err != nil {
			d.Message = fmt.Sprintf("%s in settings.json must be a list of skill names; ignored", GeminiSetting)
			diags = append(diags, d)
			continue
		}
		for _, n := range names {
			out = append(out, pipeline.SkillSwitch{Name: n, HostSwitch: pipeline.HostSwitch{
				Host: GeminiHost, Title: GeminiTitle, Mode: pipeline.ModeOff, File: f.Path, Scope: f.Scope, Setting: GeminiSetting}})
		}
	}
	return out, diags, files
}
