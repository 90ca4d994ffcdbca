package integration

// Tests of `ccski mcp`: the go-sdk client drives the built binary over
// stdio (CommandTransport), streamable HTTP and SSE, on the current
// protocol version (2026-07-28, the client's default) and the previous one
// (2025-11-25, the initialize handshake today's agents use).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
)

// mcpTimeout bounds every test's context.
const mcpTimeout = 60 * time.Second

// refreshBudget bounds the wait for a change on disk to reach a client.
// It is a hang guard, not the one-second contract: a test that timed the
// watcher failed whenever a loaded CI machine was slower. It stays well
// below the default rescan interval (30 s), so that in the tests that keep
// that interval a change seen in time is still the watcher's doing.
const refreshBudget = 15 * time.Second

// protocols are the versions every client-facing test runs on: "" is the
// SDK's default (2026-07-28: server/discover, subscriptions/listen).
var protocols = []struct{ name, version string }{
	{"current", ""},
	{"2025-11-25", "2025-11-25"},
}

// lockedBuffer is an io.Writer for a child's stderr that tests can read
// while the child runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitUntil polls cond until it holds or d has passed.
func waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mcpContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), mcpTimeout)
	t.Cleanup(cancel)
	return ctx
}

// mcpArgs are the arguments of `ccski mcp` with the machine's flags.
func mcpArgs(m *machine.Machine, extra ...string) []string {
	return std(m, append([]string{"mcp"}, extra...)...)
}

// newClient returns a client that counts tools/list_changed notifications.
func newClient(changes *atomic.Int64) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "ccski-integration", Version: "0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changes.Add(1) },
	})
}

// stdioServer is `ccski mcp` under stdio with a connected client.
type stdioServer struct {
	cmd     *exec.Cmd
	stderr  *lockedBuffer
	cs      *sdk.ClientSession
	changes atomic.Int64

	closeOnce sync.Once
	closeErr  error
	closeTook time.Duration
}

// startStdio starts the binary in the machine's workspace and connects.
func startStdio(t *testing.T, ctx context.Context, m *machine.Machine, pv string, extraEnv map[string]string, args ...string) *stdioServer {
	t.Helper()
	s := &stdioServer{stderr: &lockedBuffer{}}
	s.cmd = exec.Command(binary, mcpArgs(m, args...)...)
	s.cmd.Dir = m.Workspace
	s.cmd.Env = env(m, extraEnv)
	s.cmd.Stderr = s.stderr
	tr := &sdk.CommandTransport{Command: s.cmd, TerminateDuration: 10 * time.Second}
	cs, err := newClient(&s.changes).Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: pv})
	if err != nil {
		if s.cmd.Process != nil {
			_ = s.cmd.Process.Kill()
		}
		t.Fatalf("connect over stdio (protocol %q): %v\nstderr:\n%s", pv, err, s.stderr)
	}
	s.cs = cs
	t.Cleanup(func() { _, _ = s.close() })
	return s
}

// close closes the client session (stdin EOF) and waits for the process;
// it reports how long that took and Close's error. Later calls repeat the
// first answer.
func (s *stdioServer) close() (time.Duration, error) {
	s.closeOnce.Do(func() {
		start := time.Now()
		s.closeErr = s.cs.Close()
		s.closeTook = time.Since(start)
	})
	return s.closeTook, s.closeErr
}

// mustExit0 closes the session and checks that the process exited 0
// within limit.
func (s *stdioServer) mustExit0(t *testing.T, limit time.Duration) {
	t.Helper()
	took, err := s.close()
	if err != nil {
		t.Errorf("closing the session: %v\nstderr:\n%s", err, s.stderr)
	}
	if s.cmd.ProcessState == nil {
		t.Fatalf("process did not exit\nstderr:\n%s", s.stderr)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d, want 0\nstderr:\n%s", code, s.stderr)
	}
	if took > limit {
		t.Errorf("exit took %v, want at most %v", took, limit)
	}
}

// skillEntry is one <skill> of the tool description. ID is the name it
// lists the skill under (parseAvailable), or the id of the skill that
// name loads (listSkills).
type skillEntry struct{ ID, Description, Provider, Location string }

var (
	availableBlock = regexp.MustCompile(`(?s)<available_skills>\n(.*)</available_skills>$`)
	skillElem      = regexp.MustCompile(`(?s)<skill>\n<name>(.*?)</name>\n<description>(.*?)</description>\n<provider>(.*?)</provider>\n<location>(.*?)</location>\n</skill>\n`)
	xmlUnescape    = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")
)

// parseAvailable returns the entries of the description's
// <available_skills> block, or an error if the block is malformed.
func parseAvailable(desc string) ([]skillEntry, error) {
	m := availableBlock.FindStringSubmatch(desc)
	if m == nil {
		return nil, fmt.Errorf("no <available_skills> block at the end of the description:\n%s", desc)
	}
	body := m[1]
	var out []skillEntry
	for _, loc := range skillElem.FindAllStringSubmatchIndex(body, -1) {
		g := func(i int) string { return xmlUnescape.Replace(body[loc[2*i]:loc[2*i+1]]) }
		out = append(out, skillEntry{ID: g(1), Description: g(2), Provider: g(3), Location: g(4)})
	}
	if rest := skillElem.ReplaceAllString(body, ""); rest != "" {
		return nil, fmt.Errorf("unparsed text in <available_skills>: %q", rest)
	}
	return out, nil
}

// listSkills lists the tools, checks there is exactly the skill tool and
// returns its entries, each with the id of the skill its listed name
// loads (the description names each skill by the shortest name that loads
// it, not always its id); a name that does not load keeps it as ID.
func listSkills(ctx context.Context, cs *sdk.ClientSession) ([]skillEntry, *sdk.Tool, error) {
	tool, err := skillTool(ctx, cs)
	if err != nil {
		return nil, nil, err
	}
	entries, err := parseAvailable(tool.Description)
	if err != nil {
		return nil, nil, err
	}
	// The listing names each skill as its host does; loading it gives the
	// id ("Loading: ID"). Each load is counted in the test home's
	// usage.json: the binary has no way to turn the count off.
	for i, e := range entries {
		if e.ID == "none" && e.Provider == "" {
			continue // the placeholder of an empty list
		}
		text, err := loadSkill(ctx, cs, e.ID)
		if err != nil {
			return nil, nil, fmt.Errorf("a listed skill does not load: %w", err)
		}
		line, _, _ := strings.Cut(text, "\n")
		id, ok := strings.CutPrefix(line, "Loading: ")
		if !ok {
			return nil, nil, fmt.Errorf("loading %q gave %q, want a first line \"Loading: ID\"", e.ID, line)
		}
		entries[i].ID = id
	}
	return entries, tool, nil
}

