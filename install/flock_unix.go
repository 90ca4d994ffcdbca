//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockFile takes an exclusive lock on the file path (made if missing),
// held until release is called or the process ends, however it ends.
// When another process holds it, wait (when not nil) is called once
// before blocking.
func lockFile(path string, wait func()) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		if wait != nil {
			wait()
		}
		if err := flock(f, syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
	}
	return func() { f.Close() }, nil
}

// flock is syscall.Flock, retried when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// lockedElsewhere reports whether another process holds the lock of the
// file path.
func lockedElsewhere(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil
}

// canLock: files can be locked here.
const canLock = true

// staleAfter is how old a staging folder without its lock file must be
// before Recover deletes it: the lock file is made right after the
// folder.
const staleAfter = time.Minute
