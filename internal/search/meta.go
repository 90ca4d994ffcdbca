package search

// The meta index. With the body index, what was left of a query was one
// pass over every record's name, id and description (~0.7 µs a record,
// some 70 ms at 100,000 skills). The meta index answers which records a
// token can match there, by the same argument as the body index (see the
// top of index.go): a token is a substring of a lower-cased name, id,
// description or alias exactly when it is a substring of one of its
// lower-cased words (strings.Fields), and it is within typo distance of a
// word of a name exactly when it is of one of the distinct name words
// kept. Rank then scores only the records every token can match, with the
// rules it always had: the index narrows, it never decides.

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/ccski/ccski/pipeline"
)

// lowered is a record's name, id, description and alias lower-cased.
type lowered struct {
	name, id, desc, alias string
}

// short is the short name of a lower-cased name (pipeline.Record.
// ShortName): lower-casing keeps the colons where they were.
func short(name string) string { return name[strings.LastIndexByte(name, ':')+1:] }

// metaOnce is the meta index of an Index's records, built by the first
// Prime; copies of an Index for the same records share it.
type metaOnce struct {
	once  sync.Once
	built atomic.Pointer[metaIndex]
}

// Prime builds the meta index of the records ix was updated with, if not
// built yet: Rank then scores only the records every token of a query can
// match, with names, ids and descriptions lower-cased once. It costs a few
// µs a record, some ten passes of a query over every record, so that a
// server that answers many queries calls it (in the background, after
// Update) and a command that answers one does not. Safe for concurrent
// use.
func (ix *Index) Prime() {
	if ix == nil || ix.meta == nil {
		return
	}
	ix.meta.once.Do(func() { ix.meta.built.Store(newMeta(ix.recs)) })
}

// metaIndex is the meta index of records, by their positions.
type metaIndex struct {
	n   int       // records
	low []lowered // each record's text lower-cased
	// words: the words of every record's lower-cased name, id,
	// description and alias, each with the positions of the records
	// holding it.
	words termIndex
	// names: the words of every lower-cased name and alias (split as
	// typo splits them), ordered by length in runes, then bytes; lens
	// gives the terms of each length.
	names termIndex
	lens  []lenRange
}

// lenRange is the terms [from, to) of names that are n runes long.
type lenRange struct{ n, from, to int }

// newMeta returns the meta index of records.
func newMeta(records []*pipeline.Record) *metaIndex {
	low := make([]lowered, len(records))
	// Words are numbered as first seen; pairs are (word, record) as
	// word<<32 | position, sorted below into postings.
	var words, names termBuilder
	for i, r := range records {
		l := lowered{name: strings.ToLower(r.Name), id: strings.ToLower(r.ID), desc: strings.ToLower(r.Description)}
		if r.Alias != "" {
			l.alias = strings.ToLower(r.Alias)
		}
		low[i] = l
		for _, s := range [...]string{l.name, l.id, l.desc, l.alias} {
			fields(s, func(w string) { words.note(w, uint32(i)) })
		}
		for _, s := range [...]string{l.name, l.alias} {
			for rest := s; rest != ""; {
				end := 0
				for end < len(rest) && !nameSeparator(rest[end]) {
					end++
				}
				if end > 0 {
					names.note(rest[:end], uint32(i))
				}
				rest = rest[min(end+1, len(rest)):]
			}
		}
	}
	m := &metaIndex{n: len(records), low: low}
	words.build(&m.words, func(a, b int) int { return strings.Compare(words.words[a], words.words[b]) })
	runes := make([]int, len(names.words))
	for k, w := range names.words {
		runes[k] = utf8.RuneCountInString(w)
	}
	order := names.build(&m.names, func(a, b int) int {
		return cmp.Or(cmp.Compare(runes[a], runes[b]), strings.Compare(names.words[a], names.words[b]))
	})
	for k, id := range order {
		n := runes[id]
		if len(m.lens) == 0 || m.lens[len(m.lens)-1].n != n {
			m.lens = append(m.lens, lenRange{n: n, from: k})
		}
		m.lens[len(m.lens)-1].to = k + 1
	}
	return m
}

