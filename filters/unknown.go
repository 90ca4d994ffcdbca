package filters

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// maxSuggestions is how many close names an unknown token suggests.
const maxSuggestions = 3

// unknown returns the error for t when t names nothing in the scan, else
// nil.
//
// A token names nothing when it names a provider that no registered
// provider gives and no record carries (codx@user), or when it is a bare
// word or an "x:y" pair (the forms whose meaning depends on the scan) that
// is no provider, no record id, and selects no record of the whole scan:
// no skill or command has that name or short name (globs allowed), and for
// a pair no record has that full name, as plugin skills (example-skills:pdf)
// and scoped custom skills (docs:pdf) do. A token whose grammar fixes its
// meaning (auto, all, claude:<glob>, @plugins:...) is never unknown: a
// provider may have no skills today.
func (sc *scope) unknown(t Token) *TokenError {
	if sc.ids[strings.ToLower(t.text)] {
		return nil
	}
	switch t.form {
	case formFixed:
		if p := t.sel.provider; p != "" && !sc.isProvider(p) {
			return &TokenError{Token: t.text, Reason: fmt.Sprintf("unknown provider %q", p),
				Suggestions: pipeline.SuggestNames(p, sc.providerNames(), maxSuggestions)}
		}
	case formWord:
		if sc.isProvider(t.head) || sc.selects(t.resolve(sc)) {
			return nil
		}
		if sc.plugins[t.head] {
			return &TokenError{Token: t.text, Reason: fmt.Sprintf(
				"%s is a plugin, not a skill; use @plugins:%s for its skills", t.head, t.head)}
		}
		sugg := pipeline.SuggestNames(t.head, append(sc.providerNames(), sc.pluginTokens()...), maxSuggestions)
		if len(sugg) == 0 {
			sugg = pipeline.SuggestNames(t.head, sc.shortNames(), maxSuggestions)
		}
		return &TokenError{Token: t.text, Reason: "it names no provider, plugin, skill or command", Suggestions: sugg}
	case formPair:
		if sc.isProvider(t.head) || sc.selects(t.resolve(sc)) {
			return nil
		}
		if within := sc.namesUnder(t.head); len(within) > 0 {
			return &TokenError{Token: t.text,
				Reason:      fmt.Sprintf("no skill or command of %s is named %s", t.head, t.tail),
				Suggestions: pipeline.SuggestNames(t.head+":"+t.tail, within, maxSuggestions)}
		}
		var sugg []string
		for _, h := range pipeline.SuggestNames(t.head, append(sc.providerNames(), slices.Collect(maps.Keys(sc.plugins))...), maxSuggestions) {
			sugg = append(sugg, h+":"+t.tail)
		}
		return &TokenError{Token: t.text,
			Reason:      fmt.Sprintf("%s is no provider or plugin, and no skill or command is named %s", t.head, t.text),
			Suggestions: sugg}
	}
	return nil
}

// selects reports whether s matches a record of the scan.
func (sc *scope) selects(s selector) bool {
	return slices.ContainsFunc(sc.records, s.match)
}

// providerNames lists the registered and the scanned provider names,
// sorted.
func (sc *scope) providerNames() []string {
	set := maps.Clone(builtin)
	maps.Copy(set, sc.providers)
	return slices.Sorted(maps.Keys(set))
}

// pluginTokens lists "@plugins:<plugin>" for every plugin of the scan: the
// token a bare plugin name was probably meant as.
func (sc *scope) pluginTokens() []string {
	var out []string
	for p := range sc.plugins {
		out = append(out, "@plugins:"+p)
	}
	return out
}

// shortNames lists the lower-cased short name of every record, each once.
func (sc *scope) shortNames() []string {
	set := map[string]bool{}
	for _, r := range sc.records {
		set[strings.ToLower(r.ShortName())] = true
	}
	return slices.Collect(maps.Keys(set))
}

// namesUnder lists the lower-cased full names that start with head and
// ':', each once: the skills and commands of a plugin, a scope or a
// command folder named head.
func (sc *scope) namesUnder(head string) []string {
	set := map[string]bool{}
	for _, r := range sc.records {
		if n := strings.ToLower(r.Name); strings.HasPrefix(n, head+":") {
			set[n] = true
		}
	}
	return slices.Collect(maps.Keys(set))
}
