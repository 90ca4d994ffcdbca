package filestamp

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// ChangeTimesRead reports whether this system's stamps hold change times.
const ChangeTimesRead = true

func sysStamp(s *Stamp, st fs.FileInfo) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ctime = sys.Ctim.Nano()
		s.ino = sys.Ino
		s.dev = uint64(sys.Dev) // uint32 on some architectures
	}
}

// FromUnix is Of for a raw stat (fstatat): the same fields, read from the
// same structure os.Stat reads them from.
func FromUnix(st *unix.Stat_t) Stamp {
	return Stamp{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino, dev: uint64(st.Dev)}
}
