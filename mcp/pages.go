package mcp

// The skills/list pages of a snapshot, kept as JSON. A warm listing spent
// most of its time above the walk building every entry again and encoding
// it (frontmatter lookups, the gate's and the signature's checks, the
// entry's JSON, the result's reflection): a page is now built once per
// snapshot and start, with the sum of each of its skills' manifests, and
// served again as bytes while every skill's manifest has the same sum.
//
// A kept page is never stale: a request for it walks and stats the page's
// skills as a build does (manifest.Cache.Build: the stat of every file and
// folder, a hash of the files whose stat moved), and what an entry states
// is a function of the snapshot and of its manifest (paths, sizes,
// digests, links): the frontmatter is kept by digest, the gate and the
// signature check the files against the snapshot. A page whose skills'
// sums all match is byte for byte the page a build would give; one that
// differs is built again and kept in place of the old one. A new snapshot
// drops every page.
//
// The pages kept are bounded by maxPageBytes: beyond it a page is built
// per request, as before.

import (
	"context"
	"hash/maphash"
	"strconv"
	"sync/atomic"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/pipeline"
)

// maxPageBytes bounds the JSON of the skills/list pages kept for one
// snapshot. A page of the benchmarks' fixture is about 80 KB (200 entries
// of one or two files), so 16 MiB keeps the first 40,000 skills or so;
// at 100,000 skills the later pages are built per request. (A variable
// for tests.)
var maxPageBytes = 16 << 20

// Fixed sums of skills without a manifest: unlistable (the record says
// so, which is fixed for a snapshot) and unwalkable (the folder could not
// be walked: Build's error).
const (
	sumUnlistable uint64 = 1
	sumUnwalkable uint64 = 2
)

// page is one skills/list page: its skills' entries as a JSON array, the
// cursor of the next page ("" for the last), and the indexes in the
// listing of its first skill and of the first skill after it.
type page struct {
	start, next int
	skills      []byte
	cursor      string
	// sums are those of the skills listed[start:next], in order, left
	// out ones included (manifestOf).
	sums []uint64
	// keep is false for a page with an entry its manifest does not
	// decide (built.transient).
	keep bool
}

// pageCache holds the pages of one snapshot by start, guarded by
// skillsState.mu, with the seed of the sums, set by initSkills and fixed
// from then on.
type pageCache struct {
	byStart map[int]*page
	bytes   int // of the pages' JSON, cursors and sums
	seed    maphash.Seed
}

// reset drops every page (a new snapshot).
func (c *pageCache) reset() { c.byStart, c.bytes = nil, 0 }

// sumFiles sums what an entry states of a manifest's files: each path,
// size, digest and link.
func (c *pageCache) sumFiles(files []manifest.File) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	var num [20]byte
	for _, f := range files {
		h.WriteString(f.Path)
		h.WriteByte(0)
		h.Write(strconv.AppendInt(num[:0], f.Size, 10))
		h.WriteByte(0)
		h.WriteString(f.Digest)
		h.WriteByte(0)
		h.WriteString(f.Link)
		h.WriteByte(1)
	}
	sum := h.Sum64()
	if sum <= sumUnwalkable { // keep clear of the fixed sums
		sum += sumUnwalkable + 1
	}
	return sum
}

// page returns the page of listed (the listable skills of snap) that
// starts at start: the kept one when its skills' manifests are the ones
// it was built from, else a new one, kept when it fits.
func (s *Server) page(ctx context.Context, snap *pipeline.Snapshot, listed []*pipeline.Record, logged map[string]bool, start int) (*page, error) {
	st := &s.skills
	st.mu.Lock()
	kept := st.pages.byStart[start]
	current := st.snap == snap
	st.mu.Unlock()
	if kept != nil && current && s.pageHolds(ctx, listed[kept.start:kept.next], kept.sums) {
		s.skills.pageHits.Add(1)
		return kept, nil
	}
	pg, err := s.buildPage(ctx, snap, listed, logged, start)
	if err != nil || !pg.keep {
		return pg, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	c := &st.pages
	if st.snap != snap { // a new snapshot meanwhile: its pages start empty
		return pg, nil
	}
	old := c.byStart[start]
	size := len(pg.skills) + len(pg.cursor) + 8*len(pg.sums)
	if old != nil {
		size -= len(old.skills) + len(old.cursor) + 8*len(old.sums)
	}
	if c.bytes+size > maxPageBytes {
		return pg, nil
	}
	if c.byStart == nil {
		c.byStart = map[int]*page{}
	}
	c.byStart[start], c.bytes = pg, c.bytes+size
	return pg, nil
}

// pageHolds reports whether the manifests of records have the sums
// sums: whether the page they were kept for is still the page a build
// gives. It walks every record's folder, in parallel, as a build does.
func (s *Server) pageHolds(ctx context.Context, records []*pipeline.Record, sums []uint64) bool {
	if len(records) != len(sums) {
		return false
	}
	var differ atomic.Bool
	parallel.Each(ctx, len(records), 0, func(i int) {
		if differ.Load() {
			return
		}
		if _, sum, _ := s.manifestOf(records[i]); sum != sums[i] {
			differ.Store(true)
		}
	})
	return !differ.Load() && ctx.Err() == nil
}
