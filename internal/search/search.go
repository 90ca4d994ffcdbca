// Package search ranks skills against a free-text query. Every
// whitespace-separated token of the query must match somewhere: in the id,
// the name, the description, or (when asked) the body. A token also matches
// a name word within a small edit distance, so typos still find the skill.
// Matches in the name count most, then the id, the description and the
// body.
//
// Bodies are read lazily: a body match scores lowest, so a record's
// SKILL.md is only read when a token matched nothing in its id, name or
// description, or to make the snippet of a hit that is returned. With an
// Index (index.go) no body is read to match: the index answers which
// bodies hold a token, with the same rule, and only the snippets of the
// hits returned are read.
package search

import (
	"bytes"
	"errors"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"

	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// MaxBody caps how much of each SKILL.md a content search reads, in bytes:
// text past the first MiB of a file is not searched.
const MaxBody = 1 << 20

// Options tune a search.
type Options struct {
	// Content also searches SKILL.md bodies (the first MaxBody bytes of
	// each) and fills Hit.Snippet.
	Content bool
	// SnippetLen is the snippet width in characters (default 120).
	SnippetLen int
	// Limit caps how many hits Rank returns, best first; 0 returns them
	// all. Bodies are read for snippets only for the hits returned.
	Limit int
	// Body, when set, gives the body of a record's SKILL.md (its first
	// MaxBody bytes, "" when it cannot be read) in place of reading the
	// file: a server under a gate reads only the bytes judged.
	Body func(r *pipeline.Record) string
	// Index, when set, says whether the body of a record it indexed
	// holds a token, in place of reading it; the body of a record it did
	// not index is read. Its bodies must be the ones Body gives. Bodies
	// are then read only for the snippets of the hits returned. When the
	// records ranked are the very slice the index was updated with, and
	// it was primed (Index.Prime), only the records its meta index says
	// every token can match are scored.
	Index *Index
}

// Hit is one matching record.
type Hit struct {
	Record *pipeline.Record
	Score  int
	// Snippet is text around the first body match of a query token, in
	// query order (Content only; empty when no token occurs in the body).
	Snippet string
}

// Scores per token, by where it matched.
const (
	scoreNameExact  = 100
	scoreNamePrefix = 70
	scoreNameSub    = 50
	scoreIDSub      = 40
	scoreNameTypo   = 30
	scoreDescWord   = 25
	scoreDescSub    = 15
	scoreBody       = 8
)

// Tokens splits a query into lower-cased tokens.
func Tokens(query string) []string { return strings.Fields(strings.ToLower(query)) }

// Rank returns the records matching every token of query, best first, at
// most opt.Limit of them (all when it is 0), and how many matched in all.
// Ties keep the input order. A blank query matches nothing.
func Rank(records []*pipeline.Record, query string, opt Options) (hits []Hit, total int) {
	toks := tokens(query)
	if len(toks) == 0 {
		return nil, 0
	}
	if opt.SnippetLen <= 0 {
		opt.SnippetLen = 120
	}
	best := make([]int, len(toks))
	q := &indexQuery{ix: opt.Index, sets: make([][]uint64, len(toks)), aligned: opt.Index.aligned(records)}
	if q.aligned {
		q.meta = q.ix.meta.built.Load()
	}
	top := topHits{limit: opt.Limit}
	if q.meta != nil {
		// Only the records the meta index says every token can match.
		for w, word := range q.candidates(toks, opt.Content) {
			for ; word != 0; word &= word - 1 {
				i := w*64 + bits.TrailingZeros64(word)
				q.at = i
				if h, bodyRead, ok := score(records[i], toks, best, opt, q); ok {
					top.add(ranked{h, bodyRead, i})
				}
			}
		}
	} else {
		for i, r := range records {
			q.at = i
			if h, bodyRead, ok := score(r, toks, best, opt, q); ok {
				top.add(ranked{h, bodyRead, i})
			}
		}
	}
	if top.total == 0 {
		return nil, 0
	}
	found := top.sorted()
	total = top.total
	hits = make([]Hit, len(found))
	for i, f := range found {
		if opt.Content && !f.bodyRead {
			f.Snippet = firstMatch(opt.body(f.Record), toks, opt.SnippetLen)
		}
		hits[i] = f.Hit
	}
	return hits, total
}

// token is a query token, with what the typo check needs of it decoded
// once: its length in runes, its runes (at most 32 of them), and the
// edit distance a name word may be from it (0: no typo check).
type token struct {
	s     string
	n     int
	limit int
	runes []rune
}

// tokens splits a query into tokens (Tokens).
func tokens(query string) []token {
	ss := Tokens(query)
	toks := make([]token, len(ss))
	for i, s := range ss {
		t := token{s: s, n: utf8.RuneCountInString(s)}
		switch {
		case t.n >= 8:
			t.limit = 2
		case t.n >= 4:
			t.limit = 1
		}
		if t.limit > 0 && t.n <= 32 {
			t.runes = []rune(s)
		}
		toks[i] = t
	}
	return toks
}

// ranked is a hit being ranked; bodyRead says whether its body was read
// (and its snippet made) while scoring, at its position in the records.
type ranked struct {
	Hit
	bodyRead bool
	at       int
}

// before reports whether a ranks before b: a higher score, or the same
// and first in the records.
func (a *ranked) before(b *ranked) bool {
	return a.Score > b.Score || a.Score == b.Score && a.at < b.at
}

// topHits keeps the best limit hits added (all of them when limit is 0),
// and counts them all: a query matching every record sorts only what it
// returns. Hits are added in the order of the records.
type topHits struct {
	limit int
	total int
	hits  []ranked // with a limit, a heap: the worst kept first
}

func (t *topHits) add(h ranked) {
	t.total++
	switch {
	case t.limit <= 0 || len(t.hits) < t.limit:
		t.hits = append(t.hits, h)
		if t.limit > 0 {
			t.up(len(t.hits) - 1)
		}
	case h.before(&t.hits[0]):
		t.hits[0] = h
		t.down(0)
	}
}

// up and down keep t.hits a heap whose first is the one ranked last.
func (t *topHits) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.hits[p].before(&t.hits[i]) {
			return
		}
		t.hits[p], t.hits[i] = t.hits[i], t.hits[p]
		i = p
	}
}

