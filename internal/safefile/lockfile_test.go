//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package safefile

import (
	"path/filepath"
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
