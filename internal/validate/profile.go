package validate

import "github.com/ccski/ccski/internal/report"

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
func ParseProfile(s string) (Profile, error) { return report.ParseName("profile", s, Profiles) }
