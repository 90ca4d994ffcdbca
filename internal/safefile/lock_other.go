//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package safefile

import (
	"os"
	"path/filepath"
)

// lockable: files cannot be locked here.
const lockable = false

// lock does nothing where files cannot be locked.
func lock(*os.File) error { return nil }

// removeIfUnused removes the temporary file p when it is old: a write
// takes far less than staleAge, so an old one is no longer in use.
func removeIfUnused(p string, old bool) {
	if old {
		os.Remove(p)
	}
}

// CanLock reports whether files can be locked here (LockFile): not here.
const CanLock = lockable

// LockFile only makes the folder of path: files cannot be locked here.
func LockFile(path string, perm os.FileMode, wait func()) (release func(), err error) {
	return func() {}, os.MkdirAll(filepath.Dir(path), 0o755)
}

// LockShared does nothing: files cannot be locked here.
func LockShared(path string, perm os.FileMode) (release func(), err error) {
	return func() {}, nil
}

// LockedElsewhere reports false: files cannot be locked here.
func LockedElsewhere(path string) bool { return false }

// LockDirs does nothing where files cannot be locked: two runs that edit
// one file at the same time are not kept apart (see LockDirs where they
// can be).
func LockDirs(dirs []string, wait func(dir string)) (release func(), err error) {
	return func() {}, nil
}
