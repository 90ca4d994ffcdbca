package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/safefile"
)

// racyWindow is how close to the hash a file's times may be for its digest
// to be cached: a same-size edit within one tick of the file system's clock
// would leave the stat unchanged. It matches the scanner's (package scan).
const racyWindow = filestamp.Window

// Cache builds manifests and keeps the digests of the files it hashed. It
// is safe for concurrent use. The zero Cache is ready to use.
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
	entries map[string]entry   // by the path the file was reached by (see found.real)
	dirs    map[string]dirNode // folder listings, by the folder's path as walked
	gen     uint64             // the current generation

	hashed      atomic.Int64
	hashedBytes atomic.Int64
	listed      atomic.Int64
	changed     atomic.Bool // something was added since MarkSaved

	// now is time.Now, replaced in tests.
	now func() time.Time
}

// entry is a cached digest.
type entry struct {
	id     fileID
	digest string
	gen    uint64 // the generation that last looked at it
}

// dirNode is the cached listing of one folder: the entries a manifest
// looks at (regular files, folders but .git, symlinks), read when the
// folder's stat was id.
//
// A listing is used again only while the folder's stat (device, inode,
// size, modification and change times) is id. Adding, removing or
// renaming an entry writes the folder, which sets its modification and
// change times to the current time; the change time cannot be set back
// from user space (utimensat sets it to now), and a folder deleted and
// made again has a new change time even when its inode number is reused.
// A listing is cached only when both times were at least racyWindow old
// when it was read, so that a change in the same tick of the file
// system's clock cannot leave them as they were. Listings are cached
// only where change times are read (Linux, see idOf): elsewhere a
// folder's modification time can be set back after an entry was added,
// and every folder is read at every Build. A listing says nothing about
// the entries' content: every file is still stated at every Build.
type dirNode struct {
	id      fileID
	entries []listed
	gen     uint64
}

// kind is what a listed entry is.
type kind uint8

const (
	kindFile kind = iota + 1 // a regular file
	kindDir                  // a folder (never a .git folder)
	kindLink                 // a symlink
)

// listed is one entry of a folder listing. FIFOs, sockets and devices are
// left out of listings.
type listed struct {
	name string
	kind kind
}

// maxListed caps the entries of a cached listing: a larger folder makes
// its skill pass MaxFiles, or nearly, and is read at each Build.
const maxListed = MaxFiles

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{entries: map[string]entry{}, dirs: map[string]dirNode{}}
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
	n, d := len(c.entries), len(c.dirs)
	c.mu.Unlock()
	return Stats{Entries: n, Folders: d, Hashed: c.hashed.Load(), HashedBytes: c.hashedBytes.Load(), Listed: c.listed.Load()}
}

// Changed reports whether a digest or a listing was added to the cache
// since it was made, loaded or saved: whether saving it again would keep
// anything new.
func (c *Cache) Changed() bool { return c.changed.Load() }

// clock returns the current time (c.now in tests).
func (c *Cache) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

// list returns the entries of the folder path, whose stat the caller just
// took (id): the cached listing when the folder's stat is still the one it
// was read with, unless fresh; otherwise the folder as read now. cached
// says which.
func (c *Cache) list(path string, id fileID, fresh bool) (entries []listed, cached bool, err error) {
	if changeTimesRead && !fresh {
		c.mu.Lock()
		if n, ok := c.dirs[path]; ok && n.id == id {
			if n.gen != c.gen {
				n.gen = c.gen
				c.dirs[path] = n
			}
			c.mu.Unlock()
			return n.entries, true, nil
		}
		c.mu.Unlock()
	}
	now := c.clock() // before the stat: a change after it moves the folder's times past it
	f, err := openDir(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat() // of the folder read, before its entries are
	if err != nil {
		return nil, false, err
	}
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, false, err
	}
	c.listed.Add(1)
	entries = make([]listed, 0, len(des))
	for _, e := range des {
		var k kind
		switch t := e.Type(); {
		case t.IsDir():
			if Skip(e.Name()) {
				continue
			}
			k = kindDir
		case t&fs.ModeSymlink != 0:
			k = kindLink
		case t.IsRegular():
			k = kindFile
		default:
			continue // FIFO, socket, device: skipped unopened
		}
		entries = append(entries, listed{name: e.Name(), kind: k})
	}
	if read := idOf(st); len(entries) <= maxListed && read.Settled(now) {
		c.mu.Lock()
		if c.dirs == nil {
			c.dirs = map[string]dirNode{}
		}
		c.dirs[path] = dirNode{id: read, entries: entries, gen: c.gen}
		c.mu.Unlock()
		c.changed.Store(true)
	}
	return entries, false, nil
}