// skillTool returns the skill tool as tools/list serves it, loading
// nothing: for a listing whose skills may be gone by the time they would
// be loaded.
func skillTool(ctx context.Context, cs *sdk.ClientSession) (*sdk.Tool, error) {
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "skill" {
		names := []string{}
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		return nil, fmt.Errorf("tools/list gave %v, want exactly [skill]", names)
	}
	return res.Tools[0], nil
}

func mustListSkills(t *testing.T, ctx context.Context, cs *sdk.ClientSession) ([]skillEntry, *sdk.Tool) {
	t.Helper()
	entries, tool, err := listSkills(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	return entries, tool
}

func entryIDs(es []skillEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	slices.Sort(out)
	return out
}

func findEntry(es []skillEntry, id string) (skillEntry, bool) {
	for _, e := range es {
		if e.ID == id {
			return e, true
		}
	}
	return skillEntry{}, false
}

// callSkill calls the skill tool with the given arguments.
func callSkill(ctx context.Context, cs *sdk.ClientSession, args any) (*sdk.CallToolResult, error) {
	return cs.CallTool(ctx, &sdk.CallToolParams{Name: "skill", Arguments: args})
}

// resultText is the single text content of a tool result.
func resultText(res *sdk.CallToolResult) (string, error) {
	if res == nil || len(res.Content) != 1 {
		return "", fmt.Errorf("want one content item, got %+v", res)
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		return "", fmt.Errorf("want text content, got %T", res.Content[0])
	}
	return tc.Text, nil
}

// loadSkill calls the tool for name and returns the text of a successful
// result.
func loadSkill(ctx context.Context, cs *sdk.ClientSession, name string) (string, error) {
	res, err := callSkill(ctx, cs, map[string]any{"name": name})
	if err != nil {
		return "", fmt.Errorf("call %q: %w", name, err)
	}
	text, err := resultText(res)
	if err != nil {
		return "", fmt.Errorf("call %q: %w", name, err)
	}
	if res.IsError {
		return "", fmt.Errorf("call %q: isError result: %s", name, text)
	}
	return text, nil
}

// loadError calls the tool for name and returns the text of an isError
// result.
func loadError(t *testing.T, ctx context.Context, cs *sdk.ClientSession, name string) string {
	t.Helper()
	res, err := callSkill(ctx, cs, map[string]any{"name": name})
	if err != nil {
		t.Fatalf("call %q: want an isError result, got the protocol error %v", name, err)
	}
	text, err := resultText(res)
	if err != nil {
		t.Fatalf("call %q: %v", name, err)
	}
	if !res.IsError {
		t.Fatalf("call %q: want isError, got a successful result:\n%s", name, text)
	}
	return text
}

// wantInvalidParams calls the tool with args and checks the JSON-RPC
// error -32602 naming "name".
func wantArgumentError(t *testing.T, ctx context.Context, cs *sdk.ClientSession, args any) {
	t.Helper()
	res, err := callSkill(ctx, cs, args)
	if err != nil {
		t.Fatalf("arguments %v: want a tool result with isError (SEP-1303), got the protocol error %v", args, err)
	}
	text, err := resultText(res)
	if err != nil {
		t.Fatalf("arguments %v: %v", args, err)
	}
	if !res.IsError || !strings.Contains(text, `"name"`) {
		t.Errorf("arguments %v: isError %v %q, want isError naming \"name\"", args, res.IsError, text)
	}
}

// loadText is what a load of r must return: the header, a blank line and
// the file as on disk.
func loadText(t *testing.T, r record) string {
	t.Helper()
	data, err := os.ReadFile(r.File)
	if err != nil {
		t.Fatal(err)
	}
	return loadHeader(r) + "\n" + string(data)
}

func loadHeader(r record) string {
	h := fmt.Sprintf("Loading: %s\nBase directory: %s\nProvider: %s\nLocation: %s\n", r.ID, r.Path, r.Provider, r.Location)
	if r.PluginInfo != nil {
		h += fmt.Sprintf("Plugin: %s@%s (%s)\n", r.PluginInfo.PluginName, r.PluginInfo.Marketplace, r.PluginInfo.Version)
	}
	return h
}

// checkServes checks that the tool lists exactly the records and that
// every listed id loads byte for byte.
func checkServes(t *testing.T, ctx context.Context, cs *sdk.ClientSession, recs []record) []skillEntry {
	t.Helper()
	entries, _ := mustListSkills(t, ctx, cs)
	if len(entries) == 0 {
		t.Fatal("the description lists no skills")
	}
	if diff := cmp.Diff(ids(recs), entryIDs(entries)); diff != "" {
		t.Errorf("listed ids differ from `ccski list --json` (-list +mcp):\n%s", diff)
	}
	byID := map[string]record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	for _, e := range entries {
		r, ok := byID[e.ID]
		if !ok {
			t.Errorf("%s: listed by the server, not by `ccski list`", e.ID)
			continue
		}
		if got := (skillEntry{r.ID, r.Description, r.Provider, r.Location}); got != e {
			t.Errorf("%s: entry %+v, want %+v", e.ID, e, got)
		}
		text, err := loadSkill(ctx, cs, e.ID)
		if err != nil {
			t.Error(err)
			continue
		}
		if want := loadText(t, r); text != want {
			t.Errorf("%s: loaded text differs (-want +got):\n%s", e.ID, cmp.Diff(want, text))
		}
	}
	return entries
}

func TestMCPStdioSkillTool(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			ctx := mcpContext(t)

			t.Run("default", func(t *testing.T) {
				s := startStdio(t, ctx, m, p.version, nil)
				ir := s.cs.InitializeResult()
				if ir == nil || ir.ServerInfo == nil {
					t.Fatalf("no initialize result: %+v", ir)
				}
				if ir.ServerInfo.Name != "ccski" || ir.ServerInfo.Version == "" {
					t.Errorf("serverInfo %+v, want name ccski and a version", ir.ServerInfo)
				}
				if strings.TrimSpace(ir.Instructions) == "" {
					t.Error("empty instructions")
				}
				if c := ir.Capabilities; c == nil || c.Tools == nil || !c.Tools.ListChanged {
					t.Errorf("capabilities %+v: want tools.listChanged", c)
				}
				wantPV := p.version
				if wantPV == "" {
					wantPV = "2026-07-28" // server/discover, no initialize
				}
				if ir.ProtocolVersion != wantPV {
					t.Errorf("negotiated %q, want %q", ir.ProtocolVersion, wantPV)
				}

				entries := checkServes(t, ctx, s.cs, listRecords(t, m))
				if _, tool := mustListSkills(t, ctx, s.cs); !strings.Contains(tool.Description, "<skills_instructions>") {
					t.Errorf("description has no preamble:\n%s", tool.Description)
				}
				for _, id := range neverServed {
					for _, e := range entries {
						if strings.Contains(e.ID, id) {
							t.Errorf("%s is listed", e.ID)
						}
					}
				}

				// Names resolve case-insensitively and by short name.
				if text, err := loadSkill(ctx, s.cs, "COMMIT-HELPER"); err != nil || !strings.HasPrefix(text, "Loading: claude:commit-helper\n") {
					t.Errorf("COMMIT-HELPER: %v\n%s", err, text)
				}

				// Not found: suggestions.
				msg := loadError(t, ctx, s.cs, "pdff")
				if !strings.Contains(msg, "not found") || !strings.Contains(msg, "custom:docs:pdf") {
					t.Errorf("not found: %q, want suggestions including custom:docs:pdf", msg)
				}
				// A copy the dedupe hides still loads by its id.
				if text, err := loadSkill(ctx, s.cs, "codex:pdf"); err != nil || !strings.HasPrefix(text, "Loading: codex:pdf\n") {
					t.Errorf("hidden copy by id: %v\n%s", err, text)
				}

				// Malformed calls are tool results with isError (SEP-1303).
				wantArgumentError(t, ctx, s.cs, map[string]any{})
				wantArgumentError(t, ctx, s.cs, map[string]any{"name": 42})
				wantArgumentError(t, ctx, s.cs, map[string]any{"name": []string{"pdf"}})
				wantArgumentError(t, ctx, s.cs, nil)

				if !strings.Contains(s.stderr.String(), "ccski MCP server starting") {
					t.Errorf("stderr has no startup line:\n%s", s.stderr)
				}
				s.mustExit0(t, 3*time.Second)
			})

			t.Run("all", func(t *testing.T) {
				s := startStdio(t, ctx, m, p.version, nil, "--all")
				// The server serves one record of each folder: not the
				// copies list --all shows of a folder reached through
				// another root.
				recs := slices.DeleteFunc(listRecords(t, m, "--all"), func(r record) bool { return r.LinkedTo != "" })
				checkServes(t, ctx, s.cs, recs)
				msg := loadError(t, ctx, s.cs, "pdf")
				for _, id := range []string{"claude@project:pdf", "claude@user:pdf", "codex:pdf", "custom:docs:pdf", "claude:@doc-tools:pdf-forms"} {
					if !strings.Contains(msg, id) {
						t.Errorf("ambiguous: %q does not list %s", msg, id)
					}
				}
				if !strings.Contains(msg, "ambiguous") || !strings.Contains(msg, "again") {
					t.Errorf("ambiguous: %q should say it is ambiguous and to call again", msg)
				}
				s.mustExit0(t, 3*time.Second)
			})

			t.Run("include-codex", func(t *testing.T) {
				s := startStdio(t, ctx, m, p.version, nil, "--include=codex")
				recs := listRecords(t, m, "--include=codex")
				entries := checkServes(t, ctx, s.cs, recs)
				for _, e := range entries {
					if e.Provider != "codex" || !strings.HasPrefix(e.ID, "codex:") {
						t.Errorf("--include=codex lists %+v", e)
					}
				}
				// A skill the filters leave out is not served, and the error
				// says why.
				if msg := loadError(t, ctx, s.cs, "claude:commit-helper"); !strings.Contains(msg, "is hidden") ||
					!strings.Contains(msg, "not selected by --include codex") {
					t.Errorf("claude skill under --include=codex: %q, want hidden: not selected by --include codex", msg)
				}
				s.mustExit0(t, 3*time.Second)
			})
		})
	}
}

