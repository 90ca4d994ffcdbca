package engine

import (
	"context"
	"errors"

	"github.com/ccski/ccski/internal/policy"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/pipeline"
)

// PolicyStageName is the name of the stage that keeps the skills the
// organisation's policy refuses from the view, as pipeline.Drop.Stage
// gives it.
const PolicyStageName = "policy"

// Examine returns, for one snapshot, what gathers what the policy needs to
// decide on a skill record (package internal/policy): its names, files,
// source, and, as the policy asks, its signature and scan.
type Examine func(ctx context.Context) func(r *pipeline.Record) policy.Subject

// policyGate applies the organisation's policy inside Snapshot, as
// SetPolicy asks.
type policyGate struct {
	policy  *policy.Policy
	examine Examine
}

// SetPolicy makes every later Snapshot drop, before the filter stages,
// each skill the policy p refuses (the stage PolicyStageName, whose
// reason names the rule and its file), so that it is neither listed nor
// served and the next copy of it takes its place. examine gives the
// policy what it decides on. A nil or inactive policy drops nothing.
func (e *Engine) SetPolicy(p *policy.Policy, examine Examine) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.policy = policyGate{policy: p, examine: examine}
}

// apply returns stages with the policy stage first, or as they are when
// no policy restricts anything. found are the security scan's findings by
// record (nil: the scan did not run), which a policy requiring a scan
// verdict decides on; a skill the scan did not judge is refused then.
// signatures are what the signing stage verified (verified: it ran, see
// SetSigning): the policy decides on those, never verifying a signature
// itself, and a skill it needed a signature of is judged by the gate
// pipeline.GatePolicySigned with the files verified, so that what is
// served of it is what its signer signed. Without a signing stage a
// skill the policy needs a signature of is refused (not verified).
func (g policyGate) apply(ctx context.Context, records []*pipeline.Record, stages []pipeline.Stage,
	found map[*pipeline.Record][]pipeline.Diagnostic, signatures map[*pipeline.Record]pipeline.Signature,
	verified bool) ([]pipeline.Stage, *pipeline.Judgement) {
	if !g.policy.Active() {
		return stages, nil
	}
	refused := map[*pipeline.Record]string{}
	var examine func(r *pipeline.Record) policy.Subject
	if g.examine != nil {
		examine = g.examine(ctx)
	}
	var judged *pipeline.Judgement
	for _, r := range records {
		if r.IsCommand() {
			continue
		}
		s := policy.Subject{Name: r.Name}
		if r.Alias != "" {
			s.Aliases = []string{r.Alias}
		}
		if examine != nil {
			s = examine(r)
		}
		needs := g.policy.NeedsSignature(s.Source)
		if needs {
			s.Signature = PolicySignature(signatures, r, verified)
		}
		if g.policy.NeedsScan() && found != nil {
			s.Scan = scanReport(found[r])
		}
		d := g.policy.Decide(s)
		if !d.Allow {
			refused[r] = d.String()
			continue
		}
		if needs {
			if judged == nil {
				judged = &pipeline.Judgement{Gate: pipeline.GatePolicySigned, Files: map[*pipeline.Record]pipeline.JudgedFiles{}}
			}
			// An unsigned skill the policy allowed (a source no signer
			// rule names, under allow_unsigned) has nothing verified to
			// hold it to.
			if sig := signatures[r]; sig.Signed() {
				judged.Files[r] = sig.Files
			}
		}
	}
	if judged != nil && len(judged.Files) == 0 {
		judged = nil
	}
	return append([]pipeline.Stage{policyStage(refused)}, stages...), judged
}

// PolicySignature is the signature of r as the policy decides on it
// (policy.Subject.Signature), from what the signing stage verified
// (signatures, Snapshot.Signatures): nil when no signing stage ran
// (verified false: not verified, which the rules needing a signature
// refuse), a signer for a signature that verified, the error of one that
// did not, and neither for a skill that carries none.
func PolicySignature(signatures map[*pipeline.Record]pipeline.Signature, r *pipeline.Record, verified bool) *policy.Signature {
	if !verified {
		return nil
	}
	sig, ok := signatures[r]
	switch {
	case !ok || sig.State == pipeline.SignatureUnsigned:
		return &policy.Signature{}
	case sig.Signed():
		s := sig.Signer
		return &policy.Signature{Signer: &provenance.Signer{Identity: s.Identity, Issuer: s.Issuer, Bundle: s.Bundle,
			Format: s.Format, File: s.File}}
	}
	return &policy.Signature{Err: errors.New(sig.Error)}
}

// scanReport is the report of the scan's findings on one skill, as
// diagnostics, which the policy's scan verdict reads.
func scanReport(ds []pipeline.Diagnostic) *report.Report {
	rep := &report.Report{Skills: 1}
	for _, d := range ds {
		sev := report.SeverityInfo
		switch d.Severity {
		case pipeline.SeverityError:
			sev = report.SeverityError
		case pipeline.SeverityWarning:
			sev = report.SeverityWarning
		}
		rep.Findings = append(rep.Findings, report.Finding{Code: d.Code, Severity: sev, File: d.Path, Line: d.Line, Message: d.Message})
	}
	return rep
}

// policyStage drops the records the policy refused, each with the
// decision as its reason.
type policyStage map[*pipeline.Record]string

func (policyStage) Name() string { return PolicyStageName }

func (s policyStage) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	var out []*pipeline.Record
	var drops []pipeline.Drop
	for _, r := range in {
		if why, ok := s[r]; ok {
			drops = append(drops, pipeline.Drop{Record: r, Reason: "refused by the policy: " + why})
			continue
		}
		out = append(out, r)
	}
	return out, drops
}
