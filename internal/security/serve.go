package security

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/scanmode"
	"github.com/ccski/ccski/pipeline"
)

// What the scan means for the skills ccski serves: the findings of
// discovered skills as diagnostics (Annotate), the pipeline stage that
// keeps skills with an error from agents under mcp.scan: block (Stage),
// and the log of what was found (Monitor).

// Annotate scans the folder of every skill record, each folder once, and
// the file of every command record (see Scanner.Command), compares the
// names of all the records (CheckNames), and returns the findings by
// record, as diagnostics; records without a finding have no entry. It
// returns what it has when ctx ends.
func Annotate(ctx context.Context, s *Scanner, records []*pipeline.Record) map[*pipeline.Record][]pipeline.Diagnostic {
	found, _ := annotate(ctx, s, records)
	return found
}

// Judge is Annotate, and under Scanner.Digests (which it sets) also what
// the scan judged of each record (pipeline.Judgement.Files): the files
// whose findings it used, each with the digest of the bytes the rules
// read, so that a server under mcp.scan: block serves those bytes and no
// others. Every record has an entry; the records of one folder share it,
// and a record whose folder could not be read has no files. Files the scan
// could not read, or read in part (a text file cut at a read limit), are
// left out, and so are never served.
func Judge(ctx context.Context, s *Scanner, records []*pipeline.Record) (map[*pipeline.Record][]pipeline.Diagnostic, map[*pipeline.Record]pipeline.JudgedFiles) {
	if !s.Digests {
		s.Digests = true
	}
	return annotate(ctx, s, records)
}

// MaxJudgedFile is the largest file Judge judges: the scan hashes no more
// of a file, so a larger one is left out of what it judged at every scan,
// and a server under mcp.scan: block never serves it. (A text file over
// the scan's read limit of one file, or a skill over its read limit of a
// skill, is not left out quietly: incomplete-scan withholds the skill.)
const MaxJudgedFile = maxDigest

// annotate is Annotate and, under Digests, Judge.
func annotate(ctx context.Context, s *Scanner, records []*pipeline.Record) (map[*pipeline.Record][]pipeline.Diagnostic, map[*pipeline.Record]pipeline.JudgedFiles) {
	byDir := map[string][]*pipeline.Record{}
	var files, keys []string
	var commands []bool
	for _, r := range records {
		key := r.RealDir
		if key == "" {
			key = r.Dir
		}
		key += "\x00" + filepath.Base(r.File)
		if r.IsCommand() {
			key = "command\x00" + r.File
		}
		if _, ok := byDir[key]; !ok {
			files, keys, commands = append(files, r.File), append(keys, key), append(commands, r.IsCommand())
		}
		byDir[key] = append(byDir[key], r)
	}
	found, each := s.scanAll(ctx, files, commands)
	out := map[*pipeline.Record][]pipeline.Diagnostic{}
	var judged map[*pipeline.Record]pipeline.JudgedFiles
	if each != nil {
		judged = make(map[*pipeline.Record]pipeline.JudgedFiles, len(records))
		for i, m := range each {
			if ctx.Err() != nil {
				m = nil // perhaps not scanned: nothing of it was judged
			}
			for _, r := range byDir[keys[i]] {
				judged[r] = m
			}
		}
	}
	for i := range files {
		if len(found[i]) == 0 {
			continue
		}
		// The records of one folder share its findings; the paths are the
		// first record's.
		for _, r := range byDir[keys[i]] {
			ds := make([]pipeline.Diagnostic, len(found[i]))
			for j, f := range found[i] {
				ds[j] = Diagnostic(f, r.Agent)
			}
			out[r] = ds
		}
	}
	for i, fs := range CheckNames(RecordNames(records)) {
		for _, f := range fs {
			out[records[i]] = append(out[records[i]], Diagnostic(f, records[i].Agent))
		}
	}
	return out, judged
}

// Diagnostic turns a finding into a discovery diagnostic of provider.
func Diagnostic(f report.Finding, provider string) pipeline.Diagnostic {
	sev := pipeline.SeverityInfo
	switch f.Severity {
	case report.SeverityError:
		sev = pipeline.SeverityError
	case report.SeverityWarning:
		sev = pipeline.SeverityWarning
	}
	return pipeline.Diagnostic{Severity: sev, Code: f.Code, Provider: provider, Path: f.File, Line: f.Line,
		Message: f.Message}
}

// StageName is the name of the stage Stage returns, as pipeline.Drop.Stage
// gives it.
const StageName = "security"

// Stage returns the stage of mcp.scan: block. It drops every skill record
// with an error-level finding in found (see Annotate), with a reason that
// names the rules, so that the skill is neither listed nor loaded. It
// runs before the filter stages, so that the next copy of a dropped skill
// takes its place, as with exclude.
func Stage(found map[*pipeline.Record][]pipeline.Diagnostic) pipeline.Stage {
	return &stage{found: found}
}

type stage struct {
	found map[*pipeline.Record][]pipeline.Diagnostic
}

func (s *stage) Name() string { return StageName }

func (s *stage) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	var out []*pipeline.Record
	var drops []pipeline.Drop
	for _, r := range in {
		if why := blocked(s.found[r]); why != "" {
			drops = append(drops, pipeline.Drop{Record: r, Reason: why})
			continue
		}
		out = append(out, r)
	}
	return out, drops
}

