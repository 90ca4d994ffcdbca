package search

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/internal/filestamp"
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
var indexFormat = binenc.Format{Name: "search index", Magic: "ccski search index\n", Version: 1}

// CachePath is the index file in the user's cache folder; "" when there
// is none.
func CachePath() string { return userdirs.Cache("search.bin") }

// Changed reports whether Update read a file or dropped one: whether
// saving the index would keep anything new.
func (ix *Index) Changed() bool { return ix != nil && ix.changed }

// SaveFile writes ix to the file path, atomically. A failure only means
// the next run reads the files again.
func (ix *Index) SaveFile(path string) error {
	if ix == nil {
		ix = &Index{}
	}
	if err := indexFormat.Save(path, nil, docsTable{ix}, termsTable{ix}); err != nil {
		return err
	}
	ix.changed = false
	return nil
}

// LoadIndex reads the index SaveFile wrote to path. A file that is
// missing, of another version, or that does not decode whole is an error
// (the caller starts from an empty index).
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
		doc := doc{file: p, salt: d.Slice(), stamp: filestamp.Decode(d), settled: d.Byte() == 1}
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
