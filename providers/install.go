package providers

import (
	"path/filepath"
	"strings"
)

// InstallFolder says where `ccski install` puts a skill for one agent:
// the skills folder the agent reads in a project and the one it reads for
// the user. Each provider of an agent describes its own (see
// providers/all.InstallFolders), so that install knows no agent by name.
type InstallFolder struct {
	// Agent is the agent's label, the value of install's --agent.
	Agent string
	// Title names the agent for people ("Claude Code").
	Title string
	// Project is the folder below a project folder, '/'-separated.
	Project string
	// User returns the folder for the user scope.
	User func(env Env) string
	// Shared marks the folder several agents read (.agents/skills).
	Shared bool
	// ReadsShared says the agent reads the Shared folder too, so that a
	// copy there needs no link in the agent's own folder.
	ReadsShared bool
	// Default says a plain `ccski install` installs for the agent.
	Default bool
}

// Dir returns the folder at scope: "user", or "project" below project.
func (f InstallFolder) Dir(env Env, scope, project string) string {
	if scope == "user" {
		return f.User(env)
	}
	return filepath.Join(project, filepath.FromSlash(f.Project))
}

// UserFolder returns a User function for a folder below the user folder
// ('/'-separated).
func UserFolder(rel string) func(Env) string {
	return func(env Env) string {
		return filepath.Join(env.UserDir, filepath.FromSlash(strings.TrimPrefix(rel, "~/")))
	}
}
