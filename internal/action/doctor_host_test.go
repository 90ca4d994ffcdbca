package action

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// budgetEnv is an environment with home as the user folder and ws as the
// workspace, and no variables.
func budgetEnv(home, ws string) providers.Env {
	return providers.Env{UserDir: home, Workspace: ws, Getenv: func(string) string { return "" }}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCodexBudget: model_context_window counts at the top of config.toml,
// not inside a table.
func TestCodexBudget(t *testing.T) {
	for _, tc := range []struct {
		config string
		want   int
	}{
		{"model_context_window = 100000\n", 100000},
		{"model = \"x\"\nmodel_context_window = 64000 # small\n[profiles.a]\nmodel_context_window = 5\n", 64000},
		{"[profiles.a]\nmodel_context_window = 5\n", 0},
		{"", 0},
	} {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, ".codex", "config.toml"), tc.config)
		if got := codexBudget(budgetEnv(home, home)).ContextTokens; got != tc.want {
			t.Errorf("%q: %d, want %d", tc.config, got, tc.want)
		}
	}
}

// TestClaudeBudget: the budget settings of the user's settings.json, the
// project's winning.
func TestClaudeBudget(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{"skillListingBudgetFraction": 0.02, "skillListingMaxDescChars": 500}`)
	writeFile(t, filepath.Join(ws, ".claude", "settings.local.json"), `{"skillListingBudgetFraction": 0.05}`)
	got := claudeBudget(budgetEnv(home, ws))
	if got.Fraction != 0.05 || got.MaxDescChars != 500 {
		t.Errorf("got %+v", got)
	}
}

// TestClaudeListedName: Claude Code lists a skill by its folder, the
// frontmatter name in parentheses when it differs, a plugin's after its
// plugin's name.
func TestClaudeListedName(t *testing.T) {
	for _, tc := range []struct {
		r    pipeline.Record
		want string
	}{
		{pipeline.Record{Name: "review", Dir: "/h/.claude/skills/review"}, "review"},
		{pipeline.Record{Name: "youtube-downloader", Dir: "/h/.claude/skills/video-downloader"}, "video-downloader (youtube-downloader)"},
		{pipeline.Record{Name: "good:g-name", Dir: "/c/good/1/skills/gfolder", Plugin: &pipeline.PluginInfo{Plugin: "good"}}, "good:gfolder (good:g-name)"},
		{pipeline.Record{Name: "good:alpha", Dir: "/c/good/1/skills/alpha", Plugin: &pipeline.PluginInfo{Plugin: "good"}}, "good:alpha"},
	} {
		if got := claudeListedName(&tc.r); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.r.Dir, got, tc.want)
		}
	}
}
