package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestValidateMachineByHost is issue 22's point 6: validate with no PATH
// checks the machine as its hosts see it. A Claude Code skill with a
// version: key and a 1,068-character description (what Claude Code loads)
// and a ComposioHQ-shaped skill in the shared .agents/skills (what Codex
// loads) raise no error; a broken skill in the plugin cache and in
// Codex's .system folder, which the user cannot fix there, is a warning
// naming the tree; the run passes. A broken skill of the user's own
// fails it, and --profile still applies one profile to everything.
func TestValidateMachineByHost(t *testing.T) {
	home, proj := commandsHome(t)
	cache := filepath.Join(home, ".claude", "plugins", "cache", "claude-code-plugins", "commit-commands", "1.0.0",
		"skills", "commit-style", "SKILL.md")
	system := filepath.Join(home, ".codex", "skills", ".system", "skill-creator", "SKILL.md")
	reviewer := filepath.Join(home, ".claude", "skills", "reviewer", "SKILL.md")
	composio := filepath.Join(home, ".agents", "skills", "-21risk-automation", "SKILL.md")
	broken := "\n\nSee [the guide](references/guide.md).\n"
	testfs.Write(t, home, map[string]string{
		".claude/plugins/cache/claude-code-plugins/commit-commands/1.0.0/skills/commit-style/SKILL.md": skillMD("commit-style",
			"Write commit messages in the house style.") + broken,
		".codex/skills/.system/skill-creator/SKILL.md": skillMD("skill-creator", "Create a skill.") + broken,
		".claude/skills/reviewer/SKILL.md": "---\nname: reviewer\ndescription: " +
			strings.Repeat("Review code with care. ", 60)[:1068] + "\nversion: 1.0.0\n---\n\nReview.\n",
		".agents/skills/-21risk-automation/SKILL.md": "---\nname: -21risk-automation\ndescription: \"Automate 21Risk " +
			"tasks via Rube MCP (Composio).\"\nrequires:\n  mcp: [rube]\n---\n\nAutomate.\n",
	})

	rep, r := validateReport(t, proj, home)
	if r.code != 0 || rep.Summary.Errors != 0 || rep.Profile != "host" {
		t.Fatalf("want exit 0, no error and profile host\n%s", r)
	}
	seen := map[string][]string{}
	for _, f := range rep.Findings {
		seen[f.File] = append(seen[f.File], f.Code+":"+f.Severity)
		switch f.File {
		case cache, system:
			if f.Code == "broken-link" && (f.Severity != "warning" || !strings.Contains(f.Message, "where a change is lost")) {
				t.Errorf("a managed tree's finding %+v, want a warning saying why", f)
			}
		}
	}
	for file, want := range map[string]string{
		cache:    "broken-link:warning",
		system:   "broken-link:warning",
		reviewer: "description-too-long:warning",
		composio: "unknown-key:warning",
	} {
		if !strings.Contains(strings.Join(seen[file], " "), want) {
			t.Errorf("%s: findings %v, want %s\n%s", file, seen[file], want, r)
		}
	}
	if strings.Contains(strings.Join(seen[reviewer], " "), "claude-extension-key") {
		t.Errorf("version: is Claude Code's own field, yet reported for its skill: %v", seen[reviewer])
	}

	// One profile for everything, as asked.
	rep, r = validateReport(t, proj, home, "--profile", "spec")
	if r.code != 1 || rep.Profile != "spec" || rep.Summary.Errors == 0 {
		t.Errorf("--profile spec: want exit 1 with errors\n%s", r)
	}

	// A skill the user owns that its host rejects fails the run: Codex
	// does not load a SKILL.md that starts with a byte order mark.
	testfs.Write(t, home, map[string]string{".codex/skills/pdf/SKILL.md": "\ufeff" + skillMD("pdf", "Read PDF files.")})
	rep, r = validateReport(t, proj, home)
	if r.code != 1 || rep.Summary.Errors != 1 {
		t.Errorf("a broken skill of the user's: want exit 1 and one error\n%s", r)
	}
}
