package live

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
)

// watchFixture watches the snapshot of a tree holding the user skill
// alpha, and counts pokes.
type watchFixture struct {
	tree
	snap  *pipeline.Snapshot
	w     *watcher
	pokes chan struct{}
	n     atomic.Int32
}

// newWatchFixture builds the tree (home is the folder the engine is
// given, which may be a symlink made by setup), syncs a watcher on its
// snapshot and runs it until the test ends.
func newWatchFixture(t *testing.T, setup func(t *testing.T, tr *tree)) *watchFixture {
	t.Helper()
	f := &watchFixture{tree: newTree(t), pokes: make(chan struct{}, 100)}
	if setup != nil {
		setup(t, &f.tree)
	}
	writeFile(t, f.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
	f.snap = snapshot(t, newEngine(t, f.home, f.ws))
	w, err := newWatcher(func() {
		f.n.Add(1)
		f.pokes <- struct{}{}
	}, discard())
	if err != nil {
		t.Fatal(err)
	}
	f.w = w
	w.sync(f.snap)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("run did not return after cancel")
		}
	})
	return f
}

// eventWait bounds the wait for an event the test needs: generous for a
// loaded machine, and the wait ends as soon as the event comes.
const eventWait = 30 * time.Second

// poked reports whether a poke arrives within d.
func (f *watchFixture) poked(d time.Duration) bool {
	select {
	case <-f.pokes:
		return true
	case <-time.After(d):
		return false
	}
}

// settle waits for the debounce of earlier events and drops their pokes.
func (f *watchFixture) settle() {
	time.Sleep(3 * Debounce)
	for {
		select {
		case <-f.pokes:
		default:
			f.n.Store(0)
			return
		}
	}
}

// symlinkedHome makes home a symlink to the real folder, as on macOS,
// where the temporary folder lies under the /var -> /private/var link.
func symlinkedHome(t *testing.T, tr *tree) {
	real := filepath.Join(filepath.Dir(tr.home), "real-home")
	if err := os.Rename(tr.home, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, tr.home); err != nil {
		t.Skipf("symlink: %v", err)
	}
}

// withProjectClaude gives the workspace a .claude/skills folder, so that
// .claude itself is neither a listed folder nor the parent of a missing
// root.
func withProjectClaude(t *testing.T, tr *tree) {
	writeFile(t, filepath.Join(tr.ws, ".claude", "skills", "proj", "SKILL.md"), skillMD("proj", "Project skill"))
}

// withLinkedSettings installs the plugin with the user settings file a
// symlink into a dotfiles folder, as dotfile managers set it up.
func withLinkedSettings(t *testing.T, tr *tree) {
	withPlugin(t, tr)
	target := filepath.Join(filepath.Dir(tr.home), "dotfiles", "claude", "settings.json")
	writeJSON(t, target, enabled(false))
	if err := os.Remove(tr.userSettings()); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, tr.userSettings()); err != nil {
		t.Skipf("symlink: %v", err)
	}
}

