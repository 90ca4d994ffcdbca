package action

import (
	"context"
	"io"
	"slices"

	"github.com/ccski/ccski/internal/toggle"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/all"
)

// This file holds enable, disable and the profiles.

// ToggleRequest is ccski enable and disable.
type ToggleRequest struct {
	// Request says how to switch: on or off, for which agents, in which
	// scope, in which mode.
	toggle.Request
	// Skills are the skills to switch, each a name or id as info takes
	// it.
	Skills []string
	// DryRun writes nothing; the report holds the diff of each file.
	DryRun bool
	// Notices, when not nil, receives what the run says while it waits
	// for another ccski run editing the same files.
	Notices io.Writer
}

// ToggleReport is the result of enable, disable and profile use, and
// their --json output.
type ToggleReport struct {
	DryRun    bool              `json:"dryRun"`
	Results   []toggle.Result   `json:"results"`
	Files     []toggle.FileDiff `json:"files"`
	Renames   []toggle.Rename   `json:"renames"`
	Changed   int               `json:"changed"`
	Unchanged int               `json:"unchanged"`
	Skipped   int               `json:"skipped"`
	Failed    int               `json:"failed"`
	// Left counts, for profile use, the skills the profile does not name,
	// which were left as they are.
	Left int `json:"left,omitempty"`
	// Error says why the changed files could not all be written; each
	// result that needed one of them is a failure saying why.
	Error string `json:"error,omitempty"`
	// ApplyErr is that error.
	ApplyErr error `json:"-"`
}

// Toggle switches each skill of req for the agents that read it, and
// writes every changed file (unless DryRun). A switch that fails is a
// result, not an error: see ToggleReport.Failed.
func Toggle(ctx context.Context, c *Config, req ToggleRequest) (*ToggleReport, error) {
	t, err := c.toggler(ctx, req.Agents)
	if err != nil {
		return nil, err
	}
	t.Notices = req.Notices
	p := t.Commit(func() {
		for _, name := range req.Skills {
			t.Skill(name, req.Request)
		}
	}, req.DryRun)
	return toggleReport(p, req.DryRun, 0, c.Cwd), nil
}

// toggler discovers and returns a Toggler over every host's switches;
// an agent of agents that has none is a usage error.
func (c *Config) toggler(ctx context.Context, agents []string) (*toggle.Toggler, error) {
	pol, err := c.Policy()
	if err != nil {
		return nil, err
	}
	// The policy decides on the signatures discovery verifies.
	d, err := c.Discover(ctx, Checks{Signatures: needsSignatures(pol)})
	if err != nil {
		return nil, err
	}
	t := toggle.New(d.Engine.Env(), d.Snapshot, all.Hosts())
	if pol.Active() {
		// A skill the policy refuses is not turned on (enable, profile
		// use); each is examined once, though Commit plans twice.
		examine := c.examiner(pol, d.Engine.Env(), true)(ctx)
		seen := map[*pipeline.Record]error{}
		t.Admit = func(r *pipeline.Record) error {
			if err, ok := seen[r]; ok {
				return err
			}
			err := decideRecord(pol, d.Snapshot, examine, r).Err()
			seen[r] = err
			return err
		}
	}
	if err := t.CheckAgents(agents); err != nil {
		return nil, usage(err)
	}
	return t, nil
}

// toggleReport reports the plan p, written unless dry (toggle.Toggler.Commit).
// left is, for profile use, the number of skills left as they are; the
// diffs name the files for a person working in cwd.
func toggleReport(p *toggle.Plan, dry bool, left int, cwd string) *ToggleReport {
	rep := &ToggleReport{DryRun: dry, Results: p.Results, Files: p.Diffs(cwd), Renames: p.Renames,
		Changed: p.Count(toggle.Changed), Unchanged: p.Count(toggle.Unchanged),
		Skipped: p.Count(toggle.Skipped), Failed: p.Count(toggle.Failed), Left: left, ApplyErr: p.Err}
	if p.Err != nil {
		rep.Error = rep.ApplyErr.Error()
	}
	if rep.Results == nil {
		rep.Results = []toggle.Result{}
	}
	if rep.Files == nil {
		rep.Files = []toggle.FileDiff{}
	}
	if rep.Renames == nil {
		rep.Renames = []toggle.Rename{}
	}
	return rep
}

// SaveProfileRequest is ccski profile save.
type SaveProfileRequest struct {
	// Name names the profile.
	Name string
	// Agents are the agents to record, or "all"; none: every agent.
	Agents []string
}

// SavedProfile is the profile saved and its file, and the --json output
// of profile save.
type SavedProfile struct {
	File string `json:"file"`
	*toggle.Profile
}

// SaveProfile records which skills are on for each agent as the profile
// req names, replacing one of that name.
func SaveProfile(ctx context.Context, c *Config, req SaveProfileRequest) (*SavedProfile, error) {
	if err := toggle.CheckProfileName(req.Name); err != nil {
		return nil, usage(err)
	}
	t, err := c.toggler(ctx, req.Agents)
	if err != nil {
		return nil, err
	}
	hosts := t.HostNames()
	if len(req.Agents) > 0 && !slices.Contains(req.Agents, "all") {
		hosts = req.Agents
	}
	p := t.Capture(req.Name, hosts)
	file, err := toggle.SaveProfile(c.ProfileDir(), p)
	if err != nil {
		return nil, err // no config folder, or the write failed: not a usage error
	}
	return &SavedProfile{File: file, Profile: p}, nil
}

// UseProfileRequest is ccski profile use.
type UseProfileRequest struct {
	// Name names the profile.
	Name string
	// Scope is where to write: user, project or local; "": as enable and
	// disable choose.
	Scope string
	// DryRun writes nothing; the report holds the diff of each file.
	DryRun bool
	// Notices, when not nil, receives what the run says while it waits
	// for another ccski run editing the same files.
	Notices io.Writer
}

// UseProfile switches every skill and plugin whose state differs from
// what the profile records; skills it does not name are left as they are.
func UseProfile(ctx context.Context, c *Config, req UseProfileRequest) (*ToggleReport, error) {
	t, err := c.toggler(ctx, nil)
	if err != nil {
		return nil, err
	}
	p, err := toggle.LoadProfile(c.ProfileDir(), req.Name)
	if err != nil {
		return nil, err
	}
	left := 0
	t.Notices = req.Notices
	plan := t.Commit(func() { left = t.Use(p, req.Scope) }, req.DryRun)
	return toggleReport(plan, req.DryRun, left, c.Cwd), nil
}

// ListProfiles returns the saved profiles; none is an empty list.
func ListProfiles(p Process) ([]*toggle.Profile, error) {
	profiles, err := toggle.ListProfiles(p.ProfileDir())
	if profiles == nil && err == nil {
		profiles = []*toggle.Profile{}
	}
	return profiles, err
}
