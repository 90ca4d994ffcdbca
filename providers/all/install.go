package all

import (
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/agents"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
	"github.com/ccski/ccski/providers/copilot"
	"github.com/ccski/ccski/providers/cursor"
)

// InstallFolders returns where `ccski install` can put skills, one per
// agent, the shared folder first: each agent provider describes its own
// (providers.InstallFolder).
func InstallFolders() []providers.InstallFolder {
	shared := agents.InstallFolders()
	return []providers.InstallFolder{shared[0], claude.InstallFolder(), codex.InstallFolder(), shared[1],
		cursor.InstallFolder(), copilot.InstallFolder()}
}
