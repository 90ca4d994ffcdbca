package filters

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// TokenError reports a filter token that cannot be parsed. Its message says
// what is wrong and which forms are valid.
type TokenError struct {
	// Token is the offending token as typed; it is empty when the token
	// itself is empty.
	Token string
	// Reason explains the problem and suggests a valid form.
	Reason string
	// Suggestions are close valid tokens, best first, for a token that
	// names nothing in the scan (see Build).
	Suggestions []string
}

func (e *TokenError) Error() string {
	if e.Token == "" {
		return "empty filter token: " + e.Reason
	}
	msg := fmt.Sprintf("invalid filter token %q: %s", e.Token, e.Reason)
	if len(e.Suggestions) > 0 {
		msg += "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
	}
	return msg
}

// canonProvider lower-cases a provider name and maps the alias "file" to
// "custom".
func canonProvider(p string) string {
	p = strings.ToLower(strings.TrimSpace(p))
	if p == "file" {
		return "custom"
	}
	return p
}

// form says how much of a token's meaning is fixed by its syntax alone.
type form int

const (
	// formFixed tokens mean the same whatever providers exist.
	formFixed form = iota
	// formWord is a bare word: a provider if one has that name (see
	// scope), else a skill name.
	formWord
	// formPair is "x:y" with x a plain word: provider x and name y if x
	// is a provider, else the full name "x:y".
	formPair
)

// selector is the resolved meaning of a token: a conjunction of optional
// constraints on a record.
type selector struct {
	// id, when set, selects only the record with this (lower-cased) id.
	id string
	// provider and loc constrain the record's provider and location;
	// empty means any.
	provider string
	loc      pipeline.Location
	// plugins restricts to plugin records whose plugin name matches the
	// plugin glob and whose short name matches the name glob.
	plugins bool
	plugin  string
	// name is a lower-cased glob matched against the name or the short
	// name; empty means any name. A glob holding ':' can only match a full
	// name, since short names have no ':'.
	name string
	// dedupe keeps one winner per skill within the token's selection
	// (include only).
	dedupe bool
}

// Token is one parsed filter token. Its zero value is not valid; build
// tokens with Parse or ParseList.
type Token struct {
	text string
	form form
	sel  selector
	// head and tail are the parts of a word or pair token, lower-cased.
	head, tail string
}

// String returns the token as typed, without surrounding white space.
func (t Token) String() string { return t.text }

