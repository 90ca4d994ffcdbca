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
		{Name: "custom", Doc: "folders given with --skill-dir (highest priority)", Labels: []string{"custom"}, New: custom.New},
		{Name: "project", Doc: "skill_dirs listed in ccski.yaml", Labels: []string{"project"}, New: project.New},
		{Name: "claude", Doc: "Claude Code: ~/.claude/skills and .claude/skills up to the repository root",
			Labels: []string{"claude"}, New: claude.New},
		{Name: "codex", Doc: "Codex: ~/.codex/skills (with its bundled .system skills), .codex/skills and /etc/codex/skills",
			Labels: []string{"codex"}, New: codex.New},
		{Name: "agents", Doc: "shared .agents/skills, skills/, .gemini, .openclaw and dynamic .<agent>/skills",
			Labels: []string{"agents", "gemini", "openclaw"}, New: agents.New},
		{Name: "marketplace", Doc: "skills and commands of enabled Claude Code plugins",
			Labels: []string{"claude"}, New: marketplace.New},
		{Name: "commands", Doc: "slash commands: .claude/commands up to the repository root, ~/.claude/commands and Codex prompts in ~/.codex/prompts",
			Labels: []string{"claude", "codex"}, New: commands.New},
	}
}

// ProviderNames returns the provider names the records of the registered
// providers carry (their Labels), each once, in registry order. Filter
// tokens treat them as providers whether or not a scan found any of their
// skills; dynamic agents come on top of them at scan time.
func ProviderNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, e := range Registry() {
		for _, l := range e.Labels {
			if !seen[l] {
				seen[l] = true
				names = append(names, l)
			}
		}
	}
	return names
}
