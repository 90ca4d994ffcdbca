package filters

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/suggest"
	"github.com/ccski/ccski/pipeline"
)

// maxSuggestions is how many close names an unknown token suggests.
const maxSuggestions = 3

// unknown returns the error for t when t names nothing in the scan, else
// nil. exclude says t is an exclude token.
//
// A token names nothing when it names a provider that is neither
// registered nor carried by a record (codx@user); when it is a bare word
// or an "x:y" pair (the forms whose meaning depends on the scan) that is
// no provider, no record id, and selects no record of the whole scan: no
// skill or command has that name or short name (globs allowed), and for a
// pair no record has that full name, as plugin skills (example-skills:pdf)
// and scoped custom skills (docs:pdf) do; and when it is a plugin token
// (@plugins:<plugin>, @<plugin>:<skill>) whose plugin glob matches no
// plugin of the scan, or whose skill glob matches no skill or command of
// the plugins it does match. A plugin that is installed but disabled is
// known to an exclude token (what it hides is hidden already) but not to
// an include token, which is told that the plugin is disabled and where
// to enable it. Other tokens whose grammar fixes their meaning (auto,
// all, claude:<glob>, claude@user) are never unknown: a provider may have
// no skills today.
func (sc *scope) unknown(t Token, exclude bool) *TokenError {
	if sc.ids[strings.ToLower(t.text)] {
		return nil
	}
	switch t.form {
	case formFixed:
		if t.sel.plugins {
			return sc.unknownPlugin(t, exclude)
		}
		if p := t.sel.provider; p != "" && !sc.isProvider(p) {
			return &TokenError{Token: t.text, Reason: fmt.Sprintf("unknown provider %q", p),
				Suggestions: suggest.Names(p, sc.providerNames(), maxSuggestions)}
		}
	case formWord:
		if sc.isProvider(t.head) || sc.selects(t.resolve(sc)) {
			return nil
		}
		if off := sc.disabled[t.head]; sc.plugins[t.head] || len(off) > 0 {
			reason := fmt.Sprintf("%s is a plugin, not a skill; use @plugins:%s for its skills", t.head, t.head)
			if !sc.plugins[t.head] && !exclude {
				reason += "; " + disabledReason(off)
			}
			return &TokenError{Token: t.text, Reason: reason}
		}
		sugg := suggest.Names(t.head, append(sc.providerNames(), sc.pluginTokens()...), maxSuggestions)
		if len(sugg) == 0 {
			sugg = suggest.Names(t.head, sc.shortNames(), maxSuggestions)
		}
		return &TokenError{Token: t.text, Reason: "it names no provider, plugin, skill or command", Suggestions: sugg}
	case formPair:
		if sc.isProvider(t.head) || sc.selects(t.resolve(sc)) {
			return nil
		}
		if within := sc.namesUnder(t.head); len(within) > 0 {
			return &TokenError{Token: t.text,
				Reason:      fmt.Sprintf("no skill or command of %s is named %s", t.head, t.tail),
				Suggestions: suggest.Names(t.head+":"+t.tail, within, maxSuggestions)}
		}
		if off := sc.disabled[t.head]; len(off) > 0 {
			if exclude {
				return nil
			}
			return &TokenError{Token: t.text, Reason: disabledReason(off)}
		}
		var sugg []string
		for _, h := range suggest.Names(t.head, append(sc.providerNames(), slices.Collect(maps.Keys(sc.plugins))...), maxSuggestions) {
			sugg = append(sugg, h+":"+t.tail)
		}
		return &TokenError{Token: t.text,
			Reason:      fmt.Sprintf("%s is no provider or plugin, and no skill or command is named %s", t.head, t.text),
			Suggestions: sugg}
	}
	return nil
}

