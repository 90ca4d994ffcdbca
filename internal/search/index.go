package search

// The body index. A content search used to read the SKILL.md of every
// record whose id, name and description missed a query token, on every
// query: at 5,000 skills a query read some 50 MB. An Index answers the
// same question from what it read once.
//
// The matching rule it keeps is Rank's: a token matches a body when it is
// a substring of the body lower-cased. A token never holds white space
// (Tokens splits on it), and strings.ToLower always returns valid UTF-8,
// in which a match of valid UTF-8 starts and ends on rune boundaries: so
// a token is a substring of a lower-cased body exactly when it is a
// substring of one of that body's lower-cased words (strings.Fields). An
// Index keeps the distinct words of every body it read (its terms), once
// each, in one string, and for each term the records whose body holds it
// (its postings). A query token is looked for in the terms' string, and
// the postings of every term holding it give the records whose body holds
// it: no body is kept, and none is read to answer a query.
//
// An Index is immutable: Update returns a new one, built from the old and
// the bodies of the files whose stamp changed alone, so that a rescan
// that changed one skill reads one file. Save and Load keep it between
// runs (persist.go).

import (
	"context"
	"encoding/binary"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/pipeline"
)

// Index is the body index of a set of records' files (see the top of
// index.go). The zero Index, and a nil *Index, index nothing. It is safe
// for concurrent use: nothing changes it once built.
type Index struct {
	docs  []doc
	files map[string]uint32 // doc number by file path

	// The terms of the bodies, and for each the docs holding it.
	termIndex

	// changed is set by an Update that read or dropped a file, and
	// cleared by SaveFile.
	changed bool

	// What Rank needs of each of the records the index was updated with
	// (recs, the caller's slice, shared), by position: the doc of its
	// file (-1 for none), and once Prime has run, the meta index
	// (meta.go): each record's name, id, description and alias
	// lower-cased, and the records each word can match, so that a query
	// lower-cases nothing and scores only those.
	recs  []*pipeline.Record
	docOf []int32
	meta  *metaOnce
	// unsettled counts the docs whose stamp had not settled when read.
	unsettled int
}

// aligned reports whether records are the very slice ix was updated
// with, so that Rank can take what it needs of each by position.
func (ix *Index) aligned(records []*pipeline.Record) bool {
	return ix != nil && len(records) > 0 && len(records) == len(ix.recs) && &records[0] == &ix.recs[0]
}

// doc is one indexed file.
type doc struct {
	file string
	// salt is what the body read depended on besides the file's bytes
	// (Source.Salt), stamp the file's stat before it was read; settled
	// is whether that stamp had settled then (filestamp.Stamp.Settled): an
	// unsettled one is read again by the next Update.
	salt    string
	stamp   filestamp.Stamp
	settled bool
}

// Source is how Update reads the bodies of records.
type Source struct {
	// Body returns the body of a record's file as a content search reads
	// it (Options.Body); nil reads it as Rank does without one.
	Body func(r *pipeline.Record) string
	// Salt, when set, is what a record's body depends on besides its
	// file's bytes: a server under a gate reads only the bytes it judged,
	// so it gives the digests judged, and a file indexed under another
	// judgement is read again.
	Salt func(r *pipeline.Record) string
	// Workers bounds the files read at once (default GOMAXPROCS).
	Workers int
}

// Len is the number of files indexed.
func (ix *Index) Len() int {
	if ix == nil {
		return 0
	}
	return len(ix.docs)
}

// IndexStats describes an Index, for the benchmarks and logs.
type IndexStats struct {
	// Files, Terms and Postings count the files indexed, their distinct
	// words and the (file, word) pairs.
	Files, Terms, Postings int
	// Bytes is about what the index holds in memory; MetaBytes what its
	// meta index holds once primed (the lower-cased strings that differ
	// from the records' own not counted).
	Bytes, MetaBytes int
}

// Stats returns the counts of ix.
func (ix *Index) Stats() IndexStats {
	if ix == nil {
		return IndexStats{}
	}
	n := 0
	for k := range ix.termCount() {
		n += ix.postingCount(k)
	}
	const docBytes = 16 + 16 + 40 + 8 + 24 // file, salt, stamp, settled, map entry
	st := IndexStats{Files: len(ix.docs), Terms: ix.termCount(), Postings: n,
		Bytes: ix.termIndex.bytes() + docBytes*len(ix.docs)}
	if ix.meta != nil {
		if m := ix.meta.built.Load(); m != nil {
			st.MetaBytes = m.words.bytes() + m.names.bytes() + 64*len(m.low)
		}
	}
	return st
}

