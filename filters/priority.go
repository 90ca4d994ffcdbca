package filters

import (
	"fmt"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// Priority ranks copies of the same skill. It is immutable and safe for
// concurrent use.
type Priority struct {
	kinds     []pipeline.Kind       // every kind, highest first
	kindRank  map[pipeline.Kind]int // index into kinds
	providers map[string]int        // lower-cased name -> index in the order
}

// NewPriority builds a ranking. kinds lists root kinds from the highest
// priority down; kinds it leaves out follow in their default order (see
// pipeline.DefaultPriority), and an empty list means the default order. An
// unknown or repeated kind is an error. providerOrder breaks ties between
// providers; nil means DefaultProviders, and providers it leaves out rank
// after it, alphabetically.
func NewPriority(kinds []pipeline.Kind, providerOrder []string) (*Priority, error) {
	defaults := pipeline.DefaultPriority()
	valid := make(map[pipeline.Kind]bool, len(defaults))
	for _, k := range defaults {
		valid[k] = true
	}
	p := &Priority{kindRank: map[pipeline.Kind]int{}, providers: map[string]int{}}
	add := func(k pipeline.Kind) {
		p.kindRank[k] = len(p.kinds)
		p.kinds = append(p.kinds, k)
	}
	for _, k := range kinds {
		k = pipeline.Kind(strings.ToLower(strings.TrimSpace(string(k))))
		if !valid[k] {
			return nil, fmt.Errorf("unknown priority kind %q; valid kinds: %s", k, kindList(defaults))
		}
		if _, dup := p.kindRank[k]; dup {
			return nil, fmt.Errorf("priority kind %q is listed twice", k)
		}
		add(k)
	}
	for _, k := range defaults {
		if _, ok := p.kindRank[k]; !ok {
			add(k)
		}
	}
	if providerOrder == nil {
		providerOrder = DefaultProviders()
	}
	for _, name := range providerOrder {
		name = canonProvider(name)
		if _, dup := p.providers[name]; !dup {
			p.providers[name] = len(p.providers)
		}
	}
	return p, nil
}

// defaultPriority is the ranking used when none is given.
func defaultPriority() *Priority {
	p, err := NewPriority(nil, nil)
	if err != nil {
		panic(err) // the defaults are always valid
	}
	return p
}

func kindList(kinds []pipeline.Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// Kinds returns the full kind order, highest priority first.
func (p *Priority) Kinds() []pipeline.Kind { return append([]pipeline.Kind(nil), p.kinds...) }

// kindIndex ranks a kind; kinds outside the list (such as an empty kind)
// rank last.
func (p *Priority) kindIndex(k pipeline.Kind) int {
	if i, ok := p.kindRank[k]; ok {
		return i
	}
	return len(p.kinds)
}

// compareProviders orders providers: listed ones by their position, then
// the others alphabetically. It returns a negative number when a ranks
// first.
func (p *Priority) compareProviders(a, b string) int {
	a, b = canonProvider(a), canonProvider(b)
	ia, oka := p.providers[a]
	ib, okb := p.providers[b]
	switch {
	case oka && okb:
		return ia - ib
	case oka:
		return -1
	case okb:
		return 1
	}
	return strings.Compare(a, b)
}

// criterion names the rule that decides between two records.
type criterion int

const (
	byNone criterion = iota
	byKind
	byDepth
	byTime
	byProvider
	byDir
	byID
)

// compare returns the deciding criterion and whether a wins over b. When
// no rule separates them, it returns byNone and false.
func (p *Priority) compare(a, b *pipeline.Record) (criterion, bool) {
	if ka, kb := p.kindIndex(a.Kind), p.kindIndex(b.Kind); ka != kb {
		return byKind, ka < kb
	}
	if a.Depth != b.Depth {
		return byDepth, a.Depth < b.Depth
	}
	if !a.ModTime.Equal(b.ModTime) {
		return byTime, a.ModTime.After(b.ModTime)
	}
	if c := p.compareProviders(a.Provider, b.Provider); c != 0 {
		return byProvider, c < 0
	}
	if a.Dir != b.Dir {
		return byDir, a.Dir < b.Dir
	}
	if a.ID != b.ID {
		return byID, a.ID < b.ID
	}
	return byNone, false
}

// Less reports whether a wins over b: a has the higher-priority kind, or
// the same kind and a nearer workspace (smaller Depth), or the same depth
// and a newer SKILL.md, or the same time and an earlier provider, or the
// same provider and a lexically smaller Dir (then ID), so that the order
// is total and deterministic.
func (p *Priority) Less(a, b *pipeline.Record) bool {
	_, win := p.compare(a, b)
	return win
}

// Explain says in a few words why winner beats loser, for example
// "higher priority: workspace-agent over user-agent" or "newer file".
func (p *Priority) Explain(winner, loser *pipeline.Record) string {
	c, _ := p.compare(winner, loser)
	switch c {
	case byKind:
		return fmt.Sprintf("higher priority: %s over %s", kindName(winner.Kind), kindName(loser.Kind))
	case byDepth:
		return fmt.Sprintf("nearer workspace: depth %d over %d", winner.Depth, loser.Depth)
	case byTime:
		return "newer file"
	case byProvider:
		return fmt.Sprintf("provider order: %s before %s", winner.Provider, loser.Provider)
	case byDir:
		return "equal rank; earlier folder path"
	case byID:
		return "equal rank; earlier id"
	}
	return "same record"
}

func kindName(k pipeline.Kind) string {
	if k == "" {
		return "unknown kind"
	}
	return string(k)
}

// best returns the record of group that wins over every other one.
func (p *Priority) best(group []*pipeline.Record) *pipeline.Record {
	w := group[0]
	for _, r := range group[1:] {
		if p.Less(r, w) {
			w = r
		}
	}
	return w
}
