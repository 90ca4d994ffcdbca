package mcp

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/engine"
	"github.com/ccski/ccski/pipeline"
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

// refresherFixture is a server and refresher over a temporary tree that
// starts with one user skill, alpha.
type refresherFixture struct {
	tree
	eng       *engine.Engine
	srv       *Server
	ref       *Refresher
	snapshots atomic.Int32
	built     atomic.Int32
}

func newRefresherFixture(t *testing.T, interval time.Duration, o Options) *refresherFixture {
	t.Helper()
	f := &refresherFixture{tree: newTree(t)}
	writeFile(t, f.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
	f.eng = newEngine(t, f.home, f.ws)
	f.srv = New(snapshot(t, f.eng), o)
	f.ref = NewRefresher(f.srv, f.eng, interval, discard(), func(ws string) (*engine.Engine, error) {
		f.built.Add(1)
		if _, err := os.Stat(ws); err != nil {
			return nil, err
		}
		return newEngine(t, f.home, ws), nil
	})
	f.ref.OnSnapshot = func(*pipeline.Snapshot) { f.snapshots.Add(1) }
	return f
}

func (f *refresherFixture) has(name string) bool {
	_, err := f.srv.Snapshot().Resolve(name)
	return err == nil
}

func TestRefresherRefresh(t *testing.T) {
	f := newRefresherFixture(t, 0, Options{})
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
		before := f.srv.Snapshot()
		got := f.ref.Refresh(testCtx(t, 10*time.Second))
		if got != st.want {
			t.Errorf("%s: Refresh = %+v, want %+v", st.name, got, st.want)
		}
		if f.srv.Snapshot() == before {
			t.Errorf("%s: the server still serves the old snapshot", st.name)
		}
		if diff := cmp.Diff(st.wantIDs, visibleIDs(f.srv.Snapshot())); diff != "" {
			t.Errorf("%s: visible ids (-want +got):\n%s", st.name, diff)
		}
		if n := int(f.snapshots.Load()); n != i+1 {
			t.Errorf("%s: OnSnapshot ran %d times in %d refreshes", st.name, n, i+1)
		}
	}
	if got := Describe(f.srv.Snapshot().Visible); got != f.srv.desc {
		t.Error("the registered description is not the current snapshot's")
	}
}

func TestRefresherRefreshFailureKeepsSnapshot(t *testing.T) {
	f := newRefresherFixture(t, 0, Options{})
	writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta skill"))
	before := f.srv.Snapshot()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if d := f.ref.Refresh(ctx); !d.Empty() {
		t.Errorf("cancelled Refresh = %+v, want empty", d)
	}
	if f.srv.Snapshot() != before {
		t.Error("a failed rescan replaced the snapshot")
	}
	if n := f.snapshots.Load(); n != 0 {
		t.Errorf("OnSnapshot ran %d times after a failed rescan", n)
	}
}

func TestRefresherRunPoke(t *testing.T) {
	f := newRefresherFixture(t, 0, Options{})
	// Two pokes before Run coalesce into one rescan.
	f.ref.Poke()
	f.ref.Poke()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- f.ref.Run(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v, want nil", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after cancel")
		}
	}()
	if !eventually(2*time.Second, func() bool { return f.snapshots.Load() >= 1 }) {
		t.Fatal("no rescan after two pokes")
	}
	time.Sleep(200 * time.Millisecond)
	if n := f.snapshots.Load(); n > 2 {
		t.Fatalf("%d rescans after two pokes, want at most 2", n)
	} else if n != 1 {
		t.Errorf("%d rescans after two pokes sent before Run, want 1 (pokes coalesce)", n)
	}

	// A poke while running picks up a new skill.
	writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta skill"))
	f.ref.Poke()
	if !eventually(2*time.Second, func() bool { return f.has("claude:beta") }) {
		t.Error("poked refresher did not pick up a new skill within 2s")
	}

	// A burst of pokes never blocks and costs few rescans.
	start := f.snapshots.Load()
	for range 100 {
		f.ref.Poke()
	}
	time.Sleep(200 * time.Millisecond)
	if n := f.snapshots.Load() - start; n < 1 || n > 10 {
		t.Errorf("%d rescans after a burst of 100 pokes, want 1 to 10 (pokes coalesce)", n)
	}
}

