package install

import (
	"fmt"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestReadExtras reads a plugin's parts besides skills from their default
// places and from plugin.json (paths, lists of paths, inline objects), and
// nothing from a plugin of skills alone or from paths leading out of it.
func TestReadExtras(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"full/hooks/hooks.json":       `{"hooks": {"SessionStart": [], "PreToolUse": []}}`,
		"full/agents/reviewer.md":     "r",
		"full/agents/notes.txt":       "not an agent",
		"full/commands/sub/deploy.md": "d",
		"full/.mcp.json":              `{"mcpServers": {"b": {}, "a": {}}}`,
		"full/.claude-plugin/plugin.json": `{"name": "full", "agents": ["./more/extra.md"], "commands": "./cmds",
			"hooks": "./extra-hooks.json", "mcpServers": "./servers.json"}`,
		"full/more/extra.md":    "e",
		"full/cmds/ship.md":     "s",
		"full/extra-hooks.json": `{"hooks": {"Stop": []}}`,
		"full/servers.json":     `{"mcpServers": {"c": {}}}`,
		"inline/.claude-plugin/plugin.json": `{"name": "inline", "hooks": {"hooks": {"UserPromptSubmit": []}},
			"mcpServers": {"z": {}}, "agents": "../outside"}`,
		"outside/evil.md":           "x",
		"plain/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: d\n---\n",
	})
	tests := map[string]string{
		"full":   "[hooks/hooks.json: PreToolUse, SessionStart extra-hooks.json: Stop] [extra reviewer] [deploy ship] [a b c]",
		"inline": "[.claude-plugin/plugin.json: UserPromptSubmit] [] [] [z]",
		"plain":  "[] [] [] []",
	}
	for dir, want := range tests {
		e := readExtras(base + "/" + dir)
		if got := fmt.Sprint(e.Hooks, e.Agents, e.Commands, e.MCPServers); got != want {
			t.Errorf("%s: got %s, want %s", dir, got, want)
		}
		if e.Empty() != (dir == "plain") {
			t.Errorf("%s: Empty = %v", dir, e.Empty())
		}
	}
}
