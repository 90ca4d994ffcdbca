package mcp

// Workspaces per session. Over stdio the server has one client, and that
// client's roots choose the workspace (Discovery.SetWorkspace). Over HTTP
// and SSE it has many, and a client's roots must choose only what that
// client is served: one client's project never reaches another, and no
// client moves the others' workspace.
//
// The go-sdk binds a session to its *sdk.Server when the session starts,
// before the server can ask the client for its roots. So every session
// starts on the base server (the workspace of --workspace or the working
// folder), and a session whose first file root names another folder is
// then routed: the workspaceRouter keeps one Server per workspace in use,
// each with its own Discovery (rescans, watcher), and the base server
// passes every request of a routed session about skills, prompts or
// resources to that Server, through an in-memory client session of its
// own. What the workspace's Server asks back (sampling, for ask) goes to
// the routed session's client; when its lists change, the base server
// tells its sessions theirs may have.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/pipeline"
)

// MaxWorkspaces caps the workspaces served at once besides the base one:
// each is a discovery, with its watcher, and a snapshot. A session whose
// roots would need one more keeps what it is served, and the server logs
// why.
const MaxWorkspaces = 16

// workspaceRouter serves each session of the HTTP transports the
// workspace of its client's roots.
type workspaceRouter struct {
	base    *Server
	baseDir string // the base server's workspace; "" when unknown
	// open starts a Server for the workspace dir, whose discovery runs
	// until ctx is done or stop is called.
	open func(ctx context.Context, dir string) (srv *Server, stop func(), err error)
	log  *slog.Logger
	// ctx ends with close: the workspaces' discoveries and first scans.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	views   map[string]*workspaceView // by folder
	routes  map[*sdk.ServerSession]*route
	watched map[*sdk.ServerSession]bool // sessions whose end unroutes them
	closed  bool
}

// workspaceView is the Server of one workspace, and how many sessions it
// serves. ready is closed once its first discovery is done: srv is set
// then, or err.
type workspaceView struct {
	dir      string
	ready    chan struct{}
	srv      *Server
	stop     func()
	err      error
	sessions int
}

// route is a session served by a workspace's Server, through a client
// session of its own on it.
type route struct {
	view *workspaceView
	cs   *sdk.ClientSession
}

func newWorkspaceRouter(base *Server, baseDir string, log *slog.Logger,
	open func(ctx context.Context, dir string) (*Server, func(), error)) *workspaceRouter {
	w := &workspaceRouter{base: base, open: open, log: log,
		views: map[string]*workspaceView{}, routes: map[*sdk.ServerSession]*route{}, watched: map[*sdk.ServerSession]bool{}}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	if baseDir != "" {
		w.baseDir = filepath.Clean(baseDir)
	}
	base.sdk.AddReceivingMiddleware(w.forward) // added last: runs first
	return w
}

