package claude

// This file writes Claude Code's switches: skillOverrides for a skill,
// enabledPlugins for a plugin, in the settings files SettingsFiles lists.

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ccski/ccski/internal/hostedit"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// HostName is Claude Code's agent label, and Title how messages name it.
const (
	HostName = "claude"
	Title    = "Claude Code"
)

// PluginSetting is the settings key that switches plugins.
const PluginSetting = "enabledPlugins"

// host describes Claude Code's switches (Claude.Host).
var host = providers.Host{Name: HostName, Title: Title, Switcher: switcher{}, Home: Dir, Clients: []string{"claude-code"}, Created: ignoreLocalSettings,
	Instructions: func(env providers.Env, scope string) string {
		if scope == ScopeProject {
			return filepath.Join(env.Workspace, "CLAUDE.md")
		}
		return filepath.Join(Dir(env), "CLAUDE.md")
	}}

// settingsJSON edits Claude Code's settings files, which are plain JSON.
var settingsJSON = hostedit.JSON{}

type switcher struct{}

// Modes are skillOverrides' values besides on.
func (switcher) Modes() []string {
	return []string{pipeline.ModeOff, pipeline.ModeNameOnly, pipeline.ModeUserInvocableOnly}
}

// Scopes are the settings files' levels; local is the default, as
// Claude Code's own /skills writes there.
func (switcher) Scopes() []string { return []string{ScopeLocal, ScopeUser, ScopeProject} }

// key is the name skillOverrides knows a skill by: its folder's name,
// which is Claude Code's name for personal and project skills.
func key(r *pipeline.Record) string { return filepath.Base(r.Dir) }

// defaultScope is where a skill's switch goes when no scope is given: the
// user's settings for a personal skill, the project's local settings
// (this machine only, as /skills writes them) for a project skill.
func defaultScope(r *pipeline.Record) string {
	if r.Location == pipeline.LocationUser {
		return ScopeUser
	}
	return ScopeLocal
}

// fileFor returns the settings file of scope for r.
func fileFor(env providers.Env, r *pipeline.Record, scope string) string {
	return SettingsPath(env, scope, providers.ProjectDir(env, r, ".claude"))
}

// SetSkill writes skillOverrides, under the skill's folder name (the
// key Claude Code matches; see key). Turning a skill on with no scope
// removes its entry from every settings file that switches it; with a
// scope, it removes the entry there and writes "on" when a file Claude
// Code reads earlier still switches the skill. A switch that a file read
// later would override is an error naming that file.
func (switcher) SetSkill(req providers.SkillRequest) ([]providers.Edit, error) {
	r := req.Record
	name := key(r)
	path := []string{Setting, name}
	files := SettingsFiles(req.Env)
	setting := func(mode string) string { return fmt.Sprintf("%s %q: %q", Setting, name, mode) }
	if req.Mode != pipeline.ModeOn {
		scope := req.Scope
		if scope == "" {
			scope = defaultScope(r)
		}
		file := fileFor(req.Env, r, scope)
		changed, err := providers.EditFile(req.Files, file, func(data []byte) ([]byte, error) {
			return settingsJSON.Set(data, path, req.Mode)
		})
		if err != nil {
			return nil, err
		}
		edits := []providers.Edit{{File: file, Scope: scope, Setting: setting(req.Mode), Changed: changed}}
		return edits, overriddenLater(req.Files, files, file, path, req.Mode)
	}

	target := ""
	if req.Scope != "" {
		target = fileFor(req.Env, r, req.Scope)
	}
	var edits []providers.Edit
	earlier := false // a file read before target switches it
	for _, f := range files {
		v, err := valueIn(req.Files, f.Path, path)
		if err != nil {
			return edits, err
		}
		if v == nil || v == pipeline.ModeOn {
			continue
		}
		if target != "" && f.Path != target {
			earlier = earlier || precedes(files, f.Path, target)
			continue
		}
		changed, err := providers.EditFile(req.Files, f.Path, func(data []byte) ([]byte, error) {
			return settingsJSON.Delete(data, path, true)
		})
		if err != nil {
			return edits, err
		}
		edits = append(edits, providers.Edit{File: f.Path, Scope: f.Scope,
			Setting: fmt.Sprintf("%s %q removed", Setting, name), Changed: changed})
	}
	if target == "" {
		return edits, nil
	}
	if err := overriddenLater(req.Files, files, target, path, pipeline.ModeOn); err != nil {
		return edits, fmt.Errorf("%w; or run without --scope to clear every switch", err)
	}
	if !earlier {
		return edits, nil
	}
	// "on" here overrides the switch of a file read earlier.
	changed, err := providers.EditFile(req.Files, target, func(data []byte) ([]byte, error) {
		return settingsJSON.Set(data, path, pipeline.ModeOn)
	})
	if err != nil {
		return edits, err
	}
	return append(edits, providers.Edit{File: target, Scope: req.Scope, Setting: setting(pipeline.ModeOn), Changed: changed}), nil
}

