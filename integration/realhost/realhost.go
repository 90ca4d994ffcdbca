// Package realhost gives the integration tests the real hosts: Claude
// Code and Codex installed from npm, at pinned versions, once into a
// cache folder outside the repository and reused by later runs; a
// loopback stand-in for Claude's API that records what Claude Code sends
// (its system prompt holds the skill listing); and helpers that run each
// host in a throwaway home and return what it lists.
//
// A test that needs a host calls Install; when npm is missing or its
// registry cannot be reached, the test is skipped with a message saying
// so, and the rest of `go test ./...` runs on.
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
	"github.com/ccski/ccski/internal/safefile"
)

// The pinned versions of the hosts the tests run.
const (
	ClaudePackage = "@anthropic-ai/claude-code@2.1.332"
	CodexPackage  = "@openai/codex@0.171.0"
)

// CacheEnv names the variable that, when set, is the folder the hosts are
// installed into instead of the user's cache folder.
const CacheEnv = "REALHOST_CACHE_DIR"

// Hosts are the installed clients.
type Hosts struct {
	// Claude and Codex are the paths of the commands.
	Claude, Codex string
}

var (
	installOnce sync.Once
	installed   *Hosts
	installErr  error
	skipReason  string
)

// Install returns the real hosts, installing them from npm the first time
// (per cache folder; later runs reuse them). It skips t when npm is not
// on PATH, when its registry answers the probe with anything but a 2xx or
// not at all, and when npm install fails for a network reason; it fails
// t when the install fails otherwise.
func Install(t testing.TB) *Hosts {
	t.Helper()
	installOnce.Do(func() { installed, skipReason, installErr = install() })
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if installErr != nil {
		t.Fatal(installErr)
	}
	return installed
}

// folder is the cache folder of the pinned versions.
func folder() (string, error) {
	base := os.Getenv(CacheEnv)
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache folder for the real hosts (%v): set %s", err, CacheEnv)
		}
		base = filepath.Join(cache, "ccski-test-hosts")
	}
	name := strings.NewReplacer("@", "", "/", "-").Replace(ClaudePackage + "_" + CodexPackage)
	return filepath.Join(base, name), nil
}

// installedMark is the file written into the cache folder once npm
// install has finished and both commands answered; a folder without it
// (an install killed half-way) is installed again from scratch.
const installedMark = ".installed"

func install() (*Hosts, string, error) {
	dir, err := folder()
	if err != nil {
		return nil, "", err
	}
	h := &Hosts{
		Claude: filepath.Join(dir, "node_modules", ".bin", "claude"),
		Codex:  filepath.Join(dir, "node_modules", ".bin", "codex"),
	}
	mark := filepath.Join(dir, installedMark)
	if h.installed(mark) {
		return h, "", nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, "real hosts: npm is not on PATH, so Claude Code and Codex cannot be installed; skipped", nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	// Test binaries of one `go test ./...` run at once; the lock makes
	// them install one after the other, and the later ones find the
	// first's install (the mark) and reuse it.
	release, err := safefile.LockFile(filepath.Join(dir, ".lock"), 0o644, nil)
	if err != nil {
		return nil, "", fmt.Errorf("locking %s: %w", dir, err)
	}
	defer release()
	if h.installed(mark) {
		return h, "", nil
	}
	if why := registryUnreachable(npm); why != "" {
		return nil, "real hosts: the npm registry cannot be used (" + why + "), so Claude Code and Codex " +
			"cannot be installed; skipped", nil
	}
	// Whatever an earlier, unfinished install left is removed first.
	for _, name := range []string{"node_modules", "package-lock.json"} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return nil, "", err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"ccski-test-hosts","private":true}`+"\n"), 0o644); err != nil {
		return nil, "", err
	}
	cmd := exec.Command(npm, "install", "--no-audit", "--no-fund", "--loglevel=error", ClaudePackage, CodexPackage)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		if why := networkFailure(string(out)); why != "" {
			return nil, "real hosts: npm install could not fetch Claude Code and Codex (" + why + "); skipped", nil
		}
		return nil, "", fmt.Errorf("npm install %s %s in %s: %v\n%s", ClaudePackage, CodexPackage, dir, err, out)
	}
	if !h.ready() {
		return nil, "", fmt.Errorf("npm install in %s gave no claude or codex command:\n%s", dir, out)
	}
	if err := os.WriteFile(mark, []byte(ClaudePackage+"\n"+CodexPackage+"\n"), 0o644); err != nil {
		return nil, "", err
	}
	return h, "", nil
}

// installed reports whether an install finished (mark is there) and both
// commands run.
func (h *Hosts) installed(mark string) bool {
	if _, err := os.Stat(mark); err != nil {
		return false
	}
	return h.ready()
}

// ready reports whether both commands run and say their version.
func (h *Hosts) ready() bool {
	for _, bin := range []string{h.Claude, h.Codex} {
		if err := exec.Command(bin, "--version").Run(); err != nil {
			return false
		}
	}
	return true
}

// networkCodes are the error codes npm prints when it cannot fetch from
// its registry: the name does not resolve, the connection fails or times
// out, a proxy or mirror refuses (403, 404, 407), or a proxy's
// certificate is not trusted.
var networkCodes = []string{
	"ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ESOCKETTIMEDOUT", "ECONNREFUSED", "ECONNRESET",
	"EHOSTUNREACH", "ENETUNREACH", "ENETDOWN", "EPIPE", "E403", "E404", "E407", "E429", "E500",
	"E502", "E503", "E504", "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
	"UNABLE_TO_VERIFY_LEAF_SIGNATURE", "CERT_HAS_EXPIRED",
}

// networkFailure returns the network error code in npm's output, or ""
// when the failure is something else (a broken package, a full disk).
func networkFailure(out string) string {
	for _, line := range strings.Split(out, "\n") {
		for _, code := range networkCodes {
			if containsWord(line, code) {
				return code
			}
		}
	}
	return ""
}

// containsWord reports whether word occurs in s not inside a longer word.
func containsWord(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !isWordByte(s[start-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		i = start + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// registryUnreachable returns why npm's registry cannot be used, or "":
// any answer but a 2xx to the probe (a mirror or proxy's 403, 404 or
// 407 as much as a 5xx) means npm install would fail.
func registryUnreachable(npm string) string {
	reg := "https://registry.npmjs.org/"
	if out, err := exec.Command(npm, "config", "get", "registry").Output(); err == nil {
		if s := strings.TrimSpace(string(out)); strings.HasPrefix(s, "http") {
			reg = s
		}
	}
	return probe(reg)
}

// probe asks the registry reg for the Codex package and returns why it
// cannot be used, or "".
func probe(reg string) string {
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(strings.TrimSuffix(reg, "/") + "/@openai%2fcodex")
	if err != nil {
		return err.Error()
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return reg + " answered " + resp.Status
	}
	return ""
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
