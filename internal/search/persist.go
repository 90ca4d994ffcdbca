package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/userdirs"
)

// The file form of an Index, so that a restart, or a CLI run after a
// server's, reads only the files that changed since the index was saved.
// A loaded index is checked as one built in this process: Update states
// every file, and reads again each whose stamp or salt differs.
//
// It is a binenc.Format with no header and two tables: the docs (file
// path, prefix coded; salt; stamp; whether it had settled), then the
// terms (prefix coded, in byte order) with their postings (uvarint
// deltas of doc numbers, as in memory).
//
// One file is shared by every process that searches bodies: the user's
// server, each of its workspace servers, and `ccski search --content` in
// each project, each with its own set of records. SaveFile merges (see
// there), so that they do not undo each other's work.
var indexFormat = binenc.Format{Name: "search index", Magic: "ccski search index\n", Version: 1, MaxFile: MaxFile}

// MaxFile is the largest index file SaveFile writes and LoadIndex reads.
// Measured (docs/benchmarks.md): 100,000 skills of 300 distinct words
// each, drawn from a vocabulary of 400,000 words, make a file of 44.5
// MiB; the limit leaves room for nearly three times as many pairs.
const MaxFile = 128 << 20

// CachePath is the index file in the user's cache folder; "" when there
// is none.
func CachePath() string { return userdirs.Cache("search.bin") }

// Changed reports whether Update read a file or dropped one: whether
// saving the index would keep anything new.
func (ix *Index) Changed() bool { return ix != nil && ix.changed }

// SaveFile writes ix to the file path, atomically, under a lock on
// path+".lock". The docs of the file it replaces whose files ix does not
// index (another process's records) are kept when their file's stamp is
// still the one they were read at, with their postings, so that processes
// sharing the file do not make each other read bodies again; when the
// whole is over MaxFile, ix is written alone. When the file holds ix's
// docs already (what a process that dropped only others' files from a
// loaded index would save), nothing is written. An index over MaxFile is
// not written (the error wraps binenc.ErrTooLarge, naming the size and
// the limit). A failure only means the next run reads the files again.
func (ix *Index) SaveFile(path string) error {
	if ix == nil {
		ix = &Index{}
	}
	release, err := safefile.LockFile(path+".lock", 0o600, nil)
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	defer release()
	out := ix
	if old, err := LoadIndex(path); err == nil { // a missing or bad file has nothing to keep
		var same bool
		if out, same = ix.withOthers(old); same {
			ix.changed = false
			return nil
		}
	}
	err = indexFormat.Save(path, nil, docsTable{out}, termsTable{out})
	if errors.Is(err, binenc.ErrTooLarge) && out != ix {
		err = indexFormat.Save(path, nil, docsTable{ix}, termsTable{ix})
	}
	if err != nil {
		return err
	}
	ix.changed = false
	return nil
}

// withOthers returns ix with the docs of old that ix does not index and
// that can be kept (settled, and their file's stamp unchanged), with
// their postings; ix itself when there are none. same reports whether
// old holds ix's settled docs as they are and the ones kept, and no
// other: saving would keep nothing old does not.
func (ix *Index) withOthers(old *Index) (out *Index, same bool) {
	// Which docs of old to keep: stated at once, as Update does.
	other := make([]bool, len(old.docs))
	keep := make([]bool, len(old.docs))
	for d, od := range old.docs {
		_, mine := ix.files[od.file]
		other[d] = !mine
	}
	parallel.Each(context.Background(), len(old.docs), 0, func(d int) {
		od := old.docs[d]
		if !other[d] || !od.settled {
			return
		}
		if st, err := os.Stat(od.file); err == nil && filestamp.Of(st) == od.stamp {
			keep[d] = true
		}
	})
	same = true
	for d, od := range old.docs {
		if other[d] && !keep[d] && od.settled {
			same = false // a doc dropped (one unsettled is read again anyway)
		}
		if !other[d] && ix.docs[ix.files[od.file]] != od {
			same = false // read again
		}
	}
	kept := 0
	for _, k := range keep {
		if k {
			kept++
		}
	}
	for _, d := range ix.docs {
		// One unsettled (or unreadable) is read again by the next
		// Update whether the file holds it or not.
		if _, in := old.files[d.file]; !in && d.settled {
			same = false // a doc old does not hold
		}
	}
	if kept == 0 {
		return ix, same
	}
	// The docs: ix's, numbered as in ix, then old's kept ones in old's
	// order, so that each term's postings are ix's list followed by old's
	// renumbered.
	out = &Index{docs: slices.Clip(slices.Clone(ix.docs))}
	renum := make([]uint32, len(old.docs))
	for d, od := range old.docs {
		if keep[d] {
			renum[d] = uint32(len(out.docs))
			out.docs = append(out.docs, od)
		}
	}
	var terms strings.Builder
	terms.Grow(len(ix.terms) + len(old.terms))
	out.post = make([]byte, 0, len(ix.post)+len(old.post))
	var list []uint32
	emit := func(t string) {
		if len(list) == 0 {
			return
		}
		out.add(t, list, &terms)
		list = list[:0]
	}
	mine := func(k int) { ix.postings(k, func(d uint32) { list = append(list, d) }) }
	theirs := func(k int) {
		old.postings(k, func(d uint32) {
			if keep[d] {
				list = append(list, renum[d])
			}
		})
	}
	i, j, ni, nj := 0, 0, ix.termCount(), old.termCount()
	for i < ni || j < nj {
		switch {
		case j == nj || (i < ni && ix.term(i) < old.term(j)):
			mine(i)
			emit(ix.term(i))
			i++
		case i == ni || old.term(j) < ix.term(i):
			theirs(j)
			emit(old.term(j))
			j++
		default:
			mine(i)
			theirs(j)
			emit(ix.term(i))
			i++
			j++
		}
	}
	out.seal(&terms)
	return out, same
}

