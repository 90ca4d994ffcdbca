//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// lockable: temporary files are locked while they are written.
const lockable = true

// CanLock reports whether files can be locked here (LockFile).
const CanLock = lockable

// lock takes an exclusive lock on f, held until f is closed (or its
// process ends, however it ends).
func lock(f *os.File) error { return flock(f, syscall.LOCK_EX) }

// flock is syscall.Flock, retried when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// LockFile takes an exclusive lock on the file path (made with perm if
// missing, its folder too), held until release is called or the process
// ends, however it ends. When another process holds it, wait (when not
// nil) is called once before blocking. Where files cannot be locked, it
// only makes the folder.
func LockFile(path string, perm os.FileMode, wait func()) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, perm)
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

// LockDirs takes an exclusive lock on each folder of dirs, which must
// exist, held until release is called or the process ends, however it
// ends. The folder itself is locked, not a file in it: nothing is left
// behind, and a file of the folder replaced by a rename stays covered.
// Each folder is locked once, by its real path, in sorted order, so that
// two callers locking overlapping sets never wait on each other in a
// circle. When another process holds a folder's lock, wait (when not nil)
// is called with that folder before blocking until it is free. Where files
// cannot be locked, it does nothing.
func LockDirs(dirs []string, wait func(dir string)) (release func(), err error) {
	var held []*os.File
	release = func() {
		for _, f := range held {
			f.Close()
		}
		held = nil
	}
	reals, err := realDirs(dirs)
	if err != nil {
		return nil, err
	}
	for _, dir := range reals {
		f, err := os.Open(dir)
		if err == nil {
			err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
			if errors.Is(err, syscall.EWOULDBLOCK) {
				if wait != nil {
					wait(dir)
				}
				err = flock(f, syscall.LOCK_EX)
			}
			if err != nil {
				f.Close()
			}
		}
		if err != nil {
			release()
			return nil, lockDirError(dir, err)
		}
		held = append(held, f)
	}
	return release, nil
}

// realDirs resolves each folder of dirs to its real path, sorted, each
// once.
func realDirs(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, lockDirError(d, err)
		}
		out = append(out, real)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// lockDirError is the error of LockDirs for the folder dir: what went
// wrong, why ccski locks it, and what to do.
func lockDirError(dir string, err error) error {
	return fmt.Errorf("cannot lock the folder %s: %w; ccski locks the folder of a file it edits so that two runs "+
		"do not lose each other's change, and changed nothing: make sure the folder exists and you may read it, "+
		"then run the command again", dir, Cause(err))
}

// LockShared takes a shared lock on the file path (made with perm if
// missing), held until release is called or the process ends: a reader
// says it uses something, and LockedElsewhere then reports true to whoever
// would remove it. Shared locks do not exclude each other.
func LockShared(path string, perm os.FileMode) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, perm)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := flock(f, syscall.LOCK_SH); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// LockedElsewhere reports whether another process holds the lock of the
// file path.
func LockedElsewhere(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil
}

// removeIfUnused removes the temporary file p unless a writer holds its
// lock; old does not matter where files can be locked.
func removeIfUnused(p string, old bool) {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // in use
	}
	// Still the same file: not one made again under the same name.
	if fst, err1 := f.Stat(); err1 == nil {
		if st, err2 := os.Lstat(p); err2 == nil && os.SameFile(fst, st) {
			os.Remove(p)
		}
	}
}
