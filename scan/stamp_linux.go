package scan

import (
	"io/fs"
	"syscall"
)

// sysStamp adds what st says beyond size and modification time: the
// change time, inode and device.
func sysStamp(s *stamp, st fs.FileInfo) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ctime = sys.Ctim.Nano()
		s.ino = sys.Ino
		s.dev = uint64(sys.Dev) // uint32 on some architectures
	}
}
