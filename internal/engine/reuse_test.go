package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// stampAll gives every file and folder under the machine the time t, so
// that no listing or reading is too recent to be cached (see scan.racy):
// a rescan then serves everything from the cache, as on a real machine.
func (m *machine) stampAll(tb testing.TB, t time.Time) {
	tb.Helper()
	err := filepath.WalkDir(m.base, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, t, t)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// settle sets an old, but new, time on the files and folders a change
// touched, so that the rescan sees a change that is not racy: the cache
// must notice it by the times alone.
func (m *machine) settle(t *testing.T, rels ...string) {
	t.Helper()
	when := baseTime.Add(time.Hour)
	for _, rel := range rels {
		if err := os.Chtimes(m.abs(rel), when, when); err != nil {
			t.Fatal(err)
		}
	}
}

// scripted is a provider whose plans follow a script, an error where nil:
// each call takes the next, and the last repeats.
type scripted struct {
	name  string
	plans []*providers.Plan
	calls int
}

func (s *scripted) Name() string { return s.name }

func (s *scripted) Plan(context.Context, providers.Env) (providers.Plan, error) {
	p := s.plans[min(s.calls, len(s.plans)-1)]
	s.calls++
	if p == nil {
		return providers.Plan{}, errors.New("settings file vanished")
	}
	return *p, nil
}

// TestRescanReusesNothingStale takes two snapshots of an unchanged
// machine (the second must reuse the first's records: the path under
// test), changes one input of discovery, and checks that the third
// snapshot shows the change.
func TestRescanReusesNothingStale(t *testing.T) {
	customRoot := func(m *machine, dir string) pipeline.Root {
		return pipeline.Root{Path: m.abs(dir), Agent: "custom", Provider: "custom",
			Location: pipeline.LocationCustom, Kind: pipeline.KindCustom}
	}
	tests := []struct {
		name string
		// setup runs before the first snapshot, change between the
		// second and the third.
		setup  func(t *testing.T, m *machine, e *Engine)
		change func(t *testing.T, m *machine)
		check  func(t *testing.T, snap *pipeline.Snapshot)
	}{
		{
			name: "SKILL.md edited in place, its time restored",
			change: func(t *testing.T, m *machine) {
				m.write(t, map[string]string{"home/.claude/skills/user-only/SKILL.md": skillMD("user-only", "Edited in place.")})
				m.stampAll(t, baseTime)
			},
			check: func(t *testing.T, snap *pipeline.Snapshot) {
				if r, err := snap.Resolve("user-only"); err != nil || r.Description != "Edited in place." {
					t.Errorf("user-only = %v, %v; want the edited description", r, err)
				}
			},
		},
		{
			name: "skill added",
			change: func(t *testing.T, m *machine) {
				m.write(t, map[string]string{"home/.claude/skills/added/SKILL.md": skillMD("added", "New.")})
				m.settle(t, "home/.claude/skills", "home/.claude/skills/added", "home/.claude/skills/added/SKILL.md")
			},
			check: func(t *testing.T, snap *pipeline.Snapshot) {
				if _, err := snap.Resolve("added"); err != nil {
					t.Errorf("added skill not visible: %v", err)
				}
			},
		},
		{
			name: "skill removed",
			change: func(t *testing.T, m *machine) {
				if err := os.RemoveAll(m.abs("home/.claude/skills/user-only")); err != nil {
					t.Fatal(err)
				}
				m.settle(t, "home/.claude/skills")
			},
			check: func(t *testing.T, snap *pipeline.Snapshot) {
				if r, err := snap.ResolveAny("user-only"); err == nil {
					t.Errorf("removed skill still found: %s", r.File)
				}
			},
		},
		{
			name: "skill folder renamed",
			change: func(t *testing.T, m *machine) {
				if err := os.Rename(m.abs("home/.claude/skills/user-only"), m.abs("home/.claude/skills/moved")); err != nil {
					t.Fatal(err)
				}
				m.settle(t, "home/.claude/skills")
			},
			check: func(t *testing.T, snap *pipeline.Snapshot) {
				r, err := snap.Resolve("user-only")
				if want := "home/.claude/skills/moved/SKILL.md"; err != nil || r.File != filepath.Join(snapBase(snap), want) {
					t.Errorf("user-only = %v, %v; want it at %s", r, err, want)
				}
			},
		},
		{
			name: "skill disabled by renaming SKILL.md to .SKILL.md",
			change: func(t *testing.T, m *machine) {
				dir := m.abs("home/.claude/skills/user-only")
				if err := os.Rename(filepath.Join(dir, "SKILL.md"), filepath.Join(dir, ".SKILL.md")); err != nil {
					t.Fatal(err)
				}
				m.settle(t, "home/.claude/skills/user-only")
			},
			check: func(t *testing.T, snap *pipeline.Snapshot) {
				if r, err := snap.Resolve("user-only"); err == nil {
					t.Errorf("disabled skill still visible: %s", r.File)
				}
			},
		},
		{
			name: "switch flipped in settings.json",
			change: func(t *testing.T, m *machine) {
				m.write(t, map[string]string{"home/.claude/settings.json": `{"skillOverrides": {"user-only": "off"}}`})
			},
			check: func(t *testing.T, snap *pipeline.Snapshot) {
				r, err := snap.ResolveAny("user-only")
				if err != nil || len(r.Off) == 0 {
					t.Fatalf("user-only = %v, %v; want it switched off", r, err)
				}
				if _, err := snap.Resolve("user-only"); err == nil {
					t.Error("user-only, switched off, is still visible")
				}
			},
		},
		{
			name: "plugin disabled",
			change: func(t *testing.T, m *machine) {
				m.write(t, map[string]string{"home/.claude/settings.json": `{"enabledPlugins": {"tools@market": false}}`})
			},
			check: func(t *testing.T, snap *pipeline.Snapshot) {
				if r, err := snap.ResolveAny("plugin-only"); err == nil {
					t.Errorf("skill of a disabled plugin still found: %s", r.File)
				}
				if len(snap.Disabled) != 1 {
					t.Errorf("Disabled = %v, want the plugin", snap.Disabled)
				}
			},
		},
		{
			name: "provider failing, then recovering with another plan",
			setup: func(t *testing.T, m *machine, e *Engine) {
				m.write(t, map[string]string{"extra/late/SKILL.md": skillMD("late", "Planned late.")})
				m.stampAll(t, baseTime)
				one := providers.Plan{Roots: []pipeline.Root{customRoot(m, "custom")}}
				two := providers.Plan{Roots: []pipeline.Root{customRoot(m, "custom"), customRoot(m, "extra")}}
				// Snapshots 1 and 2 succeed; 3 fails (the previous plan
				// is served, with an error); 4 recovers with a new root.
				swap(t, e, "custom", &scripted{name: "custom", plans: []*providers.Plan{&one, &one, nil, &two}})
			},
			check: func(t *testing.T, snap *pipeline.Snapshot) {
				if !hasCode(snap, "provider-failed") {
					t.Error("no provider-failed diagnostic while the provider fails")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t)
			m.stampAll(t, baseTime)
			e := m.engine(t, m.config())
			if tt.setup != nil {
				tt.setup(t, m, e)
			}
			first, _ := snapshot(t, e)
			second, st := snapshot(t, e)
			if st.FilesRead != 0 || !slices.Equal(first.All, second.All) || !slices.Equal(first.Visible, second.Visible) {
				t.Fatalf("an unchanged rescan built its records again (read %d files): the reuse is not tested", st.FilesRead)
			}
			if tt.change != nil {
				tt.change(t, m)
			}
			third, _ := snapshot(t, e)
			tt.check(t, third)
			checkInvariants(t, third)
			if tt.name == "provider failing, then recovering with another plan" {
				fourth, _ := snapshot(t, e)
				if _, err := fourth.Resolve("late"); err != nil {
					t.Errorf("the recovered provider's new root is not scanned: %v", err)
				}
				if hasCode(fourth, "provider-failed") {
					t.Error("provider-failed diagnostic after the provider recovered")
				}
			}
		})
	}
}

// snapBase is the machine's base folder, from a snapshot's roots.
func snapBase(snap *pipeline.Snapshot) string {
	for _, r := range snap.Roots {
		if r.Kind == pipeline.KindCustom {
			return filepath.Dir(r.Path)
		}
	}
	return ""
}

func hasCode(snap *pipeline.Snapshot, code string) bool {
	for _, d := range snap.Diagnostics {
		if d.Code == code {
			return true
		}
	}
	return false
}
