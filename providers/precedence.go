package providers

import (
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// HostOrder is how one host ranks two copies of a skill that it finds in
// a user folder and in a project folder, and the provider option that
// changes it for ccski. Each provider with a precedence option declares
// its own (claude.Order, codex.Order, ...).
type HostOrder struct {
	// Provider is the ccski.yaml section of the option
	// (providers.<Provider>.precedence).
	Provider string
	// Prefers is the level the host ranks first.
	Prefers pipeline.Location
	// Rule says so in the host's words.
	Rule string
}

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

// Precedence returns the rule for value, the provider's precedence
// option: the host's order changed to prefer value, user or project. The
// empty value keeps the host's order. configs accepts no other value, so
// that the option is checked in one place; any other value, which only a
// configuration built by hand can hold, keeps the host's order too.
func (h HostOrder) Precedence(value PrecedenceOption) *pipeline.Precedence {
	p := h.Default()
	if v := strings.ToLower(strings.TrimSpace(string(value))); slices.Contains(PrecedenceValues, v) {
		p.Prefer = pipeline.Location(v)
	}
	return p
}

// From returns the rule that the provider h belongs to set in env
// (Env.Rules, filled from its Ranker), else the host's own order: the
// rule another provider follows for the same host's files (the commands
// provider for Claude's commands).
func (h HostOrder) From(env Env) *pipeline.Precedence {
	if r := env.Rules[h.Provider]; r != nil {
		return r
	}
	return h.Default()
}
