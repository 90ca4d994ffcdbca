package action

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/workflow"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// WorkflowRequest is ccski install-workflow.
type WorkflowRequest struct {
	// Scope is user (each agent's own folder) or project (the
	// workspace).
	Scope string
	// Agents are the agents whose instructions file gets the block, by
	// name, or "all"; none: every agent that has one.
	Agents []string
	// DryRun writes nothing; each result holds the diff instead.
	DryRun bool
	// Notices, when not nil, receives what the run says while it waits
	// for another ccski run editing the same files.
	Notices io.Writer
}

// WorkflowReport is the result of install-workflow, and its --json
// output.
type WorkflowReport struct {
	Scope   string           `json:"scope"`
	DryRun  bool             `json:"dryRun"`
	Results []WorkflowResult `json:"results"`
	// Failed is set when some file could not be written.
	Failed bool `json:"-"`
}

// WorkflowResult is one agent's instructions file.
type WorkflowResult struct {
	Agent  string `json:"agent"`
	Path   string `json:"path"`
	Status string `json:"status"` // installed, updated, unchanged, failed
	Error  string `json:"error,omitempty"`
	Diff   string `json:"diff,omitempty"`
}

// InstallWorkflow puts the ccski workflow block (package workflow) into
// the instructions file of each agent req names, in req's scope: every
// changed file is written together, atomically, unless DryRun. A file
// that cannot be read or edited is a failed result, not an error.
func InstallWorkflow(_ context.Context, c *Config, req WorkflowRequest) (*WorkflowReport, error) {
	e, err := c.Engine()
	if err != nil {
		return nil, err
	}
	if req.Scope != "user" && req.Scope != "project" {
		return nil, usage(fmt.Errorf("invalid --scope %q: use user or project", req.Scope))
	}
	var hosts []providers.Host
	for _, h := range all.Hosts() {
		if h.Instructions != nil && (len(req.Agents) == 0 || slices.Contains(req.Agents, "all") || slices.Contains(req.Agents, h.Name)) {
			hosts = append(hosts, h)
		}
	}
	for _, ag := range req.Agents {
		if ag != "all" && !slices.Contains(all.HostNames(), ag) {
			return nil, usage(fmt.Errorf("unknown agent %q: use %s or all", ag, strings.Join(all.HostNames(), ", ")))
		}
		if ag != "all" && !slices.ContainsFunc(hosts, func(h providers.Host) bool { return h.Name == ag }) {
			return nil, usage(fmt.Errorf("%s has no instructions file ccski writes (ccski only switches its plugins): "+
				"leave --agent %s out", providers.HostTitle(all.Hosts(), ag), ag))
		}
	}
	rep := &WorkflowReport{Scope: req.Scope, DryRun: req.DryRun}
	rep.Results, rep.Failed = upsertWorkflows(e.Env(), hosts, req, c.Cwd)
	return rep, nil
}

// upsertWorkflows upserts the block into each host's instructions file
// of req.Scope and, unless req.DryRun, writes the changed files under a
// lock (providers.Files.Commit), each kept to the folder it belongs to;
// the diffs name the files for a person working in cwd. failed is true
// when some file could not be read, edited or written.
func upsertWorkflows(env providers.Env, hosts []providers.Host, req WorkflowRequest, cwd string) (results []WorkflowResult, failed bool) {
	files := providers.NewFilesIn(env)
	files.Notices = req.Notices
	plan := func() {
		results = nil
		for _, h := range hosts {
			results = append(results, upsertWorkflow(files, h, env, req.Scope, cwd))
		}
	}
	if req.DryRun {
		plan()
	} else {
		_ = files.Commit(plan, nil) // each file not written says why
		for _, f := range files.Changed() {
			for i := range results {
				if results[i].Path == f.Path && f.Err != nil {
					results[i].Status, results[i].Error = "failed", f.Err.Error()
				}
			}
		}
	}
	for _, r := range results {
		failed = failed || r.Status == "failed"
	}
	return results, failed
}

// upsertWorkflow upserts host h's block into its instructions file of
// scope, in files.
func upsertWorkflow(files *providers.Files, h providers.Host, env providers.Env, scope, cwd string) WorkflowResult {
	path := h.Instructions(env, scope)
	res := WorkflowResult{Agent: h.Name, Path: path}
	old, existed, err := files.Read(path)
	if err != nil {
		res.Status, res.Error = "failed", err.Error()
		return res
	}
	changed, err := providers.EditFile(files, path, func(data []byte) ([]byte, error) {
		return workflow.Upsert(data, workflow.Block(h.Name, h.Title))
	})
	if err != nil {
		res.Status, res.Error = "failed", err.Error()
		return res
	}
	_, _, had, _ := workflow.Find(old)
	switch {
	case !changed:
		res.Status = "unchanged"
	case had:
		res.Status = "updated"
	default:
		res.Status = "installed"
	}
	if changed {
		updated, _, _ := files.Read(path)
		res.Diff = report.Diff(cwd, path, old, updated, existed)
	}
	return res
}