// Sweep forgets the digest of every file no Build looked at since the
// previous Sweep (or since the Cache was made), and the listing of every
// folder none looked at, and starts a new generation. It returns the
// number of digests dropped.
func (c *Cache) Sweep() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, e := range c.entries {
		if e.gen != c.gen {
			delete(c.entries, k)
			n++
		}
	}
	for k, d := range c.dirs {
		if d.gen != c.gen {
			delete(c.dirs, k)
		}
	}
	c.gen++
	return n
}

// Build returns the manifest of the skill folder dir (see the package
// documentation for which files it lists). A skill over a limit gives a
// *LimitError; a folder or file that cannot be read gives an error naming
// it.
func (c *Cache) Build(dir string) (*Manifest, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("skill folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("skill folder %s is a %s, not a folder", dir, safefile.Kind(st.Mode()))
	}
	w := walker{c: c, dir: dir}
	err = w.walk(dir, "", idOf(st))
	if errors.Is(err, errStale) {
		// A cached listing met a folder that changed since its stat was
		// taken: walk again, reading every folder.
		w = walker{c: c, dir: dir, fresh: true}
		err = w.walk(dir, "", idOf(st))
	}
	if err != nil {
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return nil, fmt.Errorf("skill folder %s is a %s, not a folder", dir, safefile.Kind(st.Mode()))
		}
		return nil, err
	}
	m := &Manifest{Files: make([]File, len(w.files))}
	for i, f := range w.files {
		digest, size, err := c.digest(f)
		if err != nil {
			var lim *LimitError
			if errors.As(err, &lim) {
				lim.Dir = dir
				return nil, err
			}
			return nil, fmt.Errorf("skill folder %s: %w", dir, err)
		}
		m.Files[i] = File{Path: f.rel, Size: size, Digest: digest}
		m.Bytes += size
	}
	if m.Bytes > MaxBytes { // files grew since the walk
		return nil, &LimitError{Dir: dir, Limit: TooManyBytes, Count: m.Bytes}
	}
	slices.SortFunc(m.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return m, nil
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
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(dirs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(dirs) {
					return
				}
				m, err := c.Build(dirs[i])
				res[i] = Result{Manifest: m, Err: err}
			}
		})
	}
	wg.Wait()
	return res
}

// digest returns the digest and size of f, from the cache when f's stat
// is the one cached.
func (c *Cache) digest(f found) (string, int64, error) {
	c.mu.Lock()
	if e, ok := c.entries[f.real]; ok && e.id == f.id {
		if e.gen != c.gen {
			e.gen = c.gen
			c.entries[f.real] = e
		}
		c.mu.Unlock()
		return e.digest, f.id.Size(), nil
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
	if id == f.id && size == id.Size() && c.clock().Sub(id.Latest()) >= racyWindow {
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[string]entry{}
		}
		c.entries[f.real] = entry{id: id, digest: digest, gen: c.gen}
		c.mu.Unlock()
		c.changed.Store(true)
	}
	return digest, size, nil
}

// buffers recycles the read buffers of hashFile.
var buffers = sync.Pool{New: func() any { return new([64 << 10]byte) }}

// hashFile hashes the file f names. It opens without blocking and reads a
// regular file only (safefile), at most MaxFileBytes. It returns the
// digest, the open file's stat and the bytes hashed.
func hashFile(f found) (string, fileID, int64, error) {
	file, st, err := safefile.Open(f.real)
	if err != nil {
		return "", fileID{}, 0, fmt.Errorf("%s: %w", f.rel, err)
	}
	defer file.Close()
	buf := buffers.Get().(*[64 << 10]byte)
	defer buffers.Put(buf)
	h := sha256.New()
	n, err := io.CopyBuffer(h, io.LimitReader(file, MaxFileBytes+1), buf[:])
	if err != nil {
		return "", fileID{}, 0, fmt.Errorf("%s: %w", f.rel, err)
	}
	if n > MaxFileBytes { // it grew since the walk; Build fills in Dir
		return "", fileID{}, 0, &LimitError{Limit: FileTooLarge, Path: f.rel, Count: n}
	}
	var sum [sha256.Size]byte
	return formatDigest(h.Sum(sum[:0])), idOf(st), n, nil
}

// formatDigest writes "sha256:" and the hex digits of sum.
func formatDigest(sum []byte) string {
	b := make([]byte, 0, len("sha256:")+2*len(sum))
	b = append(b, "sha256:"...)
	return string(hex.AppendEncode(b, sum))
}
