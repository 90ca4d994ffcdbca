package trust

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/pipeline"
)

// Results remembers the integrity a check found for each skill folder,
// with the state of the store it compared against, so that a later check
// of unchanged folders against an unchanged store reads neither the store
// nor anything but the stats a manifest needs. It is safe for concurrent
// use; the zero Results is empty and ready.
//
// A result is used again only for the same store file with the same stamp
// (filestamp.Stamp: size, modification and change times, inode and
// device) and, for the folder, the same files: the SHA-256 of the paths,
// sizes and digests of its current manifest. The integrity is a function
// of the store's entry for the folder and of those files (Compare), so
// the same pair gives the same answer. A store that changes changes its
// stamp: ccski replaces it by rename (a new inode), and any other write
// sets its change time to the current time, which no user-space call can
// set back. The stamp is taken before the store is read, so a store
// written between the stat and the read is found changed at the next
// check, and results are kept only when the stamp is manifest.Settled (an
// edit in the same clock tick cannot leave it as it was; on systems whose
// change times are not read, nothing is kept).
type Results struct {
	mu      sync.Mutex
	store   storeStamp
	entries map[string]result // by folder (Key)
	changed bool
}

// storeStamp identifies one state of one store file.
type storeStamp struct {
	path  string
	stamp filestamp.Stamp
}

// result is the integrity found for a folder whose files had sum.
type result struct {
	sum [sha256.Size]byte
	in  pipeline.Integrity
}

// maxResults caps the results kept: past it, the oldest state is dropped
// whole.
const maxResults = 200_000

// stampStore stats the store at path for Results; ok is false when the
// store is missing, unreadable, or not Settled at now.
func stampStore(path string, now time.Time) (storeStamp, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return storeStamp{}, false
	}
	s := filestamp.Of(st)
	return storeStamp{path: path, stamp: s}, s.Settled(now)
}

// sumFiles is the SHA-256 of files: each path, size, digest and link.
func sumFiles(files []manifest.File) [sha256.Size]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, f := range files {
		h.Write(binary.AppendUvarint(n[:0], uint64(len(f.Path))))
		h.Write([]byte(f.Path))
		h.Write(binary.AppendVarint(n[:0], f.Size))
		h.Write(binary.AppendUvarint(n[:0], uint64(len(f.Digest))))
		h.Write([]byte(f.Digest))
		h.Write(binary.AppendUvarint(n[:0], uint64(len(f.Link))))
		h.Write([]byte(f.Link))
	}
	var s [sha256.Size]byte
	h.Sum(s[:0])
	return s
}

// lookup returns the integrity found before for dir with files whose sum
// is sum, against the store state st.
func (r *Results) lookup(st storeStamp, dir string, sum [sha256.Size]byte) (pipeline.Integrity, bool) {
	if r == nil {
		return pipeline.Integrity{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.store != st {
		return pipeline.Integrity{}, false
	}
	e, ok := r.entries[dir]
	if !ok || e.sum != sum {
		return pipeline.Integrity{}, false
	}
	return e.in, true
}

// put keeps the integrity of dir against the store state st, forgetting
// every result of another state.
func (r *Results) put(st storeStamp, dir string, sum [sha256.Size]byte, in pipeline.Integrity) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.store != st || r.entries == nil || len(r.entries) >= maxResults {
		r.store, r.entries = st, map[string]result{}
	}
	r.entries[dir] = result{sum: sum, in: in}
	r.changed = true
}

// forget drops every result: the store was written.
func (r *Results) forget() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.entries) > 0 {
		r.changed = true
	}
	r.store, r.entries = storeStamp{}, nil
}

// Changed reports whether the results changed since they were made,
// loaded or saved.
func (r *Results) Changed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

// The file form of Results is a binenc.Format whose header is the store
// the results were compared against (its path, a string, and its stamp),
// with one table: per folder, the 32 bytes of the sum, the state (a
// string), accepted (a byte, 0 or 1), and the changed, added and removed
// paths (each a count and strings). Its version is also the version of
// what a result means: a change to Compare or to sumFiles must change it,
// so that no result of the old rules is used.
var resultsFormat = binenc.Format{Name: "integrity cache", Magic: "ccski integrity cache\n", Version: 2}

// table is the results' table of the file form, of the rows given.
func resultsTable(rows map[string]result) *binenc.Rows[result] {
	return &binenc.Rows[result]{
		Rows: rows,
		Put: func(e *binenc.Encoder, r result) {
			e.Bytes(r.sum[:])
			e.String(string(r.in.State))
			accepted := byte(0)
			if r.in.Accepted {
				accepted = 1
			}
			e.Byte(accepted)
			e.Strings(r.in.Changed)
			e.Strings(r.in.Added)
			e.Strings(r.in.Removed)
		},
		Get: func(d *binenc.Decoder, dir string) result {
			var r result
			copy(r.sum[:], d.Bytes(sha256.Size))
			r.in.State = pipeline.IntegrityState(d.Slice())
			switch r.in.State {
			case pipeline.IntegrityNew, pipeline.IntegrityRecorded, pipeline.IntegrityTrusted, pipeline.IntegrityChanged:
			default:
				d.Fail(fmt.Errorf("state %q of %s", r.in.State, dir))
			}
			switch d.Byte() {
			case 0:
			case 1:
				r.in.Accepted = true
			default:
				d.Fail(binenc.ErrCorrupt)
			}
			r.in.Changed, r.in.Added, r.in.Removed = d.Strings(), d.Strings(), d.Strings()
			return r
		},
	}
}

// SaveFile writes the results to the file path, atomically.
func (r *Results) SaveFile(path string) error {
	r.mu.Lock()
	st, rows := r.store, maps.Clone(r.entries)
	r.changed = false
	r.mu.Unlock()
	err := resultsFormat.Save(path, func(e *binenc.Encoder) {
		e.String(st.path)
		st.stamp.Encode(e)
	}, resultsTable(rows))
	if err != nil {
		r.mu.Lock()
		r.changed = true
		r.mu.Unlock()
	}
	return err
}

// LoadFile replaces the results with the ones the file path holds, which
// SaveFile wrote. A file that cannot be read, or of another version or
// form, is an error and changes nothing.
func (r *Results) LoadFile(path string) error {
	var st storeStamp
	rows := resultsTable(nil)
	err := resultsFormat.Load(path, func(d *binenc.Decoder) {
		st.path = d.Slice()
		st.stamp = filestamp.Decode(d)
	}, rows)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.store, r.entries, r.changed = st, rows.Rows, false
	return nil
}
