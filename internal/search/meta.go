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

// metaIndex is the meta index of records, by their positions.
type metaIndex struct {
	n int // records
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

// newMeta returns what Rank needs of records: each one's text lower-cased
// and the meta index.
func newMeta(records []*pipeline.Record) ([]lowered, *metaIndex) {
	low := make([]lowered, len(records))
	words := map[string][]uint32{}
	names := map[string][]uint32{}
	note := func(m map[string][]uint32, w string, i uint32) {
		list := m[w]
		if len(list) == 0 || list[len(list)-1] != i {
			m[w] = append(list, i)
		}
	}
	seen := map[string]bool{}
	for i, r := range records {
		l := lowered{name: strings.ToLower(r.Name), id: strings.ToLower(r.ID), desc: strings.ToLower(r.Description)}
		if r.Alias != "" {
			l.alias = strings.ToLower(r.Alias)
		}
		low[i] = l
		for _, s := range []string{l.name, l.id, l.desc, l.alias} {
			for _, w := range strings.Fields(s) {
				seen[w] = true
			}
		}
		for w := range seen {
			note(words, w, uint32(i))
		}
		clear(seen)
		for _, s := range []string{l.name, l.alias} {
			for rest := s; rest != ""; {
				end := 0
				for end < len(rest) && !nameSeparator(rest[end]) {
					end++
				}
				if end > 0 {
					note(names, rest[:end], uint32(i))
				}
				rest = rest[min(end+1, len(rest)):]
			}
		}
	}
	m := &metaIndex{n: len(records)}
	build := func(ti *termIndex, src map[string][]uint32, order func(a, b string) int) []string {
		keys := make([]string, 0, len(src))
		for k := range src {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, order)
		var terms strings.Builder
		for _, k := range keys {
			ti.add(k, src[k], &terms)
		}
		ti.seal(&terms)
		return keys
	}
	build(&m.words, words, strings.Compare)
	byLen := func(a, b string) int {
		return cmp.Or(cmp.Compare(utf8.RuneCountInString(a), utf8.RuneCountInString(b)), strings.Compare(a, b))
	}
	for k, w := range build(&m.names, names, byLen) {
		n := utf8.RuneCountInString(w)
		if len(m.lens) == 0 || m.lens[len(m.lens)-1].n != n {
			m.lens = append(m.lens, lenRange{n: n, from: k})
		}
		m.lens[len(m.lens)-1].to = k + 1
	}
	return low, m
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
	m, ix := q.ix.meta, q.ix
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
