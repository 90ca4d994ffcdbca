//go:build unix

package configs

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProjectConfigFIFO checks that a ccski.yaml that is a named pipe is
// refused with an error naming it, instead of blocking every command: a
// FIFO can be planted in any repository a user opens.
func TestProjectConfigFIFO(t *testing.T) {
	ws := tempDir(t)
	file := filepath.Join(ws, "ccski.yaml")
	if err := syscall.Mkfifo(file, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := loadBuiltin(options(t, ws))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), file) {
			t.Fatalf("Load with a FIFO ccski.yaml: err = %v, want an error naming %s", err, file)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("Load blocked on a FIFO ccski.yaml")
	}
}
