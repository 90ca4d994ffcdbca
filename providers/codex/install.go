package codex

import "github.com/ccski/ccski/providers"

// InstallFolder is where `ccski install` puts skills for Codex: the
// shared .agents/skills, the folder Codex's documentation names for both
// scopes (its older .codex/skills is still read, but no longer the
// documented place).
func InstallFolder() providers.InstallFolder {
	return providers.InstallFolder{Agent: Name, Title: Title, Project: ".agents/skills",
		User: providers.UserFolder(".agents/skills"), ReadsShared: true}
}
