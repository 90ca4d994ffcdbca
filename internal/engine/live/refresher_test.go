package live

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

func TestCompare(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := func(id string, mod ...func(*pipeline.Record)) *pipeline.Record {
		r := &pipeline.Record{ID: id, File: "/s/" + id + "/SKILL.md", Size: 10, ModTime: t0, Description: "d " + id}
		for _, m := range mod {
			m(r)
		}
		return r
	}
	tests := []struct {
		name     string
		old, new []*pipeline.Record
		want     Diff
	}{
		{"both empty", nil, nil, Diff{}},
		{"identical", []*pipeline.Record{rec("a"), rec("b")}, []*pipeline.Record{rec("a"), rec("b")}, Diff{}},
		{"reordered", []*pipeline.Record{rec("a"), rec("b")}, []*pipeline.Record{rec("b"), rec("a")}, Diff{}},
		{"same instant in another zone", []*pipeline.Record{rec("a")},
			[]*pipeline.Record{rec("a", func(r *pipeline.Record) { r.ModTime = t0.In(time.FixedZone("X", 3600)) })}, Diff{}},
		{"added", []*pipeline.Record{rec("a")}, []*pipeline.Record{rec("a"), rec("b")}, Diff{Added: 1}},
		{"added to empty", nil, []*pipeline.Record{rec("a"), rec("b")}, Diff{Added: 2}},
		{"removed", []*pipeline.Record{rec("a"), rec("b")}, []*pipeline.Record{rec("b")}, Diff{Removed: 1}},
		{"all removed", []*pipeline.Record{rec("a"), rec("b")}, nil, Diff{Removed: 2}},
		{"description", []*pipeline.Record{rec("a")},
			[]*pipeline.Record{rec("a", func(r *pipeline.Record) { r.Description = "new" })}, Diff{Changed: 1}},
		{"mtime", []*pipeline.Record{rec("a")},
			[]*pipeline.Record{rec("a", func(r *pipeline.Record) { r.ModTime = t0.Add(time.Nanosecond) })}, Diff{Changed: 1}},
		{"file", []*pipeline.Record{rec("a")},
			[]*pipeline.Record{rec("a", func(r *pipeline.Record) { r.File = "/elsewhere/SKILL.md" })}, Diff{Changed: 1}},
		{"size", []*pipeline.Record{rec("a")},
			[]*pipeline.Record{rec("a", func(r *pipeline.Record) { r.Size = 11 })}, Diff{Changed: 1}},
		{"disabled", []*pipeline.Record{rec("a")},
			[]*pipeline.Record{rec("a", func(r *pipeline.Record) { r.Disabled = true })}, Diff{Changed: 1}},
		{"several changes to one record count once", []*pipeline.Record{rec("a")},
			[]*pipeline.Record{rec("a", func(r *pipeline.Record) { r.Size, r.Description = 1, "x" })}, Diff{Changed: 1}},
		{"renamed id is a remove and an add", []*pipeline.Record{rec("a")}, []*pipeline.Record{rec("A")}, Diff{Added: 1, Removed: 1}},
		{"mixed",
			[]*pipeline.Record{rec("a"), rec("b"), rec("c"), rec("d")},
			[]*pipeline.Record{rec("a"), rec("c", func(r *pipeline.Record) { r.Description = "x" }), rec("e"), rec("f"),
				rec("d", func(r *pipeline.Record) { r.ModTime = t0.Add(time.Second) })},
			Diff{Added: 2, Removed: 1, Changed: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.old, tt.new)
			if got != tt.want {
				t.Errorf("Compare = %+v, want %+v", got, tt.want)
			}
			if got.Empty() != (tt.want == Diff{}) {
				t.Errorf("Empty() = %v for %+v", got.Empty(), got)
			}
		})
	}
}

// refresherFixture is a refresher over a temporary tree that starts with
// one user skill, alpha, and serves its first snapshot. It counts the
// snapshots its subscriber gets after that one and the engines Build
// makes.
type refresherFixture struct {
	tree
	eng       *engine.Engine
	ref       *Refresher
	snapshots atomic.Int32
	built     atomic.Int32
	mu        sync.Mutex
	last      *pipeline.Snapshot // the last snapshot the subscriber got
}

