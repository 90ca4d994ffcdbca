package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/usage"
	"github.com/ccski/ccski/mcp/tools"
	"github.com/ccski/ccski/pipeline"
)

// ToolName is the name of the skill-loading tool.
const ToolName = tools.Skill

// Instructions tell the agent how to use the server.
const Instructions = `This server gives you the Agent Skills installed on this machine. A skill is a folder of instructions, scripts and references for one kind of task. Before you start a task, read the skill tool's list of available skills; when one matches the task, call the skill tool with its name and follow the instructions it returns. Relative paths in a skill are relative to its base directory.`

// Options configure a Server.
type Options struct {
	// Version is reported in serverInfo.
	Version string
	// Logger receives server logs; it must not write to stdout under stdio.
	Logger *slog.Logger
	// OnInitialized runs when a client session finishes initialising;
	// Serve uses it to read the client's roots.
	OnInitialized func(ctx context.Context, ss *sdk.ServerSession)
	// OnRootsChanged runs when a client says its roots changed.
	OnRootsChanged func(ctx context.Context, ss *sdk.ServerSession)
	// SkillPrompts also serves every visible skill as an MCP prompt
	// (commands always are; see prompts.go).
	SkillPrompts bool

	// Tools, Catalog and AskContext configure the optional tools and the
	// catalogue budget (tools.go, catalog.go, ask.go).
	//
	// Tools names the tools served besides skill: skills_list,
	// skills_search, sources, ask.
	Tools []string
	// Catalog is the character budget of the skill tool's description;
	// 0 means none.
	Catalog int
	// AskContext caps the SKILL.md text ask sends, in characters; 0
	// means no cap.
	AskContext int
	// AskTimeout bounds ask's wait for the client's model to answer its
	// sampling request (DefaultAskTimeout when 0).
	AskTimeout time.Duration
	// ListTTL is how long clients may cache list results (ttlMs): the
	// refresh interval, as a listing may change after each rescan.
	ListTTL time.Duration
	// Drift says what the trust store found of a skill whose files
	// changed since recorded, for the skill tool's header, when the
	// snapshot does not say (Snapshot.Integrity is set only under
	// mcp.require_trusted); ok is false for a skill that did not change.
	// nil: only the snapshot says.
	Drift func(*pipeline.Record) (in pipeline.Integrity, ok bool)
	// Usage is the file of the count of skill loads on this machine
	// (internal/usage): the skill tool counts each load there, and the
	// catalogue gives descriptions first to the skills loaded most, by
	// the count as it was when the server started, so that the
	// description changes only with the skills. "": no count.
	Usage string
	// ScanFindings counts the findings of the security scan in the
	// skills served, by severity ("error", "warning", "info"), for the
	// metric ccski_scan_findings; nil: no such metric.
	ScanFindings func() map[string]int
	// SearchIndex is the file the body index of skills_search is kept in
	// between runs (search.CachePath), so that a restart reads only the
	// skill files that changed; "": kept in memory only.
	SearchIndex string
	// SkillDigests is the file the digests and folder listings of
	// skills/list are kept in between runs (a manifest.Cache file), so
	// that the first listing after a restart hashes only the files whose
	// stat changed; "": kept in memory only.
	SkillDigests string
}

