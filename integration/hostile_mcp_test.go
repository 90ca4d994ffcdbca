package integration

// Hostile clients and hostile skill files over MCP: malformed, huge and
// deeply nested JSON-RPC, giant names, a runaway SKILL.md, resource URIs
// that try to leave the skill's folder.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
)

// rawStdio is `ccski mcp` over stdio driven line by line, as a buggy or
// hostile client would.
type rawStdio struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string
	stderr *lockedBuffer
}

// rpcReply is a JSON-RPC response as the raw client reads it.
// isErrorResult stands for a tools/call result with isError set where the
// hostile tests want a reply: since 2025-11-25 (SEP-1303) a tool's input
// the server refuses is a result the model reads, not a JSON-RPC error.
const isErrorResult = 1

type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

// startRawStdio starts the server on m and initializes a 2025-11-25
// session.
func startRawStdio(t *testing.T, m *machine.Machine) *rawStdio {
	t.Helper()
	s := startRawStdioBare(t, m)
	s.send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	s.until(t, `"init"`)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	return s
}

// startRawStdioBare starts the server on m, and sends nothing.
func startRawStdioBare(t *testing.T, m *machine.Machine) *rawStdio {
	t.Helper()
	s := &rawStdio{stderr: &lockedBuffer{}, lines: make(chan string, 64)}
	s.cmd = exec.Command(binary, mcpArgs(m, "--no-refresh")...)
	s.cmd.Dir, s.cmd.Env, s.cmd.Stderr = m.Workspace, env(m, nil), s.stderr
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.in.Close(); _ = s.cmd.Process.Kill(); _ = s.cmd.Wait() })
	go func() {
		defer close(s.lines)
		br := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				s.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *rawStdio) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatalf("the server stopped reading: %v\nstderr:\n%s", err, s.stderr)
	}
}

// until reads replies until it has read one with each of ids (their JSON
// form), and returns them all, in the order read.
func (s *rawStdio) until(t *testing.T, ids ...string) []rpcReply {
	t.Helper()
	var got []rpcReply
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("the server closed stdout waiting for replies %v (exit %v)\nstderr:\n%s", ids, s.cmd.Wait(), s.stderr)
			}
			var r rpcReply
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("stdout line is not JSON (%v): %.200q", err, line)
			}
			r.raw = line
			if r.Method != "" {
				continue // a notification
			}
			got = append(got, r)
			delete(want, string(r.ID))
			if len(want) == 0 {
				return got
			}
		case <-timeout:
			t.Fatalf("no reply %v within 30s\nstderr:\n%s", ids, s.stderr)
		}
	}
}

