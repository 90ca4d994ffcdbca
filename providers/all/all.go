// Package all lists every built-in provider. It is the one place a new
// provider is registered.
package all

import (
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/agents"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
	"github.com/ccski/ccski/providers/commands"
	"github.com/ccski/ccski/providers/custom"
	"github.com/ccski/ccski/providers/marketplace"
	"github.com/ccski/ccski/providers/project"
)

// Registry returns the built-in providers in scan order. Scan order only
// decides the order of records with equal priority and which copy of a
// root planned twice is kept; ranking is the pipeline's job.
func Registry() []providers.Entry {
	return []providers.Entry{
		{Name: "custom", Doc: "folders given with --skill-dir (highest priority)", New: custom.New},
		{Name: "project", Doc: "skill_dirs listed in ccski.yaml", New: project.New},
		{Name: "claude", Doc: "Claude Code: ~/.claude/skills and .claude/skills up to the repository root", New: claude.New},
		{Name: "codex", Doc: "Codex: ~/.codex/skills, .codex/skills and /etc/codex/skills", New: codex.New},
		{Name: "agents", Doc: "shared .agents/skills, skills/, .gemini, .openclaw and dynamic .<agent>/skills", New: agents.New},
		{Name: "marketplace", Doc: "skills and commands of enabled Claude Code plugins", New: marketplace.New},
		{Name: "commands", Doc: "slash commands: .claude/commands up to the repository root, ~/.claude/commands and Codex prompts in ~/.codex/prompts", New: commands.New},
	}
}