// Server is the ccski MCP server.
type Server struct {
	sdk  *sdk.Server
	log  *slog.Logger
	snap atomic.Pointer[pipeline.Snapshot]

	prompts promptRegistry // the MCP prompts (prompts.go)

	tools     toolRegistry     // the optional tools (tools.go)
	resources resourceRegistry // skill files as resources (resources.go)
	skills    skillsState      // the skills extension (skills.go)
	bodies    bodyIndex        // the body index of skills_search (searchindex.go)
	wellKnown wellKnownState   // the well-known discovery index (wellknown.go)
	listTTL   time.Duration
	drift     func(*pipeline.Record) (pipeline.Integrity, bool) // Options.Drift
	// usage is Options.Usage, and loads the count read from it at start;
	// counter counts the loads served into it (shared with the servers of
	// other workspaces, closed by Serve).
	usage   string
	loads   map[string]int
	counter *usage.Counter

	mu   sync.Mutex // serialises Update
	desc string     // the registered tool description

	inflight atomic.Int64 // tool calls running
	draining atomic.Bool  // set by Drain: new calls are refused
	stopping atomic.Bool  // set by Stopping: /readyz answers 503
	metrics  *metrics     // what /metrics serves (metrics.go)

	ready     chan struct{} // closed by the first Update
	readyOnce sync.Once
	// toolsIn is closed by the first Update once the tools are registered,
	// before the prompts and resources: an agent's first tools/list
	// waits for the tools alone.
	toolsIn     chan struct{}
	toolsInOnce sync.Once
	updates     atomic.Int64 // Update calls so far
	relays      atomic.Int64 // relayListChanged calls so far
	news        listNews     // the lists changed since the first Update (quietFirst)

	lastActive atomic.Int64 // unix nanoseconds of the last call or refresh
	dirty      atomic.Bool  // work happened since memory was last released
	// unanswered counts tool calls whose response a tracked transport
	// (Track, the streamable HTTP handler) has not written yet. The SDK
	// writes a response after the handler returns, and refuses to write
	// once its session is closing: a call that has finished but is not
	// yet answered would lose its result if the session closed then.
	unanswered atomic.Int64
	// asking holds the ask calls waiting for their client's model.
	asking askWaits
	// ops decides the level of the lines about clients (oplog.go), and
	// gate when list_changed notifications go out (notify.go).
	ops  *opLog
	gate *notifyGate
}

// answerGrace is how long Drain waits, after the calls it waited for have
// returned, for their responses to be written on transports it cannot
// track (SSE).
const answerGrace = 50 * time.Millisecond

// Drain refuses new tool calls and waits up to timeout for the running
// ones to finish and, on tracked transports, for their responses to be
// written. It reports whether they all did.
func (s *Server) Drain(timeout time.Duration) bool {
	s.draining.Store(true)
	deadline := time.Now().Add(timeout)
	waited := false
	for s.inflight.Load() > 0 || s.unanswered.Load() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		waited = true
		time.Sleep(5 * time.Millisecond)
	}
	if waited {
		time.Sleep(max(0, min(answerGrace, time.Until(deadline))))
	}
	return true
}

// Track wraps t so that Drain also waits until the response of every tool
// call read through it has been written. Use it for the transports the
// server runs itself (stdio).
func (s *Server) Track(t sdk.Transport) sdk.Transport { return trackedTransport{t, s} }

type trackedTransport struct {
	sdk.Transport
	s *Server
}

func (t trackedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &trackedConn{Connection: c, s: t.s, open: map[jsonrpc.ID]bool{}}, nil
}

// trackedConn counts the tool calls it reads until their responses are
// written (or the connection closes).
type trackedConn struct {
	sdk.Connection
	s    *Server
	mu   sync.Mutex
	open map[jsonrpc.ID]bool
}

func (c *trackedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && isWorkMethod(req.Method) && req.ID.IsValid() {
		c.mu.Lock()
		if !c.open[req.ID] {
			c.open[req.ID] = true
			c.s.unanswered.Add(1)
		}
		c.mu.Unlock()
	}
	return msg, err
}

func (c *trackedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.open[resp.ID] {
			delete(c.open, resp.ID)
			c.s.unanswered.Add(-1)
		}
		c.mu.Unlock()
	}
	return err
}

func (c *trackedConn) Close() error {
	err := c.Connection.Close()
	c.mu.Lock()
	c.s.unanswered.Add(-int64(len(c.open)))
	clear(c.open)
	c.mu.Unlock()
	return err
}

