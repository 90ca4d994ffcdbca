package manifest

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/internal/filestamp"
)

// The file form of a Cache: a one-shot command (ccski list) that checks
// digests keeps them between runs, with the folder listings, so that only
// files whose stat changed are hashed again and only folders whose stat
// changed are read again. A cache loaded from a file is checked like one
// filled in this process: every folder and file is stated, and an entry
// whose stat differs is not used.
//
// It is a binenc.Format with no header and two tables: the folder
// listings (Listings.Table), then the digests, each file's stat and the
// 32 bytes of its SHA-256, by the path its bytes were read at; then the
// tables its user keeps beside them (SaveFile's extra: the MCP server's
// frontmatter of each SKILL.md by digest), which a load must ask for.
var cacheFormat = binenc.Format{Name: "digest cache", Magic: "ccski manifest cache\n", Version: 3}

// digestsTable is the digest table of the file form; DecodeTable gives
// entries of generation gen.
func digestsTable(rows map[string]entry, gen uint64) *binenc.Rows[entry] {
	return &binenc.Rows[entry]{
		Rows: rows,
		Put: func(e *binenc.Encoder, f entry) {
			f.id.Encode(e)
			sum, _ := hex.DecodeString(strings.TrimPrefix(f.digest, "sha256:")) // always well formed: hashFile wrote it
			e.Bytes(sum)
		},
		Get: func(d *binenc.Decoder, p string) entry {
			if !filepath.IsAbs(p) {
				d.Fail(fmt.Errorf("path %q is not absolute", p))
			}
			id := filestamp.Decode(d)
			return entry{id: id, digest: formatDigest(d.Bytes(32)), gen: gen}
		},
	}
}

// SaveFile writes the cached digests and listings to the file path,
// atomically, and after them the tables extra. Past maxPersisted of
// either, only those the current generation looked at are written.
func (c *Cache) SaveFile(path string, extra ...binenc.Table) error {
	c.mu.Lock()
	rows := persisted(c.entries, c.gen, func(e entry) uint64 { return e.gen })
	c.mu.Unlock()
	tables := append([]binenc.Table{c.listings.Table(), digestsTable(rows, 0)}, extra...)
	if err := cacheFormat.Save(path, nil, tables...); err != nil {
		return err
	}
	c.changed.Store(false)
	c.listings.changed.Store(false)
	return nil
}

// LoadFile adds the digests and listings SaveFile wrote to the file path
// to the cache, and reads the tables extra (those SaveFile was given, in
// the same order). A file of another version or form, or one that does
// not decode, is an error and adds nothing. What this process cached
// already is kept.
func (c *Cache) LoadFile(path string, extra ...binenc.Table) error {
	c.mu.Lock()
	gen := c.gen - 1 // not looked at in this generation yet
	c.mu.Unlock()
	digests := digestsTable(nil, gen)
	tables := append([]binenc.Table{c.listings.Table(), digests}, extra...)
	if err := cacheFormat.Load(path, nil, tables...); err != nil {
		return err
	}
	c.mu.Lock()
	c.entries = digests.Into(c.entries)
	c.mu.Unlock()
	return nil
}
