package mcp

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/engine/live"
)

// routedFixture is a base server over the workspace tr.ws, behind the
// HTTP handler, whose sessions' roots route them to a server of their own
// workspace, as Serve wires it over HTTP.
type routedFixture struct {
	tree
	base   *Server
	router *workspaceRouter
	url    string
	// running counts the workspaces' discoveries whose Run has not
	// returned.
	running atomic.Int64

	mu sync.Mutex
	// refreshers are the workspaces' discoveries, by folder.
	refreshers map[string]*live.Refresher
}

// countedRun is a Discovery whose Run is counted in running.
type countedRun struct {
	Discovery
	running *atomic.Int64
}

func (d countedRun) Run(ctx context.Context) error {
	d.running.Add(1)
	defer d.running.Add(-1)
	return d.Discovery.Run(ctx)
}

func routedServer(t *testing.T, o Options) *routedFixture {
	t.Helper()
	f := &routedFixture{tree: newTree(t), refreshers: map[string]*live.Refresher{}}
	writeFile(t, f.userSkill("alpha"), skillMD("alpha", "A user skill"))
	writeFile(t, filepath.Join(f.ws, ".claude", "skills", "baseonly", "SKILL.md"), skillMD("baseonly", "In the base workspace"))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	use := func(_ context.Context, ss *sdk.ServerSession) {
		useClientRoots(ctx, ss, func(_ context.Context, dir string) { f.router.use(ss, dir) })
	}
	base := o
	base.OnInitialized, base.OnRootsChanged, base.Logger = use, use, discard()
	f.base = New(nil, base)
	ref := refresherFor(f.base, newEngine(t, f.home, f.ws), live.Options{Watch: true})
	go func() { _ = ref.Run(ctx) }()
	o.Logger = discard()
	f.router = newWorkspaceRouter(f.base, f.ws, discard(), serveWorkspace(f.base, o, func(dir string) (Discovery, error) {
		ref := live.New(newEngine(t, f.home, dir), live.Options{Watch: true, Logger: discard()})
		f.mu.Lock()
		f.refreshers[filepath.Clean(dir)] = ref
		f.mu.Unlock()
		return countedRun{ref, &f.running}, nil
	}))
	ts := httptest.NewServer(f.base.Handler(HTTPOptions{}))
	t.Cleanup(func() {
		f.router.close()
		f.base.CloseSessions()
		ts.Close()
	})
	f.url = ts.URL + "/mcp"
	return f
}

// rescan asks the discovery of the workspace dir for a rescan, as its
// watcher does when it sees a change. The watcher alone is not relied on:
// a machine out of inotify instances (fs.inotify.max_user_instances,
// shared by every process of the user) runs the discovery without one,
// and with no periodic rescan in this fixture the change would never be
// seen. The watcher has its own tests (internal/engine/live).
func (f *routedFixture) rescan(t *testing.T, dir string) {
	t.Helper()
	f.mu.Lock()
	ref := f.refreshers[filepath.Clean(dir)]
	f.mu.Unlock()
	if ref == nil {
		t.Fatalf("no discovery runs for the workspace %s", dir)
	}
	ref.Poke()
}

// project makes a project folder holding the skill name and the command
// /name-cmd.
func project(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	writeFile(t, filepath.Join(dir, ".claude", "skills", name, "SKILL.md"), skillMD(name, "Only in project "+name))
	writeFile(t, filepath.Join(dir, ".claude", "commands", name+"-cmd.md"), []byte("Run the "+name+" command with $ARGUMENTS.\n"))
	return dir
}

