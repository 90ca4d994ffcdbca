//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package safefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteKeepsLockedTemps: a temporary file whose writer is still at
// work (it holds its lock) is not taken away by another write.
func TestWriteKeepsLockedTemps(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	busy := filepath.Join(dir, ".settings.json.ccski-busy")
	write(t, busy, []byte("half"))
	f, err := os.OpenFile(busy, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(file, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(busy); err != nil {
		t.Errorf("a temporary file in use was removed: %v", err)
	}
}
