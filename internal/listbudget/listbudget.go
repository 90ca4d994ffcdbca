// Package listbudget models the listing budgets of the hosts: how much of
// its context window a host spends on the list of skills it shows its
// model, and so which skills' descriptions it cuts or drops, and which
// skills it leaves out of the list altogether.
//
// The rules were measured on the real clients (Claude Code 2.1.332 and
// Codex 0.171.0; see docs/hosts.md) by capturing what each sends its model
// with more skills than the budget holds:
//
//   - Claude Code gives itself skillListingBudgetFraction (0.01) of the
//     context window, at 4 characters a token. Its bundled skills always
//     keep their descriptions; every other skill's name is always listed;
//     descriptions, each first cut to skillListingMaxDescChars (1,536,
//     the last one "…"), are given first-fit in listing order (personal,
//     project, plugin skills, then its built-in commands): a description
//     that does not fit what is left is dropped and the skill listed by
//     name alone, while a shorter one further on may still fit.
//   - Codex gives itself 2% of the context window, an entry costing a
//     token for every 4 bytes of its line. A description over 1,024
//     characters is cut to 1,021 and "...". When the whole list does not
//     fit, every description is cut to one common length, the longest
//     that fits; when even names alone do not fit, entries are left out
//     from the end of the list (system skills first, then the
//     repository's, then the user's, each by name: the user's go first).
package listbudget

import (
	"math"
	"strings"
	"unicode/utf8"
)

// Fate is what a host's listing does with one skill.
type Fate string

// The fates, from best to worst.
const (
	// Whole: the name and the whole description are listed.
	Whole Fate = "whole"
	// Cut: the description is listed cut short (Shown characters).
	Cut Fate = "cut"
	// NameOnly: the skill is listed by name, without its description.
	NameOnly Fate = "name-only"
	// Dropped: the skill is left out of the listing; the model does not
	// know it exists.
	Dropped Fate = "dropped"
)

// Entry is one skill as a host lists it, in the host's listing order.
type Entry struct {
	// Name is the name as the host lists it.
	Name string
	// Description is the skill's description.
	Description string
	// Suffix is what follows the description on the entry's line (Codex:
	// " (file: r1/name/SKILL.md)").
	Suffix string
}

// Outcome is what the listing does with one entry.
type Outcome struct {
	Fate Fate `json:"fate"`
	// Shown is how many characters of the description are listed (the
	// "…" or "..." of a cut one not counted).
	Shown int `json:"shown"`
	// Length is the description's length in characters.
	Length int `json:"length"`
}

// Claude's defaults, as Claude Code 2.1.332 has them.
const (
	// ClaudeFraction is skillListingBudgetFraction's default.
	ClaudeFraction = 0.01
	// ClaudeMaxDescChars is skillListingMaxDescChars's default.
	ClaudeMaxDescChars = 1536
	// ClaudeContextTokens is the context window assumed when the model
	// is not known: the 200,000 tokens of the Sonnet and Haiku models,
	// the smallest Claude Code runs with.
	ClaudeContextTokens = 200_000
	// ClaudeBundledChars are the characters Claude Code 2.1.332's own
	// bundled skills (dataviz, update-config, ... eleven in all) take
	// from the budget, always listed whole.
	ClaudeBundledChars = 6052
)

// ClaudeBuiltins are Claude Code 2.1.332's built-in commands listed after
// every skill, under the same budget.
var ClaudeBuiltins = []Entry{
	{Name: "init", Description: "Initialize a new CLAUDE.md file with codebase documentation"},
	{Name: "security-review", Description: "Complete a security review of the pending changes on the current branch"},
}

// ClaudeOptions are Claude Code's budget settings.
type ClaudeOptions struct {
	// ContextTokens is the model's context window; 0 means
	// ClaudeContextTokens.
	ContextTokens int
	// Fraction is skillListingBudgetFraction; 0 means ClaudeFraction.
	Fraction float64
	// MaxDescChars is skillListingMaxDescChars; 0 means
	// ClaudeMaxDescChars.
	MaxDescChars int
	// Reserved are the characters taken before any entry (the bundled
	// skills); a negative value means none, 0 ClaudeBundledChars.
	Reserved int
}

// Budget is the number of characters of the listing.
func (o ClaudeOptions) Budget() int {
	ctx, frac := o.ContextTokens, o.Fraction
	if ctx <= 0 {
		ctx = ClaudeContextTokens
	}
	if frac <= 0 {
		frac = ClaudeFraction
	}
	return int(math.Floor(frac * float64(ctx) * 4))
}