// rootsClient connects a 2025-11-25 client over HTTP whose roots are
// dirs (none: no roots capability), with co's handlers.
func (f *routedFixture) rootsClient(t *testing.T, co *sdk.ClientOptions, dirs ...string) (*sdk.ClientSession, chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 16)
	if co == nil {
		co = &sdk.ClientOptions{}
	}
	co.ToolListChangedHandler = func(context.Context, *sdk.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	if len(dirs) == 0 {
		co.Capabilities = &sdk.ClientCapabilities{}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "roots-client", Version: "1"}, co)
	for _, d := range dirs {
		c.AddRoots(&sdk.Root{URI: fileURI(d)})
	}
	for _, err := range []error{
		sdk.AddSendingCustomMethod[*listSkillsParams, *listSkillsResult](c, "skills/list"),
		sdk.AddSendingCustomMethod[*getSkillParams, *getSkillResult](c, "skills/get"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return connectClient(t, c, &sdk.StreamableClientTransport{Endpoint: f.url}, "2025-11-25"), changed
}

// view is what one session is served: the skills the skill tool lists,
// the prompts, the SKILL.md resources and the extension's skills.
type view struct{ skills, prompts, resources, extension []string }

func served(t *testing.T, ctx context.Context, cs *sdk.ClientSession) view {
	t.Helper()
	var v view
	for _, e := range parseSkills(t, listToolsByName(t, ctx, cs)[ToolName].Description) {
		v.skills = append(v.skills, e.Name) // the shortest name that loads it: the bare name here
	}
	ps, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps.Prompts {
		v.prompts = append(v.prompts, p.Name)
	}
	rs, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs.Resources {
		v.resources = append(v.resources, r.Name)
	}
	entries, _ := listAll(t, ctx, cs)
	for _, e := range entries {
		v.extension = append(v.extension, e.Frontmatter["name"].(string))
	}
	for _, l := range [][]string{v.skills, v.prompts, v.resources, v.extension} {
		slices.Sort(l)
		for _, name := range l {
			if strings.Contains(name, "lists-changed") || strings.Contains(name, "lists_changed") {
				t.Errorf("a list shows the placeholder %s", name)
			}
		}
	}
	return v
}

// awaitSkills waits until cs's skill tool lists want.
func awaitSkills(t *testing.T, ctx context.Context, cs *sdk.ClientSession, want ...string) view {
	t.Helper()
	var v view
	if !eventually(30*time.Second, func() bool {
		v = served(t, ctx, cs)
		return slices.Equal(v.skills, want)
	}) {
		t.Fatalf("the skill tool lists %v, want %v", v.skills, want)
	}
	return v
}

// TestRootsPerSession: over HTTP, each session is served the workspace of
// its own client's roots, and no client's roots change what another is
// served: two sessions with different roots each see only their own
// project's skill, in the skill tool, prompts, resources and the
// extension, and load only it; a client without roots is served the
// server's workspace; a change in one project reaches its session (with
// list_changed) and no other; ask's sampling reaches the routed session's
// client; a workspace is stopped once no session uses it.
func TestRootsPerSession(t *testing.T) {
	f := routedServer(t, Options{Tools: []string{ToolAsk}})
	ctx := testCtx(t, 60*time.Second)
	dirA, dirB := project(t, "apple"), project(t, "banana")
	model := &stubModel{answer: "From the apple skill."}
	a, changedA := f.rootsClient(t, model.options(), dirA)
	va := awaitSkills(t, ctx, a, "alpha", "apple")
	b, _ := f.rootsClient(t, nil, dirB)
	vb := awaitSkills(t, ctx, b, "alpha", "banana")
	rootless, _ := f.rootsClient(t, nil)
	vbase := awaitSkills(t, ctx, rootless, "alpha", "baseonly")
	// A is still served its own project, B's arrival notwithstanding.
	if again := served(t, ctx, a); !slices.Equal(again.skills, va.skills) {
		t.Errorf("session A after B connected lists %v, want %v", again.skills, va.skills)
	}
	for _, c := range []struct {
		who  string
		v    view
		want string
	}{{"A", va, "apple"}, {"B", vb, "banana"}, {"rootless", vbase, "baseonly"}} {
		if want := []string{c.want + "-cmd"}; !slices.Equal(c.v.prompts, want) && c.want != "baseonly" {
			t.Errorf("session %s's prompts %v, want %v", c.who, c.v.prompts, want)
		}
		if want := []string{"alpha", c.want}; !slices.Equal(c.v.resources, want) || !slices.Equal(c.v.extension, want) {
			t.Errorf("session %s's resources %v and skills/list %v, want %v", c.who, c.v.resources, c.v.extension, want)
		}
	}
	for _, c := range []struct {
		cs         *sdk.ClientSession
		own, other string
	}{{a, "apple", "banana"}, {b, "banana", "apple"}, {rootless, "baseonly", "apple"}} {
		if res, err := call(ctx, c.cs, map[string]any{"name": c.own}); err != nil || res.IsError {
			t.Errorf("loading %s: %v %v", c.own, err, res)
		}
		if res, err := call(ctx, c.cs, map[string]any{"name": c.other}); err != nil || !res.IsError {
			t.Errorf("loading %s, another workspace's skill: %v %+v, want not found", c.other, err, res)
		}
		_, err := sdk.CallCustomMethod[*getSkillParams, *getSkillResult](ctx, c.cs, "skills/get",
			&getSkillParams{URI: "skill://claude/" + c.other + "/SKILL.md"})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("skills/get of %s, another workspace's skill: %v, want -32602", c.other, err)
		}
	}

	// Sampling for ask reaches the routed session's own client.
	res := callNamed(t, ctx, a, ToolAsk, map[string]any{"sources": []string{"claude"}, "question": "What is apple?"})
	if text := resultText(t, res); res.IsError || text != model.answer {
		t.Errorf("ask on the routed session: %q (isError %v), want the model's answer", text, res.IsError)
	}
	if asked := model.requests(); len(asked) != 1 || !strings.Contains(asked[0].Messages[0].Content.(*sdk.TextContent).Text, "Only in project apple") {
		t.Errorf("the sampling request did not carry session A's project skill: %+v", asked)
	}

	// A change in project A reaches A, told its list changed, and not B.
	for len(changedA) > 0 {
		<-changedA
	}
	writeFile(t, filepath.Join(dirA, ".claude", "skills", "apricot", "SKILL.md"), skillMD("apricot", "Added to project apple"))
	f.rescan(t, dirA)
	select {
	case <-changedA:
	case <-ctx.Done():
		t.Fatal("session A was not told its list changed")
	}
	awaitSkills(t, ctx, a, "alpha", "apple", "apricot")
	if v := served(t, ctx, b); !slices.Equal(v.skills, vb.skills) {
		t.Errorf("session B lists %v after project A changed, want %v", v.skills, vb.skills)
	}

	// Roots that name the server's workspace are served by the server.
	_ = b.Close()
	_ = a.Close()
	if !eventually(30*time.Second, func() bool { return len(f.router.servers()) == 0 && f.running.Load() == 0 }) {
		t.Errorf("%d workspace servers and %d discoveries left after their sessions ended", len(f.router.servers()), f.running.Load())
	}
	f.router.mu.Lock()
	views := len(f.router.views)
	f.router.mu.Unlock()
	if views != 0 {
		t.Errorf("%d workspaces still open after their sessions ended", views)
	}
	c, _ := f.rootsClient(t, nil, f.ws)
	awaitSkills(t, ctx, c, "alpha", "baseonly")
	if n := len(f.router.servers()); n != 0 {
		t.Errorf("a session whose roots name the server's workspace got a server of its own (%d)", n)
	}
}

