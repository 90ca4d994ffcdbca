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

// names calls add with every name that designates r, case aside, and its
// tier. A name designates one record by the first tier in which it
// matches any (see Index.Resolve):
//
//  0. the record's id ("claude@user:pdf");
//  1. its full name ("pdf", "example-skills:pdf"), bare, after its
//     provider ("codex:pdf"), after its provider and location
//     ("claude@user:pdf"), and for a plugin record after "@"
//     ("@example-skills:pdf", "claude:@example-skills:pdf");
//  2. its short name, the full name's last ':'-separated word, bare or
//     after its provider ("xlsx", "claude:xlsx").
func names(r *Record, add func(tier int, name string)) {
	add(0, r.ID)
	add(1, r.Name)
	add(1, baseID(r))
	add(1, locatedID(r))
	add(1, r.Agent+":"+r.Name)
	if r.Plugin != nil {
		add(1, "@"+r.Name)
	}
	add(2, r.ShortName())
	add(2, r.Agent+":"+r.ShortName())
}

// MatchName reports whether pattern, a lower-cased glob (see Glob),
// matches r's full name or its short name, case-insensitively: the names
// a bare name designates (tiers 1 and 2 of Index). The filter tokens
// <name>, <provider>:<glob> and <x>:<glob> select by it, so a bare name
// that resolves to a record as a name selects that record as a token.
func MatchName(pattern string, r *Record) bool {
	return Glob(pattern, strings.ToLower(r.Name)) || Glob(pattern, strings.ToLower(r.ShortName()))
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
