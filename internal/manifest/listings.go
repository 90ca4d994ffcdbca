package manifest

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/internal/filestamp"
)

// Listings keeps the listing of each folder a walk read, by the folder's
// path as walked, so that a walk of an unchanged skill reads no folder:
// a Cache holds one for its Builds, and the security scanner one for its
// walks. It is safe for concurrent use; the zero Listings is ready, and a
// nil *Listings keeps nothing (every folder is read).
//
// A listing is used again only while the folder's stat (device, inode,
// size, modification and change times) is the one it was read with.
// Adding, removing or renaming an entry writes the folder, which sets its
// modification and change times to the current time; the change time
// cannot be set back from user space (utimensat sets it to now), and a
// folder deleted and made again has a new change time even when its inode
// number is reused. A listing is kept only when both times were at least
// filestamp.Window old when it was read (filestamp.Stamp.Settled), so that
// a change in the same tick of the file system's clock cannot leave them
// as they were. Listings are kept only where change times are read
// (Linux): elsewhere a folder's modification time can be set back after
// an entry was added, and every folder is read at every walk. A listing
// says nothing about the entries' content: every file is still stated at
// every walk.
//
// Entries are dropped by Sweep, by generation, as a Cache drops digests.
type Listings struct {
	mu      sync.Mutex
	dirs    map[string]dirNode
	gen     uint64
	listed  atomic.Int64
	changed atomic.Bool // something was added since made, loaded or saved

	// now is time.Now, replaced in tests.
	now func() time.Time
}

// dirNode is the kept listing of one folder: the entries a walk looks at
// (regular files, folders, symlinks; never .git), read when the folder's
// stat was id.
type dirNode struct {
	id      fileID
	entries []listed
	gen     uint64
}

// kind is what a listed entry is, from its folder entry's type.
type kind uint8

const (
	kindFile kind = iota + 1 // a regular file
	kindDir                  // a folder
	kindLink                 // a symlink
)

// listed is one entry of a folder listing. FIFOs, sockets, devices and
// entries Skip leaves out are left out of listings.
type listed struct {
	name string
	kind kind
}

// maxListed caps the entries of a kept listing: a larger folder makes its
// skill pass a limit, or nearly, and is read at each walk.
const maxListed = MaxFiles

// maxRead is how many entries of one folder a walk reads at most: past it
// the walk passes MaxFiles (entries or folders) in this folder alone.
const maxRead = 2*MaxFiles + 1

// clock returns the current time (l.now in tests).
func (l *Listings) clock() time.Time {
	if l != nil && l.now != nil {
		return l.now()
	}
	return time.Now()
}

// Len returns the number of listings kept.
func (l *Listings) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.dirs)
}

// Listed returns the number of folders read so far.
func (l *Listings) Listed() int64 { return l.listed.Load() }

// list returns the entries of the folder path, whose stat the caller just
// took (id): the kept listing when the folder's stat is still the one it
// was read with, unless fresh; otherwise the folder as read now (at most
// maxRead entries when some, else all). cached says which.
func (l *Listings) list(path string, id fileID, fresh, some bool) (entries []listed, cached bool, err error) {
	if l != nil && changeTimesRead && !fresh {
		l.mu.Lock()
		if n, ok := l.dirs[path]; ok && n.id == id {
			if n.gen != l.gen {
				n.gen = l.gen
				l.dirs[path] = n
			}
			l.mu.Unlock()
			return n.entries, true, nil
		}
		l.mu.Unlock()
	}
	now := l.clock() // before the stat: a change after it moves the folder's times past it
	entries, st, err := readFolder(path, some)
	if err != nil {
		return nil, false, err
	}
	if l == nil {
		return entries, false, nil
	}
	l.listed.Add(1)
	if read := idOf(st); len(entries) <= maxListed && read.Settled(now) {
		l.mu.Lock()
		if l.dirs == nil {
			l.dirs = map[string]dirNode{}
		}
		l.dirs[path] = dirNode{id: read, entries: entries, gen: l.gen}
		l.mu.Unlock()
		l.changed.Store(true)
	}
	return entries, false, nil
}