func newRefresherFixture(t *testing.T, o Options) *refresherFixture {
	t.Helper()
	f := &refresherFixture{tree: newTree(t)}
	writeFile(t, f.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
	age(t, f.home, time.Now().Add(-time.Hour)) // so that a rescan can read nothing
	age(t, f.ws, time.Now().Add(-time.Hour))
	f.eng = newEngine(t, f.home, f.ws)
	if o.Logger == nil {
		o.Logger = discard()
	}
	o.Build = func(ws string) (*engine.Engine, error) {
		f.built.Add(1)
		if _, err := os.Stat(ws); err != nil {
			return nil, err
		}
		return newEngine(t, f.home, ws), nil
	}
	f.ref = New(f.eng, o)
	f.ref.Subscribe(func(s *pipeline.Snapshot) {
		f.snapshots.Add(1)
		f.mu.Lock()
		f.last = s
		f.mu.Unlock()
	})
	if _, _, err := f.ref.First(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	f.snapshots.Store(0)
	return f
}

func (f *refresherFixture) has(name string) bool {
	_, err := f.ref.Snapshot().Resolve(name)
	return err == nil
}

func TestRefresherRefresh(t *testing.T) {
	f := newRefresherFixture(t, Options{})
	steps := []struct {
		name    string
		do      func(t *testing.T)
		want    Diff
		wantIDs []string
	}{
		{"nothing changed", func(*testing.T) {}, Diff{}, []string{"claude:alpha"}},
		{"skill added", func(t *testing.T) { writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta skill")) },
			Diff{Added: 1}, []string{"claude:alpha", "claude:beta"}},
		{"description edited", func(t *testing.T) {
			writeFile(t, f.userSkill("alpha"), skillMD("alpha", "Alpha skill, now longer"))
		}, Diff{Changed: 1}, []string{"claude:alpha", "claude:beta"}},
		{"skill removed", func(t *testing.T) {
			if err := os.RemoveAll(filepath.Dir(f.userSkill("beta"))); err != nil {
				t.Fatal(err)
			}
		}, Diff{Removed: 1}, []string{"claude:alpha"}},
		{"workspace skill added", func(t *testing.T) {
			writeFile(t, filepath.Join(f.ws, ".claude", "skills", "gamma", "SKILL.md"), skillMD("gamma", "Gamma"))
		}, Diff{Added: 1}, []string{"claude:gamma", "claude:alpha"}},
	}
	for i, st := range steps {
		st.do(t)
		before := f.ref.Snapshot()
		got := f.ref.Refresh(testCtx(t, 10*time.Second))
		if got != st.want {
			t.Errorf("%s: Refresh = %+v, want %+v", st.name, got, st.want)
		}
		now := f.ref.Snapshot()
		if kept := st.want.Empty(); (now == before) != kept {
			t.Errorf("%s: the old snapshot still current = %v, want %v", st.name, now == before, kept)
		}
		if diff := cmp.Diff(st.wantIDs, visibleIDs(now)); diff != "" {
			t.Errorf("%s: visible ids (-want +got):\n%s", st.name, diff)
		}
		if n := int(f.snapshots.Load()); n != i { // not for "nothing changed"
			t.Errorf("%s: the subscriber ran %d times in %d refreshes", st.name, n, i+1)
		}
		f.mu.Lock()
		last := f.last
		f.mu.Unlock()
		if last != now {
			t.Errorf("%s: the subscriber got another snapshot than the current one", st.name)
		}
	}
}

func TestRefresherRefreshFailureKeepsSnapshot(t *testing.T) {
	f := newRefresherFixture(t, Options{})
	writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta skill"))
	before := f.ref.Snapshot()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if d := f.ref.Refresh(ctx); !d.Empty() {
		t.Errorf("cancelled Refresh = %+v, want empty", d)
	}
	if f.ref.Snapshot() != before {
		t.Error("a failed rescan replaced the snapshot")
	}
	if n := f.snapshots.Load(); n != 0 {
		t.Errorf("the subscriber ran %d times after a failed rescan", n)
	}
}

// TestRefresherLogsChanges checks the line a rescan that changed something
// writes (the operator's view of a live refresh), and that a rescan that
// changed nothing writes none.
func TestRefresherLogsChanges(t *testing.T) {
	var buf bytes.Buffer
	f := newRefresherFixture(t, Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	ctx := testCtx(t, 10*time.Second)
	f.ref.Refresh(ctx)
	if strings.Contains(buf.String(), "skills refreshed") {
		t.Errorf("a rescan that changed nothing logged:\n%s", buf.String())
	}
	writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta skill"))
	writeFile(t, f.userSkill("alpha"), skillMD("alpha", "Alpha skill, edited"))
	f.ref.Refresh(ctx)
	line := buf.String()
	for _, want := range []string{"skills refreshed", "added=1", "removed=0", "changed=1", "skills=2"} {
		if !strings.Contains(line, want) {
			t.Errorf("refresh line %q lacks %q", line, want)
		}
	}
}

// requireWatcher fails the test when ref runs without a file watcher,
// which Run starts before its first snapshot: with the user's inotify
// instances used up (fs.inotify.max_user_instances), Run goes on with
// periodic rescans alone, and a test of the watcher cannot pass.
func requireWatcher(t *testing.T, ref *Refresher) {
	t.Helper()
	ref.scan.Lock()
	w := ref.watcher
	ref.scan.Unlock()
	if w == nil {
		t.Fatal("the refresher runs without a file watcher: are the user's inotify instances (fs.inotify.max_user_instances) used up?")
	}
}

// runRefresher runs f.ref until the test ends.
func runRefresher(t *testing.T, ref *Refresher) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- ref.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v, want nil", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
}

func TestRefresherRunPoke(t *testing.T) {
	f := newRefresherFixture(t, Options{})
	// Two pokes before Run coalesce into one rescan, after Run's first.
	// Rescans that find nothing changed notify no subscriber, so the
	// rescans are counted (f.ref.scans), the fixture's First included.
	f.ref.Poke()
	f.ref.Poke()
	runRefresher(t, f.ref)
	if !eventually(eventWait, func() bool { return f.ref.scans.Load() >= 3 }) {
		t.Fatal("no rescan after two pokes")
	}
	time.Sleep(200 * time.Millisecond)
	if n := f.ref.scans.Load() - 1; n != 2 {
		t.Errorf("%d snapshots after Run's first and two pokes sent before Run, want 2 (pokes coalesce)", n)
	}

	// A poke while running picks up a new skill.
	writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta skill"))
	f.ref.Poke()
	if !eventually(eventWait, func() bool { return f.has("claude:beta") }) {
		t.Error("poked refresher did not pick up a new skill")
	}

	// A burst of pokes never blocks and costs few rescans.
	start := f.ref.scans.Load()
	for range 100 {
		f.ref.Poke()
	}
	time.Sleep(200 * time.Millisecond)
	if n := f.ref.scans.Load() - start; n < 1 || n > 10 {
		t.Errorf("%d rescans after a burst of 100 pokes, want 1 to 10 (pokes coalesce)", n)
	}
}

func TestRefresherRunInterval(t *testing.T) {
	f := newRefresherFixture(t, Options{Interval: 20 * time.Millisecond})
	runRefresher(t, f.ref)
	writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta skill"))
	if !eventually(eventWait, func() bool { return f.has("claude:beta") }) {
		t.Error("periodic rescans did not pick up a new skill")
	}
}

// TestRefresherRunFirstError checks that Run returns the first discovery's
// error at once, a configuration error as such, with the watcher on or
// off, and notifies nobody.
func TestRefresherRunFirstError(t *testing.T) {
	for _, watch := range []bool{false, true} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			tr := newTree(t)
			cfg := configs.Default(all.Registry())
			cfg.Include = []string{"no-such-skill"} // a flag's token must name something
			eng, err := engine.New(cfg, providers.NewEnv(tr.home, tr.ws, func(string) string { return "" }))
			if err != nil {
				t.Fatal(err)
			}
			ref := New(eng, Options{Watch: watch, Interval: time.Hour, Logger: discard()})
			var calls atomic.Int32
			ref.Subscribe(func(*pipeline.Snapshot) { calls.Add(1) })
			done := make(chan error, 1)
			go func() { done <- ref.Run(t.Context()) }()
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return after its first discovery failed")
			}
			if !engine.IsConfigError(err) || !strings.Contains(err.Error(), "no-such-skill") {
				t.Errorf("Run = %v, want a configuration error naming the token", err)
			}
			if n := calls.Load(); n != 0 || ref.Snapshot() != nil {
				t.Errorf("after a failed first discovery: %d notifications, snapshot %v", n, ref.Snapshot())
			}
		})
	}
}

