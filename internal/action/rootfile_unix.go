//go:build unix

package action

import (
	"fmt"
	"os"
	"syscall"
)

// ownedPrivate says why fi, the trusted root file, is not to be trusted:
// it is not owned by the user uid, or its group or others may write it.
func ownedPrivate(fi os.FileInfo, uid int) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("has no owner this system reports")
	}
	if int(st.Uid) != uid {
		return fmt.Errorf("is owned by user id %d, not %d", st.Uid, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("may be written by its group or others (mode %v)", fi.Mode().Perm())
	}
	return nil
}
