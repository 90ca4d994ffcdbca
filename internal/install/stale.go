package install

import (
	"time"

	"github.com/ccski/ccski/internal/safefile"
)

// staleAfter is how old a staging folder without its lock file must be
// before Recover deletes it: the lock file is made right after the folder.
// Where files cannot be locked, a folder is left an hour, as a run may
// still be writing it.
var staleAfter = func() time.Duration {
	if safefile.CanLock {
		return time.Minute
	}
	return time.Hour
}()
