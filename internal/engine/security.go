package engine

import (
	"context"

	"github.com/ccski/ccski/internal/scanmode"
	"github.com/ccski/ccski/internal/security"
	"github.com/ccski/ccski/pipeline"
)

// guard runs the offline security scan (package security) inside
// Snapshot, as SetScan asks.
type guard struct {
	mode    scanmode.Mode
	scanner *security.Scanner
	// cacheFile keeps the scanner's memory between runs ("": none).
	cacheFile string
}

// SetScan sets what every later Snapshot does with the offline security
// scan: scanmode.Off (the default) scans nothing; scanmode.Warn scans the
// folder of every skill discovered and records the findings in
// Snapshot.Security; scanmode.Block does that and, before the filter
// stages, drops every skill with an error-level finding (the stage
// security.StageName, whose reason names the rules), so that it is
// neither listed nor loaded and the next copy of it takes its place. The
// scanner remembers unchanged files between snapshots, unless
// DisableCache was called. A server sets it from mcp.scan; the CLI leaves
// it off except where it shows findings.
func (e *Engine) SetScan(mode scanmode.Mode) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.guard.mode = mode
}

// SetScanCache keeps what the scan read between runs in file (see
// security.Scanner.SaveFile), so that a restart reads only the files that
// changed; "" keeps nothing. It applies from the next new scanner on.
func (e *Engine) SetScanCache(file string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.guard.cacheFile = file
}

// ScanMode returns the mode SetScan set.
func (e *Engine) ScanMode() scanmode.Mode { return e.scanMode() }

// scanMode returns the mode SetScan set.
func (e *Engine) scanMode() scanmode.Mode {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.guard.mode
}

// apply scans the skill records and returns their findings and the
// stages to run: stages, after the security stage under Block. Under
// Block it also returns what the scan judged of each record, which a
// server serves and nothing else (pipeline.Judgement). With the scan off
// it returns nil and stages as they are.
func (g *guard) apply(ctx context.Context, records []*pipeline.Record, stages []pipeline.Stage, noCache bool) (
	map[*pipeline.Record][]pipeline.Diagnostic, []pipeline.Stage, *pipeline.Judgement) {
	if g.mode == "" || g.mode == scanmode.Off {
		return nil, stages, nil
	}
	if g.scanner == nil || noCache {
		g.scanner = security.NewScanner()
		g.scanner.NoCache = noCache
		// What the last run read is reused where files are unchanged:
		// under block nothing is served before every skill is scanned.
		g.scanner.LoadFile(g.cacheFile)
	}
	read := g.scanner.FilesRead()
	var found map[*pipeline.Record][]pipeline.Diagnostic
	var judged *pipeline.Judgement
	if g.mode == scanmode.Block {
		j := &pipeline.Judgement{Gate: pipeline.GateScan}
		found, j.Files = security.Judge(ctx, g.scanner, records)
		judged = j
	} else {
		found = security.Annotate(ctx, g.scanner, records)
	}
	if g.scanner.FilesRead() > read && ctx.Err() == nil {
		_ = g.scanner.SaveFile(g.cacheFile) // a cache: failing costs only reading again
	}
	if g.mode == scanmode.Block {
		stages = append([]pipeline.Stage{security.Stage(found)}, stages...)
	}
	return found, stages, judged
}
