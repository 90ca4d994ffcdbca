//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package safefile

import "os"

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