func (t *topHits) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(t.hits) {
			return
		}
		if c+1 < len(t.hits) && t.hits[c].before(&t.hits[c+1]) {
			c++
		}
		if !t.hits[i].before(&t.hits[c]) {
			return
		}
		t.hits[i], t.hits[c] = t.hits[c], t.hits[i]
		i = c
	}
}

// sorted returns the hits kept, best first.
func (t *topHits) sorted() []ranked {
	slices.SortFunc(t.hits, func(a, b ranked) int {
		if a.before(&b) {
			return -1
		}
		return 1
	})
	return t.hits
}

// score scores r against every token, best being scratch space of
// len(toks). The body is read only when a token matched none of the id,
// name and description: a body match scores less than any other, so it
// cannot raise the score of a token matched there. bodyRead says whether
// the body was read, in which case the hit's snippet is made.
func score(r *pipeline.Record, toks []token, best []int, opt Options, q *indexQuery) (h Hit, bodyRead, ok bool) {
	l := q.lowered(r)
	missing := false
	for i, t := range toks {
		ty := q.typo(i)
		best[i] = metaScore(t, l.name, short(l.name), l.id, l.desc, ty)
		if l.alias != "" { // the other name finds the skill as its name does
			best[i] = max(best[i], metaScore(t, l.alias, short(l.alias), l.id, l.desc, ty))
		}
		if best[i] == 0 {
			if !opt.Content {
				return Hit{}, false, false
			}
			missing = true
		}
	}
	h = Hit{Record: r}
	if missing {
		if d, indexed := q.doc(r); indexed {
			for i, t := range toks {
				if best[i] == 0 {
					if !q.holds(i, t.s, d) {
						return Hit{}, false, false
					}
					best[i] = scoreBody
				}
			}
			for _, b := range best {
				h.Score += b
			}
			return h, false, true
		}
		body := opt.body(r)
		if body == "" {
			return Hit{}, false, false
		}
		lbody := strings.ToLower(body)
		for i, t := range toks {
			if best[i] == 0 {
				if !strings.Contains(lbody, t.s) {
					return Hit{}, false, false
				}
				best[i] = scoreBody
			}
		}
		h.Snippet = snippet(body, lbody, toks, opt.SnippetLen)
		bodyRead = true
	}
	for _, b := range best {
		h.Score += b
	}
	return h, bodyRead, true
}

// indexQuery is what a Rank with an Index worked out once for every record:
// the docs whose body holds each token, made at the first record that
// needs it.
type indexQuery struct {
	ix   *Index
	sets [][]uint64 // by token index; nil until needed
	// typos is, by token index, the records (by position) with a name
	// or alias word within the token's typo distance (aligned only).
	typos [][]uint64
	// aligned is set when the records ranked are those the index was
	// updated with (Index.aligned); at is then the position of the
	// record scored.
	aligned bool
	at      int
	// meta is the index's meta index, when aligned and primed.
	meta *metaIndex
}

