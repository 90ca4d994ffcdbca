// Package engine runs discovery: it builds the enabled providers from the
// configuration, asks each for its roots, scans them, assigns ids, runs the
// filter stages and returns an immutable pipeline.Snapshot. The CLI and
// the MCP server both read skills only through an Engine.
package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/httpfetch"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Engine discovers skills. It is safe for concurrent use; scans are
// serialised.
type Engine struct {
	cfg       configs.Config
	env       providers.Env
	providers []providers.Provider
	scanOpts  scan.Options

	// filters are the filter settings of cfg; Snapshot adds what each
	// scan knows (the disabled plugins, which lists are lenient). prio is
	// the ranking of copies they set, nil when the priority setting is
	// invalid (CheckFilters and Snapshot report that).
	filters filters.Settings
	prio    *filters.Priority
	// hosts are the hosts with skill switches of the registry.
	hosts []providers.Host

	mu    sync.Mutex
	plans map[string]providers.Plan // last good plan per provider
	cache *scan.Cache
	// built is true once a Snapshot succeeded: later ones accept every
	// filter token that names nothing, as a warning (see
	// filters.Settings).
	built bool
	// guard is the offline security scan each Snapshot runs (SetScan).
	guard guard
	// trust is the check of project and plugin skills against the trust
	// store each Snapshot runs (SetTrust).
	trust integrity
	// policy is the organisation's policy each Snapshot applies
	// (SetPolicy).
	policy policyGate
	// signing is the verification of the signatures skills carry each
	// Snapshot runs (SetSigning).
	signing signing
	// records and last are what the previous Snapshot derived from its
	// scan, for a rescan that finds nothing changed (see reuse.go).
	records recordState
	last    *stageState
	// parsed remembers the records whose own file was shown to be, as
	// parsed, the bytes a gate judged (see parsed.go).
	parsed parsedMemo
	// afterDiscovery, when set, runs between discovery and the gates:
	// tests change files there.
	afterDiscovery func()
}

// Stats describe one discovery run.
type Stats struct {
	Roots     int
	Records   int
	Visible   int
	FilesRead int
	Duration  time.Duration
}

// ConfigError is a problem with the configuration that discovery cannot
// work around, such as an unknown provider option or a bad filter token.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// New builds the providers of cfg's registry (configs.Config.Registry)
// from their decoded options (configs.Config.ProviderOptions), and keeps
// the enabled ones. env says where the user and workspace folders are.
// What a provider gives the others (the folder it owns, its precedence
// rule) it gives through the optional interfaces of package providers;
// New collects them from every registered provider, enabled or not
// (providers.Prepare), since others read them: the commands provider reads
// Claude's folder and rule whether or not the claude provider runs. The
// engine names no provider.
func New(cfg configs.Config, env providers.Env) (*Engine, error) {
	var err error
	reg := cfg.Registry
	built := make([]providers.Provider, 0, len(reg))
	known := map[string]bool{}
	for _, entry := range reg {
		known[entry.Name] = true
		opts, err := cfg.ProviderOptions(entry)
		if err != nil {
			return nil, &ConfigError{err}
		}
		p, err := entry.New(opts)
		if err != nil {
			return nil, &ConfigError{err}
		}
		built = append(built, p)
	}
	for name := range cfg.Providers {
		if !known[name] {
			return nil, &ConfigError{fmt.Errorf("providers.%s: unknown provider", name)}
		}
	}
	if env.Tokens, err = httpfetch.ParseTokens(cfg.HTTP.Tokens); err != nil {
		return nil, &ConfigError{err}
	}
	env = providers.Prepare(env, reg, built)
	e := &Engine{cfg: cfg, env: env, plans: map[string]providers.Plan{},
		scanOpts: scan.Options{MaxDepth: cfg.Limits.MaxDepth, MaxDirs: cfg.Limits.MaxDirs},
		filters: filters.Settings{State: cfg.State, Include: cfg.Include, Exclude: cfg.Exclude,
			Priority: cfg.Priority, Providers: providers.LabelOrder(reg), Agent: cfg.Agent,
			Hosts: providers.HostNames(providers.Hosts(built))},
		hosts: providers.Hosts(built)}
	kinds := make([]pipeline.Kind, len(cfg.Priority))
	for i, k := range cfg.Priority {
		kinds[i] = pipeline.Kind(k)
	}
	e.prio, _ = filters.NewPriority(kinds, e.filters.Providers) // nil when invalid: see the field
	for i, entry := range reg {
		if cfg.Providers[entry.Name].Enabled {
			e.providers = append(e.providers, built[i])
		}
	}
	return e, nil
}

// CheckFilters reports a *ConfigError when the include, exclude, state or
// priority settings cannot work, without discovering anything: a server
// checks them before it starts, then discovers in the background.
func (e *Engine) CheckFilters() error {
	if err := filters.Check(e.filters); err != nil {
		return &ConfigError{err}
	}
	return nil
}

