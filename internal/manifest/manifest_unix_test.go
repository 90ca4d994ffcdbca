//go:build unix

package manifest

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// TestBuildSpecialFiles: a FIFO and a socket are left out, and symlinks to
// them recorded, without being opened. Opening a FIFO with no writer for reading
// would wait forever; the context only keeps a regression from hanging
// the test run.
func TestBuildSpecialFiles(t *testing.T) {
	dir := testfs.TempDir(t)
	testfs.Write(t, dir, map[string]string{
		"SKILL.md": "s", "to-fifo": "-> scripts/pipe", "to-sock": "-> s.sock", "to-null": "-> /dev/null",
	})
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "scripts", "pipe"), 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "s.sock"))
	if err != nil {
		t.Fatalf("socket: %v", err)
	}
	defer l.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	type result struct {
		m   *Manifest
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := trusting().Build(dir)
		done <- result{m, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("Build: %v", r.err)
		}
		if diff := cmp.Diff(want(map[string]string{"SKILL.md": "s", "to-fifo": "-> scripts/pipe", "to-sock": "-> s.sock",
			"to-null": "-> /dev/null"}), r.m); diff != "" {
			t.Errorf("manifest (-want +got):\n%s", diff)
		}
	case <-ctx.Done():
		t.Fatal("Build blocked on the FIFO")
	}

	// A FIFO given as the skill folder is refused, not opened.
	go func() {
		m, err := trusting().Build(filepath.Join(dir, "scripts", "pipe"))
		done <- result{m, err}
	}()
	select {
	case r := <-done:
		if r.err == nil || !strings.HasSuffix(r.err.Error(), "is a named pipe (FIFO), not a folder") {
			t.Errorf("Build of a FIFO: %v; want it refused as not a folder", r.err)
		}
	case <-ctx.Done():
		t.Fatal("Build blocked on the FIFO given as the skill folder")
	}
}

// TestCacheReplacedFile: a file replaced by another of the same size and
// modification time (an editor's save by rename, a package extracted with
// its times) is a new inode, so it is hashed again.
func TestCacheReplacedFile(t *testing.T) {
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	checkChange(t, old, "text-C", func(t *testing.T, p string) {
		tmp := p + ".new"
		write(t, tmp, "text-C")
		chtimes(t, tmp, old)
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	})
}
