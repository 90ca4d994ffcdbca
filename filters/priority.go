package filters

import (
	"fmt"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// Priority ranks copies of the same skill. It is immutable and safe for
// concurrent use.
//
// Each record gets a rank of its own, from its root kind and its
// provider's precedence (pipeline.Precedence), and records compare by rank
// first, so the order is total and transitive whatever the mix of
// providers. The kind order puts every workspace kind before every user
// kind by default. A record at the level its precedence prefers is lifted
// over the kinds of the other level listed directly above its own kind
// (the unbroken run of them; any other kind ends it), to just above the
// highest of that run, keeping the order of the kinds it lifts: with
// Claude's default precedence (user), a skill in ~/.claude/skills ranks
// just above the workspace kinds, so it wins over the project's
// .claude/skills copy, while custom folders and skill_dirs, which the
// default order lists above the workspace kinds, still rank first; so
// does any kind that the priority setting places between them.
type Priority struct {
	kinds     []pipeline.Kind       // every kind, highest first
	kindRank  map[pipeline.Kind]int // index into kinds
	providers map[string]int        // lower-cased name -> index in the order
	// runTop is, for each kind index i of a project or user kind, the
	// index of the highest kind of the unbroken run of the other level's
	// kinds directly above kind i, or -1 when kind i-1 is not of the
	// other level: where a lifted record of kind i ranks.
	runTop []int
}

// NewPriority builds a ranking. kinds lists root kinds from the highest
// priority down; kinds it leaves out follow in their default order (see
// pipeline.DefaultPriority), and an empty list means the default order. An
// unknown or repeated kind is an error. providerOrder breaks ties between
// providers (the engine passes the registry's order, all.ProviderNames);
// providers it leaves out rank after it, alphabetically, and nil ranks
// every provider alphabetically.
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
	p.runTop = make([]int, len(p.kinds))
	for i, k := range p.kinds {
		p.runTop[i] = -1
		other := pipeline.OtherLevel(k.Level())
		for j := i - 1; other != "" && j >= 0 && p.kinds[j].Level() == other; j-- {
			p.runTop[i] = j
		}
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

// rank places a record in the kind order. Kind i ranks at slot 2i+1. A
// record that its precedence lifts (see Priority) ranks at slot 2t, just
// above kind t, the highest kind of the level it beats, with its own kind
// index as the second key so that lifted kinds keep their order. Smaller
// ranks win.
type rank struct{ slot, sub int }

func (p *Priority) rank(r *pipeline.Record) rank {
	i := p.kindIndex(r.Kind)
	if t, ok := p.liftTo(r, i); ok {
		return rank{2 * t, i}
	}
	return rank{2*i + 1, 0}
}

// liftTo returns the index of the kind a record of kind index i ranks just
// above, and true, when its precedence lifts it; false when it ranks at
// its kind.
func (p *Priority) liftTo(r *pipeline.Record, i int) (int, bool) {
	pr := r.Precedence
	if pr == nil || i >= len(p.kinds) || r.Kind.Level() == "" || r.Kind.Level() != pr.Prefer {
		return 0, false
	}
	if t := p.runTop[i]; t >= 0 {
		return t, true
	}
	return 0, false
}

func (a rank) less(b rank) bool {
	if a.slot != b.slot {
		return a.slot < b.slot
	}
	return a.sub < b.sub
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
	if ra, rb := p.rank(a), p.rank(b); ra != rb {
		return byKind, ra.less(rb)
	}
	if a.Depth != b.Depth {
		return byDepth, a.Depth < b.Depth
	}
	if !a.ModTime.Equal(b.ModTime) {
		return byTime, a.ModTime.After(b.ModTime)
	}
	if c := p.compareProviders(a.Agent, b.Agent); c != 0 {
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

// Less reports whether a wins over b: a has the higher rank (its kind, as
// its provider's precedence places it; see Priority), or the same rank
// and a nearer workspace (smaller Depth), or the same depth
// and a newer SKILL.md, or the same time and an earlier provider, or the
// same provider and a lexically smaller Dir (then ID), so that the order
// is total and deterministic.
func (p *Priority) Less(a, b *pipeline.Record) bool {
	_, win := p.compare(a, b)
	return win
}

// Explain says in a few words why winner beats loser, for example
// "higher priority: workspace-agent over user-agent", "newer file" or,
// when a provider's precedence decided, its rule: "Claude Code ranks
// personal over project (providers.claude.precedence: user)".
func (p *Priority) Explain(winner, loser *pipeline.Record) string {
	c, _ := p.compare(winner, loser)
	switch c {
	case byKind:
		if rule := p.precedenceRule(winner, loser); rule != "" {
			return rule
		}
		return fmt.Sprintf("higher priority: %s over %s", kindName(winner.Kind), kindName(loser.Kind))
	case byDepth:
		return fmt.Sprintf("nearer workspace: depth %d over %d", winner.Depth, loser.Depth)
	case byTime:
		return "newer file"
	case byProvider:
		return fmt.Sprintf("provider order: %s before %s", winner.Agent, loser.Agent)
	case byDir:
		return "equal rank; earlier folder path"
	case byID:
		return "equal rank; earlier id"
	}
	return "same record"
}

// precedenceRule returns the rule of the precedence that ranks winner
// over loser, or "" when the kind order alone does. When winner's rule
// lifted it above a kind the kind order puts first, that is the rule (or,
// against a loser at winner's own level, what the lift did); when both
// share a rule that puts winner's level before loser's, it is that rule.
func (p *Priority) precedenceRule(winner, loser *pipeline.Record) string {
	pr := winner.Precedence
	if pr == nil {
		return ""
	}
	other := pipeline.OtherLevel(pr.Prefer)
	wi, li := p.kindIndex(winner.Kind), p.kindIndex(loser.Kind)
	if _, lifted := p.liftTo(winner, wi); lifted && wi >= li {
		if loser.Kind.Level() == other {
			return pr.Rule()
		}
		return fmt.Sprintf("%s %s copies are ranked above the %s kinds, and so above this one (%s: %s)",
			winner.Agent, pr.Prefer, other, pr.Option, pr.Prefer)
	}
	if loser.Precedence != nil && *loser.Precedence == *pr && winner.Kind.Level() == pr.Prefer &&
		loser.Kind.Level() == other {
		return pr.Rule()
	}
	return ""
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