// DisableCache makes every Snapshot read every file and keep nothing for
// the next one: for one-shot commands, where the cache would only add to
// peak memory.
func (e *Engine) DisableCache() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.scanOpts.NoCache, e.cache = true, nil
	e.records, e.last = recordState{}, nil
}

// Env returns the environment the engine discovers in.
func (e *Engine) Env() providers.Env { return e.env }

// SetBackground tells the providers that the engine serves a long-lived
// process (providers.Env.Background): a server calls it before its first
// snapshot.
func (e *Engine) SetBackground(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.env.Background = on
}

// Config returns the configuration the engine was built from.
func (e *Engine) Config() configs.Config { return e.cfg }

// Priority returns the ranking the filter stages use to pick one copy of a
// skill among several: the one to badge "preferred" in a listing. It is nil
// when the priority setting is invalid, which CheckFilters and Snapshot
// report.
func (e *Engine) Priority() *filters.Priority { return e.prio }

// ForWorkspace returns a new engine with the same configuration, user
// folder and variables, discovering for the workspace folder ws instead:
// a server uses it when its client names another project folder. Relative
// paths of the configuration are taken from ws, as New takes them from
// the workspace it is given.
func (e *Engine) ForWorkspace(ws string) (*Engine, error) {
	ne, err := New(e.cfg, providers.NewEnv(e.env.UserDir, ws, e.env.Getenv))
	if err == nil {
		ne.SetScan(e.scanMode()) // a setting of the server, not of the configuration
		ne.SetTrust(e.trustOptions())
		ne.SetSigning(e.signingOptions())
		ne.SetAgent(e.agent())
		ne.SetBackground(e.env.Background)
	}
	return ne, err
}

// presentHosts lists the hosts with skill switches that are set up on
// this machine: whose own folder (providers.Host.Home) exists, or that
// name none. A host that is not set up loads no skill, so it keeps none
// on (pipeline.ApplySwitchesOn).
func (e *Engine) presentHosts() []string {
	out := []string{}
	for _, h := range e.hosts {
		if h.Home != nil {
			if _, err := os.Stat(h.Home(e.env)); err != nil {
				continue
			}
		}
		out = append(out, h.Name)
	}
	return out
}

// SetAgent takes the view of the host agent (one of the hosts with skill
// switches, or filters.AgentAll): its switches alone decide which skills
// are off, as the agent key does. A server sets it for the client it
// recognises; the next Snapshot uses it.
func (e *Engine) SetAgent(agent string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.filters.Agent != agent {
		e.filters.Agent, e.last = agent, nil
	}
}

// agent returns the host agent whose view the engine takes.
func (e *Engine) agent() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.filters.Agent
}

