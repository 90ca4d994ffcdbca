package security

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
)

// maxPerFile caps the findings of one rule in one file: the first few
// say what to look for, the rest would bury the other rules.
const maxPerFile = 5

// finding is a finding inside one file, before it gets the file's path.
type finding struct {
	code      string
	line, col int
	msg       string
}

// fileCheck is what a file rule sees: the file, and where to report.
type fileCheck struct {
	f     *file
	front *frontmatter // the skill file's frontmatter, nil for other files
	out   []finding
	count map[string]int
	code  string // the rule running
	// disguised holds the file's lines that undisguise rewrote, found
	// once for every rule that reads them (see withUndisguised).
	disguised     []disguisedLine
	disguisedDone bool
	// view is the file's code view and what it undid on each line, and
	// viewCheck the check that reads it, made once for every rule that
	// reads the view (see withCodeView).
	view      *file
	viewUndo  []uint8
	viewDone  bool
	viewCheck *fileCheck
	// flowRes is the file's data flow analysis, made once (see flow).
	flowRes *flowResult
	// facts collects what the file tells about the skill's flows
	// across files (see chain.go); the view's check shares it.
	facts *[]finding
}

// add reports a finding of the running rule at offset off of the file
// (off < 0: no position).
func (c *fileCheck) add(off int, format string, args ...any) {
	if c.count[c.code] >= maxPerFile {
		return
	}
	c.count[c.code]++
	fd := finding{code: c.code, msg: fmt.Sprintf(format, args...)}
	if off >= 0 {
		fd.line, fd.col = position(c.f.data, off)
	}
	c.out = append(c.out, fd)
}

// addAs reports a finding of the rule code (not the running one), such
// as incomplete-scan when a check gives up.
func (c *fileCheck) addAs(code string, off int, format string, args ...any) {
	run := c.code
	c.code = code
	c.add(off, format, args...)
	c.code = run
}

// addLine reports a finding at a known line.
func (c *fileCheck) addLine(line int, format string, args ...any) {
	if c.count[c.code] >= maxPerFile {
		return
	}
	c.count[c.code]++
	c.out = append(c.out, finding{code: c.code, line: line, msg: fmt.Sprintf(format, args...)})
}

// skillCheck is what a folder rule sees.
type skillCheck struct {
	w    *walked
	out  []report.Finding
	code string
}

func (c *skillCheck) add(file, format string, args ...any) {
	c.out = append(c.out, report.Finding{Code: c.code, File: file, Message: fmt.Sprintf(format, args...)})
}

// Scanner scans skill folders. It remembers the findings of every file
// by the file's real path, size, modification time and mode, so that a
// rescan reads only the files that changed (a file modified within two
// seconds of the scan is not remembered, see manifest). It is safe for
// concurrent use.
type Scanner struct {
	// Workers bounds the skills scanned at once; 0 uses GOMAXPROCS.
	Workers int
	// NoCache turns the memory off: every scan reads every file.
	NoCache bool
	// Digests records the digest of every file the scan judges, for
	// Judge: what the rules read of it, and of a binary file the rest
	// too (see wholeDigest). A remembered file without one is read
	// again.
	Digests bool
	// Done, when set, is called after each file of Skills is scanned,
	// from the worker that scanned it (a progress line).
	Done func(file string)

	mu    sync.Mutex
	cache map[string]cached
	gen   uint64
	// listings remembers the folders the walks read (see
	// manifest.Listings).
	listings manifest.Listings

	// read counts the files read, for tests and benchmarks.
	read atomic.Int64
}

// cached is what the Scanner remembers of one file. Its stamp (size,
// modification and change times, inode, device) is checked against a new
// stat before it is used: a write, or a rename over the file, moves the
// change time, which no user-space call can set back.
type cached struct {
	stamp    filestamp.Stamp
	mode     fs.FileMode
	class    class // as named: the skill file is checked for more
	findings []finding
	gen      uint64
	// hashed is set when the file was read under Scanner.Digests;
	// digest and size are then its digest and the bytes it stands for
	// (see wholeDigest).
	hashed bool
	digest string
	size   int64
}

// NewScanner returns a Scanner with an empty memory.
func NewScanner() *Scanner { return &Scanner{cache: map[string]cached{}} }

// Len returns how many files and folders the scanner remembers.
func (s *Scanner) Len() int {
	s.mu.Lock()
	n := len(s.cache)
	s.mu.Unlock()
	return n + s.listings.Len()
}

// FilesRead returns how many files the scanner has read so far.
func (s *Scanner) FilesRead() int64 { return s.read.Load() }