// termIndex is a set of terms (words without white space) and, for each,
// its postings: the numbers (of docs, or of records) it was found in.
type termIndex struct {
	// terms holds every term, in the order of the index (byte order for
	// the body index), each followed by '\n' (a term never holds white
	// space); termAt[k] is where term k starts, and termAt[len] is
	// len(terms).
	terms  string
	termAt []uint32
	// post holds the postings of every term: the numbers, ascending, as
	// uvarint deltas; postAt[k] is where term k's start, and
	// postAt[len] is len(post).
	post   []byte
	postAt []uint32
}

func (ti *termIndex) bytes() int {
	return len(ti.terms) + 4*len(ti.termAt) + len(ti.post) + 4*len(ti.postAt)
}

func (ti *termIndex) termCount() int { return max(len(ti.termAt)-1, 0) }

func (ti *termIndex) term(k int) string { return ti.terms[ti.termAt[k] : ti.termAt[k+1]-1] }

// postingCount counts the postings of term k.
func (ti *termIndex) postingCount(k int) int {
	n := 0
	for _, b := range ti.post[ti.postAt[k]:ti.postAt[k+1]] {
		if b < 0x80 {
			n++
		}
	}
	return n
}

// postings calls f with each number of term k, ascending.
func (ti *termIndex) postings(k int, f func(d uint32)) {
	p := ti.post[ti.postAt[k]:ti.postAt[k+1]]
	d := uint64(0)
	for len(p) > 0 {
		v, n := binary.Uvarint(p)
		p = p[n:]
		d += v
		f(uint32(d))
	}
}

// mark sets in set (a bit per number) the postings of term k.
func (ti *termIndex) mark(k int, set []uint64) {
	ti.postings(k, func(d uint32) { set[d/64] |= 1 << (d % 64) })
}

// holding marks in set the postings of every term t is a substring of.
func (ti *termIndex) holding(t string, set []uint64) {
	if ti.termCount() == 0 {
		return
	}
	at := ti.termAt[:len(ti.termAt)-1]
	k := 0
	for off := 0; off < len(ti.terms); {
		i := strings.Index(ti.terms[off:], t)
		if i < 0 {
			break
		}
		p := uint32(off + i)
		// The term holding p: at or after k, as hits come in order.
		if p >= ti.termAt[k+1] {
			k += sort.Search(len(at)-k, func(j int) bool { return at[k+j] > p }) - 1
		}
		ti.mark(k, set)
		k++
		if k >= len(at) {
			break
		}
		off = int(ti.termAt[k]) // the next term
	}
}

// add appends a term and its postings (ascending numbers).
func (ti *termIndex) add(t string, list []uint32, terms *strings.Builder) {
	ti.termAt = append(ti.termAt, uint32(terms.Len()))
	terms.WriteString(t)
	terms.WriteByte('\n')
	ti.postAt = append(ti.postAt, uint32(len(ti.post)))
	prev := uint32(0)
	for _, d := range list {
		ti.post = binary.AppendUvarint(ti.post, uint64(d-prev))
		prev = d
	}
}

// seal ends a termIndex built with add.
func (ti *termIndex) seal(terms *strings.Builder) {
	ti.terms = terms.String()
	ti.termAt = append(ti.termAt, uint32(len(ti.terms)))
	ti.postAt = append(ti.postAt, uint32(len(ti.post)))
	ti.post = slices.Clip(ti.post)
}

// doc returns the number of the doc of r's file, and whether ix holds it.
func (ix *Index) doc(r *pipeline.Record) (uint32, bool) {
	if ix == nil {
		return 0, false
	}
	d, ok := ix.files[r.File]
	return d, ok
}

// holding returns the set of docs (a bit per doc number) whose body holds
// t: the postings of every term t is a substring of.
func (ix *Index) holding(t string) []uint64 {
	set := make([]uint64, (len(ix.docs)+63)/64)
	ix.termIndex.holding(t, set)
	return set
}

// asciiSpace are the ASCII bytes unicode.IsSpace holds.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// clock is the time stamps are judged settled at (replaced in tests).
var clock = time.Now

// readBatch is how many files Update reads before it adds their words to
// the postings and drops them.
var readBatch = 512

// fresh is a file read by Update: its doc and the sorted distinct words
// of its body.
type fresh struct {
	doc   doc
	words []string
}

