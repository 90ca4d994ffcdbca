package pipeline

// Selection by name: the one rule by which a name designates skills, for
// every command and tool that takes one. Snapshot.Lookup (and Load, built
// on it) resolves a name to one record for `ccski info`, the skill tool,
// prompts and resources, `ccski enable` and `disable`, `ccski trust`,
// the skill sources of the ask tool and the skill arguments of `ccski
// install` (over the records of the source). The filter tokens of
// --include and --exclude (package filters) select every record a name,
// or a glob of one, designates: MatchName is their rule for the name, and
// a token equal to an id or to another name below selects what Lookup
// would resolve it to (or, for a bare name, that skill in every provider
// and plugin).

import "strings"

// nameTiers is the number of tiers of names.
const nameTiers = 5

// form is one name of forms, as the parts it is made of (joined, they
// are the name), so that an Index can compare a name with it without
// building it. Between any two parts that are not made of ASCII
// separators (':', '@', '/') there is one that is, so no character spans
// two parts, and lower-casing the parts one by one gives the name
// lower-cased.
type form [5]string

// String is the name f stands for.
func (f form) String() string { return f[0] + f[1] + f[2] + f[3] + f[4] }

// forms gives every name that designates r, case aside, by tier. A name
// designates one record by the first tier in which it matches any (see
// Index.Resolve):
//
//  0. the record's id ("claude@user:pdf");
//  1. its full name ("pdf", "example-skills:pdf"), bare, after its
//     provider ("codex:pdf"), after its provider and location
//     ("claude@user:pdf"), and for a plugin record after "@"
//     ("@example-skills:pdf", "claude:@example-skills:pdf");
//  2. its alias, the other of its folder's name and its frontmatter name
//     (Record.Alias), in the same forms: the name a host that names
//     skills the other way shows, and the id the record had under it;
//  3. its short name, the full name's last ':'-separated word, bare or
//     after its provider ("xlsx", "claude:xlsx");
//  4. its alias's short name, bare or after its provider.
//
// So a skill answers to the name its host shows and to the other one,
// but a name that is some skill's own name never reaches another skill
// through an alias.
//
// forms calls each with the names of one tier, as parts, until each
// returns false.
func forms(r *Record, tier int, each func(form) bool) {
	switch tier {
	case 0:
		each(form{r.ID})
	case 1:
		fullNames(r, r.Name, each)
	case 2:
		if r.Alias != "" {
			fullNames(r, r.Alias, each)
		}
	case 3:
		_ = each(form{r.ShortName()}) && each(form{r.Agent, ":", r.ShortName()})
	case 4:
		if short := r.ShortAlias(); short != "" {
			_ = each(form{short}) && each(form{r.Agent, ":", short})
		}
	}
}

// fullNames calls each with the forms of tier 1 of forms for name, r's
// full name or its alias, until each returns false.
func fullNames(r *Record, name string, each func(form) bool) {
	q, cq := qualifier(r)
	_ = each(form{name}) &&
		each(form{r.Agent, ":", q, name}) &&
		each(form{r.Agent, "@", string(r.Location), cq, name}) &&
		each(form{r.Agent, ":", name}) &&
		(r.Plugin == nil || each(form{"@", name}))
}

// MatchName reports whether pattern, a lower-cased glob (see Glob),
// matches r's full name or its short name, or its alias or the alias's
// short name, case-insensitively: the names a bare name designates (tiers
// 1 to 4 of Index). The filter tokens <name>, <provider>:<glob> and
// <x>:<glob> select by it, so a bare name that resolves to a record as a
// name selects that record as a token.
func MatchName(pattern string, r *Record) bool {
	if Glob(pattern, strings.ToLower(r.Name)) || Glob(pattern, strings.ToLower(r.ShortName())) {
		return true
	}
	return r.Alias != "" && (Glob(pattern, strings.ToLower(r.Alias)) || Glob(pattern, strings.ToLower(r.ShortAlias())))
}

// MatchShortName reports whether pattern, a lower-cased glob, matches r's
// short name or its alias's short name: the name within a plugin that the
// filter token @<plugin>:<glob> selects by.
func MatchShortName(pattern string, r *Record) bool {
	return Glob(pattern, strings.ToLower(r.ShortName())) ||
		r.Alias != "" && Glob(pattern, strings.ToLower(r.ShortAlias()))
}

// Glob reports whether the whole of s matches pattern, where '*' matches
// any run of characters (including none) and '?' exactly one. No other
// character is special. Both arguments should already be lower-cased.
func Glob(pattern, s string) bool {
	p, n := []rune(pattern), []rune(s)
	pi, ni := 0, 0
	star, mark := -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case star >= 0:
			mark++
			pi, ni = star+1, mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