// TestHostileJSONRPCOverStdio: lines a buggy or hostile client sends over
// stdio (not JSON, JSON that is no JSON-RPC message, deeply nested JSON,
// a batch the protocol forbids, a line over the 16 MiB cap, names of 1 and
// 10 MB) are each answered with the JSON-RPC error JSON-RPC 2.0 names
// (carrying the request's id when it has one), in a reply of bounded
// size, and the server answers the next request as before; it used to end
// the session, and exit 1, at the first such line. Closing stdin still
// ends it with exit 0.
func TestHostileJSONRPCOverStdio(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	s := startRawStdio(t, m)
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	tests := []struct {
		name, line string
		code       int    // the error expected, 0 for none
		id         string // the id it carries
	}{
		{"not JSON", "this is not json", jsonrpc.CodeParseError, "null"},
		{"truncated JSON", `{"jsonrpc":"2.0","id":5,"method":"tools/li`, jsonrpc.CodeParseError, "null"},
		{"two values on a line", `{"jsonrpc":"2.0","id":5,"method":"ping"} {}`, jsonrpc.CodeParseError, "null"},
		{"nested 100,000 deep", deep, jsonrpc.CodeParseError, "null"},
		{"nested objects", strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000), jsonrpc.CodeParseError, "null"},
		{"empty object", `{}`, jsonrpc.CodeInvalidRequest, "null"},
		{"a number", `42`, jsonrpc.CodeInvalidRequest, "null"},
		{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, "null"},
		{"batch in 2025-11-25", `[{"jsonrpc":"2.0","id":6,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "7"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"no/such"}`, jsonrpc.CodeMethodNotFound, "8"},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"x"}`, jsonrpc.CodeInvalidParams, "9"},
		{"a response to nothing", `{"jsonrpc":"2.0","id":99,"result":{}}`, 0, ""},
		{"1 MB skill name", fmt.Sprintf(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"skill","arguments":{"name":%q}}}`,
			strings.Repeat("a", 1<<20)), isErrorResult, "10"},
		{"10 MB skill name", fmt.Sprintf(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"skill","arguments":{"name":%q}}}`,
			strings.Repeat("b", 10<<20)), isErrorResult, "11"},
		{"1 MB prompt name", fmt.Sprintf(`{"jsonrpc":"2.0","id":12,"method":"prompts/get","params":{"name":%q}}`,
			strings.Repeat("c", 1<<20)), jsonrpc.CodeInvalidParams, "12"},
		{"1 MB URI", fmt.Sprintf(`{"jsonrpc":"2.0","id":13,"method":"resources/read","params":{"uri":"skill://claude/%s/SKILL.md"}}`,
			strings.Repeat("d", 1<<20)), jsonrpc.CodeInvalidParams, "13"},
		{"a line over 16 MiB", `{"jsonrpc":"2.0","id":14,"method":"ping","params":{"pad":"` + strings.Repeat("e", 17<<20) + `"}}`,
			jsonrpc.CodeInvalidRequest, "null"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.send(t, tt.line)
			pingID := fmt.Sprintf(`"ping-%d"`, i)
			s.send(t, `{"jsonrpc":"2.0","id":`+pingID+`,"method":"ping"}`)
			// A reply without an id comes from the guard, before the
			// ping is read; others may come after the ping's.
			ids := []string{pingID}
			if tt.code != 0 && tt.id != "null" {
				ids = append(ids, tt.id)
			}
			all := s.until(t, ids...)
			var replies []rpcReply
			for _, r := range all {
				if string(r.ID) != pingID {
					replies = append(replies, r)
				} else if r.Error != nil {
					t.Fatalf("ping after the line failed: %s", r.raw)
				}
			}
			if tt.code == 0 {
				if len(replies) != 0 {
					t.Errorf("want no reply, got %q", replies[0].raw)
				}
				return
			}
			if tt.code == isErrorResult {
				if len(replies) != 1 || replies[0].Error != nil || !strings.Contains(string(replies[0].Result), `"isError":true`) {
					var raw []string
					for _, r := range replies {
						raw = append(raw, r.raw[:min(len(r.raw), 300)])
					}
					t.Fatalf("want one tool result with isError, got %d replies: %q", len(replies), raw)
				}
			} else if len(replies) != 1 || replies[0].Error == nil || replies[0].Error.Code != tt.code || string(replies[0].ID) != tt.id {
				var raw []string
				for _, r := range replies {
					raw = append(raw, r.raw[:min(len(r.raw), 300)])
				}
				t.Fatalf("want one error %d with id %s, got %d replies: %q", tt.code, tt.id, len(replies), raw)
			}
			if n := len(replies[0].raw); n > 4096 {
				t.Errorf("the error reply is %d bytes: it must not echo the input", n)
			}
		})
	}
	// The server still serves a skill.
	s.send(t, `{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"skill","arguments":{"name":"commit-helper"}}}`)
	if r := s.until(t, `"last"`); r[len(r)-1].Error != nil || !strings.Contains(string(r[len(r)-1].Result), "Loading: ") {
		t.Errorf("tools/call after the hostile lines: %.300s", r[len(r)-1].raw)
	}
	if err := s.in.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("exit after stdin closed: %v\nstderr:\n%s", err, s.stderr)
	}
}

// TestMCPSkillToolRunawayFile: the skill tool serves a 52 MB SKILL.md
// only up to its 1 MiB cap, cut at a character boundary, with a note that
// gives the size, what was left out and the file to read the rest from;
// it used to refuse the file (and, before that, return it whole).
func TestMCPSkillToolRunawayFile(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	file := hugeSkill(t, m, 52<<20)
	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil, "--no-refresh")
	text, err := loadSkill(ctx, s.cs, "claude:huge")
	if err != nil {
		t.Fatal(err)
	}
	if len(text) > 1<<20+2048 || !strings.Contains(text, "\nline x\n") {
		t.Errorf("the tool returned %d bytes; want the start of the file, at most 1 MiB of it and a note", len(text))
	}
	note := fmt.Sprintf("[ccski: this SKILL.md is 52 MiB; the skill tool returns at most its first 1 MiB, so the text "+
		"above stops there and the last 51 MiB are left out. Read the rest from %s.]", file)
	if !strings.HasSuffix(strings.TrimSpace(text), note) {
		t.Errorf("the text does not end with the note %q:\n%s", note, text[max(0, len(text)-500):])
	}
}

// TestHostileResourceURIs: resources/read with the extension's URIs
// (skill://<provider>/<name>/<file>) never reads outside the skill's
// folder: "..", encoded and double-encoded "..", a NUL, an absolute path
// and a symlink inside the folder that leads out are all refused, and the
// secret file's text is in no answer; a file in the folder still reads.
func TestHostileResourceURIs(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	secret := filepath.Join(m.Home, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP-SECRET-CONTENT"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(m.Home, ".claude", "skills", "reader")
	writeSkill(t, dir, "reader", "Reads files.", "# reader\n")
	if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte("# guide\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(m.Home, filepath.Join(dir, "home")); err != nil {
		t.Fatal(err)
	}
	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil, "--no-refresh")
	base := "skill://claude/reader/"
	read := func(uri string) (string, error) {
		res, err := s.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, c := range res.Contents {
			b.WriteString(c.Text)
			b.Write(c.Blob)
		}
		return b.String(), nil
	}
	if text, err := read(base + "guide.md"); err != nil || text != "# guide\n" {
		t.Fatalf("a file in the folder: %q, %v", text, err)
	}
	rel, err := filepath.Rel(dir, secret)
	if err != nil {
		t.Fatal(err)
	}
	rel = filepath.ToSlash(rel)
	for _, uri := range []string{
		base + rel,
		base + "../../../secret.txt",
		base + "%2e%2e/%2e%2e/%2e%2e/secret.txt",
		base + "%2E%2E%2F%2E%2E%2F%2E%2E%2Fsecret.txt",
		base + "%252e%252e/%252e%252e/%252e%252e/secret.txt",
		base + "..%2f..%2f..%2fsecret.txt",
		base + "guide.md%00/../../../secret.txt",
		base + "guide.md\x00",
		base + secret,
		base + "/" + secret,
		"skill://claude/reader" + secret,
		"skill://claude/" + secret,
		base + "link.md",
		base + "home/secret.txt",
		"skill://claude/reader/./../reader/../../secret.txt",
		"skill://claude/..%2f..%2fsecret.txt/SKILL.md",
		"file://" + secret,
	} {
		text, err := read(uri)
		if err == nil {
			t.Errorf("%q was read: %q", uri, text)
		}
		if strings.Contains(text, "TOP-SECRET") || err != nil && strings.Contains(err.Error(), "TOP-SECRET") {
			t.Errorf("%q leaked the secret", uri)
		}
	}
}
