//go:build unix

package action

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadForInfoFIFO: a FIFO named SKILL.md (put there after the scan)
// is refused at once, with or without --full. A plain os.ReadFile would
// wait for a writer forever; the context only keeps a regression from
// hanging the test.
func TestReadForInfoFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "SKILL.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	for _, full := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		done := make(chan error, 1)
		go func() {
			_, _, _, err := readForInfo(fifo, full)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "named pipe (FIFO)") {
				t.Errorf("readForInfo(FIFO, full=%v): %v, want an error naming the file and what it is", full, err)
			}
		case <-ctx.Done():
			t.Fatalf("readForInfo(full=%v) blocked on a FIFO", full)
		}
		cancel()
	}
}
