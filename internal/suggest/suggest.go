// Package suggest holds the project's one ranking of names against a
// mistyped one, for the "did you mean" part of an error message. Each
// caller words its own message; this package only picks the names.
//
// A name is close to the query when, compared without case and without
// "_" and "-" (so max-depth meets max_depth), it is:
//
//   - a typo of it: at most one edit (an insertion, a deletion, a
//     substitution or a swap of two neighbouring letters) for a query of
//     up to five letters, two from six letters on;
//   - or a name one of them starts with ("meta" for metadata,
//     "claude-code" for claude), when the shorter has at least four
//     letters and the longer at most twice as many.
//
// Typos rank before prefixes, fewer edits first, ties to the smaller
// name. Names, for lists of things to pick from, also takes, first, the
// names that hold the query's letters in order ("rev" finds review), as
// a fuzzy finder does.
package suggest

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sahilm/fuzzy"
)

// Closest returns the entry of valid closest to key (see the package
// comment), or "" when none is close. An entry equal to key counts.
func Closest(key string, valid []string) string {
	if got := rank(key, valid, 1, false, nil); len(got) > 0 {
		return got[0]
	}
	return ""
}

// DidYouMean returns `; did you mean "x"?` for the entry of valid closest
// to key, or "" when none is close. An entry equal to key is never
// suggested.
func DidYouMean(key string, valid []string) string {
	others := slices.DeleteFunc(slices.Clone(valid), func(v string) bool { return v == key })
	if best := Closest(key, others); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// Names returns up to n of names close to query, best first: those that
// hold its letters in order (best fuzzy match first), then typos and
// prefixes as the package comment ranks them. Surrounding white space is
// ignored. It returns nil for a blank query, n <= 0 or no names, and
// never modifies names; a name listed twice is returned once.
func Names(query string, names []string, n int) []string {
	// Sorted, so that equal fuzzy scores go to the smaller name whatever
	// order the caller's names came in (often a map's).
	return rank(query, slices.Sorted(slices.Values(names)), n, true, nil)
}

// NamesBy is Names for names that answer to other strings too: also(i)
// returns those of names[i] (a short name, a plain name), which count as
// typos or prefixes of the query as the name itself does. The fuzzy match
// is on the names only, and equal fuzzy scores keep the order of names.
func NamesBy(query string, names []string, n int, also func(i int) []string) []string {
	return rank(query, names, n, true, also)
}

// Ranks: the first n fuzzy matches take 0 to n-1, a typo of d edits
// typoRank+d, a prefix prefixRank. A name keeps its best rank.
const (
	typoRank   = 1 << 20
	prefixRank = 2 << 20
)

// rank is the one ranking: up to n of names for query, best first, with
// the fuzzy (subsequence) matches first when subsequence is set; also, when
// set, gives the other strings each name answers to.
func rank(query string, names []string, n int, subsequence bool, also func(i int) []string) []string {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" || n <= 0 || len(names) == 0 {
		return nil
	}
	best := map[string]int{}
	note := func(name string, r int) {
		if old, ok := best[name]; !ok || r < old {
			best[name] = r
		}
	}
	if subsequence {
		lower := make([]string, len(names))
		for i, s := range names {
			lower[i] = strings.ToLower(s)
		}
		for i, m := range fuzzy.Find(q, lower) {
			if i >= n {
				break
			}
			note(names[m.Index], i)
		}
	}
	fq := fold(q)
	if fq == "" {
		fq = q // a query of only separators is compared as it is
	}
	c := target{folded: fq, runes: utf8.RuneCountInString(fq)}
	c.edits = maxEdits(c.runes)
	for i, name := range names {
		if r, ok := c.closeness(name); ok {
			note(name, r)
		}
		if also != nil {
			for _, a := range also(i) {
				if r, ok := c.closeness(a); ok {
					note(name, r)
				}
			}
		}
	}
	out := make([]string, 0, len(best))
	for name := range best {
		out = append(out, name)
	}
	sort.Slice(out, func(i, j int) bool {
		if best[out[i]] != best[out[j]] {
			return best[out[i]] < best[out[j]]
		}
		return out[i] < out[j]
	})
	return out[:min(n, len(out))]
}

// target is the folded query, its length in runes and the edits a typo of
// it may have.
type target struct {
	folded string
	runes  int
	edits  int
}

// closeness ranks name against the query: typoRank plus the edits of a
// typo, or prefixRank for a prefix; ok is false when name is not close.
// Lengths are compared first, so that most names of a long list cost no
// allocation.
func (q target) closeness(name string) (int, bool) {
	ln := strings.ToLower(name)
	n := utf8.RuneCountInString(ln) - strings.Count(ln, "_") - strings.Count(ln, "-")
	if n <= 0 {
		return 0, false
	}
	if abs(n-q.runes) <= q.edits {
		if d := distance(q.folded, fold(ln)); d <= q.edits {
			return typoRank + d, true
		}
	}
	short, long := min(n, q.runes), max(n, q.runes)
	if short >= 4 && long <= 2*short && foldedPrefix(ln, q.folded) {
		return prefixRank, true
	}
	return 0, false
}

// foldedPrefix reports whether one of name (lower-cased, compared without
// "_" and "-") and the folded query starts with the other.
func foldedPrefix(name, folded string) bool {
	i, j := 0, 0
	for i < len(name) && j < len(folded) {
		if name[i] == '_' || name[i] == '-' {
			i++
			continue
		}
		a, na := utf8.DecodeRuneInString(name[i:])
		b, nb := utf8.DecodeRuneInString(folded[j:])
		if a != b {
			return false
		}
		i, j = i+na, j+nb
	}
	return true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// maxEdits is how many edits a typo of a folded query of n runes may
// have: one up to five letters, two from six on. More would suggest names
// that only share a few letters with a short query.
func maxEdits(n int) int {
	if n < 6 {
		return 1
	}
	return 2
}

// separators are what fold drops.
var separators = strings.NewReplacer("_", "", "-", "")

// fold drops "_" and "-" from a lower-cased string.
func fold(s string) string {
	if !strings.ContainsAny(s, "_-") {
		return s
	}
	return separators.Replace(s)
}

// distance is the optimal string alignment distance between a and b, in
// runes: insertions, deletions, substitutions and swaps of two
// neighbouring runes each count one edit. Short strings are measured on
// the stack.
func distance(a, b string) int {
	if a == b {
		return 0
	}
	var bufA, bufB [32]rune
	ra, rb := appendRunes(bufA[:0], a), appendRunes(bufB[:0], b)
	var rowBuf [3][33]int
	var prev2, prev, cur []int
	if len(rb) < len(rowBuf[0]) {
		prev2, prev, cur = rowBuf[0][:len(rb)+1], rowBuf[1][:len(rb)+1], rowBuf[2][:len(rb)+1]
	} else {
		prev2, prev, cur = make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// appendRunes appends the runes of s to buf.
func appendRunes(buf []rune, s string) []rune {
	for _, r := range s {
		buf = append(buf, r)
	}
	return buf
}
