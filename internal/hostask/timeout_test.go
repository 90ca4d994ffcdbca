package hostask

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestHostCommandTimeout: a host command that never answers (waiting for
// a login or the network) is stopped after the timeout, with an error
// saying so, for each host asked; a child of it that keeps its output
// open does not hold the caller either.
func TestHostCommandTimeout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake hosts are shell scripts")
	}
	bin := t.TempDir()
	for _, name := range []string{"codex", "claude", "gemini", "copilot"} {
		// sleep runs as a child of the shell, holding its output open.
		script := "#!/bin/sh\necho waiting for login >&2\nsleep 60\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	oldTimeout, oldDelay := commandTimeout, waitDelay
	commandTimeout, waitDelay = 200*time.Millisecond, 100*time.Millisecond
	t.Cleanup(func() { commandTimeout, waitDelay = oldTimeout, oldDelay })

	dir := t.TempDir()
	asks := map[string]func(ctx context.Context) error{
		CodexCommand: func(ctx context.Context) error { _, err := Codex(ctx, "", dir, nil); return err },
		ClaudePluginsCommand: func(ctx context.Context) error {
			_, err := ClaudePlugins(ctx, "", dir, nil)
			return err
		},
		GeminiCommand:  func(ctx context.Context) error { _, err := Gemini(ctx, "", dir, nil); return err },
		CopilotCommand: func(ctx context.Context) error { _, err := Copilot(ctx, "", dir, nil); return err },
	}
	for what, ask := range asks {
		t.Run(what, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- ask(context.Background()) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "no answer within") || !strings.Contains(err.Error(), what) {
					t.Errorf("error = %v, want one saying %s gave no answer in time", err, what)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s is still waiting for a host that never answers", what)
			}
		})
	}
}
