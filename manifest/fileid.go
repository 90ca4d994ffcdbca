package manifest

import "time"

// fileID is what a stat says about a file's content: when any part of it
// changes, the file is hashed again. Fields a system does not report are
// zero.
type fileID struct {
	size  int64
	mtime int64 // modification time, ns since the epoch
	ctime int64 // change time (inode change), ns since the epoch
	ino   uint64
	dev   uint64
}

// latest is the later of the modification and change times.
func (id fileID) latest() time.Time {
	return time.Unix(0, max(id.mtime, id.ctime))
}
