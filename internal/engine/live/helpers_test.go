package live

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// testCtx returns a context that ends with the test or after d.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// writeFile writes data to path, creating its folders.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeJSON writes v as JSON to path, creating its folders.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, data)
}

// replaceFile writes data to path as editors that save atomically do: a
// temporary file in the same folder, renamed over path.
func replaceFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	writeFile(t, tmp, data)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// discard is a logger that drops everything.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// skillMD is a minimal valid SKILL.md.
func skillMD(name, desc string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n\nBody.\n")
}

// tree is a temporary home and workspace for engine-backed tests.
type tree struct {
	home, ws string
}

func newTree(t *testing.T) tree {
	t.Helper()
	base := t.TempDir()
	tr := tree{home: filepath.Join(base, "home"), ws: filepath.Join(base, "ws")}
	for _, d := range []string{tr.home, tr.ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// userSkill is the SKILL.md path of a Claude user skill.
func (tr tree) userSkill(name string) string {
	return filepath.Join(tr.home, ".claude", "skills", name, "SKILL.md")
}

// The plugin of withPlugin: toggler from the marketplace live-market,
// with one skill.
const (
	pluginKey   = "toggler@live-market"
	pluginSkill = "toggler:toggle-skill"
)

// plugins is the Claude plugins folder of the tree.
func (tr tree) plugins() string { return filepath.Join(tr.home, ".claude", "plugins") }

// userSettings is the user's Claude settings file.
func (tr tree) userSettings() string { return filepath.Join(tr.home, ".claude", "settings.json") }

// pluginDir is the install folder of the plugin.
func (tr tree) pluginDir() string {
	return filepath.Join(tr.plugins(), "cache", "live-market", "toggler", "1.0.0")
}

// withPlugin installs the plugin as Claude Code does: its install folder
// in the cache, installed_plugins.json, known_marketplaces.json and the
// marketplace's clone with its marketplace.json; the user settings turn
// it off.
func withPlugin(t *testing.T, tr *tree) {
	t.Helper()
	market := filepath.Join(tr.plugins(), "marketplaces", "live-market")
	writeJSON(t, filepath.Join(tr.plugins(), "installed_plugins.json"), map[string]any{"version": 2,
		"plugins": map[string]any{pluginKey: []any{map[string]any{"scope": "user", "installPath": tr.pluginDir(),
			"version": "1.0.0", "installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}}}})
	writeJSON(t, filepath.Join(tr.plugins(), "known_marketplaces.json"), map[string]any{"live-market": map[string]any{
		"source": map[string]any{"source": "github", "repo": "example/live-market"}, "installLocation": market,
		"lastUpdated": "2025-01-01T00:00:00.000Z"}})
	writeJSON(t, filepath.Join(market, ".claude-plugin", "marketplace.json"), map[string]any{"name": "live-market",
		"owner": map[string]any{"name": "Live"}, "plugins": []any{map[string]any{"name": "toggler", "source": "./plugins/toggler"}}})
	writeJSON(t, filepath.Join(tr.pluginDir(), ".claude-plugin", "plugin.json"), map[string]any{"name": "toggler", "version": "1.0.0"})
	writeFile(t, filepath.Join(tr.pluginDir(), "skills", "toggle-skill", "SKILL.md"), skillMD("toggle-skill", "Toggled skill"))
	writeJSON(t, tr.userSettings(), enabled(false))
}

// enabled is a settings file that turns the plugin on or off.
func enabled(on bool) map[string]any {
	return map[string]any{"enabledPlugins": map[string]any{pluginKey: on}}
}

// newEngine builds an engine with the default configuration over home and
// workspace, with an empty environment.
func newEngine(t *testing.T, home, ws string) *engine.Engine {
	t.Helper()
	eng, err := engine.New(configs.Default(all.Registry()), providers.NewEnv(home, ws, func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// snapshot runs discovery on eng.
func snapshot(t *testing.T, eng *engine.Engine) *pipeline.Snapshot {
	t.Helper()
	snap, _, err := eng.Snapshot(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// visibleIDs lists the ids of the visible records.
func visibleIDs(s *pipeline.Snapshot) []string {
	out := make([]string, 0, len(s.Visible))
	for _, r := range s.Visible {
		out = append(out, r.ID)
	}
	return out
}

// eventually polls cond every 10 ms until it holds or d passes.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
