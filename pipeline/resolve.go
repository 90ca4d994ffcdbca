package pipeline

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/suggest"
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

// Index resolves names to records by the rule of forms (see names.go).
// It is built once per snapshot and is safe for concurrent use.
//
// A server keeps one for as long as it serves a snapshot, so it is kept
// small: it holds no name, only a 64-bit hash of each (lower-cased) name
// and the position of its record; only the hashes that several records
// share keep a list. A lookup hashes the name asked for and checks it
// against the names of the records the hash leads to (see forms), so two
// names whose hashes collide never answer for each other.
type Index struct {
	records []*Record
	seed    maphash.Seed
	// tiers are searched in order: ids, then qualified and full names,
	// then aliases, then short names, then the aliases' short names. The first tier with a match decides. A value v
	// >= 0 is records[v]; v < 0 is the list shared[-v-1].
	tiers  [nameTiers]map[uint64]int32
	shared [][]int32
}

// NewIndex builds the index for records, whose ids must be assigned.
func NewIndex(records []*Record) *Index {
	x := &Index{records: records, seed: maphash.MakeSeed()}
	// Sized for the names a record has in each tier (see forms), so that
	// no map grows while it is filled: an id; a name in up to five forms
	// (four without a plugin); an alias in as many; a short name bare and
	// qualified; an alias's short name the same.
	aliases := 0
	for _, r := range records {
		if r.Alias != "" {
			aliases++
		}
	}
	for i, n := range [nameTiers]int{len(records), 4 * len(records), 4 * aliases, 2 * len(records), 2 * aliases} {
		x.tiers[i] = make(map[uint64]int32, n)
	}
	for i, r := range records {
		for tier := range nameTiers {
			forms(r, tier, func(f form) bool {
				x.add(tier, strings.ToLower(f.String()), int32(i))
				return true
			})
		}
	}
	return x
}

// reuse returns an index of records that shares x's tables, or nil when
// some record at a position has other names than x's record there (see
// sameNames): a rescan that changed no name, no position and no id (an
// edited description, a moved file) then builds no table again. The
// tables are never changed once built, so the two indexes may share them.
func (x *Index) reuse(records []*Record) *Index {
	if x == nil || len(x.records) != len(records) {
		return nil
	}
	for i, r := range records {
		if o := x.records[i]; r != o && !sameNames(r, o) {
			return nil
		}
	}
	return &Index{records: records, seed: x.seed, tiers: x.tiers, shared: x.shared}
}

// sameNames reports whether a and b answer to the same names in every
// tier: equal in every field forms reads.
func sameNames(a, b *Record) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Alias == b.Alias && a.Agent == b.Agent &&
		a.Location == b.Location && (a.Plugin == nil) == (b.Plugin == nil) && a.Type == b.Type
}

// add makes name (lower-cased) answer to records[at] in tier, after the
// records it already answers to.
func (x *Index) add(tier int, name string, at int32) {
	m := x.tiers[tier]
	k := maphash.String(x.seed, name)
	v, ok := m[k]
	switch {
	case !ok:
		m[k] = at
	case v >= 0:
		if v != at {
			x.shared = append(x.shared, []int32{v, at})
			m[k] = -int32(len(x.shared))
		}
	default:
		list := x.shared[-v-1]
		if !slices.Contains(list, at) {
			x.shared[-v-1] = append(list, at)
		}
	}
}

// lookup returns the records key answers to in tier, in record order.
func (x *Index) lookup(tier int, key string) []*Record {
	v, ok := x.tiers[tier][maphash.String(x.seed, key)]
	switch {
	case !ok:
		return nil
	case v >= 0:
		if r := x.records[v]; hasName(r, tier, key) {
			return []*Record{r}
		}
		return nil
	}
	var out []*Record
	for _, at := range x.shared[-v-1] {
		if r := x.records[at]; hasName(r, tier, key) {
			out = append(out, r)
		}
	}
	return out
}

// at is lookup without allocating: the one record key answers to in
// tier, or nil, and how many it answers to.
func (x *Index) at(tier int, key string) (*Record, int) {
	v, ok := x.tiers[tier][maphash.String(x.seed, key)]
	switch {
	case !ok:
		return nil, 0
	case v >= 0:
		if r := x.records[v]; hasName(r, tier, key) {
			return r, 1
		}
		return nil, 0
	}
	var one *Record
	n := 0
	for _, at := range x.shared[-v-1] {
		if r := x.records[at]; hasName(r, tier, key) {
			one, n = r, n+1
		}
	}
	if n != 1 {
		one = nil
	}
	return one, n
}

// hasName reports whether key, lower-cased, is one of r's names in tier.
func hasName(r *Record, tier int, key string) bool {
	found := false
	forms(r, tier, func(f form) bool {
		found = f.equalLower(key)
		return !found
	})
	return found
}

// equalLower reports whether key is the name f stands for, lower-cased,
// without building it.
func (f form) equalLower(key string) bool {
	for _, part := range f {
		var ok bool
		if key, ok = cutLowerPrefix(key, part); !ok {
			return false
		}
	}
	return key == ""
}

// cutLowerPrefix returns s without the prefix part lower-cased
// (strings.ToLower), and whether s starts with it.
func cutLowerPrefix(s, part string) (string, bool) {
	for i := 0; i < len(part); i++ {
		c := part[i]
		if c >= utf8.RuneSelf {
			// Not ASCII: lower-case the whole part, as rare as names
			// outside ASCII are.
			return strings.CutPrefix(s, strings.ToLower(part))
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if i >= len(s) || s[i] != c {
			return s, false
		}
	}
	return s[len(part):], true
}

// designates reports whether name resolves to r (match returns r), at no
// cost beyond the lookups.
func (x *Index) designates(name string, r *Record) bool {
	k := strings.ToLower(strings.TrimSpace(name))
	for i := range x.tiers {
		if got, n := x.at(i, k); n > 0 {
			return n == 1 && got == r
		}
	}
	return false
}

// ByID returns the record whose id is id (case-insensitive), or nil.
func (x *Index) ByID(id string) *Record {
	r, _ := x.at(0, strings.ToLower(strings.TrimSpace(id)))
	return r
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
	for i := range x.tiers {
		switch r, n := x.at(i, k); n {
		case 0:
			continue
		case 1:
			return r, nil
		default:
			// Ambiguous: list every record the name answers to, in this
			// tier and the looser ones.
			var ids []string
			seen := map[*Record]bool{}
			for t := i; t < len(x.tiers); t++ {
				for _, r := range x.lookup(t, k) {
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

// Suggest returns up to n ids close to name, ranked by suggest.Names: the
// ids that hold its letters in order first, then those whose id, name or
// short name it misspells or starts with.
func (x *Index) Suggest(name string, n int) []string {
	ids := make([]string, len(x.records))
	for i, r := range x.records {
		ids[i] = r.ID
	}
	return suggest.NamesBy(name, ids, n, func(i int) []string {
		r := x.records[i]
		if r.Alias != "" {
			return []string{r.ShortName(), r.Name, r.ShortAlias(), r.Alias}
		}
		return []string{r.ShortName(), r.Name}
	})
}
