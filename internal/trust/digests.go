package trust

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
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

// maxDigestCache caps the cache files read.
const maxDigestCache = 64 << 20

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

// LoadResults fills r from the integrity cache file, if there is a usable
// one.
func LoadResults(r *Results, path string) {
	if path == "" {
		return
	}
	data, err := safefile.Read(path, maxDigestCache)
	if err != nil {
		return
	}
	_ = r.Decode(data) // a bad cache is ignored: comparing again is correct
}

// SaveResults writes r to the integrity cache file, atomically; a failure
// only means the next run reads the store.
func SaveResults(r *Results, path string) error {
	if path == "" {
		return nil
	}
	return safefile.WriteAtomic(path, r.Encode(), 0o600)
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
	if err := safefile.WriteAtomic(path, b.Bytes(), 0o600); err != nil {
		return err
	}
	if filepath.Base(path) == digestsName {
		_ = os.Remove(filepath.Join(filepath.Dir(path), legacyDigests)) // the old form, never read again
	}
	return nil
}

// LoadCaches gives c a digest cache and results read from the files
// digests and results: what the last check that kept them there left, so
// that only changed files are hashed and the store is read only when
// something changed.
func (c *Checker) LoadCaches(digests, results string) {
	c.Cache, c.Results = manifest.NewCache(), &Results{}
	LoadDigests(c.Cache, digests)
	LoadResults(c.Results, results)
}

// SaveCaches writes what changed of c's digests and results to the files
// digests and results. A failure costs only work at the next check.
func (c *Checker) SaveCaches(digests, results string) error {
	if c.Cache.Changed() {
		if err := SaveDigests(c.Cache, digests); err != nil {
			return err
		}
	}
	if c.Results.Changed() {
		return SaveResults(c.Results, results)
	}
	return nil
}
