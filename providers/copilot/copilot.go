// Package copilot plans the skill folders of GitHub Copilot, in VS Code
// and in the Copilot CLI: .github/skills in the workspace and its
// ancestors up to the repository root, ~/.copilot/skills in the user
// folder, and the folders VS Code's chat.agentSkillsLocations setting
// adds or turns off.
//
// Copilot reads .claude/skills and .agents/skills too (and their user
// counterparts); those folders are the claude and agents providers', so
// they are not planned twice here, and a chat.agentSkillsLocations entry
// that names one of them is left to its provider.
//
// chat.agentSkillsLocations is an object mapping folders to true (read
// it) or false (do not): VS Code starts from its default folders, each
// true, and merges the user settings and then the workspace settings over
// them, key by key. A folder may be "~/..." (the user folder), absolute,
// or relative to the workspace folder. Settings files are JSON with
// comments, as VS Code writes them.
//
// Copilot ranks a project skill over a personal one of the same name:
// VS Code lists its workspace folders before its user folders
// (DEFAULT_SKILL_SOURCE_FOLDERS in microsoft/vscode), and the Copilot CLI
// searches project skills before personal ones. providers.copilot.
// precedence changes that for ccski.
package copilot

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Name is the provider's key in ccski.yaml, and the agent label of its
// records.
const Name = "copilot"

// The folders Copilot reads that this provider plans: below each
// workspace folder, and below the user folder.
const (
	WorkspaceFolder = ".github/skills"
	UserFolder      = ".copilot/skills"
)

// Order is Copilot's rule for a skill found both in a project folder and
// in a user folder.
var Order = providers.HostOrder{Provider: Name, Prefers: pipeline.LocationProject,
	Rule: "GitHub Copilot ranks project skills over personal ones"}

// SettingKey is the VS Code setting that adds or removes skill folders.
const SettingKey = "chat.agentSkillsLocations"

// Entry describes the provider to the registry (package providers/all).
// It claims .github and .copilot, whose skills folders the dynamic
// .<agent> provider would otherwise label "github" and "copilot".
func Entry() providers.Entry {
	return providers.Entry{
		Name: Name,
		Doc: "GitHub Copilot (VS Code and the Copilot CLI): .github/skills in the workspace and its ancestors, " +
			"~/.copilot/skills, and the folders VS Code's chat.agentSkillsLocations setting names.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: Name}},
		Folders: []string{".github", ".copilot"},
		Kinds:   []pipeline.Kind{pipeline.KindWorkspaceAgent, pipeline.KindUserAgent},
		New:     New,
	}
}

// Options are the keys under providers.copilot in ccski.yaml.
type Options struct {
	// Settings turns on reading chat.agentSkillsLocations from VS Code's
	// settings files.
	Settings bool `koanf:"settings" trust:"stricter=true<false" doc:"Read the chat.agentSkillsLocations setting from the workspace's .vscode/settings.json and VS Code's user settings."`
	// UserSettings are VS Code's user settings files; empty means those of
	// VS Code and VS Code Insiders on this system (see
	// DefaultUserSettings).
	UserSettings []string `koanf:"user_settings" config:"path" trust:"user" doc:"VS Code user settings files to read chat.agentSkillsLocations from. Empty means those of VS Code and VS Code Insiders on this system."`
	// Precedence is the level whose copy of a skill wins when one name is
	// both in a project folder and in a user folder: "project" (the
	// default, as Copilot ranks them) or "user".
	Precedence providers.PrecedenceOption `koanf:"precedence" trust:"project" doc:"Which copy wins when a skill is both in a project folder and in a user folder of Copilot: project (as Copilot ranks them) or user."`
}

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options {
	return &Options{Settings: true, Precedence: providers.PrecedenceOption(Order.Prefers)}
}

// Provider is the Copilot provider. It is immutable and safe for
// concurrent use.
type Provider struct {
	opts Options
	rule *pipeline.Precedence
	goos string
}

