package filters

import (
	"fmt"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// The states accepted by NewState.
const (
	StateEnabled  = "enabled"  // keep skills with a SKILL.md (the default)
	StateDisabled = "disabled" // keep only skills with a .SKILL.md
	StateAll      = "all"      // keep both
)

// stateStage keeps records by their Disabled flag.
type stateStage struct{ state string }

// NewState returns the stage that keeps records in the given state:
// "enabled" (also the meaning of ""), "disabled" or "all", compared
// case-insensitively. Any other value is an error.
func NewState(s string) (pipeline.Stage, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "":
		return stateStage{StateEnabled}, nil
	case StateEnabled, StateDisabled, StateAll:
		return stateStage{v}, nil
	}
	return nil, fmt.Errorf("unknown state %q; valid states: %s, %s, %s", s, StateEnabled, StateDisabled, StateAll)
}

// Name returns "state".
func (stateStage) Name() string { return "state" }

// Apply keeps the records whose Disabled flag fits the state.
func (s stateStage) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	var out []*pipeline.Record
	var dropped []pipeline.Drop
	for _, r := range in {
		switch {
		case s.state == StateEnabled && r.Disabled:
			dropped = append(dropped, pipeline.Drop{Record: r,
				Reason: `disabled (its file is .SKILL.md); use state "disabled" or "all" to see it`})
		case s.state == StateDisabled && !r.Disabled:
			dropped = append(dropped, pipeline.Drop{Record: r,
				Reason: `enabled, and state "disabled" shows only disabled skills`})
		default:
			out = append(out, r)
		}
	}
	return out, dropped
}
