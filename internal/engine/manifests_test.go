package engine

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// TestSnapshotManifests checks that a snapshot names the files the
// providers read, sorted and once each, and that a provider that fails
// keeps the files of its previous plan watched with its roots.
func TestSnapshotManifests(t *testing.T) {
	m := newMachine(t)
	e := m.engine(t, m.config())
	snap, _ := snapshot(t, e)
	want := []string{
		m.abs("home/.claude/plugins/installed_plugins.json"),
		m.abs("home/.claude/plugins/known_marketplaces.json"),
		m.abs("home/.claude/plugins/marketplaces/market/.claude-plugin/marketplace.json"),
		m.abs("home/.claude/settings.json"),
		m.abs(pluginDir + "/.claude-plugin/plugin.json"),
		m.abs("repo/.claude/settings.json"),
		m.abs("repo/.claude/settings.local.json"),
		m.abs("repo/sub/.claude/settings.json"),
		m.abs("repo/sub/.claude/settings.local.json"),
		// Codex plugins read Codex's config.toml; Copilot reads the VS Code
		// settings of the workspace folders and of the user.
		m.abs("home/.codex/config.toml"),
		m.abs("home/.config/Code/User/settings.json"),
		m.abs("home/.config/Code - Insiders/User/settings.json"),
		m.abs("repo/.vscode/settings.json"),
		m.abs("repo/sub/.vscode/settings.json"),
		// Copilot CLI's plugins: config.json lists them, settings.json's
		// enabledPlugins turns them on.
		m.abs("home/.copilot/config.json"),
		m.abs("home/.copilot/settings.json"),
		// Gemini CLI's settings hold its skill switches (skills.disabled).
		m.abs("home/.gemini/settings.json"),
		m.abs("repo/.gemini/settings.json"),
		m.abs("repo/sub/.gemini/settings.json"),
	}
	slices.Sort(want)
	if d := cmp.Diff(want, snap.Manifests); d != "" {
		t.Errorf("Manifests (-want +got):\n%s", d)
	}

	// Two providers reading one file name it once; a failing one keeps
	// its previous files.
	shared := m.abs("home/.claude/settings.json")
	f := &flaky{name: "codex", plan: providers.Plan{Manifests: []string{shared, m.abs("home/.codex/config.toml")}},
		fails: []bool{false, true}}
	swap(t, e, "codex", f)
	for i := range 2 {
		snap, _ = snapshot(t, e)
		w := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(want), m.abs("home/.codex/config.toml")))))
		if d := cmp.Diff(w, snap.Manifests); d != "" {
			t.Errorf("snapshot %d: Manifests (-want +got):\n%s", i+1, d)
		}
	}
}

// TestPriority checks that the engine hands out the ranking its filters
// use, so that a listing badges the copy the default list shows.
func TestPriority(t *testing.T) {
	tests := []struct {
		name     string
		priority []string
		want     []pipeline.Kind // the first kinds; nil for no ranking
	}{
		{"default", nil, pipeline.DefaultPriority()[:2]},
		{"plugins first", []string{"plugin", "system"}, []pipeline.Kind{pipeline.KindPlugin, pipeline.KindSystem}},
		{"invalid kind", []string{"nowhere"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &machine{base: t.TempDir()}
			m.home, m.ws = m.abs("home"), m.abs("ws")
			cfg := m.config()
			cfg.Priority = tt.priority
			p := m.engine(t, cfg).Priority()
			if tt.want == nil {
				if p != nil {
					t.Errorf("Priority() = %v, want nil for an invalid setting", p.Kinds())
				}
				return
			}
			if p == nil {
				t.Fatal("Priority() = nil")
			}
			if got := p.Kinds()[:len(tt.want)]; !slices.Equal(got, tt.want) {
				t.Errorf("Priority().Kinds() starts %v, want %v", got, tt.want)
			}
		})
	}
}

// TestForWorkspace checks that an engine built for another workspace keeps
// the configuration, user folder and variables, and discovers the other
// workspace's skills instead of the first one's.
func TestForWorkspace(t *testing.T) {
	m := newMachine(t)
	other := m.abs("other")
	m.write(t, map[string]string{"other/.claude/skills/other-only/SKILL.md": skillMD("other-only", "In the other workspace.")})
	cfg := m.config()
	cfg.Exclude = []string{"claude:user-only"}
	e := m.engine(t, cfg)
	o, err := e.ForWorkspace(other)
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Env().Workspace; got != other {
		t.Errorf("workspace %q, want %q", got, other)
	}
	if got, want := o.Env().UserDir, e.Env().UserDir; got != want {
		t.Errorf("user folder %q, want %q", got, want)
	}
	snap, _ := snapshot(t, o)
	ids := visibleIDs(snap)
	for id, want := range map[string]bool{"claude:other-only": true, "claude:xlsx": true, "claude:user-only": false} {
		if got := slices.Contains(ids, id); got != want {
			t.Errorf("%s visible = %v, want %v (visible: %v)", id, got, want, ids)
		}
	}
	// The first workspace's own skill is gone: .claude/skills of
	// repo/sub held xlsx, which now comes from the user folder.
	for _, r := range snap.Visible {
		if r.Name == "xlsx" && r.Location != pipeline.LocationUser {
			t.Errorf("xlsx from %s, want the user copy", r.Location)
		}
	}
}