// fields calls f with each white-space separated field of s, as
// strings.Fields splits it.
func fields(s string, f func(string)) {
	for i := 0; i < len(s); {
		for i < len(s) { // white space
			c := s[i]
			if c < utf8.RuneSelf {
				if !asciiSpace[c] {
					break
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += n
		}
		start := i
		for i < len(s) { // a field
			c := s[i]
			if c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				break
			}
			i += n
		}
		if i > start {
			f(s[start:i])
		}
	}
}

// termBuilder gathers (term, number) pairs for a termIndex.
type termBuilder struct {
	ids   map[string]uint32
	words []string // by id
	pairs []uint64 // id<<32 | number
}

func (b *termBuilder) note(w string, n uint32) {
	if b.ids == nil {
		b.ids = map[string]uint32{}
	}
	id, ok := b.ids[w]
	if !ok {
		id = uint32(len(b.words))
		b.ids[w] = id
		b.words = append(b.words, w)
	}
	b.pairs = append(b.pairs, uint64(id)<<32|uint64(n))
}

// build makes ti of the pairs, its terms in the order order gives their
// ids, and returns the ids in that order.
func (b *termBuilder) build(ti *termIndex, order func(a, b int) int) []int {
	ids := make([]int, len(b.words))
	for i := range ids {
		ids[i] = i
	}
	slices.SortFunc(ids, order)
	slices.Sort(b.pairs)              // by id, then number
	at := make([]int, len(b.words)+1) // where each id's pairs start
	for _, p := range b.pairs {
		at[p>>32+1]++
	}
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	var terms strings.Builder
	var list []uint32
	for _, id := range ids {
		list = list[:0]
		for _, p := range b.pairs[at[id]:at[id+1]] {
			if n := uint32(p); len(list) == 0 || list[len(list)-1] != n {
				list = append(list, n)
			}
		}
		ti.add(b.words[id], list, &terms)
	}
	ti.seal(&terms)
	*b = termBuilder{}
	return ids
}

// typos marks in set the records with a name or alias word within t's
// typo distance (typo).
func (m *metaIndex) typos(t token, set []uint64) {
	if t.limit == 0 {
		return
	}
	for _, lr := range m.lens {
		if abs(lr.n-t.n) > t.limit {
			continue
		}
		for k := lr.from; k < lr.to; k++ {
			if t.within(m.names.term(k)) {
				m.names.mark(k, set)
			}
		}
	}
}

// candidates returns the records (a bit per position) that every token
// can match: in their lower-cased name, id, description or alias, within
// typo distance of a name word, or (content) in their body as q says,
// and, with content, every record whose body the index did not read.
// Rank scores these alone: the others match no token somewhere.
func (q *indexQuery) candidates(toks []token, content bool) []uint64 {
	m, ix := q.meta, q.ix
	var cand []uint64
	q.typos = make([][]uint64, len(toks))
	for i := range toks {
		q.typos[i] = make([]uint64, (m.n+63)/64)
	}
	for i, t := range toks {
		set := make([]uint64, (m.n+63)/64)
		m.words.holding(t.s, set)
		m.typos(t, q.typos[i])
		for w, b := range q.typos[i] {
			set[w] |= b
		}
		if content {
			for p, d := range ix.docOf {
				if set[p/64]&(1<<(p%64)) != 0 {
					continue
				}
				if d < 0 || q.holds(i, t.s, uint32(d)) {
					set[p/64] |= 1 << (p % 64)
				}
			}
		}
		if cand == nil {
			cand = set
		}
		none := true
		for w := range cand {
			cand[w] &= set[w]
			none = none && cand[w] == 0
		}
		if none {
			break
		}
	}
	return cand
}