func TestRefresherSetWorkspace(t *testing.T) {
	f := newRefresherFixture(t, Options{})
	other := filepath.Join(t.TempDir(), "other ws")
	writeFile(t, filepath.Join(other, ".claude", "skills", "wsonly", "SKILL.md"), skillMD("wsonly", "Workspace only"))
	ctx := testCtx(t, 10*time.Second)

	tests := []struct {
		name      string
		ws        string
		wantBuild int32
		wantWS    bool
	}{
		{"current workspace is a no-op", f.ws + string(filepath.Separator), 0, false},
		{"missing folder keeps the old engine", filepath.Join(t.TempDir(), "missing"), 1, false},
		{"other workspace", other, 2, true},
		{"same again is a no-op", other + "/.", 2, true},
	}
	for _, tt := range tests {
		f.ref.SetWorkspace(ctx, tt.ws)
		if got := f.built.Load(); got != tt.wantBuild {
			t.Errorf("%s: build called %d times in all, want %d", tt.name, got, tt.wantBuild)
		}
		if got := f.has("claude:wsonly"); got != tt.wantWS {
			t.Errorf("%s: workspace skill visible = %v, want %v", tt.name, got, tt.wantWS)
		}
		if !f.has("claude:alpha") {
			t.Errorf("%s: user skill lost", tt.name)
		}
	}
	if got := f.ref.Workspace(); got != other {
		t.Errorf("Workspace() = %q, want %q", got, other)
	}

	// Without a Build function the engine builds its own.
	ref := New(f.eng, Options{Logger: discard()})
	ref.SetWorkspace(ctx, other)
	if _, err := ref.Snapshot().Resolve("claude:wsonly"); err != nil || ref.Workspace() != other {
		t.Errorf("default build: workspace %q, wsonly: %v", ref.Workspace(), err)
	}
}

