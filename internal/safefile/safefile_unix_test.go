//go:build unix

package safefile

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFiles: a FIFO with no writer, a socket and a device are
// refused at once, by every reader, naming what they are. A plain
// os.ReadFile of the FIFO would wait for a writer forever; the context
// only keeps a regression from hanging the test run.
func TestSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "SKILL.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	sock := filepath.Join(t.TempDir(), "SKILL.md")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("listen on a socket: %v", err)
	}
	defer ln.Close()
	readers := map[string]func(string) error{
		"Read": func(f string) error { _, err := Read(f, MiB); return err },
		"ReadPrefix": func(f string) error {
			_, _, err := ReadPrefix(f, MiB)
			return err
		},
		"Open": func(f string) error {
			file, _, err := Open(f)
			if err == nil {
				file.Close()
			}
			return err
		},
	}
	for _, tt := range []struct {
		file, kind string
	}{
		{fifo, "named pipe (FIFO)"},
		{sock, "socket"},
		{"/dev/null", "device"},
	} {
		for name, read := range readers {
			t.Run(name+"/"+tt.kind, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				done := make(chan error, 1)
				go func() { done <- read(tt.file) }()
				select {
				case err := <-done:
					if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "it is a "+tt.kind+", not a regular file") {
						t.Errorf("%s(%s): %v, want it refused as a %s", name, tt.file, err, tt.kind)
					}
				case <-ctx.Done():
					t.Fatalf("%s blocked on %s", name, tt.file)
				}
			})
		}
	}
}
