package mcp

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/engine/live"
	"github.com/ccski/ccski/pipeline"
)

// refresherFor returns a live refresher over eng whose snapshots srv
// serves, wired as Serve wires them.
func refresherFor(srv *Server, eng *engine.Engine, o live.Options) *live.Refresher {
	if o.Logger == nil {
		o.Logger = discard()
	}
	ref := live.New(eng, o)
	ref.Subscribe(func(s *pipeline.Snapshot) {
		srv.Update(s)
		srv.Touch()
	})
	return ref
}

// rootsFixture is a server over a tree holding the user skill alpha, whose
// client-roots hooks switch its refresher's workspace. It counts the
// engines the refresher builds.
type rootsFixture struct {
	tree
	srv   *Server
	ref   *live.Refresher
	built atomic.Int32
}

func (f *rootsFixture) has(name string) bool {
	_, err := f.srv.Snapshot().Resolve(name)
	return err == nil
}

// rootsServer builds the fixture; o's hooks are replaced by the roots ones.
func rootsServer(t *testing.T, o Options) *rootsFixture {
	t.Helper()
	f := &rootsFixture{tree: newTree(t)}
	writeFile(t, f.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
	eng := newEngine(t, f.home, f.ws)
	use := func(_ context.Context, ss *sdk.ServerSession) { useClientRoots(t.Context(), ss, f.ref.SetWorkspace) }
	o.OnInitialized, o.OnRootsChanged = use, use
	f.srv = New(nil, o)
	f.ref = refresherFor(f.srv, eng, live.Options{Build: func(ws string) (*engine.Engine, error) {
		f.built.Add(1)
		if _, err := os.Stat(ws); err != nil {
			return nil, err
		}
		return newEngine(t, f.home, ws), nil
	}})
	if _, _, err := f.ref.First(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	return f
}

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
			f := rootsServer(t, Options{})
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
			// A switch that must come gets a hang guard; one that must not
			// gets the time it would take.
			wait := 10 * time.Second
			if !tt.want {
				wait = 300 * time.Millisecond
			}
			got := eventually(wait, func() bool { return f.has("claude:wsonly") })
			if got != tt.want {
				t.Errorf("workspace skill visible = %v, want %v", got, tt.want)
			}
			if tt.want {
				if ws := f.ref.Workspace(); ws != other {
					t.Errorf("refresher workspace %q, want %q", ws, other)
				}
			}
		})
	}
}

// TestUseClientRootsNoInitialize covers 2026-07-28 sessions, which never
// send initialize: the initialized hook does not run, and useClientRoots on
// such a session neither asks for roots nor switches the workspace.
func TestUseClientRootsNoInitialize(t *testing.T) {
	f := rootsServer(t, Options{})
	var calls atomic.Int32
	srv := New(f.srv.Snapshot(), Options{OnInitialized: func(_ context.Context, ss *sdk.ServerSession) {
		calls.Add(1)
		useClientRoots(t.Context(), ss, f.ref.SetWorkspace)
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
	useClientRoots(t.Context(), ss, f.ref.SetWorkspace)
	time.Sleep(100 * time.Millisecond)
	if n := calls.Load(); n != 0 {
		t.Errorf("initialized hook ran %d times for a 2026-07-28 session", n)
	}
	if n := f.built.Load(); n != 0 {
		t.Errorf("built %d engines for a 2026-07-28 session", n)
	}
}

func fileURI(path string) string { return (&url.URL{Scheme: "file", Path: path}).String() }

// listAndCallAny checks the session works: one tool, and alpha loads.
func listAndCallAny(t *testing.T, ctx context.Context, cs *sdk.ClientSession) {
	t.Helper()
	onlyTool(t, ctx, cs)
	res, err := call(ctx, cs, map[string]any{"name": "alpha"})
	if err != nil || res.IsError {
		t.Fatalf("load alpha: %v %+v", err, res)
	}
}

// syncBuffer is a log destination Serve writes to while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServe runs Serve over an in-memory stdio transport with a live
// refresher, as `ccski mcp` does: the client lists the first snapshot, a
// rescan reaches it as tools/list_changed, its roots switch the workspace,
// and closing the session ends Serve with nil.
func TestServe(t *testing.T) {
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			tr := newTree(t)
			writeFile(t, tr.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
			other := t.TempDir()
			writeFile(t, filepath.Join(other, ".claude", "skills", "wsonly", "SKILL.md"), skillMD("wsonly", "Workspace only"))
			logs := &syncBuffer{}
			log := slog.New(slog.NewTextHandler(logs, nil))
			ref := live.New(newEngine(t, tr.home, tr.ws), live.Options{Logger: log})
			st, ct := sdk.NewInMemoryTransports()
			done := make(chan error, 1)
			go func() {
				done <- Serve(t.Context(), ServeOptions{Options: Options{Version: "test", Logger: log}, Discovery: ref, Stdio: st})
			}()
			var changes atomic.Int32
			c := sdk.NewClient(&sdk.Implementation{Name: "serve-test", Version: "1"}, &sdk.ClientOptions{
				ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changes.Add(1) },
			})
			cs := connectClient(t, c, ct, pv)
			ctx := testCtx(t, 10*time.Second)
			listAndCallAny(t, ctx, cs)

			writeFile(t, tr.userSkill("beta"), skillMD("beta", "Beta skill"))
			ref.Poke()
			if !eventually(10*time.Second, func() bool { return changes.Load() > 0 }) {
				t.Fatal("no tools/list_changed after a rescan found a new skill")
			}
			if desc := onlyTool(t, ctx, cs).Description; !strings.Contains(desc, "beta") {
				t.Errorf("the new skill is not in the description:\n%s", desc)
			}

			if pv != "" { // roots need the initialize handshake
				c.AddRoots(&sdk.Root{URI: fileURI(other)})
				if !eventually(10*time.Second, func() bool { return ref.Workspace() == other }) {
					t.Errorf("workspace %q after the client's roots, want %q", ref.Workspace(), other)
				}
			}

			if err := cs.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve = %v after the client closed, want nil", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Serve did not return after the client closed")
			}
			for _, want := range []string{"ccski MCP server starting", "skills discovered", "client closed stdin"} {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, logs)
				}
			}
		})
	}
}

