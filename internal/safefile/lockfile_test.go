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
// waiting on itself, a free folder is taken without waiting, and release
// frees every one. A folder that cannot be locked is an error naming it
// and saying what to do.
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
	release, err := LockDirs([]string{b, a, alias, a}, func(dir string) { t.Errorf("waited for the free folder %s", dir) })
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
	_, err = LockDirs([]string{filepath.Join(base, "missing")}, nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(base, "missing")) || !strings.Contains(err.Error(), "run the command again") {
		t.Errorf("a missing folder: got %v, want an error naming it and saying what to do", err)
	}
}

// TestLockDirsWaits: a folder another process holds is waited for, and
// wait is told which folder before LockDirs blocks; the lock is taken once
// the holder lets it go.
func TestLockDirsWaits(t *testing.T) {
	a := t.TempDir()
	holder, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	waited := make(chan string, 1)
	done := make(chan func(), 1)
	go func() {
		release, err := LockDirs([]string{a}, func(dir string) { waited <- dir })
		if err != nil {
			t.Error(err)
		}
		done <- release
	}()
	select {
	case dir := <-waited:
		if real, _ := filepath.EvalSymlinks(a); dir != real {
			t.Errorf("wait was told %s, want %s", dir, real)
		}
	case <-done:
		t.Fatal("LockDirs took a folder another process holds")
	case <-time.After(time.Minute):
		t.Fatal("LockDirs did not call wait for a held folder")
	}
	holder.Close()
	select {
	case release := <-done:
		if release != nil {
			release()
		}
	case <-time.After(time.Minute):
		t.Fatal("LockDirs did not take the folder once it was free")
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
