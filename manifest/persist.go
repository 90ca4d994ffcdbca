package manifest

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// persisted is the file form of a Cache: a one-shot command (ccski list)
// that checks digests keeps them between runs, so that only files whose
// stat changed are hashed again.
type persisted struct {
	Version int              `json:"version"`
	Entries []persistedEntry `json:"entries"`
}

type persistedEntry struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	MTime  int64  `json:"mtime"`
	CTime  int64  `json:"ctime"`
	Ino    uint64 `json:"ino"`
	Dev    uint64 `json:"dev"`
	Digest string `json:"digest"`
}

// persistVersion is the version of the file form.
const persistVersion = 1

// maxPersisted caps the entries Save writes: past it, only the entries
// the current generation looked at are kept.
const maxPersisted = 200_000

// Save writes the cached digests to w.
func (c *Cache) Save(w io.Writer) error {
	c.mu.Lock()
	out := persisted{Version: persistVersion, Entries: make([]persistedEntry, 0, len(c.entries))}
	recentOnly := len(c.entries) > maxPersisted
	for p, e := range c.entries {
		if recentOnly && e.gen != c.gen {
			continue
		}
		out.Entries = append(out.Entries, persistedEntry{Path: p, Size: e.id.size, MTime: e.id.mtime, CTime: e.id.ctime,
			Ino: e.id.ino, Dev: e.id.dev, Digest: e.digest})
	}
	c.mu.Unlock()
	return json.NewEncoder(w).Encode(out)
}

// Load adds the digests Save wrote to the cache. A file of another
// version, or one that does not decode, is an error and adds nothing;
// an entry with a malformed digest is skipped. A file's stat is checked
// against its entry before the digest is used, as for any cached digest.
func (c *Cache) Load(r io.Reader) error {
	var in persisted
	if err := json.NewDecoder(r).Decode(&in); err != nil {
		return fmt.Errorf("digest cache: %w", err)
	}
	if in.Version != persistVersion {
		return fmt.Errorf("digest cache: version %d, not %d", in.Version, persistVersion)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]entry{}
	}
	for _, e := range in.Entries {
		if !validDigest(e.Digest) || e.Path == "" {
			continue
		}
		if _, ok := c.entries[e.Path]; ok {
			continue // what this process saw wins
		}
		c.entries[e.Path] = entry{id: fileID{size: e.Size, mtime: e.MTime, ctime: e.CTime, ino: e.Ino, dev: e.Dev},
			digest: e.Digest, gen: c.gen - 1}
	}
	return nil
}

// validDigest reports whether d is "sha256:" and 64 lower-case hex digits.
func validDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range hex {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