// TestWorkspaceRouterCloseWhileOpening: sessions waiting for a
// workspace's first discovery while the router closes leave without
// touching the workspace the opening goroutine is still filling in (run
// with -race), and the workspace is forgotten once both have left.
func TestWorkspaceRouterCloseWhileOpening(t *testing.T) {
	base := New(nil, Options{Logger: discard()})
	opening := make(chan struct{})
	w := newWorkspaceRouter(base, t.TempDir(), discard(), func(ctx context.Context, _ string) (*Server, func(), error) {
		close(opening)
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	dir := t.TempDir()
	done := make(chan struct{}, 3)
	go func() { w.use(nil, dir); done <- struct{}{} }()
	<-opening
	for range 2 {
		go func() { w.use(nil, dir); done <- struct{}{} }()
	}
	if !eventually(10*time.Second, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.views[filepath.Clean(dir)] != nil && w.views[filepath.Clean(dir)].sessions == 3
	}) {
		t.Fatal("the sessions never waited for the workspace")
	}
	w.close()
	for range 3 {
		select {
		case <-done:
		case <-time.After(10 * time.Second): // a hang guard
			t.Fatal("a session is still waiting after the router closed")
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.views) != 0 {
		t.Errorf("%d workspaces left after every session left", len(w.views))
	}
}