// writeSkill writes dir/SKILL.md with the given name and description.
func writeSkill(t *testing.T, dir, name, desc, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "SKILL.md")
	content := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n%s\n", name, desc, body)
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return content
}

// awaitChange waits until a list_changed notification arrived after
// before and cond holds for the listed skills; it returns how long that
// took from start.
func awaitChange(t *testing.T, ctx context.Context, s *stdioServer, before int64, start time.Time, what string, cond func([]skillEntry) bool) {
	t.Helper()
	var last []skillEntry
	var lastErr error
	ok := waitUntil(refreshBudget-time.Since(start), func() bool {
		if s.changes.Load() <= before {
			return false
		}
		last, _, lastErr = listSkills(ctx, s.cs)
		return lastErr == nil && cond(last)
	})
	if !ok {
		t.Fatalf("%s: not seen within %v (notifications: %d, before: %d; list error %v)\nlisted: %v\nstderr:\n%s",
			what, refreshBudget, s.changes.Load(), before, lastErr, entryIDs(last), s.stderr)
	}
	t.Logf("%s: seen after %v", what, time.Since(start).Round(time.Millisecond))
}

// refreshLines returns the "skills refreshed" lines of stderr, oldest
// first.
func refreshLines(stderr string) []string {
	var lines []string
	for line := range strings.SplitSeq(stderr, "\n") {
		if strings.Contains(line, `msg="skills refreshed"`) {
			lines = append(lines, line)
		}
	}
	return lines
}

