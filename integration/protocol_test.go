package integration

// Tests of the two protocol eras on every transport of `ccski mcp`: the
// go-sdk client at its default version (2026-07-28: server/discover, _meta
// on every request, subscriptions/listen) and at 2025-11-25 (initialize,
// a session), over stdio, streamable HTTP in its default mode (both eras
// on one endpoint) and with --stateless; the workspace without client
// roots; and ask, which rests on sampling, over HTTP.

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
)

// eraTransports are the ways a client reaches `ccski mcp`.
var eraTransports = []struct {
	name string
	args []string
}{
	{"stdio", nil},
	{"http", []string{"--transport", "http"}},
	{"stateless", []string{"--transport", "http", "--stateless"}},
}

// negotiated is the version a client setting ends up with on every
// transport: the default (2026-07-28) is accepted over HTTP without
// --stateless too.
func negotiated(pv string) string {
	if pv == "" {
		return "2026-07-28"
	}
	return pv
}

// eraServer is `ccski mcp` on one transport with one connected client.
type eraServer struct {
	cs      *sdk.ClientSession
	stderr  *lockedBuffer
	changes *atomic.Int64
	// stop ends the server (stdin EOF, or SIGTERM for HTTP with the
	// client still connected) and checks it exits 0 promptly.
	stop func(t *testing.T)
}

