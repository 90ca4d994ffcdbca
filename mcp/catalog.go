package mcp

// The catalogue budget: the skill tool's description lists every visible
// skill only while that fits in Options.Catalog characters. Beyond it the
// description lists as many skills as fit, in priority order, says how
// many more are installed and points the model to skills_search, which
// Update then serves. Every skill still loads by name.

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ccski/ccski/pipeline"
)

// onlyListed is the preamble line that stops being true when the list is
// cut, and cutListed what replaces it.
const (
	onlyListed = "- Only use skills listed in <available_skills>; the list is what is installed now and may change during the session."
	cutListed  = "- <available_skills> shows the highest-priority skills only; more are installed (see the note after the list), and every installed skill loads by name with this tool, listed or not."
)

// Catalogue renders the skill tool's description for recs (in priority
// order) within budget characters, and reports how many skills it leaves
// out. A budget of 0 or less means no budget: it is Describe(recs). When
// everything fits it is Describe(recs) too. Otherwise it holds the longest
// prefix of recs whose description, note included, fits; the preamble and
// the note are always there, so a budget smaller than both gives a
// description with no skill in it that is longer than the budget.
func Catalogue(recs []*pipeline.Record, budget int) (desc string, omitted int) {
	if budget <= 0 || len(recs) == 0 {
		return Describe(recs), 0
	}
	// Each entry takes at least its id and description (escaping only
	// lengthens them), so no more than hi entries can fit.
	hi, sum := 0, 0
	for hi < len(recs) {
		sum += utf8.RuneCountInString(recs[hi].ID) + utf8.RuneCountInString(recs[hi].Description)
		if sum > budget {
			break
		}
		hi++
	}
	if hi == len(recs) {
		if full := Describe(recs); utf8.RuneCountInString(full) <= budget {
			return full, 0
		}
		hi = len(recs) - 1 // the full list does not fit
	}
	// The cut description grows with the number of entries it shows:
	// find the largest count that fits.
	lo := 0
	best := cutDescription(recs, 0)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		d := cutDescription(recs, mid)
		if utf8.RuneCountInString(d) <= budget {
			lo, best = mid, d
		} else {
			hi = mid - 1
		}
	}
	return best, len(recs) - lo
}

// cutDescription is the description that lists recs[:n] and says that
// the rest exist.
func cutDescription(recs []*pipeline.Record, n int) string {
	var d string
	if n > 0 {
		d = Describe(recs[:n])
	} else {
		// Describe holds a "no skills" placeholder for an empty list,
		// which would be false here: keep the block empty.
		d = Describe(nil)
		open, end := "<available_skills>\n", "</available_skills>"
		if i, j := strings.Index(d, open), strings.LastIndex(d, end); i >= 0 && j > i {
			d = d[:i+len(open)] + d[j:]
		}
	}
	d = strings.Replace(d, onlyListed, cutListed, 1)
	return d + "\n\n" + moreNote(len(recs)-n)
}

// moreNote tells the model about the skills the list leaves out.
func moreNote(k int) string {
	return fmt.Sprintf("%s installed but not listed above: the list is cut to fit the context. "+
		"When no listed skill covers the task, call the %s tool with a few words describing it, "+
		"then load the skill it finds with this tool, by id.",
		plural(k, "more skill is", "more skills are"), ToolSkillsSearch)
}
