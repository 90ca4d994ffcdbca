package pipeline

import (
	"fmt"
	"sort"
	"strings"

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
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("skill name %q is ambiguous: it matches %s; use one of these ids",
		e.Name, strings.Join(e.Candidates, ", "))
}

// Index resolves names to records. It is built once per snapshot and is
// safe for concurrent use.
type Index struct {
	records []*Record
	// tiers are searched in order: ids, then qualified and full names,
	// then short names. The first tier with a match decides.
	tiers [3]map[string][]*Record
	ids   []string
}

// NewIndex builds the index for records, whose ids must be assigned.
func NewIndex(records []*Record) *Index {
	x := &Index{records: records, ids: make([]string, len(records))}
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
		add(0, r.ID, r)
		add(1, r.Name, r)
		add(1, baseID(r), r)
		add(1, locatedID(r), r)
		add(1, r.Provider+":"+r.Name, r)
		if r.Plugin != nil {
			add(1, "@"+r.Name, r)
		}
		add(2, r.ShortName(), r)
		add(2, r.Provider+":"+r.ShortName(), r)
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
	return nil, &NotFoundError{Name: name, Suggestions: x.Suggest(name, 3)}
}

// Suggest returns up to n ids close to name: first those that contain its
// characters in order (fuzzy subsequence), then those within a small edit
// distance of the id or the short name.
func (x *Index) Suggest(name string, n int) []string {
	q := strings.ToLower(strings.TrimSpace(name))
	if q == "" || n <= 0 {
		return nil
	}
	type cand struct {
		id   string
		rank int // lower is better
	}
	best := map[string]int{}
	note := func(id string, rank int) {
		if r, ok := best[id]; !ok || rank < r {
			best[id] = rank
		}
	}
	for i, m := range fuzzy.Find(q, lowerAll(x.ids)) {
		if i >= n {
			break
		}
		note(x.ids[m.Index], i) // ranks 0..n-1
	}
	limit := len([]rune(q))/3 + 1
	if limit > 3 {
		limit = 3
	}
	for _, r := range x.records {
		d := min(levenshtein.ComputeDistance(q, strings.ToLower(r.ShortName())),
			levenshtein.ComputeDistance(q, strings.ToLower(r.Name)),
			levenshtein.ComputeDistance(q, strings.ToLower(r.ID)))
		if d <= limit {
			note(r.ID, 10+d)
		}
	}
	cands := make([]cand, 0, len(best))
	for id, rank := range best {
		cands = append(cands, cand{id, rank})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].rank != cands[j].rank {
			return cands[i].rank < cands[j].rank
		}
		return cands[i].id < cands[j].id
	})
	out := make([]string, 0, n)
	for _, c := range cands {
		if len(out) == n {
			break
		}
		out = append(out, c.id)
	}
	return out
}

func lowerAll(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = strings.ToLower(s)
	}
	return out
}