// startEra starts the binary on transport args in the machine's workspace
// and connects a client counting tools/list_changed.
func startEra(t *testing.T, ctx context.Context, m *machine.Machine, transport []string, pv string, args ...string) *eraServer {
	t.Helper()
	if len(transport) == 0 {
		s := startStdio(t, ctx, m, pv, nil, args...)
		return &eraServer{cs: s.cs, stderr: s.stderr, changes: &s.changes, stop: func(t *testing.T) { s.mustExit0(t, 3*time.Second) }}
	}
	s := startHTTP(t, m, nil, append(transport, args...)...)
	changes := new(atomic.Int64)
	cs, err := connectHTTP(ctx, s, pv, nil, changes)
	if err != nil {
		t.Fatalf("connect over HTTP (protocol %q): %v\nstderr:\n%s", pv, err, s.stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &eraServer{cs: cs, stderr: s.stderr, changes: changes, stop: func(t *testing.T) {
		// The client's open streams (a 2025 session's GET stream, a
		// 2026-07-28 subscriptions/listen) must not hold the exit.
		s.stop(t, syscall.SIGTERM, 4*time.Second)
		if strings.Contains(s.stderr.String(), "did not close in time") {
			t.Errorf("a session held the shutdown:\n%s", s.stderr)
		}
	}}
}

// TestMCPProtocolEras drives the binary with the go-sdk client at
// 2026-07-28 and 2025-11-25 over stdio, HTTP and stateless HTTP: the
// negotiated version, tools/list with the skill tool's title and hints, a
// load, and the tool-list change a new SKILL.md causes.
func TestMCPProtocolEras(t *testing.T) {
	for _, tr := range eraTransports {
		for _, p := range protocols {
			t.Run(tr.name+"/"+p.name, func(t *testing.T) {
				t.Parallel()
				m := newMachine(t)
				ctx := mcpContext(t)
				// With an hour between rescans, only the watcher explains a change.
				s := startEra(t, ctx, m, tr.args, p.version, "--refresh-interval", "1h")
				if got, want := s.cs.InitializeResult().ProtocolVersion, negotiated(p.version); got != want {
					t.Errorf("negotiated %q, want %q", got, want)
				}

				tools := toolsByName(t, ctx, s.cs)
				skill, ok := tools["skill"]
				if !ok || len(tools) != 1 {
					t.Fatalf("tools %v, want skill alone\nstderr:\n%s", keys(tools), s.stderr)
				}
				if a := skill.Annotations; skill.Title != "Load a skill" || a == nil || !a.ReadOnlyHint || !a.IdempotentHint ||
					a.OpenWorldHint == nil || *a.OpenWorldHint {
					t.Errorf("skill tool: title %q, annotations %+v; want a title, read-only, idempotent, closed-world", skill.Title, a)
				}
				if text, err := loadSkill(ctx, s.cs, "commit-helper"); err != nil || !strings.HasPrefix(text, "Loading: claude:commit-helper\n") {
					t.Errorf("loading commit-helper: %v\n%.80s", err, text)
				}

				// A new skill: announced with tools/list_changed wherever a
				// push is possible, and listed on the next tools/list. A
				// stateless server has no session a 2025 client could be
				// told on.
				pushes := tr.name != "stateless" || p.version == ""
				before := s.changes.Load()
				writeSkill(t, filepath.Join(m.Home, ".claude", "skills", "era-new"), "era-new", "Added while serving.", "Body.")
				var last []skillEntry
				ok = waitUntil(refreshBudget, func() bool {
					if pushes && s.changes.Load() <= before {
						return false
					}
					es, _, err := listSkills(ctx, s.cs)
					last = es
					_, found := findEntry(es, "claude:era-new")
					return err == nil && found
				})
				if !ok {
					t.Fatalf("the new skill was not seen within %v (list_changed %d, before %d, push expected %v): %v\nstderr:\n%s",
						refreshBudget, s.changes.Load(), before, pushes, entryIDs(last), s.stderr)
				}
				if _, err := loadSkill(ctx, s.cs, "era-new"); err != nil {
					t.Error(err)
				}
				s.stop(t)
			})
		}
	}
}

// skillNamed reports whether a listed skill is called name.
func skillNamed(es []skillEntry, name string) bool {
	for _, e := range es {
		if e.ID == name || strings.HasSuffix(e.ID, ":"+name) {
			return true
		}
	}
	return false
}

// projectWithSkill makes dir a repository holding the project skill name.
func projectWithSkill(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(dir, ".claude", "skills", name), name, "Only in "+filepath.Base(dir)+".", "Body.")
}

// TestMCPWorkspaceWithoutRoots checks where `ccski mcp` over stdio takes
// the workspace from: a 2026-07-28 client has no roots the server can
// ask for, so --workspace, else the server's working folder, applies and
// the session never waits for roots; a 2025 client that declares roots
// moves the workspace to its first file root, over --workspace too.
func TestMCPWorkspaceWithoutRoots(t *testing.T) {
	tests := []struct {
		name      string
		pv        string
		workspace bool   // pass --workspace <flag project>
		want      string // the project skill served in the end
	}{
		{"2026-07-28/working folder", "", false, "repo-guide"},
		{"2026-07-28/--workspace", "", true, "flagonly"},
		{"2025-11-25/roots", "2025-11-25", false, "rootonly"},
		{"2025-11-25/roots over --workspace", "2025-11-25", true, "rootonly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			ctx := mcpContext(t)
			rootDir := filepath.Join(m.Root, "roots-project")
			flagDir := filepath.Join(m.Root, "flag-project")
			projectWithSkill(t, rootDir, "rootonly")
			projectWithSkill(t, flagDir, "flagonly")

			args := mcpArgs(m, "--refresh-interval", "1h")
			if tt.workspace {
				args = append(args, "--workspace", flagDir)
			}
			cmd := exec.Command(binary, args...)
			cmd.Dir = m.Workspace // its project skill is repo-guide
			cmd.Env = env(m, nil)
			stderr := &lockedBuffer{}
			cmd.Stderr = stderr
			var changes atomic.Int64
			c := newClient(&changes)
			c.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: rootDir}).String(), Name: "roots-project"})
			cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second},
				&sdk.ClientSessionOptions{ProtocolVersion: tt.pv})
			if err != nil {
				t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
			}
			t.Cleanup(func() { _ = cs.Close() })
			if got := cs.InitializeResult().ProtocolVersion; got != negotiated(tt.pv) {
				t.Fatalf("negotiated %q, want %q", got, negotiated(tt.pv))
			}

			// A later change on disk, seen through the watcher (armed once
			// the first snapshot is in), orders the check after any
			// workspace switch the session caused.
			// (tools/list only: roots may switch the workspace, so that a
			// skill listed is gone before it would be loaded.)
			if _, err := skillTool(ctx, cs); err != nil {
				t.Fatal(err)
			}
			writeSkill(t, filepath.Join(m.Home, ".claude", "skills", "later"), "later", "Added after connecting.", "Body.")
			var last []skillEntry
			if !waitUntil(refreshBudget, func() bool {
				es, _, err := listSkills(ctx, cs)
				last = es
				return err == nil && skillNamed(es, "later") && skillNamed(es, tt.want)
			}) {
				t.Fatalf("%s and later not both listed within %v: %v\nstderr:\n%s", tt.want, refreshBudget, entryIDs(last), stderr)
			}
			for _, other := range []string{"repo-guide", "flagonly", "rootonly"} {
				if other != tt.want && skillNamed(last, other) {
					t.Errorf("%s is served besides %s: the workspace is not the one expected\n%v", other, tt.want, entryIDs(last))
				}
			}
			if switched := strings.Contains(stderr.String(), "workspace set from the client's roots"); switched != (tt.want == "rootonly") {
				t.Errorf("workspace switched to the client's roots: %v, want %v\nstderr:\n%s", switched, tt.want == "rootonly", stderr)
			}
			if text, err := loadSkill(ctx, cs, tt.want); err != nil || !strings.Contains(text, "\nLocation: project\n") {
				t.Errorf("loading %s: %v\n%.200s", tt.want, err, text)
			}
			if err := cs.Close(); err != nil {
				t.Errorf("close: %v\nstderr:\n%s", err, stderr)
			}
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("exit code %d\nstderr:\n%s", code, stderr)
			}
		})
	}
}

