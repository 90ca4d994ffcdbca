package filters

import (
	"fmt"

	"github.com/ccski/ccski/pipeline"
)

// Settings are the user's filter choices, as given by flags or config.
type Settings struct {
	// State is "enabled" (the default when empty), "disabled" or "all".
	State string
	// Include and Exclude are flag values; each may hold several
	// comma-separated tokens. An empty Include means auto.
	Include, Exclude []string
	// Priority lists root kinds from the highest priority down; empty
	// means pipeline.DefaultPriority().
	Priority []string
}

// Build parses cfg and returns the filter stages in their order of
// application: state, include, path dedupe, exclude. records is the whole
// scan; it is read only to learn the provider names and record ids, so
// that every token means the same thing in every stage, whatever earlier
// stages removed.
func Build(cfg Settings, records []*pipeline.Record) ([]pipeline.Stage, error) {
	state, err := NewState(cfg.State)
	if err != nil {
		return nil, err
	}
	kinds := make([]pipeline.Kind, len(cfg.Priority))
	for i, k := range cfg.Priority {
		kinds[i] = pipeline.Kind(k)
	}
	prio, err := NewPriority(kinds, nil)
	if err != nil {
		return nil, err
	}
	inc, err := ParseList(cfg.Include)
	if err != nil {
		return nil, fmt.Errorf("include: %w", err)
	}
	exc, err := ParseList(cfg.Exclude)
	if err != nil {
		return nil, fmt.Errorf("exclude: %w", err)
	}
	sc := newScope(records)
	return []pipeline.Stage{
		state,
		newInclude(inc, prio, sc),
		PathDedupe(),
		&exclude{tokens: exc, scope: sc},
	}, nil
}
