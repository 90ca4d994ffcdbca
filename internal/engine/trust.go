package engine

import (
	"context"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/trust"
	"github.com/ccski/ccski/pipeline"
)

// TrustOptions say what every Snapshot does with the trust store (package
// trust).
type TrustOptions struct {
	// File is the trust store; "" checks nothing (and, with Require,
	// trusts no project skill).
	File string
	// Require drops, before the filter stages, every project skill whose
	// files do not match a state accepted with ccski trust (the stage
	// trust.StageName), as mcp.require_trusted asks.
	Require bool
	// ReadOnly compares without recording the skills seen for the first
	// time.
	ReadOnly bool
}

// integrity runs the trust check inside Snapshot, as SetTrust asks.
type integrity struct {
	opts    TrustOptions
	cache   *manifest.Cache
	results *trust.Results
}

// SetTrust sets what every later Snapshot does with the trust store: with
// a File, it builds the manifest of every project and plugin skill (other
// skills are the user's own), records the folders the store does not know
// (unless ReadOnly), and puts each record's state in Snapshot.Integrity;
// with Require it also keeps untrusted project skills from the view. File
// digests are kept between snapshots unless DisableCache was called. The
// CLI sets it for the commands that show the state; a server sets it only
// under mcp.require_trusted, and otherwise records in the background.
func (e *Engine) SetTrust(o TrustOptions) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.trust.opts = o
}

// trustOptions returns what SetTrust set.
func (e *Engine) trustOptions() TrustOptions {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.trust.opts
}

// TrustStoreCode is the code of the diagnostic for a trust store that
// cannot be read or written.
const TrustStoreCode = "trust-store"

// apply checks the skill records and returns their integrity, the stages
// to run (the trust stage first under Require), a diagnostic when the
// store failed, and under Require what it judged of each record it gates,
// which a server serves and nothing else (pipeline.Judgement). With no
// File it returns nil and stages as they are.
func (g *integrity) apply(ctx context.Context, records []*pipeline.Record, stages []pipeline.Stage, noCache bool) (
	map[*pipeline.Record]pipeline.Integrity, []pipeline.Stage, []pipeline.Diagnostic, *pipeline.Judgement) {
	if g.opts.File == "" {
		if g.opts.Require { // no store to trust anything in: every project skill is held back
			j := &pipeline.Judgement{Gate: pipeline.GateTrust} // no files: none is served
			return nil, append([]pipeline.Stage{trust.Stage(nil)}, stages...), nil, j
		}
		return nil, stages, nil, nil
	}
	c := trust.Checker{Path: g.opts.File, ReadOnly: g.opts.ReadOnly}
	if noCache {
		// A one-shot command: start from what the last run kept.
		c.LoadCaches(trust.DigestCachePath(), trust.ResultsCachePath())
	} else {
		if g.cache == nil {
			g.cache, g.results = manifest.NewCache(), &trust.Results{}
		}
		c.Cache, c.Results = g.cache, g.results
	}
	var found map[*pipeline.Record]pipeline.Integrity
	var judged *pipeline.Judgement
	var err error
	if g.opts.Require {
		judged = &pipeline.Judgement{Gate: pipeline.GateTrust}
		found, judged.Files, err = c.Judge(ctx, records)
	} else {
		found, err = c.Check(ctx, records)
	}
	if noCache {
		_ = c.SaveCaches(trust.DigestCachePath(), trust.ResultsCachePath())
	} else {
		g.cache.Sweep()
	}
	var diags []pipeline.Diagnostic
	if err != nil {
		sev := pipeline.SeverityWarning
		if g.opts.Require {
			sev = pipeline.SeverityError
		}
		diags = append(diags, pipeline.Diagnostic{Severity: sev, Code: TrustStoreCode, Path: g.opts.File,
			Message: err.Error()})
	}
	if g.opts.Require {
		stages = append([]pipeline.Stage{trust.Stage(found)}, stages...)
	}
	return found, stages, diags, judged
}