// TestMCPAskOverHTTP calls ask, which rests on sampling (deprecated from
// 2026-07-28), over HTTP in both modes and both eras: a client with
// sampling gets its model's answer, one without a prompt tool error that
// says why.
func TestMCPAskOverHTTP(t *testing.T) {
	for _, mode := range eraTransports[1:] {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			m := newMachine(t)
			ctx := mcpContext(t)
			s := startHTTP(t, m, nil, append(mode.args, "--tools", "ask", "--refresh-interval", "1h")...)
			for _, p := range protocols {
				t.Run(p.name, func(t *testing.T) {
					args := map[string]any{"sources": []string{"claude"}, "question": "How should I word a commit message?"}
					stub := &samplingStub{}
					tr := &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp"}
					cs, err := sdk.NewClient(&sdk.Implementation{Name: "ask-client", Version: "0"},
						&sdk.ClientOptions{CreateMessageHandler: stub.handler}).Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: p.version})
					if err != nil {
						t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr)
					}
					defer cs.Close()
					if got := cs.InitializeResult().ProtocolVersion; got != negotiated(p.version) {
						t.Errorf("negotiated %q, want %q", got, negotiated(p.version))
					}
					tool := toolsByName(t, ctx, cs)["ask"]
					if tool == nil {
						t.Fatal("ask is not served")
					}
					if !strings.Contains(tool.Description, "2026-07-28 deprecates") {
						t.Errorf("the ask tool does not say it relies on deprecated sampling:\n%s", tool.Description)
					}
					if tool.Annotations == nil || tool.Annotations.IdempotentHint {
						t.Errorf("ask annotations %+v: want not idempotent", tool.Annotations)
					}
					cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
					defer cancel()
					res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "ask", Arguments: args})
					if err != nil {
						t.Fatalf("ask with sampling: %v\nstderr:\n%s", err, s.stderr)
					}
					text, _ := resultText(res)
					if mode.name == "stateless" && p.version != "" {
						// No session: the server neither sees the client's
						// capabilities nor could it send the request.
						if !res.IsError || !strings.Contains(text, "stateless HTTP server") || len(stub.asked()) != 0 {
							t.Errorf("ask, stateless, 2025 client: %q (isError %v, %d sampling requests), want an error naming the stateless server",
								text, res.IsError, len(stub.asked()))
						}
					} else if res.IsError || text != stubAnswer || len(stub.asked()) != 1 {
						t.Errorf("ask with sampling: %q (isError %v, %d sampling requests)", text, res.IsError, len(stub.asked()))
					}

					bare, err := sdk.NewClient(&sdk.Implementation{Name: "no-sampling", Version: "0"}, nil).Connect(ctx,
						&sdk.StreamableClientTransport{Endpoint: s.base + "/mcp"}, &sdk.ClientSessionOptions{ProtocolVersion: p.version})
					if err != nil {
						t.Fatalf("connect: %v", err)
					}
					defer bare.Close()
					res, err = bare.CallTool(cctx, &sdk.CallToolParams{Name: "ask", Arguments: args})
					if err != nil {
						t.Fatalf("ask without sampling: %v", err)
					}
					if text, _ := resultText(res); !res.IsError || !strings.Contains(text, "does not support sampling") ||
						!strings.Contains(text, "deprecated since protocol 2026-07-28") {
						t.Errorf("ask without sampling: %q (isError %v)", text, res.IsError)
					}
				})
			}
			s.stop(t, syscall.SIGTERM, 4*time.Second)
		})
	}
}
