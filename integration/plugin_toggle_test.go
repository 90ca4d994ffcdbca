package integration

// Turning a Claude Code plugin on or off in a settings file while `ccski
// mcp` runs: the watcher watches the files the providers read (the
// settings files, installed_plugins.json, the marketplace and plugin
// manifests), so the change reaches the client as tools/list_changed
// without waiting for a periodic rescan.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/testfs"
)

// toggleTree is a machine laid out as a real Claude Code install with one
// plugin, toggler from the marketplace toggle-market, installed in the
// plugin cache and turned off in the user's settings.json; a user skill;
// and a repository with a skill in .claude/skills and no settings files.
type toggleTree struct {
	home, ws string
}

const (
	toggleKey   = "toggler@toggle-market"
	toggleSkill = "toggler:lint-fix"         // the qualified name a client loads
	toggleID    = "claude:@toggler:lint-fix" // its id in the skill tool's list
	toggleBody  = "---\nname: lint-fix\ndescription: Fix lint errors the toggler way.\n---\n# Lint fix\n\nRun the fixer.\n"
)

func newToggleTree(t *testing.T) toggleTree {
	t.Helper()
	registerSourcesOnce(t)
	base := testfs.TempDir(t)
	tr := toggleTree{home: filepath.Join(base, "home"), ws: filepath.Join(base, "work", "repo")}
	plugins := filepath.Join(tr.home, ".claude", "plugins")
	cache := filepath.Join(plugins, "cache", "toggle-market", "toggler", "1.2.0")
	market := filepath.Join(plugins, "marketplaces", "toggle-market")
	testfs.Write(t, base, map[string]string{
		"home/.claude/settings.json": mustJSON(t, map[string]any{"enabledPlugins": map[string]bool{toggleKey: false}}),
		"home/.claude/plugins/installed_plugins.json": mustJSON(t, map[string]any{"version": 2, "plugins": map[string]any{
			toggleKey: []any{map[string]any{"scope": "user", "installPath": cache, "version": "1.2.0",
				"installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}}}}),
		"home/.claude/plugins/known_marketplaces.json": mustJSON(t, map[string]any{"toggle-market": map[string]any{
			"source":          map[string]string{"source": "github", "repo": "example/toggle-market"},
			"installLocation": market, "lastUpdated": "2025-01-01T00:00:00.000Z"}}),
		"home/.claude/plugins/marketplaces/toggle-market/.claude-plugin/marketplace.json": mustJSON(t, map[string]any{
			"name": "toggle-market", "owner": map[string]string{"name": "Toggle"},
			"plugins": []any{map[string]any{"name": "toggler", "source": "./plugins/toggler"}}}),
		"home/.claude/plugins/cache/toggle-market/toggler/1.2.0/.claude-plugin/plugin.json": `{"name": "toggler", "version": "1.2.0"}`,
		"home/.claude/plugins/cache/toggle-market/toggler/1.2.0/skills/lint-fix/SKILL.md":   toggleBody,
		"home/.claude/skills/notes/SKILL.md":                                                "---\nname: notes\ndescription: Keep notes.\n---\n# Notes\n",
		"work/repo/.git/":                                                                   "",
		"work/repo/.claude/skills/release/SKILL.md":                                         "---\nname: release\ndescription: Cut a release.\n---\n# Release\n",
	})
	return tr
}

// toggleSettings returns the content of a settings file that turns the plugin on
// or off.
func toggleSettings(t *testing.T, on bool) []byte {
	t.Helper()
	data, err := json.Marshal(map[string]any{"enabledPlugins": map[string]bool{toggleKey: on}})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// serve starts `ccski mcp` with an hour between rescans, so that only the
// watcher explains a change seen sooner, and connects a client that counts
// tools/list_changed.
func (tr toggleTree) serve(t *testing.T, ctx context.Context, pv string, changes *atomic.Int64) (*sdk.ClientSession, *lockedBuffer) {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd := exec.Command(binary, "mcp", "--refresh-interval", "1h", "--user-dir", tr.home)
	cmd.Dir = tr.ws
	cmd.Env = env(&machine.Machine{Home: tr.home}, nil)
	cmd.Stderr = stderr
	cs, err := newClient(changes).Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second},
		&sdk.ClientSessionOptions{ProtocolVersion: pv})
	if err != nil {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		t.Fatalf("connect (protocol %q): %v\nstderr:\n%s", pv, err, stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, stderr
}

func TestPluginToggledInSettings(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			tr := newToggleTree(t)
			ctx := mcpContext(t)
			var changes atomic.Int64
			cs, stderr := tr.serve(t, ctx, p.version, &changes)
			if _, ok := findEntry(mustSkills(t, ctx, cs, stderr), toggleID); ok {
				t.Fatalf("%s listed while the plugin is off", toggleSkill)
			}
			userSettings := filepath.Join(tr.home, ".claude", "settings.json")
			local := filepath.Join(tr.ws, ".claude", "settings.local.json")
			steps := []struct {
				name string
				do   func(t *testing.T)
				on   bool
			}{
				{"user settings.json turns it on, written in place", func(t *testing.T) {
					putFile(t, userSettings, toggleSettings(t, true))
				}, true},
				{"user settings.json turns it off, saved by rename", func(t *testing.T) {
					tmp := userSettings + ".tmp"
					putFile(t, tmp, toggleSettings(t, false))
					if err := os.Rename(tmp, userSettings); err != nil {
						t.Fatal(err)
					}
				}, false},
				{"a new project settings.local.json turns it on", func(t *testing.T) {
					putFile(t, local, toggleSettings(t, true))
				}, true},
				{"removing settings.local.json turns it off again", func(t *testing.T) {
					if err := os.Remove(local); err != nil {
						t.Fatal(err)
					}
				}, false},
			}
			for _, st := range steps {
				before, start, logged := changes.Load(), time.Now(), len(refreshLines(stderr.String()))
				st.do(t)
				var listed []skillEntry
				var listErr error
				ok := waitUntil(refreshBudget, func() bool {
					if changes.Load() <= before {
						return false
					}
					listed, _, listErr = listSkills(ctx, cs)
					_, shown := findEntry(listed, toggleID)
					return listErr == nil && shown == st.on
				})
				if !ok {
					t.Fatalf("%s: no tools/list_changed with %s listed=%v within %v (notifications %d, before %d; list error %v)\nlisted: %v\nstderr:\n%s",
						st.name, toggleSkill, st.on, refreshBudget, changes.Load(), before, listErr, entryIDs(listed), stderr)
				}
				t.Logf("%s: seen after %v", st.name, time.Since(start).Round(time.Millisecond))
				if st.on {
					text, err := loadSkill(ctx, cs, toggleSkill)
					if err != nil || !strings.HasSuffix(text, "\n\n"+toggleBody) {
						t.Errorf("%s: load %s = %q, %v; want the plugin's SKILL.md", st.name, toggleSkill, text, err)
					}
				} else if msg := loadError(t, ctx, cs, toggleSkill); !strings.Contains(msg, "plugin toggler is disabled") {
					t.Errorf("%s: load %s: %q, want it to say the plugin is disabled", st.name, toggleSkill, msg)
				}
				// The step's own line, saying the plugin's skill came or went.
				diff := "added=0 removed=1 changed=0"
				if st.on {
					diff = "added=1 removed=0 changed=0"
				}
				awaitRefreshLine(t, stderr, logged, diff)
			}
		})
	}
}

// mustSkills lists the skill tool's entries or fails.
func mustSkills(t *testing.T, ctx context.Context, cs *sdk.ClientSession, stderr *lockedBuffer) []skillEntry {
	t.Helper()
	es, _, err := listSkills(ctx, cs)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	return es
}

// putFile writes data to path, creating its folders.
func putFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
