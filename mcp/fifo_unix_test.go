//go:build unix

package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/pipeline"
)

// TestFIFOSkillFilesRefused: a FIFO put in place of a SKILL.md or a
// command file after the scan (or bundled as a resource) is refused at
// once by every read that serves a client: the skill tool, prompts/get,
// resources/read and ask. A plain os.ReadFile would wait for a writer
// forever; the context only keeps a regression from hanging the test.
func TestFIFOSkillFilesRefused(t *testing.T) {
	base := t.TempDir()
	recs := makeRecords(t, base,
		skillSpec{provider: "claude", name: "pipe", desc: "A named pipe."},
		skillSpec{provider: "claude", name: "deploy", desc: "A command."})
	cmd := recs[1]
	cmd.Type = pipeline.TypeCommand
	cmd.File = filepath.Join(cmd.Dir, "deploy.md")
	mkfifo := func(file string) {
		t.Helper()
		_ = os.Remove(file)
		if err := syscall.Mkfifo(file, 0o644); err != nil {
			t.Fatalf("mkfifo: %v", err)
		}
	}
	mkfifo(recs[0].File)
	mkfifo(cmd.File)
	mkfifo(filepath.Join(recs[0].Dir, "fifo.txt"))
	const pipeErr = "named pipe (FIFO), not a regular file"
	srv := New(pipeline.NewSnapshot(recs, recs, nil, nil, nil),
		Options{Logger: discard(), Tools: []string{ToolAsk}})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			model := &stubModel{answer: "unused"}
			cs := connect(t, srv, pv, model.options())
			// refused runs one request and checks that its error says
			// want. A request
			// still waiting when the context ends fails the test; the
			// FIFO is then opened for writing and closed, so that the
			// blocked read ends and the test can too.
			refused := func(what, fifo, want string, do func(context.Context) (string, error)) {
				t.Helper()
				type outcome struct {
					msg string
					err error
				}
				done := make(chan outcome, 1)
				go func() {
					msg, err := do(ctx)
					done <- outcome{msg, err}
				}()
				var o outcome
				select {
				case o = <-done:
				case <-ctx.Done():
					if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						_ = w.Close()
					}
					t.Fatalf("%s blocked on a FIFO", what)
				}
				if o.err != nil {
					o.msg = o.err.Error()
				}
				if !strings.Contains(o.msg, want) {
					t.Errorf("%s: %q, want %q", what, o.msg, want)
				}
			}
			refused("skill tool", recs[0].File, pipeErr, func(ctx context.Context) (string, error) {
				res, err := call(ctx, cs, map[string]any{"name": "pipe"})
				if err != nil {
					return "", err
				}
				if !res.IsError {
					return "", errors.New("the load succeeded")
				}
				return textOf(res)
			})
			refused("prompts/get", cmd.File, pipeErr, func(ctx context.Context) (string, error) {
				_, err := promptText(ctx, cs, "deploy", nil)
				var we *jsonrpc.Error
				if errors.As(err, &we) {
					return we.Message, nil
				}
				return "", err
			})
			refused("resources/read", filepath.Join(recs[0].Dir, "fifo.txt"), pipeErr, func(ctx context.Context) (string, error) {
				_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: skillFileURI(recs[0], "fifo.txt")})
				return "", err
			})
			// ask skips a file it cannot read; with nothing else to send
			// it fails, saying so.
			refused("ask", recs[0].File, "no SKILL.md of claude:pipe could be read", func(ctx context.Context) (string, error) {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: ToolAsk,
					Arguments: map[string]any{"sources": []string{"claude:pipe"}, "question": "what?"}})
				if err != nil {
					return "", err
				}
				if !res.IsError {
					return "", errors.New("ask succeeded")
				}
				return textOf(res)
			})
		})
	}
}
