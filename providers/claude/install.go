package claude

import (
	"path/filepath"

	"github.com/ccski/ccski/providers"
)

// InstallFolder is where `ccski install` puts skills for Claude Code:
// .claude/skills in a project, <Claude folder>/skills for the user.
// Claude Code does not read the shared .agents/skills, so a plain install
// links its copy there into this folder.
func InstallFolder() providers.InstallFolder {
	return providers.InstallFolder{Agent: Name, Title: Title, Project: ".claude/skills",
		User: func(env providers.Env) string { return filepath.Join(Dir(env), "skills") }, Default: true}
}
