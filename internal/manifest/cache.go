package manifest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/internal/safefile"
)

// racyWindow is how close to the hash a file's times may be for its digest
// to be cached: a same-size edit within one tick of the file system's clock
// would leave the stat unchanged. It matches the scanner's (package scan).
const racyWindow = filestamp.Window

// Cache builds manifests and keeps the digests of the files it hashed,
// and the listings of the folders it read (Listings). It is safe for
// concurrent use. The zero Cache is ready to use.
//
// Entries are dropped by Sweep, by generation: each Build marks the files
// it looks at, and Sweep forgets every file no Build looked at since the
// previous Sweep. A server that builds the manifests of every skill it
// serves after each rescan calls Sweep once that round is done; the files
// of skills that are gone, and deleted or renamed files, are then
// forgotten, and the cache holds about one entry per file served. A caller
// that builds manifests only on demand calls Sweep less often (every few
// rescans, or on a timer): a file stays cached while some Build looks at
// it between two sweeps.
type Cache struct {
	mu      sync.Mutex
	entries map[string]entry // by the path the file's bytes are read at (Entry.Real)
	gen     uint64           // the current generation

	listings Listings

	hashed      atomic.Int64
	hashedBytes atomic.Int64
	changed     atomic.Bool // a digest was added since made, loaded or saved
}

// entry is a cached digest.
type entry struct {
	id     fileID
	digest string
	gen    uint64 // the generation that last looked at it
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{entries: map[string]entry{}}
}

// Stats counts the work a Cache did.
type Stats struct {
	// Entries is the number of cached digests, Folders the number of
	// cached folder listings.
	Entries, Folders int
	// Hashed and HashedBytes count the files hashed and their bytes,
	// and Listed the folders read, since the Cache was made.
	Hashed, HashedBytes, Listed int64
}

// Stats returns the cache's counts.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	n := len(c.entries)
	c.mu.Unlock()
	return Stats{Entries: n, Folders: c.listings.Len(), Hashed: c.hashed.Load(), HashedBytes: c.hashedBytes.Load(),
		Listed: c.listings.Listed()}
}

// Changed reports whether a digest or a listing was added to the cache
// since it was made, loaded or saved: whether saving it again would keep
// anything new.
func (c *Cache) Changed() bool { return c.changed.Load() || c.listings.changed.Load() }

// clock returns the current time (replaced in tests).
func (c *Cache) clock() time.Time { return c.listings.clock() }

// Sweep forgets the digest of every file no Build looked at since the
// previous Sweep (or since the Cache was made), and the listing of every
// folder none looked at, and starts a new generation. It returns the
// number of digests dropped.
func (c *Cache) Sweep() int {
	c.listings.Sweep()
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, e := range c.entries {
		if e.gen != c.gen {
			delete(c.entries, k)
			n++
		}
	}
	c.gen++
	return n
}

// List walks the skill folder dir as a manifest lists it, with the
// cache's folder listings, and hashes nothing.
func (c *Cache) List(dir string) (*Listing, error) {
	return Walk{Listings: &c.listings}.List(dir)
}

// Build returns the manifest of the skill folder dir (see the package
// documentation for which files it lists). A skill over a limit gives a
// *LimitError; a folder or file that cannot be read gives an error naming
// it.
func (c *Cache) Build(dir string) (*Manifest, error) {
	l, err := c.List(dir)
	if err != nil {
		return nil, err
	}
	if err := l.Complete(); err != nil {
		return nil, err
	}
	m := &Manifest{Files: make([]File, len(l.Entries))}
	for i, e := range l.Entries {
		if e.Kind == KindLink {
			m.Files[i] = File{Path: e.Path, Link: e.Link}
			continue
		}
		digest, size, err := c.digest(e)
		if err != nil {
			var lim *LimitError
			if errors.As(err, &lim) {
				lim.Dir = dir
				return nil, err
			}
			return nil, fmt.Errorf("skill folder %s: %w", dir, err)
		}
		m.Files[i] = File{Path: e.Path, Size: size, Digest: digest}
		m.Bytes += size
	}
	if m.Bytes > MaxBytes { // files grew since the walk
		return nil, &LimitError{Dir: dir, Limit: TooManyBytes, Count: m.Bytes}
	}
	return m, nil
}

