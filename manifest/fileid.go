package manifest

import (
	"io/fs"
	"time"

	"github.com/ccski/ccski/internal/binenc"
)

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

// Stamp is what a stat says about a file: its size, modification and
// change times, inode and device, as a digest is cached by (see Cache). A
// write to the file, or a file renamed over it, changes it, with the
// exceptions Settled leaves out. Stamps compare with ==.
type Stamp struct{ id fileID }

// StampOf returns the stamp of a file from its stat.
func StampOf(st fs.FileInfo) Stamp { return Stamp{idOf(st)} }

// Settled reports whether any later change to the file is sure to change
// its stamp: change times are read on this system (a write or rename sets
// them to the current time, and no user-space call can set them back),
// and the file's times are at least racyWindow before now, so that a
// change within the same tick of the file system's clock cannot leave them
// as they are.
func (s Stamp) Settled(now time.Time) bool {
	return changeTimesRead && now.Sub(s.id.latest()) >= racyWindow
}

// Encode appends the stamp to e.
func (s Stamp) Encode(e *binenc.Encoder) { encodeID(e, s.id) }

// DecodeStamp reads a stamp Encode wrote.
func DecodeStamp(d *binenc.Decoder) Stamp { return Stamp{decodeID(d)} }