// awaitRefreshLine waits until a "skills refreshed" line of stderr past
// its first skip ones holds every one of want, and returns it; it fails t
// when none does within refreshBudget. Seeing the change in a client is
// no sign the line is in yet: the refresher logs it after the clients are
// told, and it reaches the test through another pipe than the
// notification.
func awaitRefreshLine(t *testing.T, stderr *lockedBuffer, skip int, want ...string) string {
	t.Helper()
	var found string
	holds := func(line string) bool {
		for _, w := range want {
			if !strings.Contains(line, w) {
				return false
			}
		}
		return true
	}
	if !waitUntil(refreshBudget, func() bool {
		lines := refreshLines(stderr.String())
		for _, line := range lines[min(skip, len(lines)):] {
			if holds(line) {
				found = line
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no new refresh line with %q on stderr within %v:\n%s", want, refreshBudget, stderr)
	}
	return found
}

func TestMCPStdioLiveRefresh(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			ctx := mcpContext(t)
			// With an hour between rescans, only the watcher explains a change.
			s := startStdio(t, ctx, m, p.version, nil, "--refresh-interval", "1h")
			entries, _ := mustListSkills(t, ctx, s.cs)
			if _, ok := findEntry(entries, "claude:use-when"); !ok {
				t.Fatalf("claude:use-when not listed: %v", entryIDs(entries))
			}
			skills := filepath.Join(m.Home, ".claude", "skills")

			// (a) A new skill folder.
			before, start, logged := s.changes.Load(), time.Now(), len(refreshLines(s.stderr.String()))
			content := writeSkill(t, filepath.Join(skills, "brand-new"), "brand-new", "A skill added while serving.", "# Brand new\n\nBody.")
			awaitChange(t, ctx, s, before, start, "added skill", func(es []skillEntry) bool {
				e, ok := findEntry(es, "claude:brand-new")
				return ok && e.Description == "A skill added while serving."
			})
			text, err := loadSkill(ctx, s.cs, "claude:brand-new")
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(skills, "brand-new")
			want := fmt.Sprintf("Loading: claude:brand-new\nBase directory: %s\nProvider: claude\nLocation: user\n\n%s", dir, content)
			if text != want {
				t.Errorf("new skill loads (-want +got):\n%s", cmp.Diff(want, text))
			}
			awaitRefreshLine(t, s.stderr, logged, "added=1 removed=0 changed=0")

			// (b) An edited description, with characters XML escapes.
			file := filepath.Join(skills, "xlsx", "SKILL.md")
			old, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			const oldDesc = "Edit spreadsheets with formulas (Claude user copy)."
			const newDesc = "Pivot tables & charts <edited live>."
			if !bytes.Contains(old, []byte(oldDesc)) {
				t.Fatalf("%s does not hold %q", file, oldDesc)
			}
			edited := bytes.Replace(old, []byte(oldDesc), []byte(newDesc), 1)
			before, start, logged = s.changes.Load(), time.Now(), len(refreshLines(s.stderr.String()))
			if err := os.WriteFile(file, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			awaitChange(t, ctx, s, before, start, "edited description", func(es []skillEntry) bool {
				e, ok := findEntry(es, "claude:xlsx")
				return ok && e.Description == newDesc
			})
			if _, tool := mustListSkills(t, ctx, s.cs); !strings.Contains(tool.Description, "Pivot tables &amp; charts &lt;edited live&gt;.") {
				t.Errorf("the new description is not XML-escaped:\n%s", tool.Description)
			}
			text, err = loadSkill(ctx, s.cs, "claude:xlsx")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(text, "\n\n"+string(edited)) || !strings.Contains(text, newDesc) {
				t.Errorf("the edited skill loads the old body:\n%s", text)
			}
			awaitRefreshLine(t, s.stderr, logged, "added=0 removed=0 changed=1")

			// (c) A removed skill folder.
			before, start, logged = s.changes.Load(), time.Now(), len(refreshLines(s.stderr.String()))
			if err := os.RemoveAll(filepath.Join(skills, "use-when")); err != nil {
				t.Fatal(err)
			}
			awaitChange(t, ctx, s, before, start, "removed skill", func(es []skillEntry) bool {
				_, ok := findEntry(es, "claude:use-when")
				return !ok
			})
			if msg := loadError(t, ctx, s.cs, "claude:use-when"); !strings.Contains(msg, "not found") {
				t.Errorf("removed skill: %q, want not found", msg)
			}
			awaitRefreshLine(t, s.stderr, logged, "added=0 removed=1 changed=0")

			// Nothing else changed: the list equals `ccski list` now.
			checkServes(t, ctx, s.cs, listRecords(t, m))
			s.mustExit0(t, 3*time.Second)
		})
	}
}

func TestMCPStdioPeriodicRescan(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			// A Go duration on one version, plain milliseconds on the other.
			interval := "300ms"
			if p.version != "" {
				interval = "300"
			}
			t.Run("no-watch", func(t *testing.T) {
				m := newMachine(t)
				ctx := mcpContext(t)
				s := startStdio(t, ctx, m, p.version, nil, "--no-watch", "--refresh-interval", interval)
				mustListSkills(t, ctx, s.cs)
				before, start := s.changes.Load(), time.Now()
				writeSkill(t, filepath.Join(m.Home, ".claude", "skills", "rescanned"), "rescanned", "Seen by the periodic rescan.", "Body.")
				awaitChange(t, ctx, s, before, start, "added skill (rescan)", func(es []skillEntry) bool {
					_, ok := findEntry(es, "claude:rescanned")
					return ok
				})
				if _, err := loadSkill(ctx, s.cs, "rescanned"); err != nil {
					t.Error(err)
				}
				s.mustExit0(t, 3*time.Second)
			})
			t.Run("no-refresh", func(t *testing.T) {
				m := newMachine(t)
				ctx := mcpContext(t)
				s := startStdio(t, ctx, m, p.version, nil, "--no-refresh", "--refresh-interval", interval)
				// The description as served, names as listed (listSkills
				// would load each, and use-when is removed below).
				listed := func() string {
					tool, err := skillTool(ctx, s.cs)
					if err != nil {
						t.Fatal(err)
					}
					return tool.Description
				}
				entries := listed()
				writeSkill(t, filepath.Join(m.Home, ".claude", "skills", "unseen"), "unseen", "Never seen.", "Body.")
				if err := os.RemoveAll(filepath.Join(m.Home, ".claude", "skills", "use-when")); err != nil {
					t.Fatal(err)
				}
				time.Sleep(1500 * time.Millisecond)
				if n := s.changes.Load(); n != 0 {
					t.Errorf("%d list_changed notifications with --no-refresh", n)
				}
				now := listed()
				if diff := cmp.Diff(entries, now); diff != "" {
					t.Errorf("the list changed with --no-refresh:\n%s", diff)
				}
				if msg := loadError(t, ctx, s.cs, "unseen"); !strings.Contains(msg, "not found") {
					t.Errorf("unseen: %q", msg)
				}
				if strings.Contains(s.stderr.String(), "skills refreshed") {
					t.Errorf("stderr reports a refresh:\n%s", s.stderr)
				}
				s.mustExit0(t, 3*time.Second)
			})
		})
	}
}

