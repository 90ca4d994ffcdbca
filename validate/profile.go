package validate

import (
	"fmt"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Profile names a set of severities: which findings are errors, which are
// warnings and which are not reported.
type Profile string

// The profiles.
const (
	// ProfileSpec follows the Agent Skills specification and what its
	// reference tooling accepts.
	ProfileSpec Profile = "spec"
	// ProfileClaude is what Claude Code accepts: lenient YAML, its
	// extension fields, description optional.
	ProfileClaude Profile = "claude"
	// ProfileCodex is what Codex accepts: its length limits and one-line
	// values; it ignores fields it does not know.
	ProfileCodex Profile = "codex"
	// ProfileStrict reports everything at the highest severity any other
	// profile gives it, plus portability warnings.
	ProfileStrict Profile = "strict"
)

// Profiles lists every profile in documentation order.
var Profiles = []Profile{ProfileSpec, ProfileClaude, ProfileCodex, ProfileStrict}

// ParseProfile checks a profile name given by a user.
func ParseProfile(s string) (Profile, error) {
	for _, p := range Profiles {
		if string(p) == s {
			return p, nil
		}
	}
	names := make([]string, len(Profiles))
	for i, p := range Profiles {
		names[i] = string(p)
	}
	return "", fmt.Errorf("unknown profile %q: use %s%s", s, strings.Join(names, ", "), didYouMean(s, names))
}

// Severity is how much a finding matters under a profile.
type Severity string

// The severities, from the most to the least serious. Findings whose rule
// is off under the chosen profile are not reported.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
	SeverityOff     Severity = "off"
)

// rank orders severities: error 3, warning 2, info 1, off 0.
func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 3
	case SeverityWarning:
		return 2
	case SeverityInfo:
		return 1
	}
	return 0
}

// didYouMean returns ` (did you mean "x"?)` for the closest of names, or
// "" when none is close.
func didYouMean(s string, names []string) string {
	if c := closest(s, names); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// closest returns the name of names nearest to s, or "" when none is
// close enough to be a likely typo. Case, "_" and "-" are ignored first;
// then an edit distance of at most 2 that is at most a third of the
// length, or one swap of adjacent letters, counts as close; failing that,
// a name that starts with s, or that s starts with, when the shorter has
// at least four letters and the longer at most twice as many.
func closest(s string, names []string) string {
	fold := func(x string) string {
		return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(x))
	}
	fs := fold(s)
	if fs == "" {
		return ""
	}
	best, bestD := "", 1<<30
	for _, n := range names {
		fn := fold(n)
		if fn == fs {
			return n
		}
		d := levenshtein.ComputeDistance(fs, fn)
		if transposed(fs, fn) {
			d = 1
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	if bestD == 1 || bestD <= 2 && bestD*3 <= len(fs) {
		return best
	}
	// One name starting with the other ("claude-code", "meta").
	for _, n := range names {
		fn := fold(n)
		short, long := min(len(fn), len(fs)), max(len(fn), len(fs))
		if short >= 4 && long <= 2*short && (strings.HasPrefix(fn, fs) || strings.HasPrefix(fs, fn)) {
			return n
		}
	}
	return ""
}

// transposed reports whether a becomes b by swapping two adjacent bytes.
func transposed(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}