// LoadIndex reads the index SaveFile wrote to path. A file that is
// missing, of another version, over MaxFile, or that does not decode
// whole is an error (the caller starts from an empty index; one that
// does not wrap fs.ErrNotExist is worth a warning). Nothing of the file's
// buffer is kept: the index loaded holds copies.
func LoadIndex(path string) (*Index, error) {
	ix := &Index{}
	if err := indexFormat.Load(path, nil, docsTable{ix}, termsTable{ix}); err != nil {
		return nil, err
	}
	return ix, nil
}

// docsTable is the docs of an Index, as a binenc.Table.
type docsTable struct{ ix *Index }

func (t docsTable) EncodeTable(e *binenc.Encoder) {
	e.Uvarint(uint64(len(t.ix.docs)))
	prev := ""
	for _, d := range t.ix.docs {
		e.Path(prev, d.file)
		prev = d.file
		e.String(d.salt)
		d.stamp.Encode(e)
		settled := byte(0)
		if d.settled {
			settled = 1
		}
		e.Byte(settled)
	}
}

func (t docsTable) DecodeTable(d *binenc.Decoder) func() {
	n := d.Count()
	docs := make([]doc, 0, n)
	files := make(map[string]uint32, n)
	prev := ""
	for range n {
		p := d.Path(prev)
		prev = p
		// The salt is copied: a slice would keep the whole file's
		// buffer (an empty one too) for as long as the doc lives.
		doc := doc{file: p, salt: strings.Clone(d.Slice()), stamp: filestamp.Decode(d), settled: d.Byte() == 1}
		if d.Failed() {
			break
		}
		if _, dup := files[p]; dup || !filepath.IsAbs(p) {
			d.Fail(fmt.Errorf("file %q twice or not absolute: %w", p, binenc.ErrCorrupt))
			break
		}
		files[p] = uint32(len(docs))
		docs = append(docs, doc)
	}
	return func() { t.ix.docs, t.ix.files = docs, files }
}

// termsTable is the terms and postings of an Index, as a binenc.Table. It
// is decoded after docsTable, whose count the postings are checked
// against.
type termsTable struct{ ix *Index }

func (t termsTable) EncodeTable(e *binenc.Encoder) {
	n := t.ix.termCount()
	e.Uvarint(uint64(n))
	prev := ""
	for k := range n {
		term := t.ix.term(k)
		e.Path(prev, term)
		prev = term
		e.Bytes(binary.AppendUvarint(nil, uint64(t.ix.postAt[k+1]-t.ix.postAt[k])))
		e.Bytes(t.ix.post[t.ix.postAt[k]:t.ix.postAt[k+1]])
	}
}

func (t termsTable) DecodeTable(d *binenc.Decoder) func() {
	n := d.Count()
	docs := uint64(0)
	out := &Index{termIndex: termIndex{termAt: make([]uint32, 0, n+1), postAt: make([]uint32, 0, n+1)}}
	var terms strings.Builder
	prev := ""
	for k := range n {
		term := d.Path(prev)
		post := d.Bytes(d.Count())
		if d.Failed() {
			break
		}
		if term == "" || (k > 0 && term <= prev) || !utf8.ValidString(term) || strings.IndexFunc(term, unicode.IsSpace) >= 0 {
			d.Fail(fmt.Errorf("term %q after %q: %w", term, prev, binenc.ErrCorrupt))
			break
		}
		prev = term
		if !validPostings(post, &docs) {
			d.Fail(fmt.Errorf("postings of %q: %w", term, binenc.ErrCorrupt))
			break
		}
		out.termAt = append(out.termAt, uint32(terms.Len()))
		terms.WriteString(term)
		terms.WriteByte('\n')
		out.postAt = append(out.postAt, uint32(len(out.post)))
		out.post = append(out.post, post...)
	}
	return func() {
		// The docs table decoded first: every doc number must be one of
		// its docs, or the whole index is dropped.
		if docs > uint64(len(t.ix.docs)) {
			*t.ix = Index{}
			return
		}
		t.ix.terms = terms.String()
		t.ix.termAt = append(out.termAt, uint32(len(t.ix.terms)))
		t.ix.postAt = append(out.postAt, uint32(len(out.post)))
		t.ix.post = out.post
	}
}

// validPostings reports whether post is a non-empty list of uvarint
// deltas of strictly ascending doc numbers; it raises *most to one past
// the largest.
func validPostings(post []byte, most *uint64) bool {
	if len(post) == 0 {
		return false
	}
	d, first := uint64(0), true
	for len(post) > 0 {
		v, n := binary.Uvarint(post)
		if n <= 0 || (!first && v == 0) || v > 1<<32 {
			return false
		}
		post = post[n:]
		d += v
		first = false
	}
	if d >= 1<<32 {
		return false
	}
	*most = max(*most, d+1)
	return true
}