// Skill scans the skill whose skill file is file (SKILL.md, .SKILL.md or
// skill.md) and the folder holding it, and returns the findings, sorted,
// with each rule's severity. Paths in the findings start with the
// folder's path as given.
func (s *Scanner) Skill(file string) []report.Finding {
	sc := &scratch{}
	return s.skill(context.Background(), file, sc, time.Now())
}

// Skills scans many skills at once (see Skill) and returns the findings
// of each, in order. It stops early, leaving the rest empty, when ctx
// ends. Skills whose files resolve to one folder are scanned once.
func (s *Scanner) Skills(ctx context.Context, files []string) [][]report.Finding {
	out, _ := s.scanAll(ctx, files, nil)
	return out
}

// scanAll scans files (see Skills); those marked in commands are command
// files, scanned alone (see Command). Under Digests it also returns the
// files it judged of each (see scratch.judged).
func (s *Scanner) scanAll(ctx context.Context, files []string, commands []bool) ([][]report.Finding, []pipeline.JudgedFiles) {
	out := make([][]report.Finding, len(files))
	var judged []pipeline.JudgedFiles
	if s.Digests {
		judged = make([]pipeline.JudgedFiles, len(files))
	}
	now := time.Now()
	parallel.EachWith(ctx, len(files), s.Workers, func(sc *scratch, i int) {
		sc.judged = nil
		if i < len(commands) && commands[i] {
			out[i] = s.command(ctx, files[i], sc, now)
		} else {
			out[i] = s.skill(ctx, files[i], sc, now)
		}
		if judged != nil {
			judged[i] = sc.judged
		}
		if s.Done != nil {
			s.Done(files[i])
		}
	})
	s.sweep()
	return out, judged
}

// scratch is one worker's reusable read buffer, and what it judged of the
// last skill it scanned.
type scratch struct {
	buf []byte
	// judged are the files of the last skill scanned and their digests,
	// sorted by path, under Scanner.Digests: what the rules read, each
	// file as it was read (see wholeDigest).
	judged pipeline.JudgedFiles
}

// skill scans one skill. It stops between two files when ctx ends (the
// caller then drops the result).
func (s *Scanner) skill(ctx context.Context, skillFile string, sc *scratch, now time.Time) []report.Finding {
	dir := filepath.Dir(skillFile)
	base := filepath.Base(skillFile)
	l := &s.listings
	if s.NoCache {
		l = nil
	}
	w := walkSkill(dir, base, l)
	if w.err != nil && len(w.files) == 0 && len(w.links) == 0 {
		return nil // the folder is gone or unreadable: discovery and validate say so
	}
	return s.scanWalked(ctx, w, sc, now)
}

// Command scans one command file (.claude/commands/NAME.md) as the agent
// gets it: its frontmatter and body, with the rules of a skill file
// (phrases, Unicode, hidden text, !`command` lines, hooks,
// allowed-tools), but not the folder around it, which holds the other
// commands.
func (s *Scanner) Command(file string) []report.Finding {
	return s.command(context.Background(), file, &scratch{}, time.Now())
}

func (s *Scanner) command(ctx context.Context, file string, sc *scratch, now time.Time) []report.Finding {
	dir, base := filepath.Dir(file), filepath.Base(file)
	w := &walked{dir: dir, skillFile: base}
	fi, err := os.Lstat(file)
	switch {
	case err != nil:
		return nil // gone: discovery says so
	case fi.Mode()&fs.ModeSymlink != 0:
		w.direct(file, base)
	case fi.Mode().IsRegular():
		w.files = append(w.files, entry{Entry: manifest.Entry{Path: base, Kind: manifest.KindFile, Real: file, Info: fi}})
	}
	return s.scanWalked(ctx, w, sc, now)
}

