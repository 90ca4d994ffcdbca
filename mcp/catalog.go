package mcp

// The catalogue budget: the skill tool's description lists every visible
// skill with its full entry while that fits in Options.Catalog
// characters. Beyond it the description degrades instead of cutting the
// list short:
//
//  1. every skill is named, if the names fit: one line each in a compact
//     <skill_names> block inside <available_skills>;
//  2. with the room left, named skills gain the start of their
//     description on their line (cut at a word, with an ellipsis);
//  3. once every skill has that, skills move to full <skill> entries.
//
// Steps 2 and 3 first lift the favoured skills (CatalogueOptions.Favoured:
// the project's own, then those loaded most on this machine), in their
// order. Each step then goes round-robin over groups of the others (one
// group per provider, and one per plugin for plugin skills), taking each
// group's skills in priority order, so a large group cannot starve a
// small one. A skill is named by the shortest name that loads exactly it
// (CatalogueOptions.Names, see CatalogueNames), not always by its id.
// When not even every name fits, the groups share the names the same way
// and a note says how many skills are left out. Whenever the catalogue is
// not complete, skills_search is served (Server.Update). Every skill still
// loads by name, listed or not.

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ccski/ccski/pipeline"
)

// Preamble lines. onlyListed is in Describe's preamble; a degraded
// catalogue replaces it with shortened when every skill is named, and with
// cutListed when some are left out.
const (
	onlyListed = "- Only use skills listed in <available_skills>; the list is what is installed now and may change during the session."
	shortened  = "- <available_skills> is shortened to fit the context: any full <skill> entries come first, then <skill_names> " +
		"lists the other skills one per line, grouped by provider and plugin: the skill's name, then, when there is room, " +
		"\" — \" and the start of its description (… marks a cut). A name in <skill_names> loads exactly like a <name>: " +
		"pass it as written. When no listed skill clearly covers the task, call the " + ToolSkillsSearch +
		" tool with a few words describing it. The list is what is installed now and may change during the session."
	cutListed = "- <available_skills> names as many skills as fit the context in <skill_names>, one per line, grouped by " +
		"provider and plugin; more are installed (see the note after the list). A name in <skill_names> loads exactly " +
		"like a <name>: pass it as written. Every installed skill loads by name with this tool, listed or not. " +
		"The list is what is installed now and may change during the session."
)

// Parts of the compact block. lineSep separates a name from the start of
// its description: skill names are single words, so the name is what
// comes before it.
const (
	namesOpen  = "<skill_names>\n"
	namesClose = "</skill_names>\n"
	lineSep    = " — "
	// shortDescription is the most characters of a description a
	// <skill_names> line holds, ellipsis included.
	shortDescription = 100
)

// CatalogueStats says how a catalogue shows the skills it was given.
type CatalogueStats struct {
	// Full counts <skill> entries: name, whole description, provider
	// and location.
	Full int
	// Short counts <skill_names> lines with the start of a description
	// (the whole one when it is short).
	Short int
	// NameOnly counts <skill_names> lines with the name alone.
	NameOnly int
	// Omitted counts skills the description does not name.
	Omitted int
}

// Named is the number of skills the description names.
func (s CatalogueStats) Named() int { return s.Full + s.Short + s.NameOnly }

// Complete reports whether every skill has its full entry.
func (s CatalogueStats) Complete() bool { return s.Short+s.NameOnly+s.Omitted == 0 }

// CatalogueOptions says how a catalogue names skills and which it
// favours.
type CatalogueOptions struct {
	// Names, when not nil, holds the name printed for each skill, in the
	// order of the records: the shortest name that loads exactly that
	// skill (CatalogueNames). nil prints ids.
	Names []string
	// Favoured are skills (indices into the records, each once) that get
	// a description before every other skill, in this order: the
	// project's own skills, then those loaded most here (Favour). Names
	// are shared out round-robin all the same.
	Favoured []int
}

// Catalogue is CatalogueWith without options: skills named by id, none
// favoured.
func Catalogue(recs []*pipeline.Record, budget int) (string, CatalogueStats) {
	return CatalogueWith(recs, budget, CatalogueOptions{})
}

