package manifest

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
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
// It is binary, to decode in a few milliseconds at tens of thousands of
// files:
//
//	magic      "ccski manifest cache\n"
//	version    uvarint (persistVersion)
//	folders    uvarint count, then per folder, sorted by path:
//	             path   (prefix coded: uvarint bytes shared with the previous path, uvarint length, bytes)
//	             stat   (varint size, mtime, ctime; uvarint inode, device)
//	             uvarint count, then per entry: kind byte, uvarint length, name
//	files      uvarint count, then per file, sorted by path:
//	             path, stat (as above), the 32 bytes of the SHA-256
const persistMagic = "ccski manifest cache\n"

// persistVersion is the version of the file form.
const persistVersion = 2

// maxPersisted caps the digests (and the listings) Save writes: past it,
// only the ones the current generation looked at are kept.
const maxPersisted = 200_000

// Save writes the cached digests and listings to w.
func (c *Cache) Save(w io.Writer) error {
	type dirOut struct {
		path string
		node dirNode
	}
	type fileOut struct {
		path string
		e    entry
	}
	c.mu.Lock()
	recentDirs, recentFiles := len(c.dirs) > maxPersisted, len(c.entries) > maxPersisted
	dirs := make([]dirOut, 0, len(c.dirs))
	for p, d := range c.dirs {
		if !recentDirs || d.gen == c.gen {
			dirs = append(dirs, dirOut{p, d})
		}
	}
	files := make([]fileOut, 0, len(c.entries))
	for p, e := range c.entries {
		if !recentFiles || e.gen == c.gen {
			files = append(files, fileOut{p, e})
		}
	}
	c.mu.Unlock()
	slices.SortFunc(dirs, func(a, b dirOut) int { return strings.Compare(a.path, b.path) })
	slices.SortFunc(files, func(a, b fileOut) int { return strings.Compare(a.path, b.path) })

	var e binenc.Encoder
	e.Bytes([]byte(persistMagic))
	e.Uvarint(persistVersion)
	e.Uvarint(uint64(len(dirs)))
	prev := ""
	for _, d := range dirs {
		e.Path(prev, d.path)
		prev = d.path
		d.node.id.Encode(&e)
		e.Uvarint(uint64(len(d.node.entries)))
		for _, l := range d.node.entries {
			e.Byte(byte(l.kind))
			e.String(l.name)
		}
	}
	e.Uvarint(uint64(len(files)))
	prev = ""
	for _, f := range files {
		e.Path(prev, f.path)
		prev = f.path
		f.e.id.Encode(&e)
		sum, err := hex.DecodeString(strings.TrimPrefix(f.e.digest, "sha256:"))
		if err != nil || len(sum) != 32 {
			return fmt.Errorf("digest cache: malformed digest %q of %s", f.e.digest, f.path) // never cached
		}
		e.Bytes(sum)
	}
	if _, err := w.Write(e.B); err != nil {
		return err
	}
	c.changed.Store(false)
	return nil
}

// Load adds the digests and listings Save wrote to the cache. A file of
// another version or form, or one that does not decode, is an error and
// adds nothing. What this process cached already is kept.
func (c *Cache) Load(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("digest cache: %w", err)
	}
	c.mu.Lock()
	gen := c.gen - 1 // not looked at in this generation yet
	c.mu.Unlock()
	dirs, files, err := decodePersisted(data, gen)
	if err != nil {
		return fmt.Errorf("digest cache: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.dirs) == 0 {
		c.dirs = dirs // the usual case, a new Cache: no copy
	} else {
		for p, d := range dirs {
			if _, ok := c.dirs[p]; !ok {
				c.dirs[p] = d
			}
		}
	}
	if len(c.entries) == 0 {
		c.entries = files
	} else {
		for p, e := range files {
			if _, ok := c.entries[p]; !ok {
				c.entries[p] = e
			}
		}
	}
	return nil
}

// decodePersisted decodes what Save wrote, into entries of generation gen.
func decodePersisted(data []byte, gen uint64) (map[string]dirNode, map[string]entry, error) {
	rest, ok := bytes.CutPrefix(data, []byte(persistMagic))
	if !ok {
		return nil, nil, errors.New("not a ccski manifest cache")
	}
	// Names are slices of one string holding the data, rather than an
	// allocation each.
	d := binenc.NewDecoder(rest)
	if v := d.Uvarint(); !d.Failed() && v != persistVersion {
		return nil, nil, fmt.Errorf("version %d, not %d", v, persistVersion)
	}
	path := func(prev string) string {
		p := d.Path(prev)
		if !d.Failed() && !filepath.IsAbs(p) {
			d.Fail(fmt.Errorf("path %q is not absolute", p))
		}
		return p
	}
	n := d.Count()
	dirs := make(map[string]dirNode, n)
	prev := ""
	for range n {
		p := path(prev)
		prev = p
		node := dirNode{id: filestamp.Decode(d), gen: gen}
		k := d.Count()
		node.entries = make([]listed, 0, k)
		for range k {
			kd := kind(d.Byte())
			name := d.Slice()
			if !d.Failed() && (kd < kindFile || kd > kindLink || name == "" || name == "." || name == ".." ||
				strings.ContainsAny(name, "/\x00") || kd == kindDir && Skip(name)) {
				d.Fail(fmt.Errorf("a bad entry %q in the listing of %s", name, p))
			}
			node.entries = append(node.entries, listed{name: name, kind: kd})
		}
		dirs[p] = node
	}
	n = d.Count()
	files := make(map[string]entry, n)
	prev = ""
	for range n {
		p := path(prev)
		prev = p
		id := filestamp.Decode(d)
		if sum := d.Bytes(32); sum != nil {
			files[p] = entry{id: id, digest: formatDigest(sum), gen: gen}
		}
	}
	if err := d.Err(); err != nil {
		return nil, nil, err
	}
	return dirs, files, nil
}
