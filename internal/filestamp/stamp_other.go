//go:build !unix

package filestamp

import "io/fs"

// ChangeTimesRead reports whether this system's stamps hold change times:
// not here, where size and modification time are all a stat is read for.
const ChangeTimesRead = false

func sysStamp(*Stamp, fs.FileInfo) {}