// unknownPlugin is unknown for a plugin token: its plugin glob must match
// a plugin of the scan, and its skill glob a skill or command of those
// plugins. The token's provider and location are left out: they narrow a
// selection that exists (claude@user:@plugins selects nothing, by the
// user's choice).
func (sc *scope) unknownPlugin(t Token, exclude bool) *TokenError {
	plugin, name := t.sel.plugin, t.sel.name
	if plugin == "*" && name == "*" {
		return nil // every plugin skill, of which there may be none
	}
	var matched []string
	for p := range sc.plugins {
		if pipeline.Glob(plugin, p) {
			matched = append(matched, p)
		}
	}
	if len(matched) > 0 || plugin == "*" {
		if sc.selects(selector{plugins: true, plugin: plugin, name: name}) {
			return nil
		}
		slices.Sort(matched)
		set := map[string]bool{}
		for _, r := range sc.records {
			if r.Plugin != nil && pipeline.Glob(plugin, strings.ToLower(r.Plugin.Plugin)) {
				set[strings.ToLower(r.ShortName())] = true
				if a := r.ShortAlias(); a != "" { // the other name selects it too
					set[strings.ToLower(a)] = true
				}
			}
		}
		var sugg []string
		for _, n := range suggest.Names(name, slices.Collect(maps.Keys(set)), maxSuggestions) {
			p := plugin
			if len(matched) == 1 {
				p = matched[0]
			}
			sugg = append(sugg, pluginToken(t, p, n))
		}
		reason := fmt.Sprintf("no skill or command of plugin %s is named %s", strings.Join(matched, ", "), name)
		if plugin == "*" {
			reason = fmt.Sprintf("no plugin has a skill or command named %s", name)
		}
		return &TokenError{Token: t.text, Reason: reason, Suggestions: sugg}
	}
	var off []pipeline.DisabledPlugin
	for p, ds := range sc.disabled {
		if pipeline.Glob(plugin, p) {
			off = append(off, ds...)
		}
	}
	if len(off) > 0 {
		if exclude {
			return nil
		}
		return &TokenError{Token: t.text, Reason: disabledReason(off)}
	}
	known := slices.Collect(maps.Keys(sc.plugins))
	for p := range sc.disabled {
		known = append(known, p)
	}
	var sugg []string
	for _, p := range suggest.Names(plugin, known, maxSuggestions) {
		sugg = append(sugg, pluginToken(t, p, name))
	}
	verb := "is named"
	if strings.ContainsAny(plugin, "*?") {
		verb = "matches"
	}
	return &TokenError{Token: t.text, Reason: fmt.Sprintf("no installed plugin %s %s", verb, plugin), Suggestions: sugg}
}

// pluginToken writes a plugin token of t's form for plugin and skill
// name: @plugins:<plugin>[:<name>] or @<plugin>:<name>.
func pluginToken(t Token, plugin, name string) string {
	if !strings.Contains(strings.ToLower(t.text)+":", "@plugins:") {
		return "@" + plugin + ":" + name
	}
	if name == "*" {
		return "@plugins:" + plugin
	}
	return "@plugins:" + plugin + ":" + name
}

// disabledReason says that the plugins of off are disabled and where to
// enable each, in pipeline.PluginDisabledError's words, plugins sorted by
// name.
func disabledReason(off []pipeline.DisabledPlugin) string {
	off = slices.Clone(off)
	slices.SortStableFunc(off, func(a, b pipeline.DisabledPlugin) int {
		return strings.Compare(strings.ToLower(a.Plugin), strings.ToLower(b.Plugin))
	})
	return pipeline.DisabledReason(off)
}

// selects reports whether s matches a record of the scan.
func (sc *scope) selects(s selector) bool {
	return slices.ContainsFunc(sc.records, s.match)
}

// providerNames lists the registered and the scanned provider names,
// sorted.
func (sc *scope) providerNames() []string {
	return slices.Sorted(maps.Keys(sc.providers))
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

// shortNames lists the lower-cased short name of every record, and of its
// alias, each once.
func (sc *scope) shortNames() []string {
	set := map[string]bool{}
	for _, r := range sc.records {
		set[strings.ToLower(r.ShortName())] = true
		if a := r.ShortAlias(); a != "" {
			set[strings.ToLower(a)] = true
		}
	}
	return slices.Collect(maps.Keys(set))
}

// namesUnder lists the lower-cased full names that start with head and
// ':', each once: the skills and commands of a plugin, a scope or a
// command folder named head.
func (sc *scope) namesUnder(head string) []string {
	set := map[string]bool{}
	for _, r := range sc.records {
		for _, n := range []string{strings.ToLower(r.Name), strings.ToLower(r.Alias)} {
			if strings.HasPrefix(n, head+":") {
				set[n] = true
			}
		}
	}
	return slices.Collect(maps.Keys(set))
}
