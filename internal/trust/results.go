package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/internal/filestamp"
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

// sumFiles is the SHA-256 of files: each path, size and digest.
func sumFiles(files []File) [sha256.Size]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, f := range files {
		h.Write(binary.AppendUvarint(n[:0], uint64(len(f.Path))))
		h.Write([]byte(f.Path))
		h.Write(binary.AppendVarint(n[:0], f.Size))
		h.Write(binary.AppendUvarint(n[:0], uint64(len(f.Digest))))
		h.Write([]byte(f.Digest))
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

// The file form of Results (see binenc):
//
//	magic    "ccski integrity cache\n"
//	version  uvarint (resultsVersion)
//	store    path (string), stamp
//	count    uvarint, then per folder, sorted: path (prefix coded), the 32
//	         bytes of the sum, state (string), accepted (byte 0 or 1), and
//	         changed, added and removed (each a count and strings)
const resultsMagic = "ccski integrity cache\n"

// resultsVersion is the version of the file form. It is also the version
// of what a result means: a change to Compare must change it, so that no
// result of the old rules is used.
const resultsVersion = 1

// Encode returns the file form of the results.
func (r *Results) Encode() []byte {
	r.mu.Lock()
	type kept struct {
		dir string
		res result
	}
	all := make([]kept, 0, len(r.entries))
	for d, e := range r.entries {
		all = append(all, kept{d, e})
	}
	st := r.store
	r.changed = false
	r.mu.Unlock()
	slices.SortFunc(all, func(a, b kept) int { return strings.Compare(a.dir, b.dir) })
	var e binenc.Encoder
	e.Bytes([]byte(resultsMagic))
	e.Uvarint(resultsVersion)
	e.String(st.path)
	st.stamp.Encode(&e)
	e.Uvarint(uint64(len(all)))
	prev := ""
	for _, k := range all {
		e.Path(prev, k.dir)
		prev = k.dir
		e.Bytes(k.res.sum[:])
		e.String(string(k.res.in.State))
		accepted := byte(0)
		if k.res.in.Accepted {
			accepted = 1
		}
		e.Byte(accepted)
		for _, list := range [][]string{k.res.in.Changed, k.res.in.Added, k.res.in.Removed} {
			e.Uvarint(uint64(len(list)))
			for _, p := range list {
				e.String(p)
			}
		}
	}
	return e.B
}

// Decode replaces the results with the ones data holds, which Encode
// wrote. Data of another version or form is an error and changes nothing.
func (r *Results) Decode(data []byte) error {
	rest, ok := bytes.CutPrefix(data, []byte(resultsMagic))
	if !ok {
		return errors.New("integrity cache: not a ccski integrity cache")
	}
	d := binenc.NewDecoder(rest)
	if v := d.Uvarint(); !d.Failed() && v != resultsVersion {
		return fmt.Errorf("integrity cache: version %d, not %d", v, resultsVersion)
	}
	st := storeStamp{path: d.Slice()}
	st.stamp = filestamp.Decode(d)
	n := d.Count()
	entries := make(map[string]result, n)
	prev := ""
	for range n {
		dir := d.Path(prev)
		prev = dir
		var res result
		copy(res.sum[:], d.Bytes(sha256.Size))
		res.in.State = pipeline.IntegrityState(d.Slice())
		switch res.in.State {
		case pipeline.IntegrityNew, pipeline.IntegrityRecorded, pipeline.IntegrityTrusted, pipeline.IntegrityChanged:
		default:
			d.Fail(fmt.Errorf("integrity cache: state %q of %s", res.in.State, dir))
		}
		switch d.Byte() {
		case 0:
		case 1:
			res.in.Accepted = true
		default:
			d.Fail(binenc.ErrCorrupt)
		}
		for _, list := range []*[]string{&res.in.Changed, &res.in.Added, &res.in.Removed} {
			k := d.Count()
			for range k {
				*list = append(*list, d.Slice())
			}
		}
		entries[dir] = res
	}
	if err := d.Err(); err != nil {
		return fmt.Errorf("integrity cache: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.store, r.entries, r.changed = st, entries, false
	return nil
}