// valueIn returns the value at path in the settings file (as edited so
// far in fs), or nil. A file that does not parse is a *providers.FileError
// naming its line.
func valueIn(fs *providers.Files, file string, path []string) (any, error) {
	data, _, err := fs.Read(file)
	if err != nil {
		return nil, err
	}
	v, _, err := settingsJSON.Get(data, path)
	if err != nil {
		return nil, providers.NewFileError(file, err)
	}
	return v, nil
}

// precedes reports whether Claude Code reads the settings file a before
// the settings file b.
func precedes(files []SettingsFile, a, b string) bool {
	at := func(p string) int { return slices.IndexFunc(files, func(f SettingsFile) bool { return f.Path == p }) }
	return at(a) < at(b)
}

// overriddenLater returns an error when a settings file Claude Code
// reads after file gives path a value other than want: that file's
// value wins, whatever file says. A file that does not parse is an error
// too: it may be one.
func overriddenLater(fs *providers.Files, files []SettingsFile, file string, path []string, want any) error {
	at := slices.IndexFunc(files, func(f SettingsFile) bool { return f.Path == file })
	if at < 0 {
		return nil // not a file of the list: nothing is known to come after it
	}
	for _, f := range files[at+1:] {
		v, err := valueIn(fs, f.Path, path)
		if err != nil {
			return err
		}
		if v != nil && v != want {
			return fmt.Errorf("%s sets %s %q to %v, and Claude Code reads it after %s; give --scope %s to change it there",
				f.Path, path[0], path[1], v, file, f.Scope)
		}
	}
	return nil
}

// SetPlugin writes enabledPlugins: in the file of the given scope, else
// in the last settings file that names the plugin (the one that decides),
// else in the user's settings.
func (switcher) SetPlugin(req providers.PluginRequest) ([]providers.Edit, error) {
	files := SettingsFiles(req.Env)
	path := []string{PluginSetting, req.Key}
	target, scope := "", req.Scope
	if scope != "" {
		target = SettingsPath(req.Env, scope, providers.ProjectDir(req.Env, nil, ".claude"))
	} else {
		target, scope = files[0].Path, ScopeUser
		for _, f := range files {
			v, err := valueIn(req.Files, f.Path, path)
			if err != nil {
				return nil, err
			}
			if v != nil {
				target, scope = f.Path, f.Scope
			}
		}
	}
	changed, err := providers.EditFile(req.Files, target, func(data []byte) ([]byte, error) {
		return settingsJSON.Set(data, path, req.On)
	})
	if err != nil {
		return nil, err
	}
	edits := []providers.Edit{{File: target, Scope: scope, Setting: fmt.Sprintf("%s %q: %v", PluginSetting, req.Key, req.On), Changed: changed}}
	return edits, overriddenLater(req.Files, files, target, path, req.On)
}