// use serves session ss the workspace dir from now on: the base server's
// when dir is its workspace, else a Server of dir's own, started the
// first time a session needs it (its first discovery runs before the
// session moves, so the session never sees an empty list).
func (w *workspaceRouter) use(ss *sdk.ServerSession, dir string) {
	dir = filepath.Clean(dir)
	w.mu.Lock()
	old := w.routes[ss]
	switch {
	case w.closed:
		w.mu.Unlock()
		return
	case dir == w.baseDir:
		w.mu.Unlock()
		if old != nil {
			w.unroute(ss)
			w.log.Info("workspace of an HTTP session set from its client's roots", "workspace", dir)
			w.base.relayListChanged()
		}
		return
	case old != nil && old.view.dir == dir:
		w.mu.Unlock()
		return
	}
	v := w.views[dir]
	if v == nil {
		if len(w.views) >= MaxWorkspaces {
			w.mu.Unlock()
			w.log.Warn("cannot serve the client's root as its workspace: too many workspaces in use",
				"root", dir, "max_workspaces", MaxWorkspaces)
			return
		}
		v = &workspaceView{dir: dir, ready: make(chan struct{})}
		w.views[dir] = v
		v.sessions++
		w.mu.Unlock()
		v.srv, v.stop, v.err = w.open(w.ctx, dir)
		close(v.ready)
	} else {
		v.sessions++
		w.mu.Unlock()
		select { // another session's first discovery of it may be running
		case <-v.ready:
		case <-w.ctx.Done():
			// The router is closing; the goroutine opening v may still be
			// filling it in.
			w.release(v)
			return
		}
	}
	if v.srv == nil {
		w.release(v)
		if v.err != nil && w.ctx.Err() == nil {
			w.log.Warn("cannot use the client's root as workspace", "root", dir, "err", v.err)
		}
		return
	}
	cs, err := w.connect(ss, v.srv)
	if err != nil {
		w.release(v)
		w.log.Warn("cannot serve the client's root as its workspace", "root", dir, "err", err)
		return
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		_ = cs.Close()
		w.release(v)
		return
	}
	old = w.routes[ss]
	w.routes[ss] = &route{view: v, cs: cs}
	watch := !w.watched[ss]
	w.watched[ss] = true
	w.mu.Unlock()
	if old != nil {
		_ = old.cs.Close()
		w.release(old.view)
	}
	if watch {
		go func() { // forget the route once the session ends
			_ = ss.Wait()
			w.unroute(ss)
			w.mu.Lock()
			delete(w.watched, ss)
			w.mu.Unlock()
		}()
	}
	w.log.Info("workspace of an HTTP session set from its client's roots", "workspace", dir)
	w.base.relayListChanged()
}

// connect opens a client session on srv for ss: it speaks ss's protocol
// version, and has sampling when ss's client has it, passing the requests
// on to that client.
func (w *workspaceRouter) connect(ss *sdk.ServerSession, srv *Server) (*sdk.ClientSession, error) {
	ctx, cancel := context.WithTimeout(w.ctx, rootsTimeout)
	defer cancel()
	p := ss.InitializeParams()
	relay := func(context.Context, *sdk.ToolListChangedRequest) { w.base.relayListChanged() }
	co := &sdk.ClientOptions{
		Capabilities:           &sdk.ClientCapabilities{},
		ToolListChangedHandler: relay,
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) {
			w.base.relayListChanged()
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			w.base.relayListChanged()
		},
	}
	if p != nil && p.Capabilities != nil && p.Capabilities.Sampling != nil {
		co.Capabilities.Sampling = p.Capabilities.Sampling
		co.CreateMessageHandler = func(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			return ss.CreateMessage(ctx, req.Params)
		}
	}
	info := &sdk.Implementation{Name: "ccski-workspace-router", Version: "0"}
	if p != nil && p.ClientInfo != nil {
		info = p.ClientInfo
	}
	c := sdk.NewClient(info, co)
	for _, m := range []string{"skills/list", "skills/get", "resources/directory/read"} {
		if err := sdk.AddSendingCustomMethod[*rawParams, *rawResult](c, m); err != nil {
			return nil, err
		}
	}
	ct, st := sdk.NewInMemoryTransports()
	vs, err := srv.sdk.Connect(w.ctx, st, nil)
	if err != nil {
		return nil, err
	}
	version := ""
	if p != nil {
		version = p.ProtocolVersion
	}
	cs, err := c.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		_ = vs.Close()
		return nil, err
	}
	return cs, nil
}

// unroute serves ss the base workspace again.
func (w *workspaceRouter) unroute(ss *sdk.ServerSession) {
	w.mu.Lock()
	rt := w.routes[ss]
	delete(w.routes, ss)
	w.mu.Unlock()
	if rt != nil {
		_ = rt.cs.Close()
		w.release(rt.view)
	}
}

