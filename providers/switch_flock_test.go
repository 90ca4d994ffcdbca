//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package providers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// folderLocked reports whether another open of the folder dir cannot take
// its lock.
func folderLocked(t *testing.T, dir string) bool {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil
}

// TestFilesCommitTakesTurns: runs that edit the same file at the same
// time each read it under the lock and edit what they read, so that no
// run's edit is lost.
func TestFilesCommitTakesTurns(t *testing.T) {
	const runs = 16
	file := filepath.Join(t.TempDir(), "cfg", "settings")
	errs := make(chan error, runs)
	for i := range runs {
		go func() {
			fs := NewFiles()
			errs <- fs.Commit(func() {
				if _, err := EditFile(fs, file, func(d []byte) ([]byte, error) {
					return fmt.Appendf(d, "line %d\n", i), nil
				}); err != nil {
					t.Error(err)
				}
			}, nil)
		}()
	}
	for range runs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(file)
	for i := range runs {
		if !strings.Contains(string(got), fmt.Sprintf("line %d\n", i)) {
			t.Errorf("the edit of run %d is lost:\n%s", i, got)
		}
	}
}

// TestFilesCommitLocksWhatItReads: a plan that, under the locks, reads a
// file of a folder it did not read before runs again with that folder
// locked too, and only the run with every folder locked is written.
func TestFilesCommitLocksWhatItReads(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a", "settings"), filepath.Join(base, "b", "settings")
	for _, p := range []string{a, b} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("old\n"), 0o644)
	}
	fs := NewFiles()
	var runs []string
	err := fs.Commit(func() {
		run := fmt.Sprintf("run %d: a locked %v", len(runs)+1, folderLocked(t, filepath.Dir(a)))
		if len(runs) > 0 {
			run += fmt.Sprintf(", b locked %v", folderLocked(t, filepath.Dir(b)))
			if _, _, err := fs.Read(b); err != nil {
				t.Fatal(err)
			}
		}
		runs = append(runs, run)
		if _, err := EditFile(fs, a, func([]byte) ([]byte, error) { return []byte(run + "\n"), nil }); err != nil {
			t.Fatal(err)
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run 1: a locked false", "run 2: a locked true, b locked false", "run 3: a locked true, b locked true"}
	if strings.Join(runs, "; ") != strings.Join(want, "; ") {
		t.Errorf("runs:\n%s\nwant\n%s", strings.Join(runs, "\n"), strings.Join(want, "\n"))
	}
	if got, _ := os.ReadFile(a); string(got) != want[2]+"\n" {
		t.Errorf("written: %q, want the last run's edit", got)
	}
	if folderLocked(t, filepath.Dir(a)) || folderLocked(t, filepath.Dir(b)) {
		t.Error("a folder is still locked after Commit")
	}
}

// lineWriter sends each write to a channel.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// TestFilesCommitHoldsAndWaits: a folder a plan holds is locked though no
// file of it changes, then runs under that lock, and a folder another run
// holds is waited for with one notice naming it.
func TestFilesCommitHoldsAndWaits(t *testing.T) {
	dir := t.TempDir()
	holder, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	notices := make(lineWriter, 4)
	fs := NewFiles()
	fs.Notices = notices
	done := make(chan error, 1)
	lockedInThen := false
	go func() {
		done <- fs.Commit(func() { fs.Hold(dir) }, func() error {
			lockedInThen = folderLocked(t, dir)
			return nil
		})
	}()
	select {
	case n := <-notices:
		real, _ := filepath.EvalSymlinks(dir)
		if !strings.Contains(n, "waiting for another ccski run") || !strings.Contains(n, real) {
			t.Errorf("notice: %q", n)
		}
	case err := <-done:
		t.Fatalf("Commit went on while another run held the folder: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no notice while another run held the folder")
	}
	holder.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Commit did not go on once the folder was free")
	}
	if !lockedInThen {
		t.Error("then ran without the held folder's lock")
	}
	if len(notices) != 0 {
		t.Errorf("more notices: %q", <-notices)
	}
}
