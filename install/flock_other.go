//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package install

import "time"

// lockFile does nothing where files cannot be locked.
func lockFile(path string, wait func()) (release func(), err error) { return func() {}, nil }

// lockedElsewhere cannot tell here: Recover goes by age alone.
func lockedElsewhere(path string) bool { return false }

// canLock: files cannot be locked here.
const canLock = false

// staleAfter is how old a staging folder must be before Recover deletes
// it; with no locks, only age tells that no run still writes it.
const staleAfter = time.Hour
