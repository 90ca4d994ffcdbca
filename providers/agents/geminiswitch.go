package agents

// This file writes Gemini CLI's skill switch: skills.disabled in the
// user's or a project's settings.json.

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ccski/ccski/internal/hostedit"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// geminiHost describes Gemini CLI's switches (Agents.Host).
var geminiHost = providers.Host{Name: GeminiHost, Title: GeminiTitle, Switcher: geminiSwitcher{}, Clients: []string{"gemini-cli-mcp-client"},
	Home: func(env providers.Env) string { return filepath.Dir(GeminiSettingsPath(env, "user", "")) },
	Instructions: func(env providers.Env, scope string) string {
		if scope == "project" {
			return filepath.Join(env.Workspace, "GEMINI.md")
		}
		return filepath.Join(env.UserDir, ".gemini", "GEMINI.md")
	}}

// geminiJSON edits Gemini CLI's settings, which may hold comments.
var geminiJSON = hostedit.JSON{Comments: true}

type geminiSwitcher struct{}

// Modes: Gemini CLI's switch is on or off.
func (geminiSwitcher) Modes() []string { return []string{pipeline.ModeOff} }

// Scopes are the user's settings and the project's (Gemini CLI's
// "workspace" scope).
func (geminiSwitcher) Scopes() []string { return []string{"user", "project"} }

func (geminiSwitcher) file(env providers.Env, r *pipeline.Record, scope string) (string, string) {
	if scope == "" {
		scope = "user"
		if r.Location == pipeline.LocationProject {
			scope = "project"
		}
	}
	return GeminiSettingsPath(env, scope, providers.ProjectDir(env, r, ".gemini")), scope
}

// SetSkill adds the skill's name to skills.disabled, or removes it: from
// the file of the scope given, else from every settings file, as Gemini
// CLI's own /skills enable does.
func (g geminiSwitcher) SetSkill(req providers.SkillRequest) ([]providers.Edit, error) {
	name := req.Record.Name
	setting := fmt.Sprintf("%s %q", GeminiSetting, name)
	if req.Mode != pipeline.ModeOn {
		file, scope := g.file(req.Env, req.Record, req.Scope)
		changed, err := providers.EditFile(req.Files, file, func(d []byte) ([]byte, error) {
			return geminiJSON.AddString(d, GeminiDisabledPath, name)
		})
		if err != nil {
			return nil, err
		}
		return []providers.Edit{{File: file, Scope: scope, Setting: setting + " added", Changed: changed}}, nil
	}
	var targets []GeminiSettingsFile
	if req.Scope != "" {
		file, scope := g.file(req.Env, req.Record, req.Scope)
		targets = []GeminiSettingsFile{{file, scope}}
	} else {
		targets = GeminiSettingsFiles(req.Env)
	}
	var edits []providers.Edit
	for _, f := range targets {
		changed, err := providers.EditFile(req.Files, f.Path, func(d []byte) ([]byte, error) {
			return geminiJSON.RemoveString(d, GeminiDisabledPath, name, true)
		})
		if err != nil {
			return edits, err
		}
		if changed {
			edits = append(edits, providers.Edit{File: f.Path, Scope: f.Scope, Setting: setting + " removed", Changed: true})
		}
	}
	if req.Scope == "" {
		return edits, nil
	}
	for _, f := range GeminiSettingsFiles(req.Env) {
		if f.Path == targets[0].Path {
			continue
		}
		data, _, err := req.Files.Read(f.Path)
		if err != nil {
			return edits, err
		}
		v, _, err := geminiJSON.Get(data, GeminiDisabledPath)
		if err != nil {
			return edits, providers.NewFileError(f.Path, err)
		}
		if contains(v, name) {
			return edits, fmt.Errorf("%s still lists it in %s; run without --scope to clear every switch", f.Path, GeminiSetting)
		}
	}
	return edits, nil
}

func contains(list any, s string) bool {
	l, _ := list.([]any)
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

// errExtensions: Gemini CLI's extensions are not switched here.
var errExtensions = errors.New("Gemini CLI extensions are turned on and off by Gemini CLI itself: " +
	"run `gemini extensions enable NAME` or `gemini extensions disable NAME`")

// SetPlugin refuses: Gemini CLI keeps extension enablement in a file of
// its own format, which ccski reads but does not write.
func (geminiSwitcher) SetPlugin(providers.PluginRequest) ([]providers.Edit, error) {
	return nil, errExtensions
}
