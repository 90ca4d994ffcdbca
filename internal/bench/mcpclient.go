package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/internal/parallel"
)

// protocolVersion is the version today's agents pin in initialize.
const protocolVersion = "2025-11-25"

// server is `ccski mcp` over stdio with a connected go-sdk client.
type server struct {
	cmd     *exec.Cmd
	cs      *sdk.ClientSession
	stderr  *tailBuffer
	changed chan time.Time // when each tools/list_changed arrived

	closeOnce sync.Once
	closeErr  error
}

// startServer spawns `ccski mcp --user-dir <home> extra...` in the
// workspace and returns once initialize has been answered. Pass
// "--catalog", "0" for the full list of skills in the tool description.
func startServer(ctx context.Context, bin string, t *fixture.Tree, env []string, extra ...string) (*server, error) {
	s := &server{stderr: &tailBuffer{}, changed: make(chan time.Time, 64)}
	s.cmd = exec.Command(bin, append([]string{"mcp", "--user-dir", t.Home}, extra...)...)
	s.cmd.Dir = t.Workspace
	s.cmd.Env = env
	s.cmd.Stderr = s.stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "ccski-bench", Version: "0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case s.changed <- time.Now():
			default:
			}
		},
	})
	if err := sdk.AddSendingCustomMethod[*skillsListParams, *skillsListResult](client, "skills/list"); err != nil {
		return nil, err
	}
	tr, err := commandTransport(s.cmd)
	if err != nil {
		return nil, fmt.Errorf("ccski mcp: %w", err)
	}
	cs, err := client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		if s.cmd.Process != nil {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
		}
		return nil, fmt.Errorf("ccski mcp: connect: %w\nstderr:\n%s", err, s.stderr.String())
	}
	s.cs = cs
	return s, nil
}

// pid is the server process's id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// close closes stdin and waits for the server to exit; it reports an exit
// that was not clean. Later calls return the first answer.
func (s *server) close() error {
	s.closeOnce.Do(func() {
		err := s.cs.Close()
		if err == nil && s.cmd.ProcessState != nil && s.cmd.ProcessState.ExitCode() != 0 {
			err = fmt.Errorf("exit code %d", s.cmd.ProcessState.ExitCode())
		}
		if err != nil {
			s.closeErr = fmt.Errorf("ccski mcp did not exit cleanly: %w\nstderr:\n%s", err, s.stderr.String())
		}
	})
	return s.closeErr
}

// call loads one skill; a tool error is an error here.
func (s *server) call(ctx context.Context, id string) error {
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: "skill", Arguments: map[string]any{"name": id}})
	if err != nil {
		return fmt.Errorf("tools/call %s: %w", id, err)
	}
	if res.IsError {
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*sdk.TextContent); ok {
				text = tc.Text
			}
		}
		return fmt.Errorf("tools/call %s: tool error: %s", id, text)
	}
	return nil
}

// callAll loads every id once with workers requests in flight and returns
// the elapsed time; the first error stops it.
func (s *server) callAll(ctx context.Context, ids []string, workers int) (time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var first error
	start := time.Now()
	parallel.Each(ctx, len(ids), workers, func(i int) {
		if err := s.call(ctx, ids[i]); err != nil {
			mu.Lock()
			if first == nil {
				first = err
				cancel()
			}
			mu.Unlock()
		}
	})
	took := time.Since(start)
	return took, first
}

// skillsListParams, skillsListResult and skillEntry are the parts of
// SEP-2640 skills/list the suite reads.
type skillsListParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillsListResult struct {
	sdk.ResultBase
	Skills     []skillEntry `json:"skills"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

type skillEntry struct {
	URI       string `json:"uri"`
	Resources []struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
	} `json:"resources"`
}

// maxPages bounds a skills/list walk, against a server whose cursor never
// ends.
const maxPages = 100000

// listSkills reads every page of skills/list.
func listSkills(ctx context.Context, s *server) ([]skillEntry, error) {
	var out []skillEntry
	p := &skillsListParams{}
	for range maxPages {
		res, err := sdk.CallCustomMethod[*skillsListParams, *skillsListResult](ctx, s.cs, "skills/list", p)
		if err != nil {
			return out, fmt.Errorf("skills/list: %w", err)
		}
		out = append(out, res.Skills...)
		if res.NextCursor == "" {
			return out, nil
		}
		p = &skillsListParams{Cursor: res.NextCursor}
	}
	return out, fmt.Errorf("skills/list: more than %d pages", maxPages)
}

var (
	nameElem    = regexp.MustCompile(`<name>([^<]*)</name>`)
	xmlUnescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")
)

// parseIDs returns the ids in the skill tool description's
// <available_skills> block.
func parseIDs(desc string) []string {
	_, block, ok := strings.Cut(desc, "<available_skills>")
	if !ok {
		return nil
	}
	var ids []string
	for _, m := range nameElem.FindAllStringSubmatch(block, -1) {
		ids = append(ids, xmlUnescape.Replace(m[1]))
	}
	return ids
}

// tailBuffer keeps the last 64 KiB written to it; safe for concurrent use.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

const tailMax = 64 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0:0], t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// maxFrame bounds one message from the server. The go-sdk's
// CommandTransport keeps its default, 16 MiB, which the tool list of
// `--catalog 0` passes at 100,000 skills (every description in the
// tool's); the suite reads such a list rather than fail on its size.
const maxFrame = 512 << 20

// commandTransport starts cmd and speaks to it over its stdin and stdout,
// as the go-sdk's CommandTransport does, with frames up to maxFrame.
// Closing the connection closes stdin and waits for the process to exit,
// sending SIGTERM after 5 s and SIGKILL 5 s later.
func commandTransport(cmd *exec.Cmd) (*sdk.IOTransport, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &sdk.IOTransport{Reader: io.NopCloser(stdout), Writer: &stdinCloser{WriteCloser: stdin, cmd: cmd},
		MaxLineLength: maxFrame}, nil
}

// stdinCloser closes a server's stdin and waits for it to exit.
type stdinCloser struct {
	io.WriteCloser
	cmd *exec.Cmd
}

func (c *stdinCloser) Close() error {
	if err := c.WriteCloser.Close(); err != nil {
		return fmt.Errorf("closing stdin: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	for _, sig := range []os.Signal{nil, syscall.SIGTERM, os.Kill} {
		if sig != nil {
			_ = c.cmd.Process.Signal(sig)
		}
		select {
		case err := <-done:
			return err
		case <-time.After(5 * time.Second):
		}
	}
	return <-done
}