// readFolder reads the folder path: its entries a walk looks at, and the
// folder's stat, taken before the entries are read. With some it stops
// after maxRead entries.
func readFolder(path string, some bool) ([]listed, fs.FileInfo, error) {
	f, err := openDir(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return readOpened(f, some)
}

// readOpened is readFolder of a folder already open.
func readOpened(f *os.File, some bool) ([]listed, fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	var entries []listed
	for {
		des, err := f.ReadDir(256)
		for _, e := range des {
			var k kind
			switch t := e.Type(); {
			case Skip(e.Name()):
				continue // never part of a skill, whatever it is
			case t.IsDir():
				k = kindDir
			case t&fs.ModeSymlink != 0:
				k = kindLink
			case t.IsRegular():
				k = kindFile
			default:
				continue // FIFO, socket, device: left out unopened
			}
			entries = append(entries, listed{name: e.Name(), kind: k})
		}
		switch {
		case err == io.EOF || len(des) == 0 || some && len(entries) > maxRead:
			return entries, st, nil
		case err != nil:
			return nil, nil, err
		}
	}
}

// Sweep forgets the listing of every folder no walk looked at since the
// previous Sweep, and starts a new generation.
func (l *Listings) Sweep() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, d := range l.dirs {
		if d.gen != l.gen {
			delete(l.dirs, k)
		}
	}
	l.gen++
}

// maxPersisted caps the listings (and a Cache's digests) a cache file
// keeps: past it, only the ones the current generation looked at are
// written.
const maxPersisted = 200_000

// persisted returns the rows of m a cache file keeps: all of them, or
// past maxPersisted only those of generation gen.
func persisted[V any](m map[string]V, gen uint64, genOf func(V) uint64) map[string]V {
	recent := len(m) > maxPersisted
	rows := make(map[string]V, len(m))
	for k, v := range m {
		if !recent || genOf(v) == gen {
			rows[k] = v
		}
	}
	return rows
}

// Table is the listings as a table of a cache file (see binenc.Format):
// per folder, its stat and its entries (kind byte, name). The folder
// file of a Cache holds one, and so does the security scanner's memory.
// Decoding it adds the listings read to l, keeping those l has.
func (l *Listings) Table() binenc.Table { return &listingsTable{l: l} }

// listingsTable is a Listings as a cache file table.
type listingsTable struct {
	l    *Listings
	rows binenc.Rows[dirNode]
}

func (t *listingsTable) EncodeTable(e *binenc.Encoder) {
	l := t.l
	l.mu.Lock()
	rows := persisted(l.dirs, l.gen, func(d dirNode) uint64 { return d.gen })
	l.mu.Unlock()
	t.rows = binenc.Rows[dirNode]{Rows: rows, Put: func(e *binenc.Encoder, d dirNode) {
		d.id.Encode(e)
		e.Uvarint(uint64(len(d.entries)))
		for _, x := range d.entries {
			e.Byte(byte(x.kind))
			e.String(x.name)
		}
	}}
	t.rows.EncodeTable(e)
}

func (t *listingsTable) DecodeTable(d *binenc.Decoder) func() {
	l := t.l
	l.mu.Lock()
	gen := l.gen - 1 // not looked at in this generation yet
	l.mu.Unlock()
	t.rows = binenc.Rows[dirNode]{Get: func(d *binenc.Decoder, p string) dirNode {
		if !filepath.IsAbs(p) {
			d.Fail(fmt.Errorf("folder %q is not absolute", p))
		}
		node := dirNode{id: filestamp.Decode(d), gen: gen}
		k := d.Count()
		node.entries = make([]listed, 0, k)
		for range k {
			kd := kind(d.Byte())
			// Names are slices of one string holding the data, rather
			// than an allocation each.
			name := d.Slice()
			if !d.Failed() && (kd < kindFile || kd > kindLink || name == "" || name == "." || name == ".." ||
				strings.ContainsAny(name, "/\x00") || Skip(name)) {
				d.Fail(fmt.Errorf("a bad entry %q in the listing of %s", name, p))
			}
			node.entries = append(node.entries, listed{name: name, kind: kd})
		}
		return node
	}}
	keep := t.rows.DecodeTable(d)
	return func() {
		keep()
		l.mu.Lock()
		l.dirs = t.rows.Into(l.dirs)
		l.mu.Unlock()
	}
}
