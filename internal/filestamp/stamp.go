// Package filestamp is what ccski's caches know of a file from its stat:
// size, modification and change times, inode and device. Discovery's
// cache, skill manifests, the integrity results and the security scan
// reuse what they read of a file while its stamp is unchanged.
//
// A write to a file, or a file renamed over it, sets its change time to
// the current time, and no user-space call can set a change time back: so
// a stamp read where change times are read (ChangeTimesRead) changes with
// every change, except two changes within one tick of the file system's
// clock, which Settled leaves out. Fields a system does not report are
// zero.
package filestamp

import (
	"io/fs"
	"time"

	"github.com/ccski/ccski/internal/binenc"
)

// Stamp is what a stat says about a file. Stamps compare with ==.
type Stamp struct {
	size  int64
	mtime int64 // modification time, ns since the epoch
	ctime int64 // change time (inode change), ns since the epoch
	ino   uint64
	dev   uint64
}

// Window is how old a file's times must be before a change within the
// same tick of the file system's clock is sure to show in them.
const Window = 2 * time.Second

// Of returns the stamp of a file from its stat.
func Of(st fs.FileInfo) Stamp {
	s := Stamp{size: st.Size(), mtime: st.ModTime().UnixNano()}
	sysStamp(&s, st)
	return s
}

// Size is the file's size.
func (s Stamp) Size() int64 { return s.size }

// ModTime is the file's modification time.
func (s Stamp) ModTime() time.Time { return time.Unix(0, s.mtime) }

// Latest is the later of the modification and change times.
func (s Stamp) Latest() time.Time { return time.Unix(0, max(s.mtime, s.ctime)) }

// Settled reports whether any later change to the file is sure to change
// its stamp: change times are read on this system, and the file's times
// are at least Window before now.
func (s Stamp) Settled(now time.Time) bool {
	return ChangeTimesRead && now.Sub(s.Latest()) >= Window
}

// Encode appends the stamp to e.
func (s Stamp) Encode(e *binenc.Encoder) {
	e.Varint(s.size)
	e.Varint(s.mtime)
	e.Varint(s.ctime)
	e.Uvarint(s.ino)
	e.Uvarint(s.dev)
}

// Decode reads a stamp Encode wrote.
func Decode(d *binenc.Decoder) Stamp {
	return Stamp{size: d.Varint(), mtime: d.Varint(), ctime: d.Varint(), ino: d.Uvarint(), dev: d.Uvarint()}
}