// New builds a server that serves snap until Update replaces it.
//
// snap may be nil: the server then answers initialize at once (a client's
// start-up timeout keeps running while a large collection is scanned) and
// holds every tools/, prompts/, resources/ and completion/ request until
// the first Update.
func New(snap *pipeline.Snapshot, o Options) *Server {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{log: log, ready: make(chan struct{}), toolsIn: make(chan struct{}), listTTL: o.ListTTL,
		drift: o.Drift, usage: o.Usage, ops: newOpLog(log), bodies: bodyIndex{file: o.SearchIndex}}
	s.gate = newNotifyGate(s.ops)
	s.metrics = newMetrics(s, o)
	if s.usage != "" {
		loads, err := usage.Read(s.usage)
		if err != nil {
			log.Warn("skill usage count not read: descriptions are not ordered by use", "err", err)
		}
		s.loads = loads
		s.counter = usage.NewCounter(s.usage, countInterval, func(err error) {
			log.Warn("skill loads not counted yet: they are kept for the next write", "err", err)
		})
	}
	caps := &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true},
		Prompts:   &sdk.PromptCapabilities{ListChanged: true},
		Resources: &sdk.ResourceCapabilities{ListChanged: true}}
	caps.AddExtension(SkillsExtension, map[string]any{"directoryRead": true})
	so := &sdk.ServerOptions{
		Instructions: Instructions,
		Logger:       s.ops.sdk(),
		// Prompts and resources are always advertised: a command or skill
		// added later must reach clients through list_changed.
		Capabilities: caps,
		// Lists depend on the user's folders, and may change at each
		// rescan; a file's bytes may change at any time.
		SetCacheable: func(_ context.Context, req sdk.Request, c *sdk.Cacheable) { s.cacheable(req, c) },
	}
	so.InitializedHandler = func(ctx context.Context, r *sdk.InitializedRequest) {
		s.gate.ready(r.Session)
		if o.OnInitialized != nil {
			o.OnInitialized(ctx, r.Session)
		}
	}
	if o.OnRootsChanged != nil {
		so.RootsListChangedHandler = func(ctx context.Context, r *sdk.RootsListChangedRequest) {
			o.OnRootsChanged(ctx, r.Session)
		}
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "ccski", Title: "ccski skills", Version: o.Version}, so)
	s.initPrompts(o)
	s.initTools(o)
	s.initResources()
	s.skills.file = o.SkillDigests
	s.initSkills()
	s.sdk.AddReceivingMiddleware(s.boundArguments, s.gate.receiving)
	s.sdk.AddReceivingMiddleware(s.eraResults)
	// Outside every middleware that makes or changes an error, so that
	// the log says what the client got.
	s.sdk.AddReceivingMiddleware(s.noteMistakes)
	// Counted as answered, once the first snapshot is in (metrics.go).
	s.sdk.AddReceivingMiddleware(s.observe)
	// Added last, so it runs first (each middleware wraps the ones before).
	s.sdk.AddReceivingMiddleware(s.untilReady)
	s.sdk.AddSendingMiddleware(s.gate.sending)
	s.sdk.AddSendingMiddleware(s.quietFirst)
	if snap != nil {
		s.Update(snap)
	}
	return s
}

// untilReady holds requests for skills, prompts and resources until the
// first snapshot is in. Everything else (initialize, ping, notifications)
// passes at once.
func (s *Server) untilReady(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if needsSnapshot(method) {
			ready := s.ready
			if strings.HasPrefix(method, "tools/") {
				ready = s.toolsIn
			}
			select {
			case <-ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if method == "prompts/get" || method == "resources/read" { // tools count themselves (enter)
			leave, ok := s.enter()
			defer leave()
			if !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the skill server is shutting down; try again when it is back"}
			}
		}
		return next(ctx, method, req)
	}
}

// quietFirst drops a list_changed notification until an Update after
// the first has changed that list (or a relayListChanged ran). The first
// snapshot's tools, prompts and resources are news to nobody: requests
// for them wait for it (untilReady), so no client has seen the lists
// before. Without this, a client that connects while the first discovery
// runs would be told the lists changed as soon as they exist.
// The SDK sends a notification a few milliseconds after the change, and
// this decides when it is sent: a later Update that changes the list
// resets that timer and marks the list news (Server.changing) before, so
// its notification still goes out. One that changes nothing, such as
// the rescan that follows the first as soon as its folders are watched,
// lets out nothing: it used to let out the first snapshot's pending
// notifications, which told a client of a change that was not one,
// perhaps after it had changed a file and was waiting to hear of that.
func (s *Server) quietFirst(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if isListChanged(method) && s.relays.Load() == 0 && !s.news.told(method) {
			return nil, nil
		}
		return next(ctx, method, req)
	}
}

// listNews says, for each list, whether an Update after the first has
// changed it: from then on its list_changed notifications are news
// (quietFirst).
type listNews struct{ tools, prompts, resources atomic.Bool }