func TestRefresherRunInterval(t *testing.T) {
	f := newRefresherFixture(t, 20*time.Millisecond, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- f.ref.Run(ctx) }()
	writeFile(t, f.userSkill("beta"), skillMD("beta", "Beta skill"))
	if !eventually(2*time.Second, func() bool { return f.has("claude:beta") }) {
		t.Error("periodic rescans did not pick up a new skill within 2s")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run returned %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func TestRefresherSetWorkspace(t *testing.T) {
	f := newRefresherFixture(t, 0, Options{})
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

	// Without a build function client roots are ignored.
	ref := NewRefresher(f.srv, f.eng, 0, discard(), nil)
	ref.SetWorkspace(ctx, t.TempDir()) // must not panic
}

// TestRefresherSetWorkspaceRace runs periodic rescans of the old
// workspace while the workspace switches: once SetWorkspace returns, no
// rescan of the old workspace may overwrite the new one's snapshot.
func TestRefresherSetWorkspaceRace(t *testing.T) {
	for round := range 10 {
		f := newRefresherFixture(t, time.Microsecond, Options{})
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

// rootsServer is a refresher fixture whose server hands client roots to
// the refresher.
func rootsServer(t *testing.T) *refresherFixture {
	t.Helper()
	var f *refresherFixture
	use := func(ctx context.Context, ss *sdk.ServerSession) { f.ref.UseClientRoots(ctx, ss) }
	f = newRefresherFixture(t, 0, Options{OnInitialized: use, OnRootsChanged: use})
	return f
}

func fileURI(path string) string { return (&url.URL{Scheme: "file", Path: path}).String() }

func TestUseClientRoots(t *testing.T) {
	other := filepath.Join(t.TempDir(), "client root")
	writeFile(t, filepath.Join(other, ".claude", "skills", "wsonly", "SKILL.md"), skillMD("wsonly", "Workspace only"))

	tests := []struct {
		name string
		opts *sdk.ClientOptions
		// roots are set before connecting; later after.
		roots, later []*sdk.Root
		want         bool
	}{
		{"file root at initialize", nil, []*sdk.Root{{URI: fileURI(other), Name: "ws"}}, nil, true},
		{"first file root wins", nil, []*sdk.Root{{URI: "https://example.com/repo"}, {URI: fileURI(other)},
			{URI: fileURI(t.TempDir())}}, nil, true},
		{"roots changed after initialize", nil, nil, []*sdk.Root{{URI: fileURI(other)}}, true},
		{"relative file root ignored", nil, []*sdk.Root{{URI: "file:relative/dir"}}, nil, false},
		{"no roots capability", &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}},
			[]*sdk.Root{{URI: fileURI(other)}}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := rootsServer(t)
			c := sdk.NewClient(&sdk.Implementation{Name: "roots-client", Version: "1"}, tt.opts)
			c.AddRoots(tt.roots...)
			st, ct := sdk.NewInMemoryTransports()
			ss, err := f.srv.SDK().Connect(testCtx(t, 10*time.Second), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ss.Close() })
			cs := connectClient(t, c, ct, "2025-11-25")
			if got := cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
				t.Fatalf("negotiated %q, want 2025-11-25", got)
			}
			p := ss.InitializeParams()
			if p == nil || p.Capabilities == nil {
				t.Fatal("no initialize params on the server session")
			}
			if hasRoots := p.Capabilities.RootsV2 != nil; hasRoots != (tt.opts == nil) {
				t.Errorf("server sees roots capability %v, want %v", hasRoots, tt.opts == nil)
			}
			if tt.later != nil {
				// The initialize-time lookup finds no roots; a change
				// notification must trigger a new one.
				time.Sleep(50 * time.Millisecond)
				if f.has("claude:wsonly") {
					t.Fatal("workspace switched before the client had roots")
				}
				c.AddRoots(tt.later...)
			}
			wait := 2 * time.Second
			if !tt.want {
				wait = 300 * time.Millisecond
			}
			got := eventually(wait, func() bool { return f.has("claude:wsonly") })
			if got != tt.want {
				t.Errorf("workspace skill visible = %v, want %v", got, tt.want)
			}
			if tt.want {
				f.ref.mu.Lock()
				ws := f.ref.ws
				f.ref.mu.Unlock()
				if ws != other {
					t.Errorf("refresher workspace %q, want %q", ws, other)
				}
			}
		})
	}
}

// TestUseClientRootsNoInitialize covers 2026-07-28 sessions, which never
// send initialize: the initialized hook does not run, and UseClientRoots on
// such a session neither asks for roots nor switches the workspace.
func TestUseClientRootsNoInitialize(t *testing.T) {
	f := newRefresherFixture(t, 0, Options{})
	var calls atomic.Int32
	srv := New(f.srv.Snapshot(), Options{OnInitialized: func(ctx context.Context, ss *sdk.ServerSession) {
		calls.Add(1)
		f.ref.UseClientRoots(ctx, ss)
	}})
	other := t.TempDir()
	c := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil)
	c.AddRoots(&sdk.Root{URI: fileURI(other)})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(testCtx(t, 5*time.Second), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs := connectClient(t, c, ct, "")
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Fatalf("negotiated %q, want 2026-07-28", got)
	}
	listAndCallAny(t, testCtx(t, 5*time.Second), cs)
	f.ref.UseClientRoots(t.Context(), ss)
	time.Sleep(100 * time.Millisecond)
	if n := calls.Load(); n != 0 {
		t.Errorf("initialized hook ran %d times for a 2026-07-28 session", n)
	}
	if n := f.built.Load(); n != 0 {
		t.Errorf("built %d engines for a 2026-07-28 session", n)
	}
}

// listAndCallAny checks the session works: one tool, and alpha loads.
func listAndCallAny(t *testing.T, ctx context.Context, cs *sdk.ClientSession) {
	t.Helper()
	onlyTool(t, ctx, cs)
	res, err := call(ctx, cs, map[string]any{"name": "alpha"})
	if err != nil || res.IsError {
		t.Fatalf("load alpha: %v %+v", err, res)
	}
}