// Snapshot runs a full discovery. Unchanged SKILL.md files (same size and
// modification time as in the previous run) are not read again. A provider
// that fails keeps its previous plan. The error is a *ConfigError when the
// filter settings are invalid.
func (e *Engine) Snapshot(ctx context.Context) (*pipeline.Snapshot, Stats, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	start := time.Now()

	var roots []pipeline.Root
	var diags []pipeline.Diagnostic
	var disabled []pipeline.DisabledPlugin
	var switches []pipeline.SkillSwitch
	var manifests, listings []string
	for _, p := range e.providers {
		plan, err := p.Plan(ctx, e.env)
		if err != nil {
			if ctx.Err() != nil {
				return nil, Stats{}, ctx.Err()
			}
			prev, ok := e.plans[p.Name()]
			msg := "no previous result to serve"
			if ok {
				msg = "serving its previous result"
			}
			diags = append(diags, pipeline.Diagnostic{Severity: pipeline.SeverityError, Code: "provider-failed",
				Provider: p.Name(), Message: fmt.Sprintf("provider %s failed: %v; %s", p.Name(), err, msg)})
			plan = prev
		} else {
			e.plans[p.Name()] = plan
		}
		roots = append(roots, plan.Roots...)
		diags = append(diags, plan.Diagnostics...)
		disabled = append(disabled, plan.Disabled...)
		switches = append(switches, plan.Switches...)
		manifests = append(manifests, plan.Manifests...)
		listings = append(listings, plan.Listings...)
	}
	roots, dd := uniqueRoots(roots)
	diags = append(diags, dd...)

	opts := e.scanOpts
	opts.Cache = e.cache
	// The scan may hand back the previous records only when what this
	// function does to them below is what it did to them then.
	present := e.presentHosts()
	opts.Reuse = e.records.valid && slices.Equal(switches, e.records.switches) && slices.Equal(present, e.records.present)
	res := scan.Scan(ctx, roots, opts)
	if ctx.Err() != nil {
		return nil, Stats{}, ctx.Err()
	}
	if e.afterDiscovery != nil {
		e.afterDiscovery()
	}
	e.cache = res.Cache
	diags = append(diags, res.Diagnostics...)
	if !res.Reused {
		pipeline.ApplySwitchesOn(res.Records, switches, present)
		pipeline.AssignIDsFrom(res.Records, e.records.ided)
		e.records = recordState{valid: true, switches: switches, present: present}
		if !e.scanOpts.NoCache {
			e.records.ided = res.Records
		}
		e.last = nil
	}

	// A filter token that names nothing fails the first discovery when
	// the user typed it (a flag or a CCSKI_ variable): a typo is caught
	// at once. One from a config file is a warning from the start, since
	// a shared ccski.yaml may name a skill this machine lacks, and so is
	// every token on later rescans, since skills come and go while a
	// server runs.
	fs := e.filters
	fs.Disabled = disabled
	fs.LenientInclude = e.built || e.cfg.IncludeFromFile
	fs.LenientExclude = e.built || e.cfg.ExcludeFromFile
	st := e.last
	if !res.Reused || !st.matches(fs) {
		filterStages, unmatched, err := filters.BuildReport(fs, res.Records)
		if err != nil {
			return nil, Stats{}, &ConfigError{err}
		}
		st = &stageState{settings: fs, stages: slices.Clip(filterStages)}
		for _, err := range unmatched {
			st.warnings = append(st.warnings, pipeline.Diagnostic{Severity: pipeline.SeverityWarning,
				Code: FilterNamesNothing, Message: err.Error() + "; it selects nothing for now"})
		}
	}
	diags = append(diags, st.warnings...)
	e.built = true
	found, stages, scanned := e.guard.apply(ctx, res.Records, slices.Clip(st.stages), e.scanOpts.NoCache)
	checked, stages, td, trusted := e.trust.apply(ctx, res.Records, stages, e.scanOpts.NoCache)
	diags = append(diags, td...)
	signatures, stages, signed := e.signing.apply(ctx, res.Records, stages, e.scanOpts.NoCache)
	stages, polSigned := e.policy.apply(ctx, res.Records, stages, found, signatures, e.signing.opts.Verifier != nil)
	gates := []*pipeline.Judgement{scanned, trusted, signed, polSigned}
	// After the gates' own stages, before the filters: a record parsed
	// from other bytes than a gate judged is not served.
	if ps := parsedStage(res.Records, gates, &e.parsed); ps != nil {
		stages = slices.Insert(stages, len(stages)-len(st.stages), ps)
	}
	visible, drops := st.run(stages, res.Records)
	e.last = st
	snap := pipeline.NewSnapshot(res.Records, visible, drops, res.Reports, diags)
	snap.Security = found
	snap.Integrity = checked
	snap.Signatures = signatures
	for _, j := range gates {
		if j != nil {
			snap.Judged = append(snap.Judged, *j)
		}
	}
	snap.Folders = res.Dirs
	slices.Sort(manifests)
	snap.Manifests = slices.Compact(manifests)
	slices.Sort(listings)
	snap.Listings = slices.Compact(listings)
	if e.prio != nil {
		snap.Priority = e.prio.Kinds()
	}
	snap.Disabled = disabled
	return snap, Stats{Roots: len(roots), Records: len(res.Records), Visible: len(visible),
		FilesRead: res.FilesRead, Duration: time.Since(start)}, nil
}

// uniqueRoots drops a walked root whose folder was already planned,
// keeping the first, and says so. Roots with a declared skill list (Claude
// plugins) are never merged: several plugins may share one marketplace
// folder, each credited only with the skills it declares; same-folder
// copies are still removed later by the path-dedupe stage. Plugin command
// roots are never merged either, for the same reason, and a command root
// never merges with a skill root of the same folder.
func uniqueRoots(roots []pipeline.Root) ([]pipeline.Root, []pipeline.Diagnostic) {
	seen := map[string]pipeline.Root{}
	out := roots[:0:0]
	var diags []pipeline.Diagnostic
	for _, r := range roots {
		if r.Skills != nil || r.Plugin != nil {
			out = append(out, r)
			continue
		}
		key := filepath.Clean(r.Path)
		if real, err := filepath.EvalSymlinks(key); err == nil {
			key = real
		}
		if r.Type == pipeline.TypeCommand {
			key = "command:" + key
		}
		if first, ok := seen[key]; ok {
			diags = append(diags, pipeline.Diagnostic{Severity: pipeline.SeverityInfo, Code: "root-planned-twice",
				Provider: r.Agent, Path: r.Path,
				Message: fmt.Sprintf("folder is also a %s %s root; scanned once as that", first.Agent, first.Location)})
			continue
		}
		seen[key] = r
		out = append(out, r)
	}
	return out, diags
}

// FilterNamesNothing is the code of the warning diagnostic for a filter
// token that names nothing in a scan that went on without it.
const FilterNamesNothing = "filter-names-nothing"

// IsConfigError reports whether err is a configuration problem.
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}