// release ends a session's use of v, and stops v when no session uses it.
func (w *workspaceRouter) release(v *workspaceView) {
	w.mu.Lock()
	v.sessions--
	last := v.sessions == 0
	if last && w.views[v.dir] == v {
		delete(w.views, v.dir)
	}
	w.mu.Unlock()
	if last && v.stop != nil {
		v.stop()
	}
}

// servers returns the workspaces' Servers.
func (w *workspaceRouter) servers() []*Server {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*Server
	for _, rt := range w.routes {
		if !slices.Contains(out, rt.view.srv) {
			out = append(out, rt.view.srv)
		}
	}
	return out
}

// drain drains the base server and every workspace's together.
func (w *workspaceRouter) drain(timeout time.Duration) {
	var wg sync.WaitGroup
	for _, s := range append(w.servers(), w.base) {
		wg.Go(func() { s.Drain(timeout) })
	}
	wg.Wait()
}

// close ends every route and stops every workspace's Server; sessions
// that come after are served the base workspace.
func (w *workspaceRouter) close() {
	w.mu.Lock()
	w.closed = true
	routes := w.routes
	w.routes = map[*sdk.ServerSession]*route{}
	w.mu.Unlock()
	w.cancel() // every discovery, and the first ones running
	for _, rt := range routes {
		_ = rt.cs.Close()
		w.release(rt.view)
	}
}

// forward is the base server's outermost receiving middleware: a
// request of a routed session about skills, prompts or resources goes to
// its workspace's Server; the base server answers everything else, and
// its lists leave out the placeholders relayListChanged registers.
func (w *workspaceRouter) forward(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if !needsSnapshot(method) {
			return next(ctx, method, req)
		}
		ss, _ := req.GetSession().(*sdk.ServerSession)
		w.mu.Lock()
		rt := w.routes[ss]
		w.mu.Unlock()
		if rt == nil {
			res, err := next(ctx, method, req)
			return withoutRelays(res), err
		}
		res, err := rt.call(ctx, method, req)
		if err != nil {
			var rpc *jsonrpc.Error
			if errors.As(err, &rpc) {
				return nil, rpc
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s: %v", method, err)}
		}
		return res, nil
	}
}

// call sends req to the route's Server and returns its answer.
func (rt *route) call(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
	cs := rt.cs
	switch r := req.(type) {
	case *sdk.ListToolsRequest:
		return result(cs.ListTools(ctx, r.Params))
	case *sdk.CallToolRequest:
		p := &sdk.CallToolParams{Name: r.Params.Name}
		p.Meta = r.Params.Meta
		if len(r.Params.Arguments) > 0 {
			p.Arguments = r.Params.Arguments
		}
		return result(cs.CallTool(ctx, p))
	case *sdk.ListPromptsRequest:
		return result(cs.ListPrompts(ctx, r.Params))
	case *sdk.GetPromptRequest:
		return result(cs.GetPrompt(ctx, r.Params))
	case *sdk.ListResourcesRequest:
		return result(cs.ListResources(ctx, r.Params))
	case *sdk.ListResourceTemplatesRequest:
		return result(cs.ListResourceTemplates(ctx, r.Params))
	case *sdk.ReadResourceRequest:
		return result(cs.ReadResource(ctx, r.Params))
	case *sdk.CompleteRequest:
		return result(cs.Complete(ctx, r.Params))
	}
	switch method {
	case "skills/list", "skills/get", "resources/directory/read":
		raw, err := json.Marshal(req.GetParams())
		if err != nil {
			return nil, err
		}
		return result(sdk.CallCustomMethod[*rawParams, *rawResult](ctx, cs, method, &rawParams{raw: raw}))
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("%s is not served to a session with its own workspace", method)}
}

// result turns a typed answer into a Result, keeping a nil one nil.
func result[R sdk.Result](r R, err error) (sdk.Result, error) {
	if err != nil {
		return nil, err
	}
	return r, nil
}

// rawParams and rawResult carry the extension's requests and answers
// through a route byte for byte.
type rawParams struct {
	sdk.ParamsBase
	raw json.RawMessage
}

