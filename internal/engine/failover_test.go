package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// flaky is a provider whose Plan follows a script: each call takes the
// next outcome, and the last outcome repeats.
type flaky struct {
	name  string
	plan  providers.Plan
	fails []bool // true: that call fails
	calls int
}

func (f *flaky) Name() string { return f.name }

func (f *flaky) Plan(context.Context, providers.Env) (providers.Plan, error) {
	i := min(f.calls, len(f.fails)-1)
	f.calls++
	if f.fails[i] {
		return providers.Plan{}, errors.New("settings file vanished")
	}
	return f.plan, nil
}

// swap replaces the engine's provider called name with p.
func swap(t *testing.T, e *Engine, name string, p providers.Provider) {
	t.Helper()
	for i, q := range e.providers {
		if q.Name() == name {
			e.providers[i] = p
			return
		}
	}
	t.Fatalf("no provider %s to swap", name)
}

func TestProviderFailureKeepsPreviousPlan(t *testing.T) {
	type outcome struct {
		Records []string // ids of the fake provider's records
		Failed  []string // messages of provider-failed diagnostics
	}
	tests := []struct {
		name  string
		fails []bool
		want  []outcome // one per Snapshot
	}{
		{
			name:  "succeeds once, then fails: the first plan is served",
			fails: []bool{false, true},
			want: []outcome{
				{Records: []string{"codex:faked", "codex:other"}},
				{Records: []string{"codex:faked", "codex:other"},
					Failed: []string{"provider codex failed: settings file vanished; serving its previous result"}},
				{Records: []string{"codex:faked", "codex:other"},
					Failed: []string{"provider codex failed: settings file vanished; serving its previous result"}},
			},
		},
		{
			name:  "fails from the start: nothing to serve",
			fails: []bool{true, false},
			want: []outcome{
				{Failed: []string{"provider codex failed: settings file vanished; no previous result to serve"}},
				{Records: []string{"codex:faked", "codex:other"}},
			},
		},
		{
			name:  "recovers, then fails again",
			fails: []bool{false, true, false, true},
			want: []outcome{
				{Records: []string{"codex:faked", "codex:other"}},
				{Records: []string{"codex:faked", "codex:other"},
					Failed: []string{"provider codex failed: settings file vanished; serving its previous result"}},
				{Records: []string{"codex:faked", "codex:other"}},
				{Records: []string{"codex:faked", "codex:other"},
					Failed: []string{"provider codex failed: settings file vanished; serving its previous result"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t)
			m.write(t, map[string]string{
				"fake/faked/SKILL.md": skillMD("faked", "From the fake provider."),
				"fake/other/SKILL.md": skillMD("other", "Also from the fake provider."),
			})
			e := m.engine(t, m.config())
			fake := &flaky{name: "codex", fails: tt.fails, plan: providers.Plan{
				Roots: []pipeline.Root{{Path: m.abs("fake"), Agent: "codex", Provider: "codex",
					Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent}},
				Diagnostics: []pipeline.Diagnostic{{Severity: pipeline.SeverityInfo, Code: "fake-note",
					Provider: "codex", Message: "planned by the fake"}},
			}}
			swap(t, e, "codex", fake)
			everPlanned := false
			for i, want := range tt.want {
				snap, _ := snapshot(t, e)
				var got outcome
				for _, r := range snap.All {
					if r.Agent == "codex" {
						got.Records = append(got.Records, r.ID)
					}
				}
				notes := 0
				for _, d := range snap.Diagnostics {
					switch d.Code {
					case "provider-failed":
						got.Failed = append(got.Failed, d.Message)
						if d.Severity != pipeline.SeverityError || d.Provider != "codex" {
							t.Errorf("snapshot %d: provider-failed diagnostic %+v: want error from codex", i+1, d)
						}
					case "fake-note":
						notes++
					}
				}
				if !tt.fails[min(i, len(tt.fails)-1)] {
					everPlanned = true
				}
				wantNotes := 0 // a plan's diagnostics come with the plan served
				if everPlanned {
					wantNotes = 1
				}
				if notes != wantNotes {
					t.Errorf("snapshot %d: %d plan diagnostics, want %d", i+1, notes, wantNotes)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("snapshot %d mismatch (-want +got):\n%s", i+1, diff)
				}
				// The other providers are unaffected.
				if _, err := snap.ResolveAny("custom:pdf"); err != nil {
					t.Errorf("snapshot %d: custom:pdf: %v", i+1, err)
				}
				checkInvariants(t, snap)
			}
			if fake.calls != len(tt.want) {
				t.Errorf("Plan called %d times, want once per Snapshot (%d)", fake.calls, len(tt.want))
			}
		})
	}
}

// blocking is a provider whose Plan fails because the context ends.
type blocking struct{}

func (blocking) Name() string { return "codex" }

func (blocking) Plan(ctx context.Context, _ providers.Env) (providers.Plan, error) {
	<-ctx.Done()
	return providers.Plan{}, ctx.Err()
}

// TestProviderCancelled checks that a Plan failing because the context
// ended stops the snapshot instead of being served as a provider failure.
func TestProviderCancelled(t *testing.T) {
	m := newMachine(t)
	e := m.engine(t, m.config())
	swap(t, e, "codex", blocking{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	var err error
	go func() {
		defer wg.Done()
		_, _, err = e.Snapshot(ctx)
	}()
	cancel()
	wg.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Snapshot = %v, want context.Canceled", err)
	}
}

// TestConcurrentSnapshots checks that Snapshot is safe for concurrent use
// (run with -race) and that every caller sees the same skills.
func TestConcurrentSnapshots(t *testing.T) {
	m := newMachine(t)
	e := m.engine(t, m.config())
	want, _ := snapshot(t, e)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			snap, _, err := e.Snapshot(context.Background())
			if err != nil {
				errs <- err.Error()
				return
			}
			if d := cmp.Diff(visibleIDs(want), visibleIDs(snap)); d != "" {
				errs <- d
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}

// TestProviderOrder checks that the engine builds the enabled providers in
// registry order and passes skill_dirs to the project provider.
func TestProviderOrder(t *testing.T) {
	m := newMachine(t)
	cfg := m.config()
	cfg.SkillDirs = []string{m.abs("repo/team-skills")}
	m.write(t, map[string]string{"repo/team-skills/deploy/SKILL.md": skillMD("deploy", "Deploys.")})
	e := m.engine(t, cfg)
	var names []string
	for _, p := range e.providers {
		names = append(names, p.Name())
	}
	if diff := cmp.Diff([]string{"custom", "project", "claude", "codex", "agents", "copilot", "cursor", "marketplace",
		"codex_plugins", "gemini_extensions", "copilot_plugins", "cursor_plugins", "agent_plugins", "commands", "remote", "git"}, names); diff != "" {
		t.Errorf("providers mismatch (-want +got):\n%s", diff)
	}
	snap, _ := snapshot(t, e)
	r, err := snap.Resolve("deploy")
	if err != nil {
		t.Fatal(err)
	}
	if r.Agent != "project" || r.Kind != pipeline.KindProject || filepath.Dir(r.Dir) != m.abs("repo/team-skills") {
		t.Errorf("deploy = %s %s in %s, want the project copy", r.Agent, r.Kind, r.Dir)
	}
	if !strings.HasPrefix(r.ID, "project:") {
		t.Errorf("id %q", r.ID)
	}
}
