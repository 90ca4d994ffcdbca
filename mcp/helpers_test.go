package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// protocolVersions are the client settings every protocol test runs
// under: the SDK default (2026-07-28, stateless discover) and the
// initialize handshake today's clients use.
var protocolVersions = []string{"", "2025-11-25"}

// pvName names a subtest after a protocol setting.
func pvName(pv string) string {
	if pv == "" {
		return "default"
	}
	return pv
}

// wantNegotiated is the version an in-memory (or stdio-like) session ends
// up with for a client setting.
func wantNegotiated(pv string) string {
	if pv == "" {
		return "2026-07-28"
	}
	return pv
}

// testCtx returns a context that ends with the test or after d.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// writeFile writes data to path, creating its folders.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// skillSpec describes one hand-made record and its SKILL.md.
type skillSpec struct {
	provider string
	loc      pipeline.Location
	name     string
	desc     string
	body     string // SKILL.md bytes; a default is written when empty
	plugin   *pipeline.PluginInfo
}

// makeRecords writes a SKILL.md for every spec under base and returns
// records pointing at them, with ids assigned.
func makeRecords(t *testing.T, base string, specs ...skillSpec) []*pipeline.Record {
	t.Helper()
	recs := make([]*pipeline.Record, 0, len(specs))
	for i, s := range specs {
		loc := s.loc
		if loc == "" {
			loc = pipeline.LocationUser
		}
		safe := strings.NewReplacer(":", "_", "<", "_", ">", "_", "&", "_", "/", "_").Replace(s.name)
		dir := filepath.Join(base, s.provider, string(loc), safe+"-"+string(rune('a'+i)))
		file := filepath.Join(dir, "SKILL.md")
		body := s.body
		if body == "" {
			body = "---\nname: " + s.name + "\ndescription: " + s.desc + "\n---\n# " + s.name + "\n"
		}
		writeFile(t, file, []byte(body))
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, &pipeline.Record{
			Name: s.name, Description: s.desc, Agent: s.provider, Location: loc,
			Root: filepath.Dir(dir), Dir: dir, File: file, RealDir: dir,
			Plugin: s.plugin, Size: st.Size(), ModTime: st.ModTime(),
		})
	}
	pipeline.AssignIDs(recs)
	return recs
}

// snapOf builds a snapshot where every record is visible.
func snapOf(recs []*pipeline.Record) *pipeline.Snapshot {
	return pipeline.NewSnapshot(recs, recs, nil, nil, nil)
}

// connect joins an in-memory client to srv and returns the client session.
func connect(t *testing.T, srv *Server, pv string, co *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx := testCtx(t, 30*time.Second)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return connectClient(t, sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, co), ct, pv)
}

// connectClient connects c over tr with the protocol setting pv.
func connectClient(t *testing.T, c *sdk.Client, tr sdk.Transport, pv string) *sdk.ClientSession {
	t.Helper()
	ctx := testCtx(t, 30*time.Second)
	cs, err := c.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: pv})
	if err != nil {
		t.Fatalf("client connect (protocol %q): %v", pv, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls the skill tool with args.
func call(ctx context.Context, cs *sdk.ClientSession, args any) (*sdk.CallToolResult, error) {
	return cs.CallTool(ctx, &sdk.CallToolParams{Name: ToolName, Arguments: args})
}

// resultText joins the text content of a tool result.
func resultText(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	text, err := textOf(res)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// textOf is resultText for goroutines other than the test's.
func textOf(res *sdk.CallToolResult) (string, error) {
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			return "", fmt.Errorf("content %T, want *TextContent", c)
		}
		b.WriteString(tc.Text)
	}
	return b.String(), nil
}

// onlyTool lists the tools and returns the one tool, failing otherwise.
func onlyTool(t *testing.T, ctx context.Context, cs *sdk.ClientSession) *sdk.Tool {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(res.Tools) != 1 {
		t.Fatalf("tools/list returned %d tools, want 1", len(res.Tools))
	}
	return res.Tools[0]
}

// discard is a logger that drops everything.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// skillMD is a minimal valid SKILL.md.
func skillMD(name, desc string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n\nBody.\n")
}

// tree is a temporary home and workspace for engine-backed tests.
type tree struct {
	home, ws string
}

func newTree(t *testing.T) tree {
	t.Helper()
	base := t.TempDir()
	tr := tree{home: filepath.Join(base, "home"), ws: filepath.Join(base, "ws")}
	for _, d := range []string{tr.home, tr.ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// userSkill is the SKILL.md path of a Claude user skill.
func (tr tree) userSkill(name string) string {
	return filepath.Join(tr.home, ".claude", "skills", name, "SKILL.md")
}

// newEngine builds an engine with the default configuration over home and
// workspace, with an empty environment.
func newEngine(t *testing.T, home, ws string) *engine.Engine {
	t.Helper()
	eng, err := engine.New(configs.Default(all.Registry()), providers.NewEnv(home, ws, func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// snapshot runs discovery on eng.
func snapshot(t *testing.T, eng *engine.Engine) *pipeline.Snapshot {
	t.Helper()
	snap, _, err := eng.Snapshot(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// visibleIDs lists the ids of the visible records.
func visibleIDs(s *pipeline.Snapshot) []string {
	out := make([]string, 0, len(s.Visible))
	for _, r := range s.Visible {
		out = append(out, r.ID)
	}
	return out
}

// eventually polls cond every 10 ms until it holds or d passes.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// legacySkillURI is the resource URI earlier releases gave the file rel
// ('/' separated, relative to the skill's folder) of the skill with this
// id; such URIs still read, for one release.
func legacySkillURI(id, rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return ResourceScheme + pipeline.EscapeID(id) + "/" + strings.Join(segs, "/")
}

// wireFixture is a server over one Claude skill, pdf, with a reference,
// an empty file and a folder, its skills served as prompts too, and
// every optional tool.
func wireFixture(t *testing.T) (*Server, *pipeline.Record) {
	t.Helper()
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	dir := recs[0].Dir
	writeFile(t, filepath.Join(dir, "references", "guide.md"), []byte("# Guide\n"))
	writeFile(t, filepath.Join(dir, "references", "empty.txt"), nil)
	srv := New(snapOf(recs), Options{Logger: discard(), SkillPrompts: true, Tools: OptionalTools, ListTTL: time.Minute})
	return srv, recs[0]
}