func (p *rawParams) MarshalJSON() ([]byte, error) { return p.raw, nil }

type rawResult struct {
	sdk.ResultBase
	raw json.RawMessage
}

func (r *rawResult) UnmarshalJSON(b []byte) error {
	r.raw = append(json.RawMessage(nil), b...)
	return nil
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// The placeholders relayListChanged registers for an instant.
const (
	relayTool     = "ccski_lists_changed"
	relayPrompt   = "ccski-lists-changed"
	relayResource = "ccski-relay:lists-changed"
)

// relayListChanged tells every session of s that its lists of tools,
// prompts and resources may have changed: a workspace's Server changed
// the lists of the sessions routed to it, and the SDK sends list_changed
// only when a server's own features change. It registers a placeholder
// of each kind and removes it at once; the SDK sends one notification of
// each kind for both, and the lists never show the placeholders
// (workspaceRouter.forward leaves them out).
func (s *Server) relayListChanged() {
	s.relays.Add(1)
	s.sdk.AddTool(&sdk.Tool{Name: relayTool, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return toolError("No such tool."), nil
		})
	s.sdk.RemoveTools(relayTool)
	s.sdk.AddPrompt(&sdk.Prompt{Name: relayPrompt}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return nil, invalidParams("no such prompt")
	})
	s.sdk.RemovePrompts(relayPrompt)
	s.sdk.AddResource(&sdk.Resource{URI: relayResource, Name: relayResource}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return nil, sdk.ResourceNotFoundError(relayResource)
	})
	s.sdk.RemoveResources(relayResource)
}

// withoutRelays leaves relayListChanged's placeholders out of a list.
func withoutRelays(res sdk.Result) sdk.Result {
	switch r := res.(type) {
	case *sdk.ListToolsResult:
		r.Tools = slices.DeleteFunc(r.Tools, func(t *sdk.Tool) bool { return t.Name == relayTool })
	case *sdk.ListPromptsResult:
		r.Prompts = slices.DeleteFunc(r.Prompts, func(p *sdk.Prompt) bool { return p.Name == relayPrompt })
	case *sdk.ListResourcesResult:
		r.Resources = slices.DeleteFunc(r.Resources, func(x *sdk.Resource) bool { return x.URI == relayResource })
	}
	return res
}

// serveWorkspace is workspaceRouter.open for Serve: a Server with options
// o, with discovery of dir from forWorkspace, ready once its first
// snapshot is in; a new snapshot also touches base, whose idle release
// (ReleaseWhenIdle) gives the old one's memory back. stop ends the
// discovery.
func serveWorkspace(base *Server, o Options, forWorkspace func(string) (Discovery, error)) func(context.Context, string) (*Server, func(), error) {
	return func(ctx context.Context, dir string) (*Server, func(), error) {
		d, err := forWorkspace(dir)
		if err != nil {
			return nil, nil, err
		}
		o.OnInitialized, o.OnRootsChanged = nil, nil // its one client is the router
		srv := New(nil, o)
		srv.counter = base.counter // one count per process, written by base
		first := make(chan struct{})
		var once sync.Once
		d.Subscribe(func(snap *pipeline.Snapshot) {
			srv.Update(snap)
			base.Touch()
			once.Do(func() { close(first) })
		})
		rctx, cancel := context.WithCancel(ctx)
		ran := make(chan error, 1)
		go func() { ran <- d.Run(rctx) }()
		stop := func() {
			cancel()
			select {
			case <-ran:
			case <-time.After(closeGrace):
			}
		}
		select {
		case <-first:
			return srv, stop, nil
		case err := <-ran:
			cancel()
			if err == nil {
				err = errors.New("discovery ended before its first snapshot")
			}
			return nil, nil, err
		case <-ctx.Done():
			stop()
			return nil, nil, ctx.Err()
		}
	}
}
