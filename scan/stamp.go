package scan

import (
	"io/fs"
	"time"
)

// stamp is what a stat says about a file or folder, as the cache keys its
// readings and listings by: size, modification and change times, inode
// and device. Fields a system does not report are zero. Stamps compare
// with ==.
//
// A write to a file, or an entry added to or removed from a folder, sets
// both times to the current time. The modification time alone can be set
// back from user space (touch -d, cp -p, rsync -t, an editor that keeps
// it), so that an edit that kept a file's size, or a folder's new entry,
// would go unseen were the cache keyed by it alone; the change time cannot
// be set back (utimensat sets it to now), and a file renamed over another
// has another inode. Where change times are read (Linux), any change made
// after a reading therefore changes the stamp, unless it falls within the
// same tick of the file system's clock as the change before the reading.
// Ordinary writes leave the modification time that recent, and racy keeps
// such readings out of the cache. What can still go unseen is a second
// change within that tick that again sets the modification time back, a
// few milliseconds where the clock is coarse (kernels from 6.13 give a
// file whose times were read since its last change a fine-grained change
// time, which closes even that).
// Counting the change time in racy would close that too, but would keep
// every file whose times a tool has just set back out of the cache for
// two seconds: every tree written by a test or a benchmark, which ages
// its files.
type stamp struct {
	size  int64
	mtime int64 // ns since the epoch
	ctime int64 // ns since the epoch
	ino   uint64
	dev   uint64
}

// stampOf returns the stamp of a file from its stat.
func stampOf(st fs.FileInfo) stamp {
	s := stamp{size: st.Size(), mtime: st.ModTime().UnixNano()}
	sysStamp(&s, st)
	return s
}

// modTime is the stamp's modification time.
func (s stamp) modTime() time.Time { return time.Unix(0, s.mtime) }
