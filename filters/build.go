package filters

import (
	"fmt"

	"github.com/ccski/ccski/pipeline"
)

// Settings are the user's filter choices, as given by flags or config,
// and what Build needs to know besides the scan to read them.
type Settings struct {
	// State is "enabled" (the default when empty), "disabled" or "all".
	State string
	// Include and Exclude are flag values; each may hold several
	// comma-separated tokens. An empty Include means auto.
	Include, Exclude []string
	// Priority lists root kinds from the highest priority down; empty
	// means pipeline.DefaultPriority().
	Priority []string
	// Providers are the provider names the registered providers give
	// their records (the engine passes all.ProviderNames()). A word that
	// names one of them is a provider even in a scan without any of its
	// skills; the providers of the scanned records, such as a dynamic
	// cursor, are providers too. Their order breaks the last ties between
	// equal copies of a skill (see NewPriority); providers it leaves out
	// follow, alphabetically.
	Providers []string
	// Disabled are the installed plugins the settings turn off
	// (pipeline.Snapshot.Disabled). Their skills are not in the scan, so
	// an include token that names only such plugins selects nothing:
	// Build says the plugin is disabled rather than unknown. An exclude
	// token may name them: what it hides is hidden already.
	Disabled []pipeline.DisabledPlugin
	// Agent is the host whose skill switches decide what is off
	// (claude, codex or gemini); "" means a skill is off only when every
	// host that reads it turns it off. See NewStateFor.
	Agent string
	// Hosts are the valid values of Agent besides all: the hosts with
	// skill switches (the engine passes all.HostNames()).
	Hosts []string
	// LenientInclude and LenientExclude make Build accept the tokens of
	// that list that name nothing in the scan (see BuildReport); the tokens
	// of a strict list must each name something. The engine makes a list
	// lenient when it comes from a config file, which a machine without
	// the skill it names shares with others, and for every rescan of a
	// long-running server after the first, since a skill may come and go
	// while it runs and a rescan that failed would freeze the served list
	// until a restart.
	LenientInclude, LenientExclude bool
}

// Build parses cfg and returns the filter stages in their order of
// application (see Stages): state, exclude, include, path dedupe. The user's choices
// (state and exclude) run before the dedupes (include's and the
// path dedupe), so that every copy a dedupe drops passed them, and
// excluding the winner of a skill promotes its next copy. records is the
// whole scan; it is read to learn the provider names, plugin names and
// record ids, so that every token means the same thing in every stage,
// whatever earlier stages removed, and to reject a token of a strict list
// that names nothing in it (an unknown provider, plugin, skill or
// command), which would otherwise silently select nothing: the error is a
// *TokenError with suggestions.
func Build(cfg Settings, records []*pipeline.Record) ([]pipeline.Stage, error) {
	stages, _, err := BuildReport(cfg, records)
	return stages, err
}

// BuildReport is Build that also returns, when it succeeds, an error for
// every token of a lenient list that names nothing in records, in the
// order the tokens are given (include first), for a warning. The scan is
// indexed and every token checked once, for both.
func BuildReport(cfg Settings, records []*pipeline.Record) (out []pipeline.Stage, unmatched []error, err error) {
	p, err := parse(cfg)
	if err != nil {
		return nil, nil, err
	}
	sc := newScope(records, cfg.Providers, cfg.Disabled)
	inc, exc := sc.unmatched(p)
	if len(inc) > 0 && !cfg.LenientInclude {
		return nil, nil, inc[0]
	}
	if len(exc) > 0 && !cfg.LenientExclude {
		return nil, nil, exc[0]
	}
	out = make([]pipeline.Stage, len(stages))
	for i, s := range stages {
		out[i] = s.build(p, sc)
	}
	return out, append(inc, exc...), nil
}

// unmatched checks the include tokens, then the exclude tokens, against
// the scan: an error for each that names nothing.
func (sc *scope) unmatched(p parsed) (inc, exc []error) {
	for _, t := range p.include {
		if err := sc.unknown(t, false); err != nil {
			inc = append(inc, fmt.Errorf("include: %w", err))
		}
	}
	for _, t := range p.exclude {
		if err := sc.unknown(t, true); err != nil {
			exc = append(exc, fmt.Errorf("exclude: %w", err))
		}
	}
	return inc, exc
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
	state, err := NewStateFor(cfg.State, cfg.Agent, cfg.Hosts)
	if err != nil {
		return parsed{}, err
	}
	kinds := make([]pipeline.Kind, len(cfg.Priority))
	for i, k := range cfg.Priority {
		kinds[i] = pipeline.Kind(k)
	}
	prio, err := NewPriority(kinds, cfg.Providers)
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
