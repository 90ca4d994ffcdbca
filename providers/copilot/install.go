package copilot

import "github.com/ccski/ccski/providers"

// InstallFolder is where `ccski install` puts skills for GitHub Copilot:
// .github/skills in a project, ~/.copilot/skills for the user. Copilot
// also reads the shared .agents/skills by default.
func InstallFolder() providers.InstallFolder {
	return providers.InstallFolder{Agent: Name, Title: "GitHub Copilot", Project: WorkspaceFolder,
		User: providers.UserFolder(UserFolder), ReadsShared: true}
}
