// Package userdirs names ccski's folder in the user's cache folder, where
// ccski keeps what it can always compute again: digests, integrity
// results, the scanner's memory, git checkouts.
package userdirs

import (
	"os"
	"path/filepath"
)

// Cache is the path of name in ccski's cache folder ($XDG_CACHE_HOME/ccski
// or ~/.cache/ccski on Linux); "" when the system names no user cache
// folder.
func Cache(name string) string {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "ccski", name)
}
