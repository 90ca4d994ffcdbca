package providers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/suggest"
	"github.com/ccski/ccski/pipeline"
)

// HostOrder is how one host ranks two copies of a skill that it finds in
// a user folder and in a project folder, and the provider option that
// changes it for ccski.
type HostOrder struct {
	// Provider is the ccski.yaml section of the option
	// (providers.<Provider>.precedence).
	Provider string
	// Prefers is the level the host ranks first.
	Prefers pipeline.Location
	// Rule says so in the host's words.
	Rule string
}

// The host orders. Claude Code documents personal skills
// (~/.claude/skills) above project ones. Codex ranks repo skills
// (.agents/skills and the legacy .codex/skills, from the workspace up to
// the repository root) above user ones ($HOME/.agents/skills,
// $CODEX_HOME/skills). The agents provider's folders follow the hosts
// that read them: Codex (.agents/skills), Gemini CLI (.gemini/skills and
// .agents/skills) and OpenClaw (skills/, .agents/skills, .openclaw/skills)
// all rank the project first; a dynamic .<agent> follows the same rule,
// as every documented host but Claude Code does.
var (
	ClaudeOrder = HostOrder{Provider: "claude", Prefers: pipeline.LocationUser,
		Rule: "Claude Code ranks personal over project"}
	CodexOrder = HostOrder{Provider: "codex", Prefers: pipeline.LocationProject,
		Rule: "Codex ranks repo over user"}
	AgentsOrder = HostOrder{Provider: "agents", Prefers: pipeline.LocationProject,
		Rule: "Codex, Gemini CLI and OpenClaw rank project over user"}
)

// PrecedenceValues are the values providers.<name>.precedence accepts.
var PrecedenceValues = []string{string(pipeline.LocationUser), string(pipeline.LocationProject)}

// PrecedenceOption is the type of a provider's precedence option in its
// options struct: user, project, or "" for the host's own order (see
// HostOrder.Precedence). configs accepts only its Values in ccski.yaml and
// lists them in the JSON Schema.
type PrecedenceOption string

// Values returns PrecedenceValues.
func (PrecedenceOption) Values() []string { return slices.Clone(PrecedenceValues) }

// Option is the ccski.yaml key of the order's option.
func (h HostOrder) Option() string { return "providers." + h.Provider + ".precedence" }

// Default is the rule when the option is not set: the host's own order.
func (h HostOrder) Default() *pipeline.Precedence {
	return &pipeline.Precedence{Prefer: h.Prefers, Option: h.Option(), HostPrefers: h.Prefers, HostRule: h.Rule}
}

// Precedence returns the rule for value, the provider's precedence option:
// "user" or "project" (in any case, spaces trimmed), or "" for the host's
// own order. Any other value is an error that names the key and the valid
// values.
func (h HostOrder) Precedence(value string) (*pipeline.Precedence, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	if v == "" {
		return h.Default(), nil
	}
	for _, ok := range PrecedenceValues {
		if v == ok {
			p := h.Default()
			p.Prefer = pipeline.Location(v)
			return p, nil
		}
	}
	return nil, fmt.Errorf("%s: invalid value %q%s; use user (personal skills win) or project (the project's win)",
		h.Option(), value, suggest.DidYouMean(v, PrecedenceValues))
}