// Update returns the index of the files of records: ix's docs where the
// file's stamp and salt are unchanged (and had settled), the files of the
// others read with src. Files of ix no record has are left out. A record
// without a file is not indexed. When ctx ends, Update returns ix and the
// error.
func (ix *Index) Update(ctx context.Context, records []*pipeline.Record, src Source) (*Index, error) {
	if ix == nil {
		ix = &Index{}
	}
	if same := ix.reused(records, src); same != nil {
		return same, nil
	}
	// The files to index, once each, in the order of records.
	files := make([]*pipeline.Record, 0, len(records))
	seen := make(map[string]bool, len(records))
	for _, r := range records {
		if r.File != "" && !seen[r.File] {
			seen[r.File] = true
			files = append(files, r)
		}
	}
	keep := make([]int32, len(ix.docs)) // old doc → new number, -1 when gone
	for i := range keep {
		keep[i] = -1
	}
	kept := make([]bool, len(files))
	stamps := make([]filestamp.Stamp, len(files))
	ok := make([]bool, len(files))
	salts := make([]string, len(files))
	parallel.Each(ctx, len(files), src.Workers, func(i int) {
		r := files[i]
		if src.Salt != nil {
			salts[i] = src.Salt(r)
		}
		st, err := os.Stat(r.File)
		if err != nil {
			return
		}
		stamps[i], ok[i] = filestamp.Of(st), true
		if d, found := ix.files[r.File]; found {
			od := ix.docs[d]
			kept[i] = od.settled && od.stamp == stamps[i] && od.salt == salts[i]
		}
	})
	if err := ctx.Err(); err != nil {
		return ix, err
	}
	var docs []doc
	for i, r := range files {
		if kept[i] {
			old := ix.files[r.File]
			keep[old] = -2 // numbered below, in old order
		}
	}
	for d, k := range keep {
		if k == -2 {
			keep[d] = int32(len(docs))
			docs = append(docs, ix.docs[d])
		}
	}
	// Read the others, a batch at a time: each batch's bodies are read
	// on every worker, their words added to the postings, and the words
	// dropped before the next batch is read, so that a first build holds
	// the words of one batch besides the postings, not those of every
	// body at once (at 100,000 skills the latter was some 130 MB).
	var toRead []int
	for i := range files {
		if !kept[i] {
			toRead = append(toRead, i)
		}
	}
	var added pending
	// Changed: a file read, dropped, or gone since it was read.
	changed := ix.changed
	for d, k := range keep {
		changed = changed || (k == -1 && !seen[ix.docs[d].file])
	}
	now := clock()
	read := make([]fresh, min(len(toRead), readBatch))
	for lo := 0; lo < len(toRead); lo += readBatch {
		batch := toRead[lo:min(lo+readBatch, len(toRead))]
		parallel.EachWith(ctx, len(batch), src.Workers, func(seen *map[string]bool, j int) {
			i := batch[j]
			r := files[i]
			f := fresh{doc: doc{file: r.File, salt: salts[i], stamp: stamps[i]}}
			// An unreadable file (no stat) indexes no word and is read
			// again by the next Update.
			if ok[i] {
				f.doc.settled = stamps[i].Settled(now)
				if *seen == nil {
					*seen = map[string]bool{}
				}
				f.words = words(src.body(r), *seen)
			}
			read[j] = f
		})
		if err := ctx.Err(); err != nil {
			return ix, err
		}
		for j, f := range read[:len(batch)] {
			if ok[batch[j]] {
				changed = true
			} else if d, found := ix.files[f.doc.file]; found && ix.docs[d].settled {
				changed = true
			}
			d := uint32(len(docs))
			docs = append(docs, f.doc)
			for _, w := range f.words {
				added.add(w, d)
			}
		}
		clear(read)
	}
	out := ix.merge(docs, keep, &added)
	out.changed = changed
	for _, d := range out.docs {
		if !d.settled {
			out.unsettled++
		}
	}
	out.recs, out.docOf = records, make([]int32, len(records))
	for i, r := range records {
		out.docOf[i] = -1
		if d, ok := out.files[r.File]; ok && r.File != "" {
			out.docOf[i] = int32(d)
		}
	}
	out.meta = &metaOnce{}
	return out, nil
}

// reused returns ix for records when nothing it read can have changed
// since: records are the very records ix was updated with (a rescan that
// found no file changed hands back the same records, see scan.Options.
// Reuse; a changed SKILL.md makes a new record), every doc had settled
// when read, and src gives every file the salt it was read with. It
// returns nil otherwise, and the files are stated.
func (ix *Index) reused(records []*pipeline.Record, src Source) *Index {
	if len(records) == 0 || len(records) != len(ix.recs) || ix.unsettled > 0 {
		return nil
	}
	for i, r := range records {
		if r != ix.recs[i] {
			return nil
		}
	}
	for i, r := range records {
		if d := ix.docOf[i]; d >= 0 && src.Salt != nil && src.Salt(r) != ix.docs[d].salt {
			return nil
		} else if d >= 0 && src.Salt == nil && ix.docs[d].salt != "" {
			return nil
		}
	}
	out := *ix
	out.recs = records
	return &out
}

