//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package safefile

import (
	"errors"
	"os"
	"syscall"
)

// lockable: temporary files are locked while they are written.
const lockable = true

// lock takes an exclusive lock on f, held until f is closed (or its
// process ends, however it ends).
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// removeIfUnused removes the temporary file p unless a writer holds its
// lock; old does not matter where files can be locked.
func removeIfUnused(p string, old bool) {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // in use
	}
	// Still the same file: not one made again under the same name.
	if fst, err1 := f.Stat(); err1 == nil {
		if st, err2 := os.Lstat(p); err2 == nil && os.SameFile(fst, st) {
			os.Remove(p)
		}
	}
}
