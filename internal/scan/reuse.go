package scan

// This file lets a rescan that finds nothing changed return the previous
// scan's records instead of building them again (Options.Reuse), so that
// its caller can keep everything it derived from them (ids, filter
// results).
//
// A record is a function of its root, its candidate (the folder or file
// the walk found, with the flags its listing gave) and the reading of its
// file (and of its agents/openai.yaml): build and buildCommand read
// nothing else. A Result is those records plus the walks' diagnostics,
// the folders they listed and whether each root exists. So when the roots
// and options are equal, the walks found equal candidates, folders and
// problems, and every reading is the very cache entry the previous scan
// used (cache entries are never changed once made), the previous Result
// is what this scan would build, field for field. Cache entries are only
// served for a file whose stamp is unchanged (see Cache.get and
// precheck), and a listing only for a folder whose stamp is unchanged
// (see walker.list): a change on disk makes a new entry or a new listing,
// which fails the comparison. Symlinks are resolved again by every walk, and
// the candidates carry the resolved folders, so retargeting a link fails
// it too.

import (
	"reflect"
	"slices"

	"github.com/ccski/ccski/pipeline"
)

// lastScan is what reusable compares a new scan with, and what it then
// returns.
type lastScan struct {
	roots []pipeline.Root
	opt   Options
	// cands, entries and metas are, per candidate, what the walks found
	// and the readings served for it; errs holds the read errors, by
	// candidate.
	cands   []candidate
	entries []*cacheEntry
	metas   []*metaEntry
	errs    map[int]string
	// exists and walkDiags are what each root's walk said, by root.
	exists    []bool
	walkDiags [][]pipeline.Diagnostic
	// hints are how much each root's walk found (see Cache.hint).
	hints []sizeHint

	records []*pipeline.Record
	reports []pipeline.RootReport
	diags   []pipeline.Diagnostic
	dirs    []string
}

// newLastScan records a finished scan for the next one.
func newLastScan(roots []pipeline.Root, opt Options, walks []walk, cands []candidate, parsed []parsedSkill, res Result) *lastScan {
	l := &lastScan{roots: slices.Clone(roots), opt: opt, cands: cands,
		entries: make([]*cacheEntry, len(parsed)), metas: make([]*metaEntry, len(parsed)),
		exists: make([]bool, len(walks)), walkDiags: make([][]pipeline.Diagnostic, len(walks)),
		hints:   make([]sizeHint, len(walks)),
		records: res.Records, reports: res.Reports, diags: res.Diagnostics, dirs: res.Dirs}
	l.opt.Cache = nil // the cache being built holds l: keep no chain of older ones
	for i, p := range parsed {
		l.entries[i], l.metas[i] = p.entry, p.meta
		if p.err != nil {
			if l.errs == nil {
				l.errs = map[int]string{}
			}
			l.errs[i] = p.err.Error()
		}
	}
	for i := range walks {
		l.exists[i], l.walkDiags[i] = walks[i].exists, walks[i].diags
		l.hints[i] = sizeHint{cands: len(walks[i].cands), dirs: len(walks[i].dirs)}
	}
	return l
}

// sizeHint is how much a walk of a root found: its candidates and the
// folders it listed.
type sizeHint struct{ cands, dirs int }

// hint returns how much the walk of root i (of n) found in the scan that
// built c, for the next walk to size its lists: zero when that scan had
// another number of roots (the roots are then likely others).
func (c *Cache) hint(i, n int) sizeHint {
	if c == nil || c.last == nil || len(c.last.hints) != n {
		return sizeHint{}
	}
	return c.last.hints[i]
}

// reusable reports whether the scan that built c found exactly what this
// one did, from the same inputs (see the comment at the top of this
// file), so that its Result stands for this one. The caller has checked
// that no file was read.
func (c *Cache) reusable(roots []pipeline.Root, opt Options, walks []walk, cands []candidate, parsed []parsedSkill) bool {
	if c == nil || c.last == nil {
		return false
	}
	l := c.last
	if walkOptions(opt) != walkOptions(l.opt) {
		return false
	}
	if len(walks) != len(l.exists) || !slices.Equal(cands, l.cands) || !reflect.DeepEqual(roots, l.roots) {
		return false
	}
	dirs := l.dirs
	for i := range walks {
		w := &walks[i]
		if w.listed > 0 || w.exists != l.exists[i] || !slices.Equal(w.diags, l.walkDiags[i]) ||
			len(w.dirs) > len(dirs) || !slices.Equal(w.dirs, dirs[:len(w.dirs)]) {
			return false
		}
		dirs = dirs[len(w.dirs):]
	}
	if len(dirs) != 0 {
		return false
	}
	for i, p := range parsed {
		if p.entry != l.entries[i] || p.meta != l.metas[i] || p.held {
			return false
		}
		if msg, ok := l.errs[i]; ok != (p.err != nil) || ok && msg != p.err.Error() {
			return false
		}
	}
	return true
}

// walkOptions is what of opt decides a scan's records: every option but
// the cache to use, whether to reuse it and how many workers parse. A new
// option counts unless it is blanked here.
func walkOptions(opt Options) Options {
	opt.Cache, opt.Reuse, opt.Workers = nil, false, 0
	return opt
}