// scanWalked reads and checks the files the walk w found, and runs the
// folder rules.
func (s *Scanner) scanWalked(ctx context.Context, w *walked, sc *scratch, now time.Time) []report.Finding {
	dir, base := w.dir, w.skillFile
	var root *os.Root // opened on the first file to read
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	var out []report.Finding
	var facts []fileFacts
	budget := int64(maxTotal)
	unread := 0
	sc.judged = nil
	for _, e := range w.files {
		if ctx.Err() != nil {
			return nil
		}
		cls := classify(e.Path, base)
		fs, judged := s.lookup(e, cls)
		if fs == nil {
			if budget <= 0 {
				unread++ // over the skill's read budget: incomplete-scan says so
				continue
			}
			if root == nil {
				var err error
				if root, err = os.OpenRoot(dir); err != nil {
					break
				}
			}
			f, buf, n, err := readFile(root, e, base, cls, sc.buf, budget, s.Digests)
			sc.buf = buf
			if err != nil {
				continue // gone or replaced since the walk: not judged
			}
			s.read.Add(1)
			budget -= n
			fs = checkFile(f)
			if f.cut && f.is(classText) {
				fs = append(fs, finding{code: CodeIncompleteScan, msg: fmt.Sprintf("only the first %s of the "+
					"file's %s were read, so the rest was not checked", safefile.Size(int64(len(f.data))),
					safefile.Size(e.Info.Size()))})
			}
			judged = pipeline.JudgedFile{Path: e.Path, Size: f.hashed, Digest: f.digest}
			s.store(e, cls, fs, judged, now)
		}
		if s.Digests && judged.Digest != "" {
			sc.judged = append(sc.judged, judged)
		}
		var ff []finding
		for _, fd := range fs {
			if isFact(fd) {
				ff = append(ff, fd)
				continue
			}
			out = append(out, report.Finding{Code: fd.code, File: filepath.Join(dir, filepath.FromSlash(e.Path)),
				Line: fd.line, Column: fd.col, Message: fd.msg})
		}
		if len(ff) > 0 {
			facts = append(facts, fileFacts{rel: e.Path, facts: ff})
		}
	}
	out = append(out, chainFindings(dir, facts, out)...)
	if unread > 0 {
		w.incomplete = append(w.incomplete, fmt.Sprintf("%d files were not read: the scan reads at most %s of a "+
			"skill", unread, safefile.Size(maxTotal)))
	}
	for _, r := range rules {
		if r.skill != nil {
			c := &skillCheck{w: w, code: r.Code}
			r.skill(c)
			out = append(out, c.out...)
		}
	}
	for i := range out {
		r, _ := Lookup(out[i].Code)
		out[i].Severity = r.Severity
	}
	report.SortFindings(out)
	slices.SortFunc(sc.judged, func(a, b pipeline.JudgedFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// maxTotal is how many bytes one skill's scan reads at most.
const maxTotal = 16 << 20

// checkFile runs every file rule on f.
func checkFile(f *file) []finding {
	c := &fileCheck{f: f, count: map[string]int{}, facts: new([]finding)}
	if f.is(classSkill) && f.is(classText) {
		c.front = parseFrontmatter(f.data)
	}
	for _, r := range rules {
		if r.file != nil {
			c.code = r.Code
			r.file(c)
		}
	}
	c.out = append(c.out, *c.facts...) // kept with the findings, never reported
	if c.out == nil {
		c.out = []finding{} // checked, nothing found: cached as such
	}
	return c.out
}

// lookup returns the remembered findings of e, and under Digests what
// was judged of it, or nil.
func (s *Scanner) lookup(e entry, cls class) ([]finding, pipeline.JudgedFile) {
	if s.NoCache {
		return nil, pipeline.JudgedFile{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cache[e.Real]
	if !ok || c.stamp != filestamp.Of(e.Info) || c.mode != e.Info.Mode() || c.class != cls || s.Digests && !c.hashed {
		return nil, pipeline.JudgedFile{}
	}
	c.gen = s.gen + 1
	s.cache[e.Real] = c
	return c.findings, pipeline.JudgedFile{Path: e.Path, Size: c.size, Digest: c.digest}
}

// store remembers the findings of e, and what was judged of it, unless
// its time is too recent.
func (s *Scanner) store(e entry, cls class, fs []finding, judged pipeline.JudgedFile, now time.Time) {
	if s.NoCache || racy(e.Info.ModTime(), now) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[string]cached{}
	}
	s.cache[e.Real] = cached{stamp: filestamp.Of(e.Info), mode: e.Info.Mode(), class: cls,
		findings: fs, gen: s.gen + 1, hashed: s.Digests, digest: judged.Digest, size: judged.Size}
}

// sweep forgets the files and folders the last Skills did not see.
func (s *Scanner) sweep() {
	s.listings.Sweep()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	for k, c := range s.cache {
		if c.gen != s.gen {
			delete(s.cache, k)
		}
	}
}

// Profile is the name a scan report gives its rule set, in the profile
// field of the JSON format.
const Profile = "security"

// Run scans the skills whose skill files are files (see Skills) and
// returns the report: pre, findings about the paths themselves that
// come with their severities (ccski scan PATH passes those of
// validate.Collect), every finding of the skills, and those of their
// names compared (CheckNames), sorted.
func Run(ctx context.Context, s *Scanner, files []string, pre []report.Finding) *report.Report {
	rep := &report.Report{Profile: Profile, Skills: len(files)}
	rep.Findings = append(rep.Findings, pre...)
	for _, fs := range s.Skills(ctx, files) {
		rep.Findings = append(rep.Findings, fs...)
	}
	if ctx.Err() == nil {
		for _, fs := range CheckNames(FileNames(files)) {
			rep.Findings = append(rep.Findings, fs...)
		}
	}
	report.SortFindings(rep.Findings)
	return rep
}