// Complete returns the error of a listing a manifest cannot be built
// from: the limit it passes, or the first folder it left out (too deep,
// as a *LimitError, or unreadable).
func (l *Listing) Complete() error {
	if l.Limit != nil {
		return l.Limit
	}
	if len(l.Omitted) == 0 {
		return nil
	}
	o := l.Omitted[0]
	if errors.Is(o.Err, ErrTooDeep) {
		return &LimitError{Dir: l.Dir, Limit: TooDeep, Path: o.Path, Count: MaxDepth + 1}
	}
	return fmt.Errorf("skill folder %s: %w", l.Dir, o.Err)
}

// Result is the outcome of one Build in BuildAll.
type Result struct {
	Manifest *Manifest
	Err      error
}

// BuildAll builds the manifests of dirs in parallel, with
// runtime.GOMAXPROCS(0) workers, and returns the results in the order of
// dirs. It is for the first listing of a large catalogue, when nothing is
// cached yet.
func (c *Cache) BuildAll(dirs []string) []Result {
	res := make([]Result, len(dirs))
	parallel.Each(context.Background(), len(dirs), 0, func(i int) {
		m, err := c.Build(dirs[i])
		res[i] = Result{Manifest: m, Err: err}
	})
	return res
}

// digest returns the digest and size of the file f, from the cache when
// f's stat is the one cached.
func (c *Cache) digest(f Entry) (string, int64, error) {
	walked := idOf(f.Info)
	c.mu.Lock()
	if e, ok := c.entries[f.Real]; ok && e.id == walked {
		if e.gen != c.gen {
			e.gen = c.gen
			c.entries[f.Real] = e
		}
		c.mu.Unlock()
		return e.digest, walked.Size(), nil
	}
	c.mu.Unlock()

	digest, id, size, err := hashFile(f)
	if err != nil {
		return "", 0, err
	}
	c.hashed.Add(1)
	c.hashedBytes.Add(size)
	// Cache only what the walk saw, read whole, with times old enough
	// that an edit since would have moved them.
	if id == walked && size == id.Size() && c.clock().Sub(id.Latest()) >= racyWindow {
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[string]entry{}
		}
		c.entries[f.Real] = entry{id: id, digest: digest, gen: c.gen}
		c.mu.Unlock()
		c.changed.Store(true)
	}
	return digest, size, nil
}

// buffers recycles the read buffers of hashFile.
var buffers = sync.Pool{New: func() any { return new([64 << 10]byte) }}

// hashFile hashes the file f. It opens without blocking and reads a
// regular file only (safefile), at most MaxFileBytes. It returns the
// digest, the open file's stat and the bytes hashed.
func hashFile(f Entry) (string, fileID, int64, error) {
	file, st, err := safefile.Open(f.Real)
	if err != nil {
		return "", fileID{}, 0, fmt.Errorf("%s: %w", f.Path, err)
	}
	defer file.Close()
	buf := buffers.Get().(*[64 << 10]byte)
	defer buffers.Put(buf)
	h := sha256.New()
	n, err := io.CopyBuffer(h, io.LimitReader(file, MaxFileBytes+1), buf[:])
	if err != nil {
		return "", fileID{}, 0, fmt.Errorf("%s: %w", f.Path, err)
	}
	if n > MaxFileBytes { // it grew since the walk; Build fills in Dir
		return "", fileID{}, 0, &LimitError{Limit: FileTooLarge, Path: f.Path, Count: n}
	}
	var sum [sha256.Size]byte
	return formatDigest(h.Sum(sum[:0])), idOf(st), n, nil
}

// Digest is the digest of data as a manifest writes it (File.Digest):
// what a server that serves a file compares with the manifest a gate
// judged, and what the security scan records of the bytes it read.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return formatDigest(sum[:])
}

// DigestForm matches a digest as a manifest writes it (Digest):
// sha256: and 64 lower-case hex digits. Locks, indexes and servers'
// manifests are held to it.
var DigestForm = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// FormatDigest is the digest, as a manifest writes it, of a SHA-256 sum
// (hash.Hash.Sum) computed elsewhere.
func FormatDigest(sum []byte) string { return formatDigest(sum) }

// formatDigest writes "sha256:" and the hex digits of sum.
func formatDigest(sum []byte) string {
	b := make([]byte, 0, len("sha256:")+2*len(sum))
	b = append(b, "sha256:"...)
	return string(hex.AppendEncode(b, sum))
}
