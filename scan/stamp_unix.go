//go:build unix && !linux

package scan

import (
	"io/fs"
	"syscall"
)

// sysStamp adds what st says beyond size and modification time: the inode
// and device. The change time is left out: its field is named differently
// on each of these systems.
func sysStamp(s *stamp, st fs.FileInfo) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ino = uint64(sys.Ino)
		s.dev = uint64(sys.Dev)
	}
}
