//go:build unix && !linux

package filestamp

import (
	"io/fs"
	"syscall"
)

// ChangeTimesRead reports whether this system's stamps hold change times:
// not here, where the change time's field is named differently on each
// system.
const ChangeTimesRead = false

func sysStamp(s *Stamp, st fs.FileInfo) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ino = uint64(sys.Ino)
		s.dev = uint64(sys.Dev)
	}
}