// told reports whether the list of the list_changed notification method
// has changed since the first Update.
func (n *listNews) told(method string) bool {
	switch method {
	case "notifications/tools/list_changed":
		return n.tools.Load()
	case "notifications/prompts/list_changed":
		return n.prompts.Load()
	case "notifications/resources/list_changed":
		return n.resources.Load()
	}
	return false
}

// changing marks a list (one of s.news) news when an Update other than
// the first is about to change it. It runs with s.mu held, before the
// change, so that the notification the SDK sends a few milliseconds after
// finds it marked.
func (s *Server) changing(list *atomic.Bool) {
	if s.updates.Load() > 1 {
		list.Store(true)
	}
}

// isWorkMethod reports whether a request does work on the server's
// behalf: tool calls, prompt gets and resource reads. Drain waits for them
// (and for their replies, on tracked transports), they are refused while
// the server shuts down, and they count as activity for ReleaseWhenIdle.
func isWorkMethod(method string) bool {
	return method == "tools/call" || method == "prompts/get" || method == "resources/read"
}

func needsSnapshot(method string) bool {
	for _, p := range []string{"tools/", "prompts/", "resources/", "completion/", "skills/"} {
		if strings.HasPrefix(method, p) {
			return true
		}
	}
	return false
}

// SDK returns the underlying go-sdk server.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Snapshot returns the snapshot requests currently start with.
func (s *Server) Snapshot() *pipeline.Snapshot { return s.snap.Load() }

// Update makes snap the current snapshot. When the tool description
// changes, the tool is registered again, and the SDK notifies every session
// that the tool list changed. Prompts that changed are registered again
// (syncPrompts), with notifications/prompts/list_changed. It reports
// whether the tool description changed.
func (s *Server) Update(snap *pipeline.Snapshot) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updates.Add(1)
	s.snap.Store(snap)
	// The tools first: at start an agent's tools/list waits for them
	// alone. The skill tool lists and loads skills only, within the
	// catalogue budget; skills_search is served while the catalogue is
	// not complete (catalog.go).
	desc, shown := SkillDescription(snap, s.tools.catalog, s.loads)
	s.syncSearch(!shown.Complete())
	changed := desc != s.desc
	if changed {
		s.desc = desc
		s.changing(&s.news.tools)
		s.sdk.AddTool(newTool(ToolName, desc, inputSchema, nil), s.callSkill)
	}
	s.toolsInOnce.Do(func() { close(s.toolsIn) })
	snap.Warm() // the name index, unless a call has built it already
	s.syncPrompts(snap)
	s.syncResources(snap)
	s.metrics.observeSnapshot(len(snap.Visible))
	s.bodies.refresh(snap, s.tools.search, s.log.Warn)
	s.readyOnce.Do(func() { close(s.ready) })
	return changed
}