// ParseList splits every flag value on commas and parses each piece. Empty
// pieces are an error naming their position and the value.
func ParseList(values []string) ([]Token, error) {
	var out []Token
	for _, v := range values {
		for i, piece := range strings.Split(v, ",") {
			if strings.TrimSpace(piece) == "" {
				return nil, &TokenError{Reason: fmt.Sprintf(
					"token %d of %q is empty; separate tokens with single commas", i+1, v)}
			}
			t, err := Parse(piece)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
	}
	return out, nil
}

// Parse parses one filter token. See the package documentation for the
// grammar. Matching is case-insensitive, so the token is lower-cased for
// matching but kept as typed for messages.
func Parse(tok string) (Token, error) {
	text := strings.TrimSpace(tok)
	if text == "" {
		return Token{}, &TokenError{Reason: "use auto, all, <provider>, <provider>:<name>, @plugins or <name>"}
	}
	t := Token{text: text}
	fail := func(format string, args ...any) (Token, error) {
		return Token{}, &TokenError{Token: text, Reason: fmt.Sprintf(format, args...)}
	}
	s := strings.ToLower(text)
	switch s {
	case "auto":
		t.sel.dedupe = true
		return t, nil
	case "all":
		return t, nil
	}
	if strings.HasPrefix(s, "@") {
		sel, reason := parsePlugins(s[1:])
		if reason != "" {
			return fail("%s", reason)
		}
		t.sel = sel
		return t, nil
	}

	head, rest, hasColon := strings.Cut(s, ":")
	if head == "" {
		return fail("nothing before ':'; use <provider>:<name>, all:<name> or a bare <name>")
	}
	prov, locText, hasAt := strings.Cut(head, "@")
	// "file" is the grammar's alias of custom: a provider in every scan.
	alias := prov == "file"
	prov = canonProvider(prov)
	if hasAt {
		loc, ok := parseLocation(locText)
		if !ok {
			if locText == "" {
				return fail("no location after '@'; valid locations: %s", locationList)
			}
			return fail("unknown location %q; valid locations: %s", locText, locationList)
		}
		t.sel.loc = loc
	}
	anyProvider := prov == "all" || prov == "auto"
	// fixed: the head is no plain word, so whether it is a provider does
	// not depend on the scan.
	fixed := hasAt || anyProvider || alias
	if anyProvider {
		t.sel.dedupe = prov == "auto"
	} else if fixed {
		t.sel.provider = prov
	}

	if !hasColon {
		if fixed {
			return t, nil // "file", "claude@user", "all@project"
		}
		t.form, t.head = formWord, s
		return t, nil
	}
	if rest == "" {
		return fail("nothing after ':'; use %s for all its skills or %s:<name> for some", head, head)
	}
	if strings.HasPrefix(rest, "@") {
		if !anyProvider && prov != "claude" {
			return fail("only the claude provider has plugins; use @plugins or claude:@plugins")
		}
		sel, reason := parsePlugins(rest[1:])
		if reason != "" {
			return fail("%s", reason)
		}
		sel.loc, sel.dedupe = t.sel.loc, t.sel.dedupe
		if !anyProvider {
			sel.provider = prov // claude
		}
		t.sel = sel
		return t, nil
	}
	if !fixed {
		t.form, t.head, t.tail = formPair, prov, rest
		return t, nil
	}
	t.sel.name = rest
	return t, nil
}

// parsePlugins parses what follows the "@" of a plugin token:
// "plugins[:<plugin>[:<skill>]]" or "<plugin>:<skill>". It returns a
// non-empty reason when the text is invalid.
func parsePlugins(s string) (selector, string) {
	const forms = "use @plugins, @plugins:<plugin>, @plugins:<plugin>:<skill> or @<plugin>:<skill>"
	sel := selector{plugins: true, plugin: "*", name: "*"}
	if s == "" {
		return sel, "'@' needs a plugin name; " + forms
	}
	parts := strings.Split(s, ":")
	if parts[0] == "plugins" {
		parts = parts[1:]
		switch {
		case len(parts) > 2:
			return sel, "too many ':' parts; " + forms
		case slices.Contains(parts, ""):
			return sel, "empty plugin or skill pattern; " + forms
		}
		if len(parts) > 0 {
			sel.plugin = parts[0]
		}
		if len(parts) > 1 {
			sel.name = parts[1]
		}
		return sel, ""
	}
	switch {
	case len(parts) == 1:
		return sel, fmt.Sprintf("@%s names a plugin but no skill; use @%s:<skill>, or @plugins:%s for all its skills",
			parts[0], parts[0], parts[0])
	case len(parts) > 2:
		return sel, "too many ':' parts; " + forms
	case parts[0] == "":
		return sel, "empty plugin name; " + forms
	case parts[1] == "":
		return sel, "empty skill name; " + forms
	}
	sel.plugin, sel.name = parts[0], parts[1]
	return sel, ""
}

// locationList names the values accepted after "@" in
// "<provider>@<location>".
const locationList = "project, user, plugin, custom, system"

// parseLocation returns the location named by s (lower-cased).
func parseLocation(s string) (pipeline.Location, bool) {
	switch l := pipeline.Location(s); l {
	case pipeline.LocationProject, pipeline.LocationUser, pipeline.LocationPlugin, pipeline.LocationCustom,
		pipeline.LocationSystem:
		return l, true
	}
	return "", false
}

// scope is what a token needs to know about the scan to be resolved: the
// provider names and the record ids; and, to tell a token that names
// nothing from one that names something, the records and the plugin names,
// enabled and disabled.
type scope struct {
	providers map[string]bool
	ids       map[string]bool
	plugins   map[string]bool
	records   []*pipeline.Record
	// disabled maps the lower-cased name of every installed plugin the
	// settings turn off to its installs.
	disabled map[string][]pipeline.DisabledPlugin
}

// newScope collects the lower-cased providers, ids and plugin names of
// records. registered are provider names known besides those the records
// carry (the registered providers, which may have no skills in a scan),
// and disabled the installed plugins the settings turn off.
func newScope(records []*pipeline.Record, registered []string, disabled []pipeline.DisabledPlugin) *scope {
	sc := &scope{providers: map[string]bool{}, ids: map[string]bool{}, plugins: map[string]bool{}, records: records,
		disabled: map[string][]pipeline.DisabledPlugin{}}
	for _, p := range registered {
		sc.providers[canonProvider(p)] = true
	}
	for _, r := range records {
		sc.providers[strings.ToLower(r.Agent)] = true
		sc.ids[strings.ToLower(r.ID)] = true
		if r.Plugin != nil {
			sc.plugins[strings.ToLower(r.Plugin.Plugin)] = true
		}
	}
	for _, d := range disabled {
		k := strings.ToLower(d.Plugin)
		sc.disabled[k] = append(sc.disabled[k], d)
	}
	return sc
}

func (sc *scope) isProvider(p string) bool { return sc.providers[p] }

// resolve fixes the meaning of t for a scan. A token equal to a record id
// selects that record only; a word or pair is read as a provider when the
// scope knows a provider of that name.
func (t Token) resolve(sc *scope) selector {
	if id := strings.ToLower(t.text); sc.ids[id] {
		return selector{id: id}
	}
	switch t.form {
	case formWord:
		if sc.isProvider(t.head) {
			return selector{provider: t.head}
		}
		return selector{name: t.head, dedupe: true}
	case formPair:
		if sc.isProvider(t.head) {
			return selector{provider: t.head, name: t.tail}
		}
		return selector{name: t.head + ":" + t.tail}
	}
	return t.sel
}

// match reports whether r satisfies every constraint of s.
func (s selector) match(r *pipeline.Record) bool {
	if s.id != "" {
		return strings.ToLower(r.ID) == s.id
	}
	if s.provider != "" && strings.ToLower(r.Agent) != s.provider {
		return false
	}
	if s.loc != "" && r.Location != s.loc {
		return false
	}
	if s.plugins {
		return r.Plugin != nil && pipeline.Glob(s.plugin, strings.ToLower(r.Plugin.Plugin)) &&
			pipeline.MatchShortName(s.name, r)
	}
	return s.name == "" || pipeline.MatchName(s.name, r)
}

// selectFrom returns the records of in that s matches, in input order.
func (s selector) selectFrom(in []*pipeline.Record) []*pipeline.Record {
	var out []*pipeline.Record
	for _, r := range in {
		if s.match(r) {
			out = append(out, r)
		}
	}
	return out
}
