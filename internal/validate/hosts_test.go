package validate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/pipeline"
)

// hostCases are skills whose fate in the real hosts was seen with
// Claude Code 2.1.332 (the skill listing of its system prompt, captured
// through a local stand-in for its API) and Codex 0.171.0 (codex debug
// prompt-input): loads says, per profile, whether the host listed the
// skill. The first three are the shapes install refused for Claude Code
// (issue 22): wshobson's version key, Anthropic's 1,068-character
// claude-api description, ComposioHQ's requires: key and leading hyphen.
var hostCases = []struct {
	name, folder, text string
	loads              map[Profile]bool
}{
	{"version key", "version-key", "---\nname: version-key\ndescription: Reviews code.\nversion: 1.0.0\n---\n# Body\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"1,068-character description", "claude-api", "---\nname: claude-api\ndescription: " +
		strings.Repeat("Build apps with the Claude API. ", 40)[:1068] + "\n---\n# Body\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"ComposioHQ shape", "-21risk-automation", "---\nname: -21risk-automation\ndescription: \"Automate 21Risk " +
		"tasks via Rube MCP (Composio).\"\nrequires:\n  mcp: [rube]\n---\n# Body\n\n---\n*Powered by Composio*\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"name over 64", strings.Repeat("n", 65), "---\nname: " + strings.Repeat("n", 65) + "\ndescription: Long name.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: false}},
	{"no description", "no-desc", "---\nname: no-desc\n---\n# Body\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: false}},
	{"empty description", "desc-empty", "---\nname: desc-empty\ndescription: \"\"\n---\n# Body\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: false}},
	{"no name", "name-missing", "---\ndescription: No name here.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"empty name", "name-empty", "---\nname: \"\"\ndescription: Empty name.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"typed name", "typed-name", "---\nname: 123\ndescription: Typed name.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"unquoted colon", "colon", "---\nname: colon\ndescription: has: colon inside\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"byte order mark", "bom", "\ufeff---\nname: bom\ndescription: Has a BOM.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: false}},
	{"leading blank line", "leading-blank", "\n---\nname: leading-blank\ndescription: Blank first.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: false}},
	{"uppercase name", "Upper-Name", "---\nname: Upper-Name\ndescription: Upper case.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
}

// TestProfilesMatchRealHosts checks each host's profile against what the
// real host did with the same skill: an error exactly where the host did
// not load it.
func TestProfilesMatchRealHosts(t *testing.T) {
	for _, c := range hostCases {
		dir := filepath.Join(t.TempDir(), c.folder)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, pipeline.SkillFile)
		if err := os.WriteFile(file, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		for p, loads := range c.loads {
			rep, _ := Run(context.Background(), []Target{{File: file}}, nil, Options{Profile: p})
			var errs []string
			for _, f := range rep.Findings {
				if f.Severity == report.SeverityError {
					errs = append(errs, f.Code)
				}
			}
			if loads && len(errs) > 0 {
				t.Errorf("%s: the real %s host loads it, but profile %s reports errors %v", c.name, p, p, errs)
			}
			if !loads && len(errs) == 0 {
				t.Errorf("%s: the real %s host does not load it, but profile %s reports no error", c.name, p, p)
			}
		}
	}
}