// CatalogueWith renders the skill tool's description for recs (in
// priority order) within budget characters. A budget of 0 or less means
// no budget: every skill gets its full entry, as Describe writes it. When
// everything fits that is the description too. Otherwise it degrades as
// the file comment says. The result depends only on recs, budget and o.
// The preamble, and the note when skills are left out, are always there,
// so a budget smaller than both gives a description with no skill in it
// that is longer than the budget.
func CatalogueWith(recs []*pipeline.Record, budget int, o CatalogueOptions) (string, CatalogueStats) {
	if budget <= 0 || len(recs) == 0 || describeFits(recs, o.Names, budget) {
		return describe(recs, o.Names), CatalogueStats{Full: len(recs)}
	}
	p := newPlan(recs, o)
	// First try: every name, then descriptions for all, then full
	// entries.
	p.left = budget - p.overhead(false)
	if p.namesCost() <= p.left {
		p.raise(tierName)
		p.measureDescriptions()
		if p.raise(tierShort) {
			p.raise(tierFull)
		}
		return p.render(false)
	}
	// Not every name fits: share the names out, keeping room for the note,
	// sized at first for every skill left out. While the room a note on
	// one skill fewer would free lets another name in, take it: with that
	// name in, the note is that short. The note is never sized for fewer
	// than one skill: the first try did not fit every name, and the cut
	// preamble with the shortest note is longer than the first try's
	// preamble (TestCatalogueCutPreamble), so the last name cannot fit
	// here either.
	reserved := len(recs)
	p.left = budget - p.overhead(true) - noteLen(reserved)
	p.raise(tierName)
	for {
		k := max(len(recs)-p.named-1, 1)
		free := noteLen(reserved) - noteLen(k)
		if free <= 0 {
			break
		}
		before := p.named
		p.left += free
		if p.raise(tierName); p.named == before {
			p.left -= free
			break
		}
		reserved = k
	}
	return p.render(true)
}

// noteLen is the length of the note on k skills left out, with the blank
// line before it.
func noteLen(k int) int { return utf8.RuneCountInString("\n\n" + moreNote(k)) }

// tier is how much of one skill the catalogue shows.
type tier uint8

const (
	tierOmitted tier = iota // not named
	tierName                // a <skill_names> line, name only
	tierShort               // a <skill_names> line with the start of the description
	tierFull                // a <skill> entry
)

// plan decides the tier of every skill under a character budget.
type plan struct {
	recs []*pipeline.Record
	// names are the names printed (CatalogueOptions.Names; nil: ids), and
	// favoured the skills lifted first (CatalogueOptions.Favoured).
	names    []string
	favoured []int
	// groups holds indices into recs: one group per provider, and one per
	// plugin for plugin skills, in order of first appearance; each in
	// priority order.
	groups [][]int
	tier   []tier
	// Lengths in characters of each skill's escaped name, of its escaped
	// short description and of its <skill> entry; the last two are
	// measured only once every name fits (measureDescriptions).
	idLen, shortLen, full []int
	lines                 int // skills on <skill_names> lines
	named                 int // skills named, in entries or lines
	left                  int // characters still free
}

// groupKey identifies the group a skill is shared out in: its plugin for
// a plugin skill, else its provider.
type groupKey struct{ provider, plugin, marketplace string }

func newPlan(recs []*pipeline.Record, o CatalogueOptions) *plan {
	p := &plan{recs: recs, names: o.Names, favoured: o.Favoured, tier: make([]tier, len(recs)),
		idLen: make([]int, len(recs))}
	index := map[groupKey]int{}
	var last groupKey
	g := -1
	for i, r := range recs {
		k := groupKey{provider: r.Agent}
		if r.Plugin != nil {
			k.plugin, k.marketplace = r.Plugin.Plugin, r.Plugin.Marketplace
		}
		if k != last || g < 0 { // a group's skills mostly come in a run
			var ok bool
			if g, ok = index[k]; !ok {
				g = len(p.groups)
				index[k] = g
				p.groups = append(p.groups, nil)
			}
			last = k
		}
		p.groups[g] = append(p.groups[g], i)
		p.idLen[i] = escapedLen(p.name(i))
	}
	return p
}

// measureDescriptions measures the short description and the full entry
// of every skill, for the tiers above names.
func (p *plan) measureDescriptions() {
	p.shortLen, p.full = make([]int, len(p.recs)), make([]int, len(p.recs))
	for i, r := range p.recs {
		p.shortLen[i] = escapedLen(shorten(r.Description, shortDescription))
		p.full[i] = entryLen(r, p.name(i))
	}
}

// name is the name printed for skill i.
func (p *plan) name(i int) string { return nameAt(p.names, p.recs, i) }

// describeFits reports whether describe(recs, names) fits in budget
// characters; it stops measuring as soon as it does not.
func describeFits(recs []*pipeline.Record, names []string, budget int) bool {
	n := utf8.RuneCountInString(preamble + blockOpen + blockClose)
	for i, r := range recs {
		if n += entryLen(r, nameAt(names, recs, i)); n > budget {
			return false
		}
	}
	return n <= budget
}

// overhead is the length of a degraded description with no skill and no
// note in it.
func (p *plan) overhead(cut bool) int {
	return utf8.RuneCountInString(header(cut)) + utf8.RuneCountInString(blockOpen+blockClose)
}

// namesCost is the length of the <skill_names> block naming every skill.
func (p *plan) namesCost() int {
	n := utf8.RuneCountInString(namesOpen + namesClose)
	for _, l := range p.idLen {
		n += l + 1
	}
	return n
}