// lowered is r's name, id, description and alias lower-cased: from the
// index when it was made for these records.
func (q *indexQuery) lowered(r *pipeline.Record) lowered {
	if q.meta != nil {
		return q.meta.low[q.at]
	}
	l := lowered{name: strings.ToLower(r.Name), id: strings.ToLower(r.ID), desc: strings.ToLower(r.Description)}
	if r.Alias != "" {
		l.alias = strings.ToLower(r.Alias)
	}
	return l
}

// typo says whether token i is within typo distance of a word of the
// name or alias of the record at q.at, when the index knows (metaScore's
// ty).
func (q *indexQuery) typo(i int) int {
	if q.meta == nil {
		return -1
	}
	if q.typos[i][q.at/64]&(1<<(q.at%64)) != 0 {
		return 1
	}
	return 0
}

// doc returns the number of the doc of r's file, and whether the index
// holds it.
func (q *indexQuery) doc(r *pipeline.Record) (uint32, bool) {
	if q.aligned {
		d := q.ix.docOf[q.at]
		return uint32(d), d >= 0
	}
	return q.ix.doc(r)
}

// holds reports whether the body of doc d holds token i, t.
func (q *indexQuery) holds(i int, t string, d uint32) bool {
	if q.sets[i] == nil {
		q.sets[i] = q.ix.holding(t)
	}
	return q.sets[i][d/64]&(1<<(d%64)) != 0
}

// metaScore is the best score of token t in a record's lower-cased name,
// short name, id and description; 0 when it matches none of them. ty says
// whether t is within typo distance of a word of the name (or, the same
// for the score, of the alias) when the index knows (1 or 0); -1: check.
func metaScore(t token, name, short, id, desc string, ty int) int {
	best := 0
	note := func(s int) {
		if s > best {
			best = s
		}
	}
	switch {
	case short == t.s || name == t.s:
		note(scoreNameExact)
	case strings.HasPrefix(short, t.s) || strings.HasPrefix(name, t.s):
		note(scoreNamePrefix)
	case strings.Contains(name, t.s):
		note(scoreNameSub)
	}
	if strings.Contains(id, t.s) {
		note(scoreIDSub)
	}
	if best < scoreNameTypo && (ty > 0 || ty < 0 && typo(t, name)) {
		note(scoreNameTypo)
	}
	if best < scoreDescWord {
		if i := strings.Index(desc, t.s); i >= 0 {
			if wordStart(desc, i) {
				note(scoreDescWord)
			} else {
				note(scoreDescSub)
			}
		}
	}
	return best
}

// snippet is the text of body around the first token, in query order,
// that occurs in it (lbody is body lower-cased); "" when none does.
func snippet(body, lbody string, toks []token, width int) string {
	if body == "" {
		return ""
	}
	for _, t := range toks {
		if i := strings.Index(lbody, t.s); i >= 0 {
			return Snippet(body, i, len(t.s), width)
		}
	}
	return ""
}

// firstMatch is snippet for a body not lower-cased yet: it lower-cases
// the body only as far as it must, in chunks, up to the first match of
// the first token that occurs in it.
func firstMatch(body string, toks []token, width int) string {
	if body == "" {
		return ""
	}
	var low []byte
	done, chunk := 0, 4<<10
	// more lower-cases the next chunk of body (cut at a rune start, so
	// the chunks lower-cased are the whole lower-cased), reporting
	// whether there was any.
	more := func() bool {
		if done == len(body) {
			return false
		}
		end := min(done+chunk, len(body))
		for end < len(body) && !utf8.RuneStart(body[end]) {
			end++
		}
		low = appendLower(low, body[done:end])
		done, chunk = end, chunk*2
		return true
	}
	for _, t := range toks {
		for from := 0; ; {
			if i := bytes.Index(low[from:], []byte(t.s)); i >= 0 {
				return Snippet(body, from+i, len(t.s), width)
			}
			from = max(0, len(low)-len(t.s)+1)
			if !more() {
				break
			}
		}
	}
	return ""
}

// appendLower appends s lower-cased (as strings.ToLower does it: rune by
// rune, an invalid byte becoming U+FFFD) to b.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += n
	}
	return b
}

// nameSeparator splits a name into its words.
func nameSeparator(b byte) bool { return b == ':' || b == '-' || b == '_' || b == '.' || b == ' ' }

