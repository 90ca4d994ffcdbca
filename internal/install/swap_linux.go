package install

import "golang.org/x/sys/unix"

// exchange swaps the paths a and b in one step (renameat2 with
// RENAME_EXCHANGE), so that b is at no moment missing. It is a variable
// so that tests can take the fallback of other systems.
var exchange = func(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