// cost is what raising skill i one tier, to t, adds to the description.
func (p *plan) cost(i int, t tier) int {
	switch t {
	case tierName:
		c := p.idLen[i] + 1
		if p.lines == 0 {
			c += utf8.RuneCountInString(namesOpen + namesClose)
		}
		return c
	case tierShort:
		if p.shortLen[i] == 0 {
			return 0
		}
		return utf8.RuneCountInString(lineSep) + p.shortLen[i]
	default: // tierFull replaces the line; the block's tags stay counted
		line := p.idLen[i] + 1
		if p.shortLen[i] > 0 {
			line += utf8.RuneCountInString(lineSep) + p.shortLen[i]
		}
		return p.full[i] - line
	}
}

// raise lifts skills one tier, to t: first, for a description (tierShort
// and tierFull), each favoured skill that fits, in order; then the others
// round-robin over the groups (names are always shared out so, that no
// count of loads can starve a group): each turn a
// group lifts its next skill below t in priority order, until the skill
// it is at no longer fits; then the group stops. It reports whether every
// skill reached t. Every skill below t must be one tier below it.
func (p *plan) raise(t tier) bool {
	for _, i := range p.favoured {
		if t > tierName && p.tier[i] < t && p.cost(i, t) <= p.left {
			p.lift(i, t)
		}
	}
	next := make([]int, len(p.groups))
	active := make([]int, len(p.groups))
	for g := range active {
		active[g] = g
	}
	all := true
	for len(active) > 0 {
		still := active[:0]
		for _, g := range active {
			members := p.groups[g]
			for next[g] < len(members) && p.tier[members[next[g]]] >= t {
				next[g]++
			}
			if next[g] == len(members) {
				continue
			}
			i := members[next[g]]
			if p.cost(i, t) > p.left {
				all = false
				continue
			}
			p.lift(i, t)
			next[g]++
			still = append(still, g)
		}
		active = still
	}
	return all
}

// lift raises skill i to t, which must fit.
func (p *plan) lift(i int, t tier) {
	p.left -= p.cost(i, t)
	p.tier[i] = t
	switch t {
	case tierName:
		p.lines++
		p.named++
	case tierFull:
		p.lines--
	}
}

// Block tags of <available_skills>.
const (
	blockOpen  = "<available_skills>\n"
	blockClose = "</available_skills>"
)

// render writes the planned description, with the preamble line for a
// cut list when cut is set, and the note when skills are left out.
func (p *plan) render(cut bool) (string, CatalogueStats) {
	var st CatalogueStats
	var b strings.Builder
	b.WriteString(header(cut))
	b.WriteString(blockOpen)
	for i, r := range p.recs {
		if p.tier[i] == tierFull {
			writeEntry(&b, r, p.name(i))
			st.Full++
		}
	}
	if p.lines > 0 {
		b.WriteString(namesOpen)
		for _, members := range p.groups {
			for _, i := range members {
				switch {
				case p.tier[i] == tierOmitted || p.tier[i] == tierFull:
					continue
				case p.tier[i] == tierShort && p.shortLen[i] > 0:
					escape(&b, p.name(i))
					b.WriteString(lineSep)
					escape(&b, shorten(p.recs[i].Description, shortDescription))
					st.Short++
				default:
					escape(&b, p.name(i))
					st.NameOnly++
				}
				b.WriteByte('\n')
			}
		}
		b.WriteString(namesClose)
	}
	b.WriteString(blockClose)
	st.Omitted = len(p.recs) - st.Named()
	if st.Omitted > 0 {
		b.WriteString("\n\n")
		b.WriteString(moreNote(st.Omitted))
	}
	return b.String(), st
}

// header is Describe's preamble for a degraded catalogue: every skill
// named, or, with cut, some left out.
func header(cut bool) string {
	line := shortened
	if cut {
		line = cutListed
	}
	return strings.Replace(preamble, onlyListed, line, 1)
}

// shorten returns s when it has at most limit characters; otherwise its
// start, cut after a whole word when one ends in the second half of the
// room, without trailing punctuation, and "…", limit characters at most.
func shorten(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	end, n := 0, 0
	for end < len(s) && n < limit-1 {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
		n++
	}
	head := s[:end]
	if s[end] != ' ' { // the cut falls inside a word: drop it
		if sp := strings.LastIndexByte(head, ' '); sp > 0 && utf8.RuneCountInString(head[:sp]) >= limit/2 {
			head = head[:sp]
		}
	}
	return strings.TrimRight(head, " ,;:.-–—(") + "…"
}

// moreNote tells the model about the skills the list leaves out.
func moreNote(k int) string {
	return fmt.Sprintf("%s installed but not listed above: the list is cut to fit the context. "+
		"When no listed skill covers the task, call the %s tool with a few words describing it, "+
		"then load the skill it finds with this tool, by id.",
		plural(k, "more skill is", "more skills are"), ToolSkillsSearch)
}