// blocked says why a skill with these findings is not served, or "" when
// none is an error.
func blocked(ds []pipeline.Diagnostic) string {
	var codes []string
	first := -1
	for i, d := range ds {
		if d.Severity != pipeline.SeverityError {
			continue
		}
		if first < 0 {
			first = i
		}
		if !slices.Contains(codes, d.Code) {
			codes = append(codes, d.Code)
		}
	}
	if first < 0 {
		return ""
	}
	d := ds[first]
	where := d.Path
	if d.Line > 0 {
		where = fmt.Sprintf("%s:%d", d.Path, d.Line)
	}
	return fmt.Sprintf("the security scan found %s (first at %s) and mcp.scan is block, so it is not served to "+
		"agents: run ccski scan on it, then fix or remove the skill, or set mcp.scan to warn",
		strings.Join(codes, ", "), where)
}

// Monitor logs what the scan finds in the skills a server serves, once
// per skill and set of findings: at the first snapshot, then for every
// skill whose findings changed. Under Warn it scans each snapshot in the
// background, so that serving never waits for it (a newer snapshot
// replaces one not yet scanned), the first one after Delay; under Block
// the engine has scanned already (Snapshot.Security), and it only logs.
type Monitor struct {
	// Background runs the scans; its Delay is how long the first waits
	// after the first snapshot, and its Wait is for tests.
	*pipeline.Background
	// CacheFile keeps the scanner's memory between runs ("": none; see
	// Scanner.SaveFile).
	CacheFile string

	mode    scanmode.Mode
	log     *slog.Logger
	scanner *Scanner

	mu     sync.Mutex
	logged map[string]string // skill folder or command file: the findings last logged
	counts map[string]int    // severity: the findings of the last report
}

// NewMonitor returns a monitor for mode that logs to log.
func NewMonitor(mode scanmode.Mode, log *slog.Logger) *Monitor {
	m := &Monitor{mode: mode, log: log, logged: map[string]string{}}
	m.Background = pipeline.NewBackground(time.Second, m.scan)
	return m
}

// Observe takes a new snapshot; it never blocks on a scan. It is meant
// for a discovery subscription.
func (m *Monitor) Observe(snap *pipeline.Snapshot) {
	if m.mode == scanmode.Off {
		return
	}
	if m.mode == scanmode.Block || snap.Security != nil {
		m.report(snap, snap.Security)
		return
	}
	m.Offer(snap)
}

// Recheck takes the snapshot served again, after a rescan that found
// nothing changed kept it; it never blocks on a scan. Under Warn the
// snapshot is scanned again: the scan reads every file of a skill, and
// an edit in place of a script or reference changes nothing discovery
// reads. It is meant for live.Refresher.SubscribeUnchanged.
func (m *Monitor) Recheck(snap *pipeline.Snapshot) {
	if m.mode != scanmode.Warn || snap.Security != nil {
		return // under block, discovery scanned inside the rescan
	}
	m.Rerun(snap)
}

// scan scans snap's servable skills and commands and reports. With a
// CacheFile, the scanner's memory lives in that file between scans
// rather than in the server's heap: it is read before the scan and
// written after, and a server that scans only when skills change keeps
// none of it in between.
func (m *Monitor) scan(snap *pipeline.Snapshot) {
	if m.scanner == nil {
		m.scanner = NewScanner()
		m.scanner.LoadFile(m.CacheFile)
	}
	read := m.scanner.FilesRead()
	m.report(snap, Annotate(context.Background(), m.scanner, append(snap.Servable(), snap.Commands()...)))
	if m.CacheFile == "" {
		return
	}
	if m.scanner.FilesRead() > read {
		if err := m.scanner.SaveFile(m.CacheFile); err != nil {
			return // keep the memory: without the file it is all there is
		}
	}
	m.scanner = nil
}

// Findings counts the findings of the last snapshot scanned, in the
// skills served and those the scan blocked, by severity ("error",
// "warning", "info"); empty before the first scan.
func (m *Monitor) Findings() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.counts)
}

// report logs the servable skills whose findings are new.
func (m *Monitor) report(snap *pipeline.Snapshot, found map[*pipeline.Record][]pipeline.Diagnostic) {
	records := append(snap.Servable(), snap.Commands()...)
	// Blocked skills are no longer servable, but they are what most
	// needs saying.
	for _, d := range snap.Drops {
		if d.Stage == StageName {
			records = append(records, d.Record)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[string]bool{}
	m.counts = map[string]int{}
	for _, r := range records {
		ds := found[r]
		key := r.Dir // a skill's folder; a command's file, as commands share a folder
		if r.IsCommand() {
			key = r.File
		}
		if seen[key] || len(ds) == 0 {
			continue
		}
		seen[key] = true
		for _, d := range ds {
			m.counts[string(d.Severity)]++
		}
		var parts []string
		errs := false
		for _, d := range ds {
			where := d.Path
			if rel, err := filepath.Rel(r.Dir, d.Path); err == nil && filepath.IsLocal(rel) {
				where = filepath.ToSlash(rel)
			}
			if d.Line > 0 {
				where += fmt.Sprintf(":%d", d.Line)
			}
			parts = append(parts, d.Code+" "+where)
			errs = errs || d.Severity == pipeline.SeverityError
		}
		sum := strings.Join(parts, ", ")
		if m.logged[key] == sum {
			continue
		}
		m.logged[key] = sum
		action := "served and logged (mcp.scan: warn)"
		if m.mode == scanmode.Block && errs {
			action = "not served to agents (mcp.scan: block)"
		}
		m.log.Warn("security scan flagged a skill; run ccski scan on it for details", "skill", r.ID, "dir", r.Dir,
			"findings", sum, "action", action, "first", ds[0].Message)
	}
	// Forget the skills that went or became clean: if they come back
	// flagged, that is news.
	for dir := range m.logged {
		if !seen[dir] {
			delete(m.logged, dir)
		}
	}
}
