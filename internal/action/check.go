package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/security"
	"github.com/ccski/ccski/internal/validate"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
)

// This file holds the actions that check skills and report findings:
// validate and scan.

// ErrValidationFailed is what the verdict of a validation that fails
// wraps (ValidateResult.Verdict).
var ErrValidationFailed = errors.New("validation failed")

// ErrScanFailed is what the verdict of a scan that fails wraps
// (ScanResult.Verdict).
var ErrScanFailed = errors.New("security scan failed")

// ValidateRequest is ccski validate.
type ValidateRequest struct {
	// Paths are the SKILL.md files and folders to check (every skill
	// below a folder), as the user gave them: relative ones are taken
	// from the process's current folder. None: every skill discovered.
	Paths []string
	// Kind is what to check: skills, slash commands or both.
	Kind validate.Kind
	// Profile is the rule set. "" checks PATHs with the spec profile and,
	// with no PATH, each discovered skill by the profiles of the hosts
	// that read it (validate.RecordRules), a finding in a folder a host
	// manages (the Claude Code plugin cache, marketplace clones, Codex's
	// .system) being at most a warning.
	Profile validate.Profile
	// Fix applies the safe fixes before checking; DryRun, with Fix,
	// writes nothing (ValidateResult.Fixes holds what would be written).
	Fix, DryRun bool
	// MaxWarnings fails the run when there are more warnings than this
	// (report.NoLimit: no limit).
	MaxWarnings int
}

// ValidateResult is what ccski validate prints.
type ValidateResult struct {
	// Report holds the findings, their files shown relative to the
	// folder the user ran in.
	Report *report.Report
	// Fixes are what --fix did, or with DryRun would do, file by file.
	Fixes []validate.FileFix
	// Rules are the rules the report's codes come from, for SARIF.
	Rules []report.RuleDoc
	// Verdict is nil when the run passes; else why it fails (a fixed file
	// not written, an error, more warnings than MaxWarnings), wrapping
	// ErrValidationFailed.
	Verdict error
	// Dir is the folder the user ran in, which the report's files are
	// named from and the fixes' files are to be named from too.
	Dir string
}

// Validate checks the skills (and, as Kind asks, the slash commands) at
// req.Paths, or every one discovered, against the profile's rules, after
// applying the safe fixes with Fix (see ValidateRequest.Profile for the
// profile of each skill). --fix never writes in a folder an
// agent manages (ManagedTrees below the Claude and Codex homes). The
// configuration is read only when needed: to discover, or to find those
// homes for Fix.
func Validate(ctx context.Context, c *Config, req ValidateRequest) (*ValidateResult, error) {
	var targets []validate.Target
	var pre []report.Finding
	var managed []validate.ManagedTree
	byHost := false
	if len(req.Paths) > 0 {
		var err error
		if targets, pre, err = collect(ctx, req.Paths, req.Kind); err != nil {
			return nil, err
		}
		if req.Fix {
			// The managed folders lie in the Claude and Codex homes the
			// configuration resolves; nothing is discovered.
			e, err := c.Engine()
			if err != nil {
				return nil, err
			}
			managed = managedTrees(e.Env())
		}
	} else {
		d, err := c.Discover(ctx, Checks{})
		if err != nil {
			return nil, err
		}
		targets = validate.DiscoveredTargets(d.Snapshot, req.Kind)
		managed = managedTrees(d.Engine.Env())
		byHost = req.Profile == ""
	}
	profile := cmp.Or(req.Profile, validate.ProfileSpec)
	rep, fixes := validate.Run(ctx, targets, pre, validate.Options{Profile: profile, Fix: req.Fix,
		DryRun: req.DryRun, Managed: managed, ByHost: byHost})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep.RelativeTo(c.Cwd)
	res := &ValidateResult{Report: rep, Fixes: fixes, Rules: validate.RuleDocs(profile), Dir: c.Cwd}
	if n := notWritten(fixes); n > 0 {
		res.Verdict = fmt.Errorf("%w: %s could not be written", ErrValidationFailed,
			report.Plural(n, "fixed file", "fixed files"))
	} else {
		res.Verdict = rep.Verdict(req.MaxWarnings, ErrValidationFailed)
	}
	return res, nil
}

