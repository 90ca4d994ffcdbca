//go:build !unix

package manifest

import "io/fs"

// idOf reads a file's identity from its stat: size and modification time.
func idOf(st fs.FileInfo) fileID {
	return fileID{size: st.Size(), mtime: st.ModTime().UnixNano()}
}