func TestMCPConcurrentCallsDuringRefresh(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			ctx := mcpContext(t)
			s := startStdio(t, ctx, m, p.version, nil, "--refresh-interval", "100ms")
			recs := listRecords(t, m)
			want := map[string]string{}
			for _, r := range recs {
				want[r.ID] = loadText(t, r)
			}
			entries, _ := mustListSkills(t, ctx, s.cs)
			const edited = "claude:commit-helper"
			file := filepath.Join(m.Home, ".claude", "skills", "commit-helper", "SKILL.md")
			orig, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}

			// Several edits and additions while the calls run. Each file is
			// written beside the tree and renamed into place, as editors
			// save: a rescan that reads a file while it is being rewritten
			// in place sees it empty or cut, and drops the skill until the
			// next rescan.
			stop := make(chan struct{})
			editsDone := make(chan struct{})
			editErr := make(chan error, 1)
			put := func(path string, data []byte) error {
				tmp := filepath.Join(m.Root, "edit.tmp")
				if err := os.WriteFile(tmp, data, 0o644); err != nil {
					return err
				}
				return os.Rename(tmp, path)
			}
			go func() {
				defer close(editsDone)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					data := bytes.Replace(orig, []byte("Write conventional commit messages"),
						[]byte(fmt.Sprintf("Write conventional commit messages (edit %d)", i)), 1)
					dir := filepath.Join(m.Home, ".claude", "skills", fmt.Sprintf("burst-%d", i))
					err := put(file, data)
					if err == nil {
						err = os.MkdirAll(dir, 0o755)
					}
					if err == nil {
						err = put(filepath.Join(dir, "SKILL.md"), []byte(fmt.Sprintf("---\nname: burst-%d\ndescription: Burst %d.\n---\n", i, i)))
					}
					if err != nil {
						editErr <- err
						return
					}
					time.Sleep(60 * time.Millisecond)
				}
			}()

			const workers, rounds = 20, 10
			var wg sync.WaitGroup
			errs := make(chan error, workers*rounds)
			var calls atomic.Int64
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range rounds {
						id := entries[(w+i*workers)%len(entries)].ID
						if w%4 == 0 {
							id = edited
						}
						text, err := loadSkill(ctx, s.cs, id)
						calls.Add(1)
						switch {
						case err != nil:
							errs <- err
						case id == edited:
							if !strings.HasPrefix(text, "Loading: "+edited+"\n") {
								errs <- fmt.Errorf("%s loads:\n%s", id, text)
							}
						case text != want[id]:
							errs <- fmt.Errorf("%s: loaded text differs (-want +got):\n%s", id, cmp.Diff(want[id], text))
						}
					}
				}()
			}
			wg.Wait()
			close(stop)
			<-editsDone
			select {
			case err := <-editErr:
				t.Fatal(err)
			default:
			}
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if s.changes.Load() == 0 {
				t.Error("no list_changed during the edits: the calls did not overlap a refresh")
			}
			t.Logf("%d calls, %d list_changed notifications", calls.Load(), s.changes.Load())
			s.mustExit0(t, 3*time.Second)
		})
	}
}

// TestMCPStdoutOnlyJSONRPC drives the binary over raw pipes, with debug
// logs on, and checks that every line on stdout is a JSON-RPC message.
func TestMCPStdoutOnlyJSONRPC(t *testing.T) {
	m := newMachine(t)
	ctx := mcpContext(t)
	cmd := exec.CommandContext(ctx, binary, mcpArgs(m, "--log-level", "debug")...)
	cmd.Dir = m.Workspace
	cmd.Env = env(m, nil)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"skill","arguments":{"name":"commit-helper"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"skill","arguments":{}}}`,
	}
	for _, msg := range msgs {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	seen := map[int]json.RawMessage{}
	var lines []string
	for len(seen) < 4 && sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      *int            `json:"id"`
			Method  string          `json:"method"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC (%v): %q\nstderr:\n%s", err, line, stderr)
		}
		if msg.ID != nil && msg.Method == "" {
			if msg.Error != nil {
				seen[*msg.ID] = msg.Error
			} else {
				seen[*msg.ID] = msg.Result
			}
		}
	}
	if len(seen) < 4 {
		t.Fatalf("got responses %v (scan error %v)\nstdout:\n%s\nstderr:\n%s", seen, sc.Err(), strings.Join(lines, "\n"), stderr)
	}
	if !strings.Contains(string(seen[4]), `"isError":true`) || !strings.Contains(string(seen[4]), `missing required argument \"name\"`) {
		t.Errorf("missing name: %s, want a tool result with isError saying so (SEP-1303)", seen[4])
	}
	_ = stdin.Close()
	rest, _ := io.ReadAll(stdout)
	for _, line := range strings.Split(strings.TrimSpace(string(rest)), "\n") {
		if line != "" && !json.Valid([]byte(line)) {
			t.Errorf("stdout after EOF is not JSON: %q", line)
		}
	}
	start := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\nstderr:\n%s", err, stderr)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("exit after stdin EOF took %v", took)
	}
	for _, want := range []string{"ccski MCP server starting", "level=DEBUG", "client closed stdin"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestMCPStdioStdinClose(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			ctx := mcpContext(t)
			s := startStdio(t, ctx, m, p.version, nil)
			mustListSkills(t, ctx, s.cs)
			if _, err := loadSkill(ctx, s.cs, "commit-helper"); err != nil {
				t.Fatal(err)
			}
			s.mustExit0(t, 2*time.Second)
			if !strings.Contains(s.stderr.String(), "client closed stdin") {
				t.Errorf("stderr has no shutdown line:\n%s", s.stderr)
			}
		})
	}
}

// slowCall is a tool call held in flight: the binary is built with the
// ccski_hold tag, so a load of a SKILL.md waits while <file>.hold exists.
type slowCall struct {
	want string // what the call must return
	hold string // the file whose removal lets the call finish
	done chan error
}

// startSlowCall calls claude:xlsx, after the server has listed it, with
// its SKILL.md held: it returns once the server is waiting in the load,
// that is, with the call in flight, until finish lets it go.
func startSlowCall(t *testing.T, ctx context.Context, m *machine.Machine, cs *sdk.ClientSession, stderr fmt.Stringer) *slowCall {
	t.Helper()
	var rec record
	for _, r := range listRecords(t, m) {
		if r.ID == "claude:xlsx" {
			rec = r
		}
	}
	if rec.ID == "" {
		t.Fatal("claude:xlsx not in ccski list")
	}
	entries, _ := mustListSkills(t, ctx, cs)
	if _, ok := findEntry(entries, rec.ID); !ok {
		t.Fatalf("%s not listed", rec.ID)
	}
	c := &slowCall{want: loadText(t, rec), hold: rec.File + ".hold", done: make(chan error, 1)}
	if err := os.WriteFile(c.hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(c.hold) })
	go func() {
		text, err := loadSkill(ctx, cs, rec.ID)
		if err == nil && text != c.want {
			err = fmt.Errorf("the call in flight returned (-want +got):\n%s", cmp.Diff(c.want, text))
		}
		c.done <- err
	}()
	if !waitUntil(10*time.Second, func() bool { _, err := os.Stat(rec.File + ".held"); return err == nil }) {
		t.Fatalf("the server never started the load\nstderr:\n%s", stderr)
	}
	return c
}