// collect finds what to check at paths (validate.Collect): a path that
// cannot be read is a usage error.
func collect(ctx context.Context, paths []string, kind validate.Kind) ([]validate.Target, []report.Finding, error) {
	targets, pre, err := validate.Collect(ctx, paths, kind)
	var pe *validate.PathError
	if errors.As(err, &pe) {
		return nil, nil, usage(err)
	}
	return targets, pre, err
}

// managedTrees returns the folders --fix must not write in, below the
// Claude and Codex homes of env.
func managedTrees(env providers.Env) []validate.ManagedTree {
	return validate.ManagedTrees(claude.Dir(env), codex.Dir(env))
}

// notWritten counts the fixes that could not be written.
func notWritten(fixes []validate.FileFix) int {
	n := 0
	for _, f := range fixes {
		if f.Refused == nil && f.Err != nil {
			n++
		}
	}
	return n
}

// ScanRequest is ccski scan.
type ScanRequest struct {
	// Paths are the SKILL.md files and folders to scan (every skill below
	// a folder), as ValidateRequest.Paths. None: every skill discovered
	// that an agent can be served.
	Paths []string
	// MaxWarnings fails the run when there are more warnings than this
	// (report.NoLimit: no limit).
	MaxWarnings int
	// Progress, when not nil, receives the progress line of the skills
	// scanned (a terminal's; report.Progress).
	Progress io.Writer
}

// ScanResult is what ccski scan prints.
type ScanResult struct {
	// Report holds the findings, their files shown relative to the
	// folder the user ran in.
	Report *report.Report
	// Rules are the rules the report's codes come from, for SARIF.
	Rules []report.RuleDoc
	// Verdict is nil when the scan passes; else why it fails (an error,
	// more warnings than MaxWarnings), wrapping ErrScanFailed.
	Verdict error
}

// scanWording rewords the findings validate.Collect makes about the
// paths (a walk that stopped, folders too deep) for a scan.
var scanWording = strings.NewReplacer("not validated", "not scanned", "been validated", "been scanned",
	"validate it directly", "scan it directly", "validate smaller folders", "scan smaller folders",
	"validate this folder directly", "scan this folder directly")

// Scan runs the security scan on the skills at req.Paths, or on every
// skill discovered that an agent can be served, each skill folder once.
// Nothing is cached: a scan of PATHs reads no configuration at all.
func Scan(ctx context.Context, c *Config, req ScanRequest) (*ScanResult, error) {
	var files []string
	var pre []report.Finding
	if len(req.Paths) > 0 {
		targets, found, err := collect(ctx, req.Paths, validate.KindSkill)
		if err != nil {
			return nil, err
		}
		for _, t := range targets {
			files = append(files, t.File)
		}
		for _, f := range found {
			if f.Code == validate.CodeNoSkillFound {
				f.Message = "no skill was found in this folder (a skill is a folder holding SKILL.md; .git, " +
					"node_modules and tool folders such as .venv are not searched): check the path"
			}
			f.Message = scanWording.Replace(f.Message)
			rule, _ := validate.Lookup(f.Code)
			f.Severity = rule.Severity(validate.ProfileSpec)
			pre = append(pre, f)
		}
	} else {
		d, err := c.Discover(ctx, Checks{})
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, r := range d.Snapshot.Servable() {
			if !seen[r.File] {
				seen[r.File] = true
				files = append(files, r.File)
			}
		}
	}
	s := security.NewScanner()
	s.NoCache = true // one scan: nothing to remember
	p := report.NewProgress(req.Progress, "scanning", len(files))
	s.Done = func(file string) { p.Step(filepath.Base(filepath.Dir(file))) }
	rep := security.Run(ctx, s, files, pre)
	p.Done()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep.RelativeTo(c.Cwd)
	return &ScanResult{Report: rep, Rules: scanRules(), Verdict: rep.Verdict(req.MaxWarnings, ErrScanFailed)}, nil
}

// scanRules is the rule table of a scan's SARIF log: the scan's rules,
// then those of the findings validate.Collect makes about the PATHs
// (validate.PathCodes), under the spec profile, as they are reported.
func scanRules() []report.RuleDoc {
	return append(security.RuleDocs(), validate.RuleDocs(validate.ProfileSpec, validate.PathCodes...)...)
}
