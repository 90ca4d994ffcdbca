//go:build unix

package skillmd

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadBodyFIFO: a FIFO with no writer is refused at once, not waited
// on.
func TestReadBodyFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "SKILL.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadBody(fifo, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("err %v, want not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadBody blocked on a FIFO")
	}
}