// finish lets the held load go and checks that the call in flight
// returns the file's content.
func (c *slowCall) finish(t *testing.T, stderr fmt.Stringer) {
	t.Helper()
	select {
	case err := <-c.done:
		t.Fatalf("the call returned before it was let go: %v", err)
	default:
	}
	if err := os.Remove(c.hold); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("the call in flight: %v\nstderr:\n%s", err, stderr)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the call in flight never returned\nstderr:\n%s", stderr)
	}
}

// refusedWhileDraining checks that a new call after the signal gets a
// readable "shutting down" result.
func refusedWhileDraining(t *testing.T, ctx context.Context, cs *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	res, err := callSkill(ctx, cs, map[string]any{"name": "commit-helper"})
	if err != nil {
		t.Errorf("a call while shutting down: %v", err)
		return
	}
	text, _ := resultText(res)
	if !res.IsError || !strings.Contains(text, "shutting down") {
		t.Errorf("a call while shutting down: isError=%v %q", res.IsError, text)
	}
}

// TestMCPStdioSignalDuringCall signals the server while a call is in
// flight: the call must complete, a new call must be refused, and the
// process must exit 0.
func TestMCPStdioSignalDuringCall(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for _, p := range protocols {
			t.Run(sig.String()+"/"+p.name, func(t *testing.T) {
				t.Parallel()
				m := newMachine(t)
				ctx := mcpContext(t)
				s := startStdio(t, ctx, m, p.version, nil, "--no-refresh")
				call := startSlowCall(t, ctx, m, s.cs, s.stderr)
				sigAt := time.Now()
				if err := s.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				if !waitUntil(2*time.Second, func() bool { return strings.Contains(s.stderr.String(), "signal received") }) {
					t.Errorf("no shutdown line on stderr:\n%s", s.stderr)
				}
				refusedWhileDraining(t, ctx, s.cs)
				call.finish(t, s.stderr)
				s.mustExit0(t, 5*time.Second)
				if took := time.Since(sigAt); took > 4*time.Second {
					t.Errorf("exit %v after the signal", took)
				}
				t.Logf("exited %v after the signal", time.Since(sigAt).Round(time.Millisecond))
			})
		}
	}
}

// TestMCPHTTPSignalDuringCall is the same over streamable HTTP (stateful
// and stateless) and SSE.
func TestMCPHTTPSignalDuringCall(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		pv   string
	}{
		{"http/2025-11-25", []string{"--transport", "http"}, "2025-11-25"},
		{"http/current", []string{"--transport", "http"}, ""},
		{"stateless/current", []string{"--transport", "http", "--stateless"}, ""},
		{"sse", []string{"--transport", "sse"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			ctx := mcpContext(t)
			s := startHTTP(t, m, nil, append(c.args, "--no-refresh")...)
			var cs *sdk.ClientSession
			var err error
			if c.name == "sse" {
				cs, err = newClient(new(atomic.Int64)).Connect(ctx, &sdk.SSEClientTransport{Endpoint: s.base + "/mcp"}, nil)
			} else {
				cs, err = connectHTTP(ctx, s, c.pv, nil, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			call := startSlowCall(t, ctx, m, cs, s.stderr)
			if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if !waitUntil(2*time.Second, func() bool { return strings.Contains(s.stderr.String(), "signal received") }) {
				t.Errorf("no shutdown line on stderr:\n%s", s.stderr)
			}
			call.finish(t, s.stderr)
			finished := time.Now()
			s.waitExit(t, 3*time.Second)
			if code := s.cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("exit code %d\nstderr:\n%s", code, s.stderr)
			}
			if took := time.Since(finished); took > 2*time.Second {
				t.Errorf("exit %v after the call finished\nstderr:\n%s", took, s.stderr)
			}
			t.Logf("exited %v after the call finished", time.Since(finished).Round(time.Millisecond))
		})
	}
}

// TestMCPStdioSignalStuckRescan puts a named pipe in place of a SKILL.md
// while the watcher is on: the rescan it triggers blocks opening the
// pipe, and a signal must still end the process promptly with exit 0.
func TestMCPStdioSignalStuckRescan(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil)
	mustListSkills(t, ctx, s.cs)
	file := filepath.Join(m.Home, ".claude", "skills", "xlsx", "SKILL.md")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(file, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // the watcher's rescan reaches the pipe
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(2*time.Second, func() bool { return strings.Contains(s.stderr.String(), "signal received") }) {
		t.Errorf("no shutdown line:\n%s", s.stderr)
	}
	s.mustExit0(t, 4*time.Second)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("exit %v after the signal\nstderr:\n%s", took, s.stderr)
	}
}

// TestMCPStdioSignalIdle: a signal with no call in flight exits 0 at once.
func TestMCPStdioSignalIdle(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			ctx := mcpContext(t)
			s := startStdio(t, ctx, m, "", nil)
			mustListSkills(t, ctx, s.cs)
			start := time.Now()
			if err := s.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			// Wait for the signal's line before the session closes stdin,
			// or EOF could be what ends the process.
			if !waitUntil(2*time.Second, func() bool { return strings.Contains(s.stderr.String(), "signal received") }) {
				t.Errorf("no shutdown line:\n%s", s.stderr)
			}
			s.mustExit0(t, 3*time.Second)
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("exit %v after the signal", took)
			}
		})
	}
}

// httpServer is `ccski mcp` over http or sse.
type httpServer struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	base   string // http://127.0.0.1:port
	exited chan struct{}
}

// freePort returns a port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startHTTP starts the binary with --port set to a free port and waits
// until /healthz answers.
func startHTTP(t *testing.T, m *machine.Machine, extraEnv map[string]string, args ...string) *httpServer {
	t.Helper()
	return startHTTPUnder(t, m, extraEnv, nil, args...)
}

// startHTTPUnder is startHTTP with the binary started by the command
// wrap, which runs its arguments (nil: the binary itself).
func startHTTPUnder(t *testing.T, m *machine.Machine, extraEnv map[string]string, wrap []string, args ...string) *httpServer {
	t.Helper()
	return startHTTPAt(t, m, freePort(t), extraEnv, wrap, args...)
}