// Claude returns the fate of each entry in Claude Code's listing, in
// order. entries are the skills ccski sees, in Claude Code's order;
// the built-in commands (ClaudeBuiltins) are not among them, but take
// their part of the budget after them.
func Claude(entries []Entry, opt ClaudeOptions) []Outcome {
	maxDesc := opt.MaxDescChars
	if maxDesc <= 0 {
		maxDesc = ClaudeMaxDescChars
	}
	used := opt.Reserved
	switch {
	case used < 0:
		used = 0
	case used == 0:
		used = ClaudeBundledChars
	}
	budget := opt.Budget()
	all := append(append([]Entry(nil), entries...), ClaudeBuiltins...)
	out := make([]Outcome, len(all))
	descs := make([]string, len(all))
	for i, e := range all {
		used += length("- " + e.Name + "\n")
		d := e.Description
		out[i] = Outcome{Fate: Whole, Length: length(d)}
		if out[i].Length > maxDesc {
			d = cut(d, maxDesc-1) + "…"
			out[i].Fate = Cut
		}
		out[i].Shown = min(out[i].Length, maxDesc-1)
		if out[i].Fate == Whole {
			out[i].Shown = out[i].Length
		}
		descs[i] = d
	}
	for i := range all {
		if descs[i] == "" {
			out[i] = Outcome{Fate: NameOnly, Length: 0}
			continue
		}
		extra := length(": " + descs[i])
		if used+extra <= budget {
			used += extra
			continue
		}
		out[i].Fate, out[i].Shown = NameOnly, 0
	}
	return out[:len(entries)]
}

// Codex's defaults, as Codex 0.171.0 has them.
const (
	// CodexPercent is the share of the context window the listing takes.
	CodexPercent = 0.02
	// CodexContextTokens is the context window assumed when the model is
	// not known: what Codex assumes for a model missing from its
	// catalogue.
	CodexContextTokens = 272_000
	// CodexMaxDescChars is the longest description Codex lists whole.
	CodexMaxDescChars = 1024
)

// CodexOptions are Codex's budget settings.
type CodexOptions struct {
	// ContextTokens is the model's context window (model_context_window);
	// 0 means CodexContextTokens.
	ContextTokens int
}

// Budget is the listing's budget in tokens.
func (o CodexOptions) Budget() int {
	ctx := o.ContextTokens
	if ctx <= 0 {
		ctx = CodexContextTokens
	}
	return int(math.Floor(CodexPercent * float64(ctx)))
}

// Codex returns the fate of each entry in Codex's listing, in order.
// entries are in Codex's order, each with its Suffix.
func Codex(entries []Entry, opt CodexOptions) []Outcome {
	budget := opt.Budget()
	out := make([]Outcome, len(entries))
	descs := make([]string, len(entries))
	for i, e := range entries {
		d := strings.TrimSpace(e.Description)
		out[i] = Outcome{Fate: Whole, Length: length(d), Shown: length(d)}
		if out[i].Length > CodexMaxDescChars {
			d = cut(d, CodexMaxDescChars-3)
			out[i].Fate, out[i].Shown = Cut, CodexMaxDescChars-3
		}
		descs[i] = d
	}
	// cost is the tokens of the entries' lines with descriptions cut to
	// limit characters (-1: not cut).
	cost := func(limit int) int {
		n := 0
		for i, e := range entries {
			d := descs[i]
			if limit >= 0 && length(d) > limit {
				d = strings.TrimRight(cut(d, limit), " ")
			}
			n += codexTokens(e, d)
		}
		return n
	}
	if cost(-1) <= budget {
		return out
	}
	if cost(0) > budget {
		used := 0
		for i, e := range entries {
			c := codexTokens(e, "")
			if used+c > budget {
				for j := i; j < len(entries); j++ {
					out[j] = Outcome{Fate: Dropped, Length: out[j].Length}
				}
				break
			}
			used += c
			if out[i].Length > 0 {
				out[i].Fate, out[i].Shown = NameOnly, 0
			}
		}
		return out
	}
	// The longest common length that fits: cost grows with it.
	lo, hi := 0, 0
	for _, d := range descs {
		hi = max(hi, length(d))
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if cost(mid) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for i, d := range descs {
		if length(d) <= lo {
			continue
		}
		shown := length(strings.TrimRight(cut(d, lo), " "))
		if shown == 0 {
			out[i].Fate, out[i].Shown = NameOnly, 0
			continue
		}
		out[i].Fate, out[i].Shown = Cut, shown
	}
	return out
}

// codexTokens is the cost of e's line with description d: a token for
// every 4 bytes, the newline included, rounded up. Without a description
// the line is "- name: (file: ...)".
func codexTokens(e Entry, d string) int {
	line := "- " + e.Name + ": " + d + e.Suffix
	if d == "" {
		line = "- " + e.Name + ":" + e.Suffix
	}
	n := len(line) + 1
	return (n + 3) / 4
}

// length is the length of s in characters.
func length(s string) int { return utf8.RuneCountInString(s) }

// cut returns the first n characters of s.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
