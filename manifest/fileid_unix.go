//go:build unix && !linux

package manifest

import (
	"io/fs"
	"syscall"
)

// idOf reads a file's identity from its stat: size, modification time,
// inode and device. The change time is left out: its field is named
// differently on each of these systems.
func idOf(st fs.FileInfo) fileID {
	id := fileID{size: st.Size(), mtime: st.ModTime().UnixNano()}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		id.ino = uint64(s.Ino)
		id.dev = uint64(s.Dev)
	}
	return id
}

// changeTimesRead is false: idOf does not read change times here, so a
// folder whose modification time was set back after an entry was added
// would look unchanged: folder listings are not cached (see dirNode).
const changeTimesRead = false
