package agents

import "github.com/ccski/ccski/providers"

// SharedSkills is the shared skills folder below a project folder and
// below the user folder, which several agents read.
const SharedSkills = ".agents/skills"

// InstallFolders are where `ccski install` puts skills for the shared
// folder and for Gemini CLI (which reads the shared folder too).
func InstallFolders() []providers.InstallFolder {
	return []providers.InstallFolder{
		{Agent: "agents", Title: "the shared .agents/skills", Project: SharedSkills,
			User: providers.UserFolder(SharedSkills), Shared: true, ReadsShared: true, Default: true},
		{Agent: GeminiHost, Title: GeminiTitle, Project: ".gemini/skills",
			User: providers.UserFolder(".gemini/skills"), ReadsShared: true},
	}
}
