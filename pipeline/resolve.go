package pipeline

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
	"github.com/sahilm/fuzzy"
)

// NotFoundError is returned when no record matches a name.
type NotFoundError struct {
	Name        string
	Suggestions []string // up to three ids, closest first
}

func (e *NotFoundError) Error() string {
	if len(e.Suggestions) == 0 {
		return fmt.Sprintf("skill %q not found", e.Name)
	}
	return fmt.Sprintf("skill %q not found; did you mean %s?", e.Name, strings.Join(e.Suggestions, ", "))
}

// AmbiguousError is returned when a name matches several records.
type AmbiguousError struct {
	Name       string
	Candidates []string // the id of every match
	// Reasons, when set, says why each candidate (in the same order) is
	// hidden: Snapshot.Lookup sets it when the name matches only hidden
	// records.
	Reasons []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("skill name %q is ambiguous: it matches %s; use one of these ids",
		e.Name, e.List())
}

// List names the candidates, comma-separated, each followed by why it is
// hidden when Reasons says so.
func (e *AmbiguousError) List() string {
	parts := make([]string, len(e.Candidates))
	for i, id := range e.Candidates {
		parts[i] = id
		if i < len(e.Reasons) && e.Reasons[i] != "" {
			parts[i] += " (hidden: " + e.Reasons[i] + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// Index resolves names to records. It is built once per snapshot and is
// safe for concurrent use.
type Index struct {
	records []*Record
	// tiers are searched in order: ids, then qualified and full names,
	// then short names. The first tier with a match decides.
	tiers [3]map[string][]*Record
	// ids, lowerIDs and lowerNames (short name, name) are per record, in
	// order, lower-cased once here for Suggest.
	ids        []string
	lowerIDs   []string
	lowerNames [][2]string
}

// NewIndex builds the index for records, whose ids must be assigned.
func NewIndex(records []*Record) *Index {
	x := &Index{records: records, ids: make([]string, len(records)),
		lowerIDs: make([]string, len(records)), lowerNames: make([][2]string, len(records))}
	for i := range x.tiers {
		x.tiers[i] = make(map[string][]*Record, len(records))
	}
	add := func(tier int, alias string, r *Record) {
		k := strings.ToLower(alias)
		for _, o := range x.tiers[tier][k] {
			if o == r {
				return
			}
		}
		x.tiers[tier][k] = append(x.tiers[tier][k], r)
	}
	for i, r := range records {
		x.ids[i] = r.ID
		x.lowerIDs[i] = strings.ToLower(r.ID)
		x.lowerNames[i] = [2]string{strings.ToLower(r.ShortName()), strings.ToLower(r.Name)}
		add(0, r.ID, r)
		add(1, r.Name, r)
		add(1, baseID(r), r)
		add(1, locatedID(r), r)
		add(1, r.Agent+":"+r.Name, r)
		if r.Plugin != nil {
			add(1, "@"+r.Name, r)
		}
		add(2, r.ShortName(), r)
		add(2, r.Agent+":"+r.ShortName(), r)
	}
	return x
}

// ByID returns the record whose id is id (case-insensitive), or nil.
func (x *Index) ByID(id string) *Record {
	if m := x.tiers[0][strings.ToLower(strings.TrimSpace(id))]; len(m) == 1 {
		return m[0]
	}
	return nil
}

// Resolve returns the one record that name designates. It returns a
// *NotFoundError or an *AmbiguousError otherwise.
func (x *Index) Resolve(name string) (*Record, error) {
	r, err := x.match(name)
	if nf, ok := err.(*NotFoundError); ok {
		nf.Suggestions = x.Suggest(name, 3)
	}
	return r, err
}

// match is Resolve without suggestions, which cost a pass over every
// record: Snapshot.Lookup asks several indexes and suggests only once.
func (x *Index) match(name string) (*Record, error) {
	k := strings.ToLower(strings.TrimSpace(name))
	for i, tier := range x.tiers {
		switch m := tier[k]; len(m) {
		case 0:
			continue
		case 1:
			return m[0], nil
		default:
			// Ambiguous: list every record the name answers to, in this
			// tier and the looser ones.
			var ids []string
			seen := map[*Record]bool{}
			for _, t := range x.tiers[i:] {
				for _, r := range t[k] {
					if !seen[r] {
						seen[r] = true
						ids = append(ids, r.ID)
					}
				}
			}
			return nil, &AmbiguousError{Name: name, Candidates: ids}
		}
	}
	return nil, &NotFoundError{Name: name}
}

// Suggest returns up to n ids close to name: first those that contain its
// characters in order (fuzzy subsequence), then those within a small edit
// distance of the id, the name or the short name. It ranks like
// SuggestNames, over the ids in record order.
func (x *Index) Suggest(name string, n int) []string {
	q := strings.ToLower(strings.TrimSpace(name))
	if q == "" || n <= 0 {
		return nil
	}
	return rankSuggestions(q, x.ids, x.lowerIDs, n, func(i int) int {
		return min(levenshtein.ComputeDistance(q, x.lowerNames[i][0]),
			levenshtein.ComputeDistance(q, x.lowerNames[i][1]),
			levenshtein.ComputeDistance(q, x.lowerIDs[i]))
	})
}

// SuggestNames returns up to n of names close to query, closest first:
// those that contain its characters in order (fuzzy subsequence, best
// match first), then those within a small edit distance (at most a third
// of the query's length plus one, and at most 3), fewer edits first, ties
// to the smaller name. Case and surrounding white space are ignored. It
// returns nil for a blank query, n <= 0 or no names; names is not
// modified.
func SuggestNames(query string, names []string, n int) []string {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" || n <= 0 || len(names) == 0 {
		return nil
	}
	sorted := slices.Sorted(slices.Values(names))
	lower := make([]string, len(sorted))
	for i, s := range sorted {
		lower[i] = strings.ToLower(s)
	}
	return rankSuggestions(q, sorted, lower, n, func(i int) int {
		return levenshtein.ComputeDistance(q, lower[i])
	})
}

// rankSuggestions returns up to n of names for the lower-cased query q.
// lower holds names lower-cased, in the same order, and dist(i) is the edit
// distance from q to candidate i. The first n fuzzy matches of q in lower
// rank 0 to n-1 in match order (on equal scores, the earlier in names
// first); a candidate within the edit limit ranks 10+dist(i). A name
// keeps its best rank, and equal ranks go to the smaller name. The result
// is never nil.
func rankSuggestions(q string, names, lower []string, n int, dist func(i int) int) []string {
	rank := map[string]int{}
	note := func(name string, r int) {
		if old, ok := rank[name]; !ok || r < old {
			rank[name] = r
		}
	}
	for i, m := range fuzzy.Find(q, lower) {
		if i >= n {
			break
		}
		note(names[m.Index], i) // ranks 0..n-1
	}
	limit := min(utf8.RuneCountInString(q)/3+1, 3)
	for i := range names {
		if d := dist(i); d <= limit {
			note(names[i], 10+d)
		}
	}
	out := make([]string, 0, len(rank))
	for name := range rank {
		out = append(out, name)
	}
	sort.Slice(out, func(i, j int) bool {
		if rank[out[i]] != rank[out[j]] {
			return rank[out[i]] < rank[out[j]]
		}
		return out[i] < out[j]
	})
	return out[:min(n, len(out))]
}
