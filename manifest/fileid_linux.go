package manifest

import (
	"io/fs"
	"syscall"
)

// idOf reads a file's identity from its stat: size, modification and
// change times, inode and device.
func idOf(st fs.FileInfo) fileID {
	id := fileID{size: st.Size(), mtime: st.ModTime().UnixNano()}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		id.ctime = s.Ctim.Nano()
		id.ino = s.Ino
		id.dev = uint64(s.Dev) // uint32 on some architectures
	}
	return id
}

// changeTimesRead is true: idOf reads change times, which no user-space
// call can set back, so folder listings are cached (see dirNode).
const changeTimesRead = true
