//go:build unix

package hostfile

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ccski/ccski/internal/safefile"
)

// TestReadFIFO checks that a settings file that is a named pipe is
// refused at once, not waited on.
func TestReadFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	_, found, err := Read(fifo)
	if !found || !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("Read = found %v, error %v; want found and %v", found, err, safefile.ErrNotRegular)
	}
}
