//go:build !unix

package scan

import "io/fs"

// sysStamp adds nothing here: size and modification time are all a stat
// is read for.
func sysStamp(*stamp, fs.FileInfo) {}