// TestRefresherSetWorkspaceRace runs periodic rescans of the old
// workspace while the workspace switches: once SetWorkspace returns, no
// rescan of the old workspace may overwrite the new one's snapshot.
func TestRefresherSetWorkspaceRace(t *testing.T) {
	for round := range 10 {
		f := newRefresherFixture(t, Options{Interval: time.Microsecond})
		other := filepath.Join(t.TempDir(), "other")
		writeFile(t, filepath.Join(other, ".claude", "skills", "wsonly", "SKILL.md"), skillMD("wsonly", "Workspace only"))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- f.ref.Run(ctx) }()
		time.Sleep(5 * time.Millisecond)
		f.ref.SetWorkspace(ctx, other)
		var lost bool
		deadline := time.Now().Add(50 * time.Millisecond)
		for time.Now().Before(deadline) && !lost {
			lost = !f.has("claude:wsonly")
			time.Sleep(100 * time.Microsecond)
		}
		cancel()
		<-done
		if lost {
			t.Fatalf("round %d: a rescan of the old workspace replaced the new workspace's snapshot after SetWorkspace returned", round)
		}
	}
}

// TestRefresherWatchesSettings runs a refresher with the watcher on and no
// periodic rescans: turning a plugin on in a settings file, or off again,
// must reach the subscriber, as must a settings file created in the
// project.
func TestRefresherWatchesSettings(t *testing.T) {
	tr := newTree(t)
	withPlugin(t, &tr)
	writeFile(t, tr.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
	ref := New(newEngine(t, tr.home, tr.ws), Options{Watch: true, Logger: discard()})
	var mu sync.Mutex
	var got *pipeline.Snapshot
	ref.Subscribe(func(s *pipeline.Snapshot) {
		mu.Lock()
		got = s
		mu.Unlock()
	})
	runRefresher(t, ref)
	has := func() (visible, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		if got == nil {
			return false, false
		}
		_, err := got.Resolve(pluginSkill)
		return err == nil, true
	}
	if !eventually(eventWait, func() bool { _, ok := has(); return ok }) {
		t.Fatal("no first snapshot")
	}
	requireWatcher(t, ref)
	local := filepath.Join(tr.ws, ".claude", "settings.local.json")
	steps := []struct {
		name string
		do   func(t *testing.T)
		want bool
	}{
		{"user settings turn it on", func(t *testing.T) { writeJSON(t, tr.userSettings(), enabled(true)) }, true},
		{"user settings turn it off, saved by rename", func(t *testing.T) {
			replaceFile(t, tr.userSettings(), []byte(`{"enabledPlugins": {"`+pluginKey+`": false}}`))
		}, false},
		{"a project local settings file is created", func(t *testing.T) { writeJSON(t, local, enabled(true)) }, true},
		{"the project local settings file is removed", func(t *testing.T) {
			if err := os.Remove(local); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, st := range steps {
		time.Sleep(3 * Debounce) // the previous step's events are spent
		st.do(t)
		if !eventually(eventWait, func() bool { v, _ := has(); return v == st.want }) {
			t.Fatalf("%s: plugin skill visible = %v after %v, want %v", st.name, !st.want, eventWait, st.want)
		}
	}
}

// TestRefresherSeesChangeOnFirstSight edits a skill the moment a
// subscriber (a server publishing to clients) gets the first snapshot,
// before the folders are watched: the change must still reach the
// subscribers, without a periodic rescan.
func TestRefresherSeesChangeOnFirstSight(t *testing.T) {
	tr := newTree(t)
	file := tr.userSkill("alpha")
	writeFile(t, file, skillMD("alpha", "Alpha skill"))
	ref := New(newEngine(t, tr.home, tr.ws), Options{Watch: true, Logger: discard()})
	var mu sync.Mutex
	var got *pipeline.Snapshot
	first := true
	ref.Subscribe(func(s *pipeline.Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		got = s
		if first {
			first = false
			writeFile(t, file, skillMD("alpha", "Alpha skill, edited as a client read the list"))
		}
	})
	runRefresher(t, ref)
	if !eventually(eventWait, func() bool {
		mu.Lock()
		defer mu.Unlock()
		if got == nil {
			return false
		}
		r, err := got.Resolve("alpha")
		return err == nil && strings.Contains(r.Description, "edited")
	}) {
		requireWatcher(t, ref)
		t.Fatal("an edit made as the first snapshot was published never reached the subscribers")
	}
}