func TestWatcher(t *testing.T) {
	market := func(tr tree) string {
		return filepath.Join(tr.plugins(), "marketplaces", "live-market", ".claude-plugin", "marketplace.json")
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, tr *tree)
		do    func(t *testing.T, f *watchFixture)
		poke  bool
	}{
		{"new skill folder", nil, func(t *testing.T, f *watchFixture) {
			writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta"))
		}, true},
		{"SKILL.md edited", nil, func(t *testing.T, f *watchFixture) {
			writeFile(t, f.userSkill("alpha"), skillMD("alpha", "Alpha, edited"))
		}, true},
		{"SKILL.md replaced by rename", nil, func(t *testing.T, f *watchFixture) {
			tmp := filepath.Join(filepath.Dir(f.userSkill("alpha")), "SKILL.md.tmp")
			writeFile(t, tmp, skillMD("alpha", "Alpha, renamed in"))
			if err := os.Rename(tmp, f.userSkill("alpha")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"skill folder removed", nil, func(t *testing.T, f *watchFixture) {
			if err := os.RemoveAll(filepath.Dir(f.userSkill("alpha"))); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"resource folder created", nil, func(t *testing.T, f *watchFixture) {
			if err := os.Mkdir(filepath.Join(filepath.Dir(f.userSkill("alpha")), "references"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"swap file", nil, func(t *testing.T, f *watchFixture) {
			writeFile(t, filepath.Join(filepath.Dir(f.userSkill("alpha")), "x.swp"), []byte("swap"))
		}, false},
		{"editor backup files", nil, func(t *testing.T, f *watchFixture) {
			dir := filepath.Dir(f.userSkill("alpha"))
			for _, n := range []string{"SKILL.md~", ".#SKILL.md", "4913", ".SKILL.md.swx"} {
				writeFile(t, filepath.Join(dir, n), []byte("x"))
			}
		}, false},
		{"chmod only", nil, func(t *testing.T, f *watchFixture) {
			if err := os.Chmod(f.userSkill("alpha"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Dir(f.userSkill("alpha")), 0o700); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"Gemini extension installed", func(t *testing.T, tr *tree) {
			if err := os.MkdirAll(filepath.Join(tr.home, ".gemini", "extensions"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, f *watchFixture) {
			// No index file: the new folder is the install.
			if err := os.Mkdir(filepath.Join(f.home, ".gemini", "extensions", "conductor"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"Codex plugin version installed", func(t *testing.T, tr *tree) {
			writeFile(t, filepath.Join(tr.home, ".codex", "config.toml"),
				[]byte("[plugins.\"superpowers@superpowers-dev\"]\nenabled = true\n"))
			if err := os.MkdirAll(filepath.Join(tr.home, ".codex", "plugins", "cache", "superpowers-dev", "superpowers"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, f *watchFixture) {
			dir := filepath.Join(f.home, ".codex", "plugins", "cache", "superpowers-dev", "superpowers", "6.2.0")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"missing user root created", nil, func(t *testing.T, f *watchFixture) {
			writeFile(t, filepath.Join(f.home, ".agents", "skills", "new", "SKILL.md"), skillMD("new", "New"))
		}, true},
		{"missing workspace root created", nil, func(t *testing.T, f *watchFixture) {
			writeFile(t, filepath.Join(f.ws, ".claude", "skills", "new", "SKILL.md"), skillMD("new", "New"))
		}, true},
		{"unrelated file beside missing roots", nil, func(t *testing.T, f *watchFixture) {
			writeFile(t, filepath.Join(f.home, ".bashrc"), []byte("export X=1\n"))
			writeFile(t, filepath.Join(f.ws, "main.go"), []byte("package main\n"))
			if err := os.Mkdir(filepath.Join(f.home, ".cache"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"symlinked home: missing root created", symlinkedHome, func(t *testing.T, f *watchFixture) {
			writeFile(t, filepath.Join(f.home, ".agents", "skills", "new", "SKILL.md"), skillMD("new", "New"))
		}, true},
		{"symlinked home: SKILL.md edited", symlinkedHome, func(t *testing.T, f *watchFixture) {
			writeFile(t, f.userSkill("alpha"), skillMD("alpha", "Alpha, edited"))
		}, true},

		// The files the providers read.
		{"plugins file created", nil, func(t *testing.T, f *watchFixture) {
			withPlugin(t, &f.tree)
		}, true},
		{"user settings edited", withPlugin, func(t *testing.T, f *watchFixture) {
			writeJSON(t, f.userSettings(), enabled(true))
		}, true},
		{"user settings replaced by rename", withPlugin, func(t *testing.T, f *watchFixture) {
			replaceFile(t, f.userSettings(), []byte(`{"enabledPlugins": {}}`))
		}, true},
		{"user settings removed", withPlugin, func(t *testing.T, f *watchFixture) {
			if err := os.Remove(f.userSettings()); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"user settings created", func(t *testing.T, tr *tree) {
			withPlugin(t, tr)
			if err := os.Remove(tr.userSettings()); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, f *watchFixture) {
			writeJSON(t, f.userSettings(), enabled(true))
		}, true},
		{"project local settings created beside a skills folder", func(t *testing.T, tr *tree) {
			withPlugin(t, tr)
			withProjectClaude(t, tr)
		}, func(t *testing.T, f *watchFixture) {
			writeJSON(t, filepath.Join(f.ws, ".claude", "settings.local.json"), enabled(true))
		}, true},
		{"project settings created with their folder", withPlugin, func(t *testing.T, f *watchFixture) {
			writeJSON(t, filepath.Join(f.ws, ".claude", "settings.json"), enabled(true))
		}, true},
		{"symlinked settings: the target edited", withLinkedSettings, func(t *testing.T, f *watchFixture) {
			writeJSON(t, filepath.Join(filepath.Dir(f.home), "dotfiles", "claude", "settings.json"), enabled(true))
		}, true},
		{"installed_plugins.json rewritten", withPlugin, func(t *testing.T, f *watchFixture) {
			writeJSON(t, filepath.Join(f.plugins(), "installed_plugins.json"), map[string]any{"version": 2, "plugins": map[string]any{}})
		}, true},
		{"known_marketplaces.json replaced by rename", withPlugin, func(t *testing.T, f *watchFixture) {
			replaceFile(t, filepath.Join(f.plugins(), "known_marketplaces.json"), []byte("{}"))
		}, true},
		{"marketplace.json edited", withPlugin, func(t *testing.T, f *watchFixture) {
			writeJSON(t, market(f.tree), map[string]any{"name": "live-market", "plugins": []any{}})
		}, true},
		{"plugin.json edited", withPlugin, func(t *testing.T, f *watchFixture) {
			writeJSON(t, filepath.Join(f.pluginDir(), ".claude-plugin", "plugin.json"), map[string]any{"name": "toggler", "version": "1.0.1"})
		}, true},
		{"other files beside the settings", withPlugin, func(t *testing.T, f *watchFixture) {
			claude := filepath.Join(f.home, ".claude")
			writeFile(t, filepath.Join(claude, "history.jsonl"), []byte("{}\n"))
			writeFile(t, filepath.Join(claude, "settings.json.bak"), []byte("{}"))
			writeFile(t, filepath.Join(f.plugins(), "install-counts-cache.json"), []byte("{}"))
			if err := os.Mkdir(filepath.Join(claude, "todos"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newWatchFixture(t, tt.setup)
			f.settle()
			tt.do(t, f)
			wait := eventWait
			if !tt.poke {
				wait = 300 * time.Millisecond
			}
			if got := f.poked(wait); got != tt.poke {
				t.Errorf("poked within %v = %v, want %v", wait, got, tt.poke)
			}
		})
	}
}

func TestWatcherDebounce(t *testing.T) {
	f := newWatchFixture(t, nil)
	f.settle()
	for i := range 20 {
		writeFile(t, f.userSkill("alpha"), skillMD("alpha", "edit "+strconv.Itoa(i)))
	}
	if !f.poked(eventWait) {
		t.Fatal("no poke after a burst of writes")
	}
	time.Sleep(4 * Debounce)
	if n := f.n.Load(); n > 2 {
		t.Errorf("%d pokes for one burst of writes, want 1", n)
	}
}

// TestWatcherSync follows the snapshot: a folder that appears is watched
// after the next sync, one that goes away is dropped.
func TestWatcherSync(t *testing.T) {
	f := newWatchFixture(t, nil)
	before := f.w.len()
	if before == 0 {
		t.Fatal("nothing watched")
	}
	eng := newEngine(t, f.home, f.ws)

	writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta"))
	f.w.sync(snapshot(t, eng))
	if got := f.w.len(); got != before+1 {
		t.Errorf("watching %d folders after a skill was added, want %d", got, before+1)
	}
	f.settle()
	writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta, edited"))
	if !f.poked(eventWait) {
		t.Error("an edit in a folder added by sync did not poke")
	}

	if err := os.RemoveAll(filepath.Dir(f.userSkill("beta"))); err != nil {
		t.Fatal(err)
	}
	f.w.sync(snapshot(t, eng))
	if got := f.w.len(); got != before {
		t.Errorf("watching %d folders after the skill was removed, want %d", got, before)
	}

	// The missing user root appears: it is watched itself, and the
	// parent that stood in for it is still watched for the other
	// missing roots.
	writeFile(t, filepath.Join(f.home, ".agents", "skills", "new", "SKILL.md"), skillMD("new", "New"))
	f.w.sync(snapshot(t, eng))
	f.settle()
	writeFile(t, filepath.Join(f.home, ".agents", "skills", "new", "SKILL.md"), skillMD("new", "New, edited"))
	if !f.poked(eventWait) {
		t.Error("an edit under a root that appeared did not poke")
	}

	// A plugin is installed: its manifests' folders are watched from the
	// next sync on, and an edit there pokes.
	withPlugin(t, &f.tree)
	f.w.sync(snapshot(t, eng))
	f.settle()
	writeJSON(t, filepath.Join(f.pluginDir(), ".claude-plugin", "plugin.json"), map[string]any{"name": "toggler", "version": "2"})
	if !f.poked(eventWait) {
		t.Error("an edit of plugin.json of a plugin installed since the first sync did not poke")
	}
}

func TestWatcherRunStops(t *testing.T) {
	w, err := newWatcher(func() {}, discard())
	if err != nil {
		t.Fatal(err)
	}
	tr := newTree(t)
	snap := snapshot(t, newEngine(t, tr.home, tr.ws))
	w.sync(snap)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.run(ctx); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	// sync after run ended must not panic or block.
	w.sync(snap)
}

func TestExistingParent(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	link := filepath.Join(base, "link")
	if err := os.MkdirAll(filepath.Join(real, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	tests := []struct {
		p                    string
		up                   int
		wantParent, wantPath string
	}{
		{filepath.Join(real, "a", "b"), 3, filepath.Join(real, "a"), filepath.Join(real, "a", "b")},
		{filepath.Join(real, "x", "y", "z"), 3, real, filepath.Join(real, "x", "y", "z")},
		{filepath.Join(real, "x", "y", "z"), 2, "", ""},
		{filepath.Join(link, "a", "b"), 3, filepath.Join(real, "a"), filepath.Join(real, "a", "b")},
		{filepath.Join(link, "x", "y"), 3, real, filepath.Join(real, "x", "y")},
		{filepath.Join(link, "x", "y"), 0, "", ""},
	}
	for _, tt := range tests {
		parent, path := existingParent(tt.p, tt.up)
		if parent != tt.wantParent || path != tt.wantPath {
			t.Errorf("existingParent(%q, %d) = %q, %q; want %q, %q", tt.p, tt.up, parent, path, tt.wantParent, tt.wantPath)
		}
	}
}
