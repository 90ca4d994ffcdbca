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
	"errors"
	"sort"
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
	// records ranked are the very slice the index was updated with, the
	// lower-cased descriptions it keeps are used too.
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
	toks := Tokens(query)
	if len(toks) == 0 {
		return nil, 0
	}
	if opt.SnippetLen <= 0 {
		opt.SnippetLen = 120
	}
	var found []ranked
	best := make([]int, len(toks))
	q := &indexQuery{ix: opt.Index, sets: make([][]uint64, len(toks)), aligned: opt.Index.aligned(records)}
	for i, r := range records {
		q.at = i
		if h, bodyRead, ok := score(r, toks, best, opt, q); ok {
			found = append(found, ranked{h, bodyRead})
		}
	}
	if len(found) == 0 {
		return nil, 0
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Score > found[j].Score })
	total = len(found)
	if opt.Limit > 0 && total > opt.Limit {
		found = found[:opt.Limit]
	}
	hits = make([]Hit, len(found))
	for i, f := range found {
		if opt.Content && !f.bodyRead {
			body := opt.body(f.Record)
			f.Snippet = snippet(body, strings.ToLower(body), toks, opt.SnippetLen)
		}
		hits[i] = f.Hit
	}
	return hits, total
}

// ranked is a hit being ranked; bodyRead says whether its body was read
// (and its snippet made) while scoring.
type ranked struct {
	Hit
	bodyRead bool
}

// score scores r against every token, best being scratch space of
// len(toks). The body is read only when a token matched none of the id,
// name and description: a body match scores less than any other, so it
// cannot raise the score of a token matched there. bodyRead says whether
// the body was read, in which case the hit's snippet is made.
func score(r *pipeline.Record, toks []string, best []int, opt Options, q *indexQuery) (h Hit, bodyRead, ok bool) {
	name := strings.ToLower(r.Name)
	short := strings.ToLower(r.ShortName())
	id := strings.ToLower(r.ID)
	desc := q.lowerDesc(r)
	missing := false
	var alias, aliasShort string
	if r.Alias != "" { // the other name finds the skill as its name does
		alias, aliasShort = strings.ToLower(r.Alias), strings.ToLower(r.ShortAlias())
	}
	for i, t := range toks {
		best[i] = metaScore(t, name, short, id, desc)
		if alias != "" {
			best[i] = max(best[i], metaScore(t, alias, aliasShort, id, desc))
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
					if !q.holds(i, t, d) {
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
				if !strings.Contains(lbody, t) {
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
	// aligned is set when the records ranked are those the index was
	// updated with (Index.aligned); at is then the position of the
	// record scored.
	aligned bool
	at      int
}

// lowerDesc is r's description lower-cased: from the index when it was
// made for these records.
func (q *indexQuery) lowerDesc(r *pipeline.Record) string {
	if q.aligned {
		return q.ix.lowDesc[q.at]
	}
	return strings.ToLower(r.Description)
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
// short name, id and description; 0 when it matches none of them.
func metaScore(t, name, short, id, desc string) int {
	best := 0
	note := func(s int) {
		if s > best {
			best = s
		}
	}
	switch {
	case short == t || name == t:
		note(scoreNameExact)
	case strings.HasPrefix(short, t) || strings.HasPrefix(name, t):
		note(scoreNamePrefix)
	case strings.Contains(name, t):
		note(scoreNameSub)
	}
	if strings.Contains(id, t) {
		note(scoreIDSub)
	}
	if best < scoreNameTypo && typo(t, name) {
		note(scoreNameTypo)
	}
	if best < scoreDescWord {
		if i := strings.Index(desc, t); i >= 0 {
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
func snippet(body, lbody string, toks []string, width int) string {
	if body == "" {
		return ""
	}
	for _, t := range toks {
		if i := strings.Index(lbody, t); i >= 0 {
			return Snippet(body, i, len(t), width)
		}
	}
	return ""
}

// nameSeparator splits a name into its words.
func nameSeparator(b byte) bool { return b == ':' || b == '-' || b == '_' || b == '.' || b == ' ' }

// typo reports whether t is within a small edit distance of a word of
// name (split on ':', '-', '_', '.', space): one edit for tokens of 4 to
// 7 characters, two for longer ones.
func typo(t, name string) bool {
	n := utf8.RuneCountInString(t)
	if n < 4 {
		return false
	}
	limit := 1
	if n >= 8 {
		limit = 2
	}
	for rest := name; rest != ""; {
		end := 0
		for end < len(rest) && !nameSeparator(rest[end]) {
			end++
		}
		w := rest[:end]
		rest = rest[min(end+1, len(rest)):]
		if w == "" || abs(utf8.RuneCountInString(w)-n) > limit {
			continue
		}
		if within(t, w, limit) {
			return true
		}
	}
	return false
}

// within reports whether the edit distance (Levenshtein, over runes)
// between a and b is at most k. It runs on the stack and stops as soon as
// a row of the table exceeds k; words over 32 runes go to the levenshtein
// package.
func within(a, b string, k int) bool {
	var ra, rb [32]rune
	na, nb := 0, 0
	for _, r := range a {
		if na == len(ra) {
			return levenshtein.ComputeDistance(a, b) <= k
		}
		ra[na] = r
		na++
	}
	for _, r := range b {
		if nb == len(rb) {
			return levenshtein.ComputeDistance(a, b) <= k
		}
		rb[nb] = r
		nb++
	}
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
func Snippet(text string, i, n, width int) string {
	// Offsets come from a lower-cased copy; clamp in case case mapping
	// changed byte lengths.
	i = min(max(i, 0), len(text))
	n = min(max(n, 0), len(text)-i)
	runes := []rune(text)
	start := utf8.RuneCountInString(text[:i])
	end := start + utf8.RuneCountInString(text[i:i+n])
	from := max(0, start-(width-(end-start))/2)
	to := min(len(runes), from+width)
	from = max(0, min(from, to-width))
	s := skillmd.FoldSpace(string(runes[from:to]))
	if from > 0 {
		s = "…" + s
	}
	if to < len(runes) {
		s += "…"
	}
	return s
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