// startHTTPAt is startHTTPUnder on the given port.
func startHTTPAt(t *testing.T, m *machine.Machine, port int, extraEnv map[string]string, wrap []string, args ...string) *httpServer {
	t.Helper()
	s := &httpServer{stderr: &lockedBuffer{}, base: "http://127.0.0.1:" + strconv.Itoa(port), exited: make(chan struct{})}
	argv := append(append(wrap, binary), mcpArgs(m, append([]string{"--port", strconv.Itoa(port)}, args...)...)...)
	s.cmd = exec.Command(argv[0], argv[1:]...)
	s.cmd.Dir = m.Workspace
	s.cmd.Env = env(m, extraEnv)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	})
	ok := waitUntil(10*time.Second, func() bool {
		select {
		case <-s.exited:
			return true
		default:
		}
		resp, err := http.Get(s.base + "/healthz")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	select {
	case <-s.exited:
		t.Fatalf("the server exited: %v\nstderr:\n%s", s.cmd.ProcessState, s.stderr)
	default:
	}
	if !ok {
		t.Fatalf("/healthz never answered\nstderr:\n%s", s.stderr)
	}
	return s
}

// stop signals the server and checks it exits 0 within limit.
func (s *httpServer) stop(t *testing.T, sig os.Signal, limit time.Duration) {
	t.Helper()
	start := time.Now()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	s.waitExit(t, limit)
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after %v\nstderr:\n%s", code, sig, s.stderr)
	}
	if !strings.Contains(s.stderr.String(), "signal received") {
		t.Errorf("no shutdown line on stderr:\n%s", s.stderr)
	}
	t.Logf("exited %v after %v", time.Since(start).Round(time.Millisecond), sig)
}

// waitExit waits up to limit for the process to exit; if it does not, it
// fails the test with the goroutine dump SIGQUIT gives.
func (s *httpServer) waitExit(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case <-s.exited:
	case <-time.After(limit):
		_ = s.cmd.Process.Signal(syscall.SIGQUIT)
		<-s.exited
		t.Fatalf("no exit within %v\nstderr:\n%s", limit, s.stderr)
	}
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func tokenClient(token string) *http.Client {
	return &http.Client{Transport: bearer{token, http.DefaultTransport}}
}

// connectHTTP connects a streamable HTTP client.
func connectHTTP(ctx context.Context, s *httpServer, pv string, hc *http.Client, changes *atomic.Int64) (*sdk.ClientSession, error) {
	if changes == nil {
		changes = new(atomic.Int64)
	}
	tr := &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: hc}
	return newClient(changes).Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: pv})
}

// useSession lists and loads through cs and compares with want.
func useSession(ctx context.Context, cs *sdk.ClientSession, want map[string]string) error {
	entries, _, err := listSkills(ctx, cs)
	if err != nil {
		return err
	}
	got := entryIDs(entries)
	wantIDs := slices.Sorted(func(yield func(string) bool) {
		for id := range want {
			if !yield(id) {
				return
			}
		}
	})
	if diff := cmp.Diff(wantIDs, got); diff != "" {
		return fmt.Errorf("listed ids (-want +got):\n%s", diff)
	}
	for _, e := range entries {
		text, err := loadSkill(ctx, cs, e.ID)
		if err != nil {
			return err
		}
		if text != want[e.ID] {
			return fmt.Errorf("%s: loaded text differs (-want +got):\n%s", e.ID, cmp.Diff(want[e.ID], text))
		}
	}
	return nil
}

func wantLoads(t *testing.T, m *machine.Machine, args ...string) map[string]string {
	t.Helper()
	want := map[string]string{}
	for _, r := range listRecords(t, m, args...) {
		want[r.ID] = loadText(t, r)
	}
	return want
}

func TestMCPHTTP(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	ctx := mcpContext(t)
	s := startHTTP(t, m, nil, "--transport", "http")
	want := wantLoads(t, m)
	if !strings.Contains(s.stderr.String(), "listening url="+s.base+"/mcp\n") {
		t.Errorf("stderr does not say it listens on %s/mcp:\n%s", s.base, s.stderr)
	}
	if strings.Contains(s.stderr.String(), "non-loopback") {
		t.Errorf("a warning on loopback:\n%s", s.stderr)
	}

	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			// Two clients at once, each listing and loading everything.
			var changes [2]atomic.Int64
			sessions := make([]*sdk.ClientSession, 2)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cs, err := connectHTTP(ctx, s, p.version, nil, &changes[i])
					if err != nil {
						errs[i] = fmt.Errorf("client %d: connect: %w", i, err)
						return
					}
					sessions[i] = cs
					if err := useSession(ctx, cs, want); err != nil {
						errs[i] = fmt.Errorf("client %d: %w", i, err)
					}
				}()
			}
			wg.Wait()
			for _, cs := range sessions {
				if cs != nil {
					t.Cleanup(func() { _ = cs.Close() })
				}
			}
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("%v\nstderr:\n%s", err, s.stderr)
			}
			// 2025 clients get a session each; 2026-07-28 clients none.
			if id := sessions[0].ID(); (id == "") != (p.version == "") || (id != "" && id == sessions[1].ID()) {
				t.Errorf("session ids %q and %q", id, sessions[1].ID())
			}
			for _, cs := range sessions {
				// Both eras are served on the one endpoint.
				if ir := cs.InitializeResult(); ir.ServerInfo.Name != "ccski" || ir.Instructions == "" || ir.ProtocolVersion != negotiated(p.version) {
					t.Errorf("initialize result %+v (protocol %s)", ir, ir.ProtocolVersion)
				}
			}
			// Both clients are told about a new skill.
			name := "http-new-" + p.name
			writeSkill(t, filepath.Join(m.Home, ".claude", "skills", name), name, "Added for HTTP clients.", "Body.")
			for i, cs := range sessions {
				var last []string
				ok := waitUntil(refreshBudget, func() bool {
					if changes[i].Load() == 0 {
						return false
					}
					es, _, err := listSkills(ctx, cs)
					last = entryIDs(es)
					_, found := findEntry(es, "claude:"+name)
					return err == nil && found
				})
				if !ok {
					t.Errorf("client %d: the new skill was not announced within %v (notifications %d): %v", i, refreshBudget, changes[i].Load(), last)
				}
				if _, err := loadSkill(ctx, cs, name); err != nil {
					t.Errorf("client %d: %v", i, err)
				}
			}
			want = wantLoads(t, m)
		})
	}

	t.Run("origin", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
		for _, c := range []struct {
			origin string
			code   int
		}{
			{"http://evil.example", http.StatusForbidden},
			{"http://localhost:5173", http.StatusOK},
			{"http://127.0.0.1:8080", http.StatusOK},
			{"", http.StatusOK},
		} {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/mcp", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != c.code {
				t.Errorf("Origin %q: status %d, want %d: %s", c.origin, resp.StatusCode, c.code, msg)
			}
		}
		if !strings.Contains(s.stderr.String(), "foreign origin") {
			t.Errorf("the rejection is not logged:\n%s", s.stderr)
		}
	})

	t.Run("body-cap", func(t *testing.T) {
		big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 5<<20) + `"}}`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/mcp", strings.NewReader(big))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("a 5 MiB body got status %d", resp.StatusCode)
		}
	})

	t.Run("sigterm", func(t *testing.T) {
		// An open 2025-11-25 session holds a GET stream; shutdown must
		// not wait for it.
		cs, err := connectHTTP(ctx, s, "2025-11-25", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		mustListSkills(t, ctx, cs)
		s.stop(t, syscall.SIGTERM, 4*time.Second)
	})
}

