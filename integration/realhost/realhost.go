// Package realhost gives the integration tests the programs nobody on
// this project wrote, installed from npm at pinned versions, once into a
// cache folder outside the repository and reused by later runs (Set):
// the real hosts Claude Code and Codex, with a loopback stand-in for
// Claude's API that records what Claude Code sends (its system prompt
// holds the skill listing) and helpers that run each host in a throwaway
// home and return what it lists; and the MCP conformance suite and the
// MCP Inspector, on Node.js 22 (InstallMCPTools).
//
// A test that needs them calls Install or InstallMCPTools; when npm is
// missing or its registry cannot be reached, the test is skipped with a
// message saying so, and the rest of `go test ./...` runs on.
package realhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/hostask"
)

// The pinned versions of the hosts the tests run.
const (
	ClaudePackage = "@anthropic-ai/claude-code@2.1.332"
	CodexPackage  = "@openai/codex@0.171.0"
)

// Hosts are the installed clients.
type Hosts struct {
	// Claude and Codex are the paths of the commands.
	Claude, Codex string
}

// hosts is the npm set of the real hosts.
var hosts = &Set{
	What:     "real hosts Claude Code and Codex",
	Packages: []string{ClaudePackage, CodexPackage},
	Ready: func(dir string) bool {
		h := hostsIn(dir)
		return runs(h.Claude, "--version") && runs(h.Codex, "--version")
	},
}

// hostsIn returns the commands of the hosts installed in dir.
func hostsIn(dir string) *Hosts {
	return &Hosts{
		Claude: filepath.Join(dir, "node_modules", ".bin", "claude"),
		Codex:  filepath.Join(dir, "node_modules", ".bin", "codex"),
	}
}

// Install returns the real hosts, installing them from npm the first time
// (per cache folder; later runs reuse them), and skips t when they cannot
// be installed for want of npm or its registry (see Set.Install).
func Install(t testing.TB) *Hosts {
	t.Helper()
	return hostsIn(hosts.Install(t))
}

// Env is an environment for a host run in home and nothing of the
// developer's: no API keys, no CLAUDE_CONFIG_DIR, no CODEX_HOME but
// home's, no telemetry or update checks.
func Env(home string, extra ...string) []string {
	env := []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"CODEX_HOME=" + filepath.Join(home, ".codex"),
		"TMPDIR=" + os.TempDir(),
		"LANG=C.UTF-8",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
	}
	return append(env, extra...)
}

// CodexListing runs `codex debug prompt-input` in dir with home as HOME
// and CODEX_HOME home/.codex (created), and returns what it lists. args
// are passed on (-c model_context_window=N).
func (h *Hosts) CodexListing(t testing.TB, home, dir string, args ...string) []hostask.Listed {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Codex, append([]string{"debug", "prompt-input"}, args...)...)
	cmd.Dir, cmd.Env = dir, Env(home)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("codex debug prompt-input: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	ls, err := hostask.ParseCodex(out)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// ClaudeListing runs `claude -p hi` in dir with home as HOME against a
// fresh stand-in for the API, and returns the skills of the listing in
// the request it sent. args are passed on (--model claude-sonnet-4-5).
func (h *Hosts) ClaudeListing(t testing.TB, home, dir string, args ...string) []hostask.Listed {
	t.Helper()
	api := NewClaudeAPI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Claude, append([]string{"-p", "hi"}, args...)...)
	cmd.Dir = dir
	cmd.Env = Env(home, "ANTHROPIC_BASE_URL="+api.URL, "ANTHROPIC_API_KEY=sk-ant-test-standin")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("claude -p hi: %v\n%s", err, out)
	}
	reqs := api.Requests()
	if len(reqs) == 0 {
		t.Fatal("claude -p hi sent no request to the stand-in for its API")
	}
	ls, err := hostask.ParseClaudeRequest(reqs[0])
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// ClaudeAPI is a loopback stand-in for Claude's API: it records the body
// of every POST to /v1/messages and answers "ok", streamed as server-sent
// events when the request asks for a stream.
type ClaudeAPI struct {
	URL string
	mu  sync.Mutex
	req [][]byte
}

// NewClaudeAPI starts a stand-in, closed when t ends.
func NewClaudeAPI(t testing.TB) *ClaudeAPI {
	a := &ClaudeAPI{}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

// Requests returns the bodies recorded, in order.
func (a *ClaudeAPI) Requests() [][]byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([][]byte(nil), a.req...)
}

// ServeHTTP answers one request.
func (a *ClaudeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	switch {
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/messages/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":10}`)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		a.mu.Lock()
		a.req = append(a.req, body)
		a.mu.Unlock()
		stream := strings.Contains(string(body), `"stream":true`)
		answer(w, stream)
	default:
		http.NotFound(w, r)
	}
}

// answer writes a minimal valid reply: one text block "ok".
func answer(w http.ResponseWriter, stream bool) {
	const msg = `{"id":"msg_standin","type":"message","role":"assistant","model":"claude-standin","content":%s,` +
		`"stop_reason":%s,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, msg, `[{"type":"text","text":"ok"}]`, `"end_turn"`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	events := []struct{ name, data string }{
		{"message_start", `{"type":"message_start","message":` + fmt.Sprintf(msg, `[]`, `null`) + `}`},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`},
		{"message_stop", `{"type":"message_stop"}`},
	}
	for _, e := range events {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
	}
}