// failingDiscovery's Run fails at once, as a first discovery that cannot
// work does.
type failingDiscovery struct{ err error }

func (failingDiscovery) Subscribe(func(*pipeline.Snapshot))   {}
func (d failingDiscovery) Run(context.Context) error          { return d.err }
func (failingDiscovery) SetWorkspace(context.Context, string) {}

func TestServeErrors(t *testing.T) {
	boom := errors.New("discovery failed: boom")
	tests := []struct {
		name string
		o    ServeOptions
		want string
	}{
		{"no discovery", ServeOptions{}, "no Discovery"},
		{"unknown transport", ServeOptions{Discovery: failingDiscovery{boom}, Transport: "carrier-pigeon"},
			`unknown transport "carrier-pigeon"`},
		{"first discovery fails", ServeOptions{Discovery: failingDiscovery{boom}}, "discovery failed: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _ := sdk.NewInMemoryTransports()
			tt.o.Stdio = st
			done := make(chan error, 1)
			go func() { done <- Serve(t.Context(), tt.o) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("Serve = %v, want an error holding %q", err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Serve did not return")
			}
		})
	}
}

// TestServeContext checks that the end of ctx shuts Serve down cleanly.
func TestServeContext(t *testing.T) {
	tr := newTree(t)
	ref := live.New(newEngine(t, tr.home, tr.ws), live.Options{Logger: discard()})
	st, _ := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ServeOptions{Discovery: ref, Stdio: st}) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v after ctx ended, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after ctx ended")
	}
}

// TestServeShutdownWhileAskingRoots connects a 2025-11-25 client that
// never answers roots/list, then ends Serve: closing a session waits for
// the requests the server sent on it, so the question must end with the
// server instead of holding the exit until the bound on the transport's
// shutdown (which logs a warning) or the roots timeout.
func TestServeShutdownWhileAskingRoots(t *testing.T) {
	orig := rootsTimeout
	rootsTimeout = time.Hour
	t.Cleanup(func() { rootsTimeout = orig })
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			tr := newTree(t)
			writeFile(t, tr.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
			logs := &syncBuffer{}
			ref := live.New(newEngine(t, tr.home, tr.ws), live.Options{Logger: discard()})
			st, ct := sdk.NewInMemoryTransports()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				done <- Serve(ctx, ServeOptions{Options: Options{Logger: slog.New(slog.NewTextHandler(logs, nil))},
					Discovery: ref, Transport: transport, Host: "127.0.0.1", Stdio: st})
			}()
			var clientTr sdk.Transport = ct
			if transport == "http" {
				var url string
				if !eventually(5*time.Second, func() bool {
					_, rest, ok := strings.Cut(logs.String(), "msg=listening url=")
					url, _, _ = strings.Cut(rest, "\n")
					return ok
				}) {
					t.Fatalf("no listening line:\n%s", logs)
				}
				clientTr = &sdk.StreamableClientTransport{Endpoint: url}
			}
			// The client takes the roots/list request and never answers.
			asked := make(chan struct{}, 1)
			c := sdk.NewClient(&sdk.Implementation{Name: "silent-roots", Version: "1"}, nil)
			c.AddRoots(&sdk.Root{URI: fileURI(t.TempDir())})
			c.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
				return func(hctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
					if method == "roots/list" {
						asked <- struct{}{}
						<-t.Context().Done()
						return nil, t.Context().Err()
					}
					return next(hctx, method, req)
				}
			})
			cs := connectClient(t, c, clientTr, "2025-11-25")
			listAndCallAny(t, testCtx(t, 10*time.Second), cs)
			select {
			case <-asked:
			case <-time.After(5 * time.Second):
				t.Fatal("the server never asked for roots")
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve = %v, want nil", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Serve did not return")
			}
			for _, warning := range []string{"did not finish", "did not close in time"} {
				if strings.Contains(logs.String(), warning) {
					t.Errorf("the unanswered roots/list held the shutdown:\n%s", logs)
				}
			}
		})
	}
}

// TestServeListening checks that Listening is given the address http
// listens on, the port the system chose for Port 0, and that the server
// answers there.
func TestServeListening(t *testing.T) {
	tr := newTree(t)
	ref := live.New(newEngine(t, tr.home, tr.ws), live.Options{Logger: discard()})
	addrs := make(chan net.Addr, 1)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ServeOptions{Options: Options{Logger: discard()}, Discovery: ref, Transport: "http",
			Host: "127.0.0.1", Port: 0, Listening: func(a net.Addr) { addrs <- a }})
	}()
	var addr net.Addr
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("Serve = %v before listening", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Listening never called")
	}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || tcp.Port == 0 || !tcp.IP.IsLoopback() {
		t.Fatalf("Listening got %v, want a loopback address with the chosen port", addr)
	}
	resp, err := http.Get("http://" + addr.String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz at %v = %d", addr, resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after ctx ended")
	}
}
