package filters

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// The states accepted by NewState.
const (
	StateEnabled  = "enabled"  // keep skills with a SKILL.md (the default)
	StateDisabled = "disabled" // keep only skills with a .SKILL.md
	StateAll      = "all"      // keep both
)

// stateStage keeps records by their Disabled flag and their hosts'
// switches.
type stateStage struct {
	state string
	// host is the host whose switches count (see NewStateFor); "" means
	// every host's.
	host string
}

// NewState returns the stage that keeps records in the given state:
// "enabled" (also the meaning of ""), "disabled" or "all", compared
// case-insensitively. Any other value is an error. A record is disabled
// when its folder holds .SKILL.md, or when every host that reads it
// turns it off in its own settings (pipeline.Record.OffIn).
func NewState(s string) (pipeline.Stage, error) { return NewStateFor(s, "", nil) }

// NewStateFor is NewState for the view of one host, one of hosts (the
// hosts with skill switches: all.HostNames): a record that host's
// settings turn off counts as disabled, whatever other hosts say. "" and
// AgentAll mean the view of every host, as NewState. An unknown host is
// an error.
func NewStateFor(s, host string, hosts []string) (pipeline.Stage, error) {
	h := strings.ToLower(strings.TrimSpace(host))
	if h == AgentAll {
		h = ""
	}
	if h != "" && !slices.Contains(hosts, h) {
		return nil, fmt.Errorf("unknown agent %q; valid agents: %s", host, strings.Join(append([]string{AgentAll}, hosts...), ", "))
	}
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "":
		return stateStage{StateEnabled, h}, nil
	case StateEnabled, StateDisabled, StateAll:
		return stateStage{v, h}, nil
	}
	return nil, fmt.Errorf("unknown state %q; valid states: %s, %s, %s", s, StateEnabled, StateDisabled, StateAll)
}

// Name returns "state".
func (stateStage) Name() string { return "state" }

// Apply keeps the records whose state fits.
func (s stateStage) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	var out []*pipeline.Record
	var dropped []pipeline.Drop
	for _, r := range in {
		off := r.OffIn(s.host)
		switch {
		case s.state == StateEnabled && r.Disabled:
			dropped = append(dropped, pipeline.Drop{Record: r,
				Reason: `disabled (its file is .SKILL.md); use state "disabled" or "all" to see it`})
		case s.state == StateEnabled && off != nil:
			dropped = append(dropped, pipeline.Drop{Record: r,
				Reason: pipeline.DescribeOff(off) + `; use state "disabled" or "all" to see it`})
		case s.state == StateDisabled && !r.Disabled && off == nil:
			dropped = append(dropped, pipeline.Drop{Record: r,
				Reason: `enabled, and state "disabled" shows only disabled skills`})
		default:
			out = append(out, r)
		}
	}
	return out, dropped
}
