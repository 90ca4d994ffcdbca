package validate

import (
	"fmt"
	"strings"

	"github.com/ccski/ccski/internal/suggest"
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
	if c := suggest.Closest(s, names); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}