// body reads r's body as src says.
func (src Source) body(r *pipeline.Record) string {
	if src.Body != nil {
		return src.Body(r)
	}
	return readBody(r.File)
}

// words returns the distinct words of body lower-cased, sorted, as
// strings.Fields splits the body lower-cased; seen is scratch space, left
// empty.
func words(body string, seen map[string]bool) []string {
	if body == "" {
		return nil
	}
	// Split, then lower-case each word: white space is white space in
	// either case, and a word lower case already costs nothing.
	lower := body
	for i := 0; i < len(lower); {
		for i < len(lower) { // white space
			c := lower[i]
			if c < utf8.RuneSelf {
				if !asciiSpace[c] {
					break
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(lower[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += n
		}
		start := i
		for i < len(lower) { // a word
			c := lower[i]
			if c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(lower[i:])
			if unicode.IsSpace(r) {
				break
			}
			i += n
		}
		if i > start {
			seen[strings.ToLower(lower[start:i])] = true
		}
	}
	ws := make([]string, 0, len(seen))
	for w := range seen {
		ws = append(ws, w)
	}
	clear(seen)
	slices.Sort(ws)
	// Copy the words out of the lower-cased body, so that it is not kept.
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w)
	}
	all := b.String()
	for i, off := 0, 0; i < len(ws); i++ {
		n := len(ws[i])
		ws[i] = all[off : off+n]
		off += n
	}
	return ws
}

// merge builds the index of docs: the terms and postings of ix, with each
// old doc number d renumbered keep[d] (left out when -1), and the
// postings added (doc numbers above every kept one), by term.
func (ix *Index) merge(docs []doc, keep []int32, added *pending) *Index {
	out := &Index{docs: docs, files: make(map[string]uint32, len(docs))}
	for i, d := range docs {
		out.files[d.file] = uint32(i)
	}
	newTerms := make([]string, 0, len(added.at))
	for t := range added.at {
		newTerms = append(newTerms, t)
	}
	slices.Sort(newTerms)
	var terms strings.Builder
	terms.Grow(len(ix.terms))
	out.post = make([]byte, 0, len(ix.post)+added.size())
	var list []uint32
	emit := func(t string, list []uint32) {
		if len(list) > 0 {
			out.add(t, list, &terms)
		}
	}
	oldN, j := ix.termCount(), 0
	for k := 0; k <= oldN; k++ {
		var t string
		if k < oldN {
			t = ix.term(k)
		}
		for j < len(newTerms) && (k == oldN || newTerms[j] < t) {
			list = added.appendTo(list[:0], newTerms[j])
			emit(newTerms[j], list)
			j++
		}
		if k == oldN {
			break
		}
		list = list[:0]
		ix.postings(k, func(d uint32) {
			if n := keep[d]; n >= 0 {
				list = append(list, uint32(n))
			}
		})
		if j < len(newTerms) && newTerms[j] == t {
			list = added.appendTo(list, t)
			j++
		}
		emit(t, list)
	}
	out.seal(&terms)
	return out
}

// pending are the postings of the docs an Update read, by term, until
// they are merged: each term's doc numbers, ascending (docs are added in
// number order), as uvarint deltas, about a byte a pair where a slice of
// numbers took four and its growth as much again. A term is copied when
// first added, so that it keeps nothing of the words of the body it came
// from.
type pending struct {
	at   map[string]int32 // term → its list in post and last
	post [][]byte
	last []uint32 // the last number added to each list
	n    int      // bytes in post
}

// add records that doc d holds term t; d is at least every number added
// before it.
func (p *pending) add(t string, d uint32) {
	k, found := p.at[t]
	if !found {
		if p.at == nil {
			p.at = map[string]int32{}
		}
		k = int32(len(p.post))
		p.at[strings.Clone(t)] = k
		p.post = append(p.post, nil)
		p.last = append(p.last, 0)
	}
	before := len(p.post[k])
	p.post[k] = binary.AppendUvarint(p.post[k], uint64(d-p.last[k]))
	p.last[k] = d
	p.n += len(p.post[k]) - before
}

// size is about the bytes of the postings pending.
func (p *pending) size() int { return p.n }

// appendTo appends term t's numbers to list.
func (p *pending) appendTo(list []uint32, t string) []uint32 {
	k, found := p.at[t]
	if !found {
		return list
	}
	b, d := p.post[k], uint32(0)
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		b = b[n:]
		d += uint32(v)
		list = append(list, d)
	}
	return list
}
