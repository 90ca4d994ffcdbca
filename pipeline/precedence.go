package pipeline

import "fmt"

// Precedence is a provider's rule for two copies of one skill that its
// host finds both in a user folder and in a project folder: which of the
// two levels wins. Claude Code ranks personal skills (~/.claude/skills)
// over project ones; Codex, Gemini CLI and OpenClaw rank the project's
// over the user's. Each provider with such folders stamps its roots, and
// through them its records, with its rule; the priority stage ranks by it
// (see filters.Priority). A Precedence is never changed once built and may
// be shared by many roots and records.
type Precedence struct {
	// Prefer is the level that wins: LocationUser or LocationProject.
	Prefer Location `json:"prefer"`
	// Option is the ccski.yaml key that sets the rule, such as
	// "providers.claude.precedence".
	Option string `json:"option"`
	// HostPrefers is the level the host ranks first, the default of
	// Option, and HostRule says so in the host's words ("Claude Code
	// ranks personal over project").
	HostPrefers Location `json:"hostPrefers"`
	HostRule    string   `json:"hostRule"`
}

// Rule says in one phrase which level wins and why, naming the setting:
// "Claude Code ranks personal over project (providers.claude.precedence:
// user)" when the host's own order is kept, or "project over user
// (providers.claude.precedence: project; by default, Claude Code ranks
// personal over project)" when the setting changes it.
func (p *Precedence) Rule() string {
	setting := fmt.Sprintf("%s: %s", p.Option, p.Prefer)
	if p.Prefer == p.HostPrefers {
		return fmt.Sprintf("%s (%s)", p.HostRule, setting)
	}
	return fmt.Sprintf("%s over %s (%s; by default, %s)", p.Prefer, OtherLevel(p.Prefer), setting, p.HostRule)
}

// OtherLevel returns LocationProject for LocationUser and LocationUser for
// LocationProject: the level a precedence ranks second. Any other location
// gives "".
func OtherLevel(l Location) Location {
	switch l {
	case LocationUser:
		return LocationProject
	case LocationProject:
		return LocationUser
	}
	return ""
}

// Level is the level a root kind belongs to for a precedence:
// LocationProject for the workspace kinds, LocationUser for the user
// kinds, and "" for the kinds no precedence moves (custom folders,
// skill_dirs, system folders and plugins, which are neither a host's user
// nor its project level).
func (k Kind) Level() Location {
	switch k {
	case KindWorkspaceAgent, KindWorkspaceShared, KindWorkspaceRoot:
		return LocationProject
	case KindUserAgent, KindUserShared:
		return LocationUser
	}
	return ""
}