// implicit returns the skills the model may pick on its own, those the
// catalogue lists: a skill whose agents/openai.yaml says
// policy.allow_implicit_invocation: false is left out, as Codex leaves it
// out of its model's listing, and the skill tool still loads it when
// named. recs is returned as it is when it holds none.
func implicit(recs []*pipeline.Record) []*pipeline.Record {
	i := slices.IndexFunc(recs, (*pipeline.Record).ExplicitOnly)
	if i < 0 {
		return recs
	}
	out := slices.Clone(recs[:i])
	for _, r := range recs[i:] {
		if !r.ExplicitOnly() {
			out = append(out, r)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// countLoad adds a load of r to the count of skill loads (Options.Usage),
// when the server keeps one: in memory, written to the file in the
// background (usage.Counter), so that no call waits on the file.
func (s *Server) countLoad(r *pipeline.Record) { s.counter.Add(r.ID) }

// countInterval is how long loads wait in memory before they are written
// (usage.Counter), at most; tests set it.
var countInterval = usage.DefaultInterval

// closeCount writes the loads counted and not yet in the file; a failure
// is logged.
func (s *Server) closeCount() {
	if err := s.counter.Close(); err != nil {
		s.log.Warn("skill loads not counted", "err", err)
	}
}

// cacheable sets the cache attributes of a result (req: its request, nil
// for the extension's lists): private, as everything served depends on the
// user's folders. A list is fresh until the next rescan. A resources/read
// answer is stale at once (ttlMs 0): the server reads, and under a gate
// checks against what was judged, the file's bytes on every read, and an
// edit of a file need not change any list, so a client keeping the bytes
// for a refresh interval (the go-sdk client keeps them by URI until a
// resources/updated this server does not send) would serve bytes other
// than the ones the server now serves, scanned, trusted or verified.
func (s *Server) cacheable(req sdk.Request, c *sdk.Cacheable) {
	c.CacheScope, c.TTLMs = "private", int(s.listTTL.Milliseconds())
	if _, read := req.(*sdk.ReadResourceRequest); read {
		c.TTLMs = 0
	}
}

var inputSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The skill to load: a name from <available_skills> (case-insensitive)."}},"required":["name"],"additionalProperties":false}`)

// invalidParams is a JSON-RPC -32602 error; it must be returned unwrapped.
func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// callSkill loads one skill. Arguments the input schema refuses and
// lookup problems alike are tool results with isError set (SEP-1303), so
// the model reads what to send and retries; only a call the server
// cannot route (an unknown tool) is a JSON-RPC error, the SDK's.
func (s *Server) callSkill(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	leave, ok := s.enter()
	defer leave()
	if !ok {
		return toolError("The skill server is shutting down; try again when it is back."), nil
	}
	snap := s.snap.Load() // this request keeps this snapshot
	name, msg := skillArgument(req.Params.Arguments)
	if msg != "" {
		return toolError(msg), nil
	}
	// An id or qualified name reaches a copy dedupe hid (pipeline.Load).
	r, err := snap.Load(name, pipeline.TypeSkill)
	if err != nil {
		return toolError(lookupMessage(err)), nil
	}
	s.countLoad(r)
	st, err := readSkill(r.File, judgedOwn(snap, r))
	if u, ok := asUnjudged(err); ok {
		s.log.Warn("skill not served: not what the gate judged", "id", r.ID, "file", r.File, "gate", string(u.gate))
		return toolError(capitalise(u.Error()) + "."), nil
	}
	if err != nil {
		s.log.Error("skill load failed", "id", r.ID, "file", r.File, "err", err)
		return toolError(fmt.Sprintf("Skill %s could not be read: %v", r.ID, safefile.Cause(err))), nil
	}
	text := LoadText(r, st.data, s.driftLine(snap, r))
	if st.cut {
		s.log.Warn("skill file cut", "id", r.ID, "file", r.File, "size", st.size, "returned", len(st.data))
		text += cutNote(r, st)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
}

func toolError(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// LoadText is the text a successful load returns: a header, a blank line,
// then the SKILL.md file exactly as on disk. Each of lines that is not ""
// ends the header (see driftLine).
func LoadText(r *pipeline.Record, data []byte, lines ...string) string {
	var b strings.Builder
	b.Grow(len(data) + 256)
	fmt.Fprintf(&b, "Loading: %s\nBase directory: %s\nProvider: %s\nLocation: %s\n", r.ID, r.Dir, r.Agent, r.Location)
	if r.Plugin != nil {
		fmt.Fprintf(&b, "Plugin: %s@%s (%s)\n", r.Plugin.Plugin, r.Plugin.Marketplace, r.Plugin.Version)
	}
	for _, l := range lines {
		if l != "" {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	b.WriteByte('\n')
	b.Write(data)
	return b.String()
}

// driftLine is the header line of a skill whose files changed since the
// trust store recorded them, as ccski list flags it: "Integrity: changed
// since first seen (1 file changed): the user has not reviewed the
// change". It is "" for any other skill. The snapshot says it when
// discovery checked the files (mcp.require_trusted), else Options.Drift.
func (s *Server) driftLine(snap *pipeline.Snapshot, r *pipeline.Record) string {
	in, ok := snap.Integrity[r]
	if !ok && snap.Integrity == nil && s.drift != nil {
		in, ok = s.drift(r)
	}
	if since := in.Since(); ok && since != "" {
		return fmt.Sprintf("Integrity: %s (%s): the user has not reviewed the change", since, in.Summary())
	}
	return ""
}
