package pipeline

import (
	"fmt"
	"strings"

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

// Index resolves names to records. It is built once per snapshot and is
// safe for concurrent use.
type Index struct {
	records []*Record
	// tiers are searched in order: ids, then qualified and full names,
	// then short names. The first tier with a match decides.
	tiers [3]map[string][]*Record
	// ids and names (short name, name) are per record, in order, for
	// Suggest.
	ids   []string
	names [][2]string
}

// NewIndex builds the index for records, whose ids must be assigned.
func NewIndex(records []*Record) *Index {
	x := &Index{records: records, ids: make([]string, len(records)), names: make([][2]string, len(records))}
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
		x.names[i] = [2]string{r.ShortName(), r.Name}
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

// Suggest returns up to n ids close to name, ranked by suggest.Names: the
// ids that hold its letters in order first, then those whose id, name or
// short name it misspells or starts with.
func (x *Index) Suggest(name string, n int) []string {
	return suggest.NamesBy(name, x.ids, n, func(i int) []string { return x.names[i][:] })
}
