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
	// Lenient makes Build accept include and exclude tokens that name
	// nothing in the scan (see Unmatched). A long-running server sets it
	// for every rescan after the first: a skill named in the configuration
	// may come and go while it runs, and a rescan that failed would freeze
	// the served list until a restart.
	Lenient bool
}

// Build parses cfg and returns the filter stages in their order of
// application: state, include, path dedupe, exclude. records is the whole
// scan; it is read to learn the provider names and record ids, so that
// every token means the same thing in every stage, whatever earlier
// stages removed, and to reject a token that names nothing in it (an
// unknown provider, plugin, skill or command), which would otherwise
// silently select nothing: the error is a *TokenError with suggestions.
func Build(cfg Settings, records []*pipeline.Record) ([]pipeline.Stage, error) {
	p, err := parse(cfg)
	if err != nil {
		return nil, err
	}
	sc := newScope(records)
	if !cfg.Lenient {
		if errs := sc.unmatched(p); len(errs) > 0 {
			return nil, errs[0]
		}
	}
	return []pipeline.Stage{
		p.state,
		newInclude(p.include, p.prio, sc),
		PathDedupe(),
		&exclude{tokens: p.exclude, scope: sc},
	}, nil
}

// Unmatched returns an error for every include and exclude token of cfg
// that names nothing in records (the errors Build reports unless
// cfg.Lenient is set), in the order the tokens are given, or nil. Settings
// that do not parse give nil: Check and Build report those.
func Unmatched(cfg Settings, records []*pipeline.Record) []error {
	p, err := parse(cfg)
	if err != nil {
		return nil
	}
	return newScope(records).unmatched(p)
}

// unmatched checks the include tokens, then the exclude tokens, against
// the scan.
func (sc *scope) unmatched(p parsed) []error {
	var errs []error
	for _, t := range p.include {
		if err := sc.unknown(t); err != nil {
			errs = append(errs, fmt.Errorf("include: %w", err))
		}
	}
	for _, t := range p.exclude {
		if err := sc.unknown(t); err != nil {
			errs = append(errs, fmt.Errorf("exclude: %w", err))
		}
	}
	return errs
}

// Check reports the errors of cfg that need no scan: an invalid state,
// priority or token syntax. Build also reports tokens that name nothing
// in the scan.
func Check(cfg Settings) error {
	_, err := parse(cfg)
	return err
}

// parsed are the settings, parsed.
type parsed struct {
	state            pipeline.Stage
	prio             *Priority
	include, exclude []Token
}

// parse parses the settings.
func parse(cfg Settings) (parsed, error) {
	state, err := NewState(cfg.State)
	if err != nil {
		return parsed{}, err
	}
	kinds := make([]pipeline.Kind, len(cfg.Priority))
	for i, k := range cfg.Priority {
		kinds[i] = pipeline.Kind(k)
	}
	prio, err := NewPriority(kinds, nil)
	if err != nil {
		return parsed{}, err
	}
	inc, err := ParseList(cfg.Include)
	if err != nil {
		return parsed{}, fmt.Errorf("include: %w", err)
	}
	exc, err := ParseList(cfg.Exclude)
	if err != nil {
		return parsed{}, fmt.Errorf("exclude: %w", err)
	}
	return parsed{state: state, prio: prio, include: inc, exclude: exc}, nil
}
