//go:build !unix

package manifest

import "io/fs"

// idOf reads a file's identity from its stat: size and modification time.
func idOf(st fs.FileInfo) fileID {
	return fileID{size: st.Size(), mtime: st.ModTime().UnixNano()}
}

// changeTimesRead is false: idOf does not read change times here, so a
// folder whose modification time was set back after an entry was added
// would look unchanged: folder listings are not cached (see dirNode).
const changeTimesRead = false