// typo reports whether t is within a small edit distance of a word of
// name (split on ':', '-', '_', '.', space): one edit for tokens of 4 to
// 7 characters, two for longer ones (token.limit).
func typo(t token, name string) bool {
	if t.limit == 0 {
		return false
	}
	for rest := name; rest != ""; {
		end := 0
		for end < len(rest) && !nameSeparator(rest[end]) {
			end++
		}
		w := rest[:end]
		rest = rest[min(end+1, len(rest)):]
		if w == "" || abs(utf8.RuneCountInString(w)-t.n) > t.limit {
			continue
		}
		if t.within(w) {
			return true
		}
	}
	return false
}

// within reports whether the edit distance (Levenshtein, over runes)
// between a and b is at most k.
func within(a string, b string, k int) bool {
	t := token{s: a, n: utf8.RuneCountInString(a), limit: k}
	if t.n <= 32 {
		t.runes = []rune(a)
	}
	return t.within(b)
}

// within reports whether the edit distance (Levenshtein, over runes)
// between t and w is at most t.limit. It runs on the stack and stops as
// soon as a row of the table exceeds the limit; words over 32 runes go to
// the levenshtein package.
func (t token) within(w string) bool {
	k := t.limit
	if t.runes == nil {
		return levenshtein.ComputeDistance(t.s, w) <= k
	}
	var rb [32]rune
	nb := 0
	for _, r := range w {
		if nb == len(rb) {
			return levenshtein.ComputeDistance(t.s, w) <= k
		}
		rb[nb] = r
		nb++
	}
	ra, na := t.runes, len(t.runes)
	var prev, cur [33]int
	for j := 0; j <= nb; j++ {
		prev[j] = j
	}
	for i := 1; i <= na; i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= nb; j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
			low = min(low, cur[j])
		}
		if low > k {
			return false
		}
		prev = cur
	}
	return prev[nb] <= k
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func wordStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// Snippet returns about width characters of text around the match at byte
// offset i of length n, with white space folded and "…" where it was cut.
// It decodes text only up to the end of the snippet.
func Snippet(text string, i, n, width int) string {
	// Offsets come from a lower-cased copy; clamp in case case mapping
	// changed byte lengths.
	i = min(max(i, 0), len(text))
	n = min(max(n, 0), len(text)-i)
	start := utf8.RuneCountInString(text[:i])
	end := start + utf8.RuneCountInString(text[i:i+n])
	from := max(0, start-(width-(end-start))/2)
	// The window: from's byte offset, then width runes on, or the end.
	fb := runeOffset(text, 0, from)
	tb, to := fb, from
	for to < from+width && tb < len(text) {
		_, sz := utf8.DecodeRuneInString(text[tb:])
		tb += sz
		to++
	}
	atEnd := tb == len(text)
	if atEnd && to-width < from { // the end came first: start earlier
		from = max(0, to-width)
		fb = runeOffset(text, 0, from)
	}
	// As string([]rune(window)): an invalid byte is U+FFFD.
	window := make([]byte, 0, tb-fb)
	for k := fb; k < tb; {
		r, sz := utf8.DecodeRuneInString(text[k:])
		window = utf8.AppendRune(window, r)
		k += sz
	}
	s := skillmd.FoldSpace(string(window))
	if from > 0 {
		s = "…" + s
	}
	if !atEnd {
		s += "…"
	}
	return s
}

// runeOffset is the byte offset of rune number k of text, counting from
// byte offset at (rune 0).
func runeOffset(text string, at, k int) int {
	for ; k > 0 && at < len(text); k-- {
		_, sz := utf8.DecodeRuneInString(text[at:])
		at += sz
	}
	return at
}

// body returns the body of r's SKILL.md: Options.Body's, else readBody's.
func (o Options) body(r *pipeline.Record) string {
	if o.Body != nil {
		return o.Body(r)
	}
	return readBody(r.File)
}

// readBody returns the Markdown body of a SKILL.md (skillmd.Body) from its
// first MaxBody bytes, or "" when it cannot be read. The file is opened
// without blocking and must be a regular file, so a FIFO never hangs a
// search.
func readBody(file string) string {
	b, err := readFile(file, MaxBody)
	switch {
	case errors.Is(err, skillmd.ErrTruncated):
		b = skillmd.TrimPartialRune(b)
	case err != nil:
		return ""
	}
	return string(b)
}

// readFile is skillmd.ReadBody; tests count the reads through it.
var readFile = skillmd.ReadBody
