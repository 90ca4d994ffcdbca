package trust

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/manifest"
)

// The digest cache lets one-shot commands (ccski list, sources) check
// integrity without hashing every project and plugin skill again: the
// digests of the last run are kept in the user's cache folder, and a file
// is hashed again only when its stat changed (see manifest.Cache). It is
// a cache: a missing, unreadable or stale file only costs hashing.

// maxDigestCache caps the digest cache file read.
const maxDigestCache = 64 << 20

// DigestCachePath is the digest cache file, under the user's cache folder
// ($XDG_CACHE_HOME or ~/.cache on Linux); "" when there is none.
func DigestCachePath() string {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "ccski", "digests.json")
}

// LoadDigests fills c from the digest cache file, if there is a usable one.
func LoadDigests(c *manifest.Cache, path string) {
	if path == "" {
		return
	}
	data, err := safefile.Read(path, maxDigestCache)
	if err != nil {
		return
	}
	_ = c.Load(bytes.NewReader(data)) // a bad cache is ignored: hashing again is correct
}

// SaveDigests writes c to the digest cache file, atomically; a failure
// only means the next run hashes again.
func SaveDigests(c *manifest.Cache, path string) error {
	if path == "" {
		return nil
	}
	var b bytes.Buffer
	if err := c.Save(&b); err != nil {
		return err
	}
	return safefile.WriteAtomic(path, b.Bytes(), 0o600)
}
