//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockFile checks that a lock file is made with its folder, that a
// held lock is seen from another open file and makes a second locker call
// wait before it blocks, and that release frees it.
func TestLockFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "run.lck")
	release, err := LockFile(p, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !LockedElsewhere(p) {
		t.Fatal("a held lock is not seen")
	}
	waited := make(chan struct{})
	got := make(chan func(), 1)
	go func() {
		r, err := LockFile(p, 0o600, func() { close(waited) })
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("a second locker did not call wait while the lock was held")
	}
	select {
	case <-got:
		t.Fatal("a second locker took a held lock")
	case <-time.After(100 * time.Millisecond):
	}
	release()
	second := <-got
	if !LockedElsewhere(p) {
		t.Error("the second locker does not hold the lock after the first released it")
	}
	second()
	if LockedElsewhere(p) {
		t.Error("a released lock is still seen as held")
	}
}

// TestLockDirs: the folders are locked (another open of one cannot take
// it), a folder named twice or through a link is locked once rather than
// waiting on itself, and release frees every one.
func TestLockDirs(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(a, alias); err != nil {
		t.Fatal(err)
	}
	release, err := LockDirs([]string{b, a, alias, a})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{a, b} {
		if !dirLocked(t, d) {
			t.Errorf("%s is not locked", d)
		}
	}
	release()
	for _, d := range []string{a, b} {
		if dirLocked(t, d) {
			t.Errorf("%s is still locked after release", d)
		}
	}
	if _, err := LockDirs([]string{filepath.Join(base, "missing")}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing folder: got %v, want an error naming it", err)
	}
}

// dirLocked reports whether another open of the folder dir cannot take
// its lock.
func dirLocked(t *testing.T, dir string) bool {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil
}