func TestMCPHTTPSigint(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	ctx := mcpContext(t)
	s := startHTTP(t, m, nil, "--transport", "http")
	cs, err := connectHTTP(ctx, s, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mustListSkills(t, ctx, cs)
	s.stop(t, syscall.SIGINT, 4*time.Second)
}

func TestMCPHTTPStateless(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	ctx := mcpContext(t)
	s := startHTTP(t, m, nil, "--transport", "http", "--stateless")
	want := wantLoads(t, m)
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			cs, err := connectHTTP(ctx, s, p.version, nil, nil)
			if err != nil {
				t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr)
			}
			defer cs.Close()
			wantPV := p.version
			if wantPV == "" {
				wantPV = "2026-07-28"
			}
			if got := cs.InitializeResult().ProtocolVersion; got != wantPV {
				t.Errorf("negotiated %q, want %q", got, wantPV)
			}
			if err := useSession(ctx, cs, want); err != nil {
				t.Fatal(err)
			}
			if msg := loadError(t, ctx, cs, "pdff"); !strings.Contains(msg, "not found") {
				t.Errorf("not found: %q", msg)
			}
			wantArgumentError(t, ctx, cs, map[string]any{})
		})
	}
	s.stop(t, syscall.SIGTERM, 4*time.Second)
}

func TestMCPHTTPAuth(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"flag", nil, []string{"--auth-token", "secret"}},
		{"env", map[string]string{"CCSKI_AUTH_TOKEN": "secret"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			ctx := mcpContext(t)
			s := startHTTP(t, m, c.env, append([]string{"--transport", "http"}, c.args...)...)
			want := wantLoads(t, m)
			for _, p := range protocols {
				t.Run(p.name, func(t *testing.T) {
					if cs, err := connectHTTP(ctx, s, p.version, nil, nil); err == nil {
						_ = cs.Close()
						t.Error("a client without the token connected")
					}
					if cs, err := connectHTTP(ctx, s, p.version, tokenClient("wrong"), nil); err == nil {
						_ = cs.Close()
						t.Error("a client with a wrong token connected")
					}
					cs, err := connectHTTP(ctx, s, p.version, tokenClient("secret"), nil)
					if err != nil {
						t.Fatalf("with the token: %v\nstderr:\n%s", err, s.stderr)
					}
					defer cs.Close()
					if err := useSession(ctx, cs, want); err != nil {
						t.Fatal(err)
					}
				})
			}
			resp, err := http.Post(s.base+"/mcp", "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("no token: status %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
			// Probes need no token.
			resp, err = http.Get(s.base + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("/healthz with a token configured: %d", resp.StatusCode)
			}
			if strings.Contains(s.stderr.String(), "secret") {
				t.Errorf("the token reached stderr:\n%s", s.stderr)
			}
			s.stop(t, syscall.SIGTERM, 4*time.Second)
		})
	}
}

func TestMCPSSE(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	ctx := mcpContext(t)
	s := startHTTP(t, m, nil, "--transport", "sse")
	want := wantLoads(t, m)
	if !strings.Contains(s.stderr.String(), "listening url=\""+s.base+"/mcp (messages at /messages)\"") {
		t.Errorf("stderr does not say it listens on %s/mcp:\n%s", s.base, s.stderr)
	}
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			var changes atomic.Int64
			cs, err := newClient(&changes).Connect(ctx, &sdk.SSEClientTransport{Endpoint: s.base + "/mcp"},
				&sdk.ClientSessionOptions{ProtocolVersion: p.version})
			if err != nil {
				t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr)
			}
			defer cs.Close()
			if err := useSession(ctx, cs, want); err != nil {
				t.Fatal(err)
			}
			wantArgumentError(t, ctx, cs, map[string]any{"name": 1})
			name := "sse-new-" + p.name
			writeSkill(t, filepath.Join(m.Home, ".claude", "skills", name), name, "Added for SSE clients.", "Body.")
			if !waitUntil(refreshBudget, func() bool {
				es, _, err := listSkills(ctx, cs)
				_, found := findEntry(es, "claude:"+name)
				return changes.Load() > 0 && err == nil && found
			}) {
				t.Errorf("the new skill was not announced within %v (notifications %d)", refreshBudget, changes.Load())
			}
			want = wantLoads(t, m)
		})
	}
	// Origin check on the SSE endpoints too.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/mcp", nil)
	req.Header.Set("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("SSE with a foreign origin: %d", resp.StatusCode)
	}
	s.stop(t, syscall.SIGTERM, 4*time.Second)
}

func TestMCPHTTPHostWarning(t *testing.T) {
	t.Parallel()
	const warning = "non-loopback address without a token"
	t.Run("no-token", func(t *testing.T) {
		m := newMachine(t)
		s := startHTTP(t, m, nil, "--transport", "http", "--host", "0.0.0.0")
		if !strings.Contains(s.stderr.String(), warning) {
			t.Errorf("no warning on stderr:\n%s", s.stderr)
		}
		s.stop(t, syscall.SIGTERM, 4*time.Second)
	})
	t.Run("token", func(t *testing.T) {
		m := newMachine(t)
		s := startHTTP(t, m, nil, "--transport", "http", "--host", "0.0.0.0", "--auth-token", "secret")
		if strings.Contains(s.stderr.String(), warning) {
			t.Errorf("a warning although a token is set:\n%s", s.stderr)
		}
		s.stop(t, syscall.SIGTERM, 4*time.Second)
	})
}