var (
	_ providers.Provider = (*Provider)(nil)
	_ providers.Ranker   = (*Provider)(nil)
)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed(Name, defaultOptions, func(o *Options) (providers.Provider, error) {
	return &Provider{opts: *o, rule: Order.Precedence(o.Precedence), goos: runtime.GOOS}, nil
})

// Rule returns Copilot's precedence rule as the precedence option sets it.
func (p *Provider) Rule() *pipeline.Precedence { return p.rule }

// Name returns "copilot".
func (p *Provider) Name() string { return Name }

// Plan lists, in order: .github/skills in each workspace folder, nearest
// first; the folders chat.agentSkillsLocations adds at the project level;
// ~/.copilot/skills; the folders it adds at the user level. A default
// folder the setting turns off is left out. Problems with the settings
// files are diagnostics.
func (p *Provider) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	if err := ctx.Err(); err != nil {
		return providers.Plan{}, fmt.Errorf("%s: %w", Name, err)
	}
	s := &settingsReader{env: env}
	locs := locations{}
	if p.opts.Settings {
		files := p.opts.UserSettings
		if len(files) == 0 {
			files = DefaultUserSettings(env, p.goos)
		} else {
			files = slices.Clone(files)
			for i, f := range files {
				files[i] = env.ResolvePath(f)
			}
		}
		locs = s.read(files)
	}
	tmpl := pipeline.Root{Agent: Name, Provider: Name, Location: pipeline.LocationProject,
		Kind: pipeline.KindWorkspaceAgent, Optional: true, Precedence: p.rule}
	var roots []pipeline.Root
	if !locs.off(WorkspaceFolder) {
		roots = providers.WorkspaceRoots(env, filepath.FromSlash(WorkspaceFolder), tmpl)
	}
	var userExtra []pipeline.Root
	for _, l := range locs.extra {
		r := tmpl
		r.Path, r.Optional = l.path, false
		if l.user {
			r.Location, r.Kind = pipeline.LocationUser, pipeline.KindUserAgent
			userExtra = append(userExtra, r)
			continue
		}
		roots = append(roots, r)
	}
	if !locs.off("~/" + UserFolder) {
		u := tmpl
		u.Path = filepath.Join(env.UserDir, filepath.FromSlash(UserFolder))
		u.Location, u.Kind = pipeline.LocationUser, pipeline.KindUserAgent
		roots = append(roots, u)
	}
	roots = append(roots, userExtra...)
	return providers.Plan{Roots: roots, Diagnostics: s.diags, Manifests: s.files}, nil
}

// DefaultUserSettings returns VS Code's user settings files on the system
// goos (runtime.GOOS), for VS Code and then VS Code Insiders:
// $XDG_CONFIG_HOME/Code/User/settings.json (else ~/.config/...) on Linux
// and other Unix systems, ~/Library/Application Support/Code/User/
// settings.json on macOS, %APPDATA%\Code\User\settings.json on Windows.
func DefaultUserSettings(env providers.Env, goos string) []string {
	var base string
	switch goos {
	case "darwin":
		base = filepath.Join(env.UserDir, "Library", "Application Support")
	case "windows":
		base = getenv(env, "APPDATA")
		if base == "" {
			base = filepath.Join(env.UserDir, "AppData", "Roaming")
		}
	default:
		base = getenv(env, "XDG_CONFIG_HOME")
		if base == "" || !filepath.IsAbs(base) {
			base = filepath.Join(env.UserDir, ".config")
		}
	}
	var out []string
	for _, product := range []string{"Code", "Code - Insiders"} {
		out = append(out, filepath.Join(base, product, "User", "settings.json"))
	}
	return out
}

func getenv(env providers.Env, name string) string {
	if env.Getenv == nil {
		return ""
	}
	return strings.TrimSpace(env.Getenv(name))
}
