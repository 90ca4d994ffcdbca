package copilotplugins

// This file writes Copilot CLI's plugin switch: enabledPlugins in
// settings.json, the setting Copilot CLI 1.0.102 reads to decide whether
// an installed plugin loads (`copilot plugin enable` and `disable` write
// it, and config.json's own enabled, which Copilot does not consult).
// Copilot CLI has no skill switch in a file: a skill of its own folders
// keeps ccski's host-neutral switch, and SetSkill says so.

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ccski/ccski/internal/hostedit"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// HostTitle names the host for people.
const HostTitle = "GitHub Copilot CLI"

// PluginSetting is the key of settings.json that switches plugins.
const PluginSetting = "enabledPlugins"

// ScopeUser is the one scope Copilot CLI's switch has: settings.json in
// its folder.
const ScopeUser = "user"

// settingsJSON edits settings.json, which Copilot CLI writes as plain
// JSON.
var settingsJSON = hostedit.JSON{}

var (
	_ providers.HostOwner = (*Provider)(nil)
	_ providers.HomeOwner = (*Provider)(nil)
	_ providers.Switcher  = switcher{}
)

// Host returns Copilot CLI, whose plugin switch the provider reads and
// writes.
func (p *Provider) Host() providers.Host {
	return providers.Host{Name: Label, Title: HostTitle, Switcher: switcher{}, Home: Dir}
}

// Home returns Copilot CLI's folder in env, moved by the home option: the
// folder a write of settings.json belongs to.
func (p *Provider) Home(env providers.Env) string {
	if p.opts.Home != "" {
		return env.ResolvePath(p.opts.Home)
	}
	return Dir(env)
}

// settingsFile is settings.json in Copilot CLI's folder as env has it.
func settingsFile(env providers.Env) string {
	if d := env.Homes[Name]; d != "" {
		return filepath.Join(d, SettingsFile)
	}
	return filepath.Join(Dir(env), SettingsFile)
}

// switcher writes settings.json's enabledPlugins.
type switcher struct{}

// Modes lists off only: Copilot CLI's plugins are on or off.
func (switcher) Modes() []string { return []string{pipeline.ModeOff} }

// Scopes lists user only.
func (switcher) Scopes() []string { return []string{ScopeUser} }

// errNoSkillSwitch is SetSkill's answer: no record asks for it, since
// Copilot's own folders are read by no host with a switch (their roots
// name no Hosts), but a caller that does learns why.
var errNoSkillSwitch = errors.New("GitHub Copilot CLI keeps no skill switch in a file (only its plugins have one, " +
	PluginSetting + " in settings.json); ccski switches its skills by renaming SKILL.md")

// SetSkill refuses: Copilot CLI has no skill switch.
func (switcher) SetSkill(providers.SkillRequest) ([]providers.Edit, error) {
	return nil, errNoSkillSwitch
}

// SetPlugin sets enabledPlugins["<plugin>@<marketplace>"] in settings.json
// to req.On, keeping every other byte of the file.
func (switcher) SetPlugin(req providers.PluginRequest) ([]providers.Edit, error) {
	file := settingsFile(req.Env)
	changed, err := providers.EditFile(req.Files, file, func(data []byte) ([]byte, error) {
		return settingsJSON.Set(data, []string{PluginSetting, req.Key}, req.On)
	})
	if err != nil {
		return nil, err
	}
	return []providers.Edit{{File: file, Scope: ScopeUser, Changed: changed,
		Setting: fmt.Sprintf("%s %q: %v", PluginSetting, req.Key, req.On)}}, nil
}
