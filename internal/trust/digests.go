package trust

import (
	"os"
	"path/filepath"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/userdirs"
)

// The digest and integrity caches let one-shot commands (ccski list,
// sources) check integrity without hashing every project and plugin skill
// again, or reading the store when nothing changed: the digests and folder
// listings of the last run (see manifest.Cache) and the integrity it
// found (see Results) are kept in the user's cache folder. A file is
// hashed again only when its stat changed, a folder read again only when
// its stat changed, and the store read only when its stamp or a folder's
// files changed. They are caches: a missing, unreadable or stale file only
// costs work.

// The names of the cache files in ccski's user cache folder. legacyDigests
// is the JSON digest cache of earlier versions, removed when the new one
// is written.
const (
	digestsName   = "manifests.bin"
	resultsName   = "integrity.bin"
	legacyDigests = "digests.json"
)

// DigestCachePath is the digest cache file; "" when there is no user
// cache folder.
func DigestCachePath() string {
	return userdirs.Cache(digestsName)
}

// ResultsCachePath is the integrity cache file; "" when there is no user
// cache folder.
func ResultsCachePath() string {
	return userdirs.Cache(resultsName)
}

// LoadCaches gives c a digest cache and results read from the files
// digests and results: what the last check that kept them there left, so
// that only changed files are hashed and the store is read only when
// something changed.
func (c *Checker) LoadCaches(digests, results string) {
	c.Cache, c.Results = manifest.NewCache(), &Results{}
	// A missing or bad cache is ignored: hashing and comparing again is
	// correct.
	if digests != "" {
		_ = c.Cache.LoadFile(digests)
	}
	if results != "" {
		_ = c.Results.LoadFile(results)
	}
}

// SaveCaches writes what changed of c's digests and results to the files
// digests and results. A failure costs only work at the next check.
func (c *Checker) SaveCaches(digests, results string) error {
	if c.Cache.Changed() && digests != "" {
		if err := c.Cache.SaveFile(digests); err != nil {
			return err
		}
		if filepath.Base(digests) == digestsName {
			_ = os.Remove(filepath.Join(filepath.Dir(digests), legacyDigests)) // the old form, never read again
		}
	}
	if c.Results.Changed() && results != "" {
		return c.Results.SaveFile(results)
	}
	return nil
}
