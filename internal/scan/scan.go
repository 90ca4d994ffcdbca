// Package scan reads the roots that providers plan and turns every skill
// folder found under them into a pipeline.Record. It is the only code that
// walks skill folders. Walks are bounded in depth and folder count, follow
// symlinked folders with a loop guard, and skip .git, node_modules and
// (unless Options.Hidden) hidden folders; skip.go lists the folders left
// out. Only the frontmatter of each SKILL.md is read, on a bounded worker
// pool; a Cache lets a rescan skip the folders and files whose stamp (size,
// modification and change times, inode: see stamp) has not changed. A
// rescan stats each folder, and the files of each skill folder, relative
// to the folder's parent, opened once for all its sub-folders (see folder
// and precheck): the stat pass is most of what a rescan that finds nothing
// changed costs, and resolving each long path again most of a stat.
//
// Command roots (Root.Type == pipeline.TypeCommand) are walked the same way
// and under the same bounds, but every *.md file in them is a command
// named after its path ("frontend/review.md" is "frontend:review"). A
// command file is small and read whole, since its description may come
// from the body. With Options.Commands, the walk of a skill root also
// finds the command folders below it and walks them so, under the same
// bounds: one walk finds both, as validating a repository needs.
package scan

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/internal/problems"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// Options bound a scan.
type Options struct {
	// MaxDepth is how many folder levels below a root are searched.
	MaxDepth int
	// MaxDirs is how many folders one root may hold before the walk stops.
	// With Hidden, the hidden folders have a budget of their own of the
	// same size, spent after the rest of the tree is walked (see Hidden).
	MaxDirs int
	// Workers is the size of the parsing pool; 0 picks one from GOMAXPROCS.
	Workers int
	// Cache holds the previous scan's parsed frontmatter; nil reads every
	// file.
	Cache *Cache
	// NoCache leaves Result.Cache nil, for one-shot runs that will not
	// rescan: building it costs memory at the scan's peak.
	NoCache bool
	// Hidden makes the walks enter hidden folders too (.system, .curated,
	// .claude, ...): a repository walk. Discovery leaves it off, as the
	// agents do (Codex keeps its bundled skills in a hidden .system
	// folder); validating a repository turns it on, since repositories
	// such as openai/skills keep their skills in hidden folders.
	//
	// A repository walk skips the folders tools create in a checkout
	// (.git, node_modules, .venv, .tox, .mypy_cache, ...: see
	// skippedFolders), and it walks every other folder before any hidden
	// one: hidden folders are set aside as they are met and walked once
	// the rest of the tree is done, under a MaxDirs budget of their own,
	// so that a large hidden folder cannot stop the walk before the
	// skills in ordinary folders are found. Listings are cached with
	// their hidden folders, so one Cache serves scans with and without
	// it.
	Hidden bool
	// Commands makes the walk of a skill root also collect slash
	// commands, as validating a repository needs: a folder named
	// commands, or one named prompts inside a .codex folder, is walked as
	// a command root is (its *.md files are commands, namespaced by
	// sub-folder under commands, top level only under prompts, as Codex
	// reads them), and so is the root itself when it is named commands
	// or prompts. A skill folder stays a skill folder, inside a command
	// folder too: its files belong to the skill. Hidden sub-folders of a
	// command folder are not read. Discovery leaves it off: the
	// providers plan its command roots.
	Commands bool
	// Within, when set, is a real (symlink-free, absolute) folder the
	// walk stays in: a symlinked folder that resolves outside it is not
	// entered. ccski install bounds the scan of a source with it, so that
	// a source's symlink (up -> ../../..) cannot make it walk the machine.
	Within string
	// Reuse lets Scan return the very records of the scan that built
	// Cache (Result.Reused) when nothing they are made of has changed:
	// the same roots and options, every folder listing and every file
	// reading served from Cache (none was read again), and the walks
	// finding the same folders, candidates and problems. The records are
	// then shared with that earlier result, so a caller that sets Reuse
	// must not change them again (it changed them once, after the scan
	// that built them). See reusable.
	Reuse bool
}

// DefaultOptions are the built-in bounds.
func DefaultOptions() Options { return Options{MaxDepth: 6, MaxDirs: 20000} }

// Result is what a scan found.
type Result struct {
	// Records in root order, then in path order within a root, except
	// that with Options.Hidden the skills of hidden folders come after
	// the others. Ids are not assigned yet.
	Records []*pipeline.Record
	// Reports has one entry per root, in the order given.
	Reports []pipeline.RootReport
	// Diagnostics lists every problem, in root order.
	Diagnostics []pipeline.Diagnostic
	// Cache is the cache to pass to the next scan.
	Cache *Cache
	// FilesRead counts SKILL.md files opened (cache misses).
	FilesRead int
	// Dirs lists every folder the walks listed (skill folders included),
	// with symlinks resolved: the folders a watcher must watch to see any
	// skill appear, change or go.
	Dirs []string
	// Reused is set when Options.Reuse applied: Records, Reports,
	// Diagnostics and Dirs are those of the scan that built
	// Options.Cache (its records as that scan's caller left them), and
	// Cache is Options.Cache itself. The slices are clipped, so that
	// appending to one copies it.
	Reused bool
}

// candidate is a skill folder or a command file found by a walk.
type candidate struct {
	root     int
	dir      string
	realDir  string
	disabled bool
	refs     bool
	scripts  bool
	assets   bool
	// agents is set when the skill folder holds an agents/ folder, where
	// Codex looks for openai.yaml (see readOpenAI).
	agents bool
	// signature names the signature file the skill folder holds at its
	// top (provenance.Find), "" when none.
	signature string
	// file and name are set for a command: its .md file (under dir) and
	// the name its path gives.
	file string
	name string
}

// Scan reads every root. It never fails: problems become diagnostics.
func Scan(ctx context.Context, roots []pipeline.Root, opt Options) Result {
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = DefaultOptions().MaxDepth
	}
	if opt.MaxDirs <= 0 {
		opt.MaxDirs = DefaultOptions().MaxDirs
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = max(4, 2*runtime.GOMAXPROCS(0))
	}
	now := time.Now()

	// Phase 1: walk the roots, a few at a time.
	walks := make([]walk, len(roots))
	parallel.Each(context.Background(), len(roots), workers, func(i int) {
		walks[i] = walkRoot(ctx, i, roots[i], opt, now, opt.Cache.hint(i, len(roots)))
	})

	total := 0
	for i := range walks {
		total += len(walks[i].cands)
	}
	cands := make([]candidate, 0, total)
	var pre []known // what the walks knew, by candidate; nil on a first scan
	if opt.Cache != nil {
		pre = make([]known, 0, total)
	}
	for i := range walks {
		cands = append(cands, walks[i].cands...)
		pre = append(pre, walks[i].known...)
	}

	// Phase 2: read frontmatter on the pool.
	parsed := make([]parsedSkill, len(cands))
	var read atomic.Int64
	parallel.Each(ctx, len(cands), workers, func(i int) {
		var k known
		if pre != nil {
			k = pre[i]
		}
		parsed[i] = parse(cands[i], k, opt.Cache, &read, now)
	})

	if opt.Reuse && ctx.Err() == nil && read.Load() == 0 && opt.Cache.reusable(roots, opt, walks, cands, parsed) {
		l := opt.Cache.last
		return Result{Records: slices.Clip(l.records), Reports: slices.Clip(l.reports),
			Diagnostics: slices.Clip(l.diags), Dirs: slices.Clip(l.dirs), Cache: opt.Cache, Reused: true}
	}

	res := Result{Reports: make([]pipeline.RootReport, len(roots)), FilesRead: int(read.Load())}
	if !opt.NoCache {
		res.Cache = newCache(len(cands))
	}
	for i, r := range roots {
		res.Reports[i] = pipeline.RootReport{Root: r, Exists: walks[i].exists}
	}
	// Diagnostics and records keep root order.
	ci := 0
	for i := range walks {
		res.Diagnostics = append(res.Diagnostics, walks[i].diags...)
		res.Dirs = append(res.Dirs, walks[i].dirs...)
		if res.Cache != nil {
			for _, k := range walks[i].lists {
				res.Cache.dirs[k.realDir] = k.l
			}
		}
		for ; ci < len(cands) && cands[ci].root == i; ci++ {
			p := parsed[ci]
			if p.entry == nil && p.err == nil {
				continue // never parsed: the scan was cancelled
			}
			p.paths(cands[ci])
			if res.Cache != nil && p.entry != nil && !racy(p.entry.id.ModTime(), now) {
				res.Cache.put(p.file, p.entry)
			}
			if res.Cache != nil && p.meta != nil && !racy(p.meta.id.ModTime(), now) {
				res.Cache.meta[p.metaFile] = p.meta
			}
			var rec *pipeline.Record
			var diags []pipeline.Diagnostic
			if cands[ci].file != "" {
				rec, diags = buildCommand(roots[i], cands[ci], p)
			} else {
				rec, diags = build(roots[i], cands[ci], p)
			}
			if p.held {
				diags = append(diags, diag(roots[i], pipeline.SeverityInfo, problems.HeldPreviousReading, p.file,
					"changed moments ago and could not be read (probably mid-write); the previous reading is served until it settles"))
			}
			res.Diagnostics = append(res.Diagnostics, diags...)
			if rec != nil {
				res.Records = append(res.Records, rec)
				res.Reports[i].Skills++
			}
		}
	}
	if res.Cache != nil && ctx.Err() == nil {
		res.Cache.last = newLastScan(roots, opt, walks, cands, parsed, res)
	}
	return res
}

type walk struct {
	exists bool
	cands  []candidate
	// known holds, for each candidate, what the walk already knows of
	// its files (see precheck); nil on a first scan, where it knows
	// nothing.
	known []known
	diags []pipeline.Diagnostic
	dirs  []string // folders listed, symlinks resolved
	// lists are the listings to cache, by real folder; nil when caching
	// is off.
	lists []keptListing
	// listed counts the folders whose entries were read, not taken
	// from the previous scan's cache.
	listed int
}

// keptListing is a folder's listing kept for the next scan's cache.
type keptListing struct {
	realDir string
	l       *listing
}

// add records a candidate and what the walk knows of its files.
func (wk *walker) add(c candidate, k known) {
	wk.w.cands = append(wk.w.cands, c)
	if wk.prev != nil {
		wk.w.known = append(wk.w.known, k)
	}
}

func diag(root pipeline.Root, sev pipeline.Severity, code, path, format string, args ...any) pipeline.Diagnostic {
	return pipeline.Diagnostic{Severity: sev, Code: code, Provider: root.Agent, Path: path,
		Message: fmt.Sprintf(format, args...)}
}

// walkRoot finds the skill folders (or command files) under one root. The
// walk's lists are sized for what the last walk of the root found (h).
func walkRoot(ctx context.Context, idx int, root pipeline.Root, opt Options, now time.Time, h sizeHint) walk {
	wk := walker{idx: idx, root: root, prev: opt.Cache, now: now, keepLists: !opt.NoCache}
	w := &wk.w
	if h.cands > 0 {
		w.cands = make([]candidate, 0, h.cands)
		if wk.prev != nil {
			w.known = make([]known, 0, h.cands)
		}
	}
	if h.dirs > 0 {
		w.dirs = make([]string, 0, h.dirs)
		if wk.keepLists {
			w.lists = make([]keptListing, 0, h.dirs)
		}
	}
	what := "skill"
	if root.Type == pipeline.TypeCommand {
		what = "command"
	}
	real, err := realPath(root.Path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			w.exists = true
			w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.RootUnreadable, root.Path,
				"cannot open %s root: %v", what, err))
		} else if !root.Optional {
			w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.RootMissing, root.Path,
				"%s root does not exist: create it or remove it from the configuration", what))
		}
		return *w
	}
	if root.Within != "" && (opt.Within == "" || safefile.Within(opt.Within, root.Within)) {
		opt.Within = root.Within // the root's own bound, when narrower
	}
	if opt.Within != "" && !safefile.Within(opt.Within, real) {
		w.exists = true
		w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.BrokenSymlink, root.Path,
			"%s root leads outside %s (to %s); not read", what, opt.Within, real))
		return *w
	}
	st, err := os.Stat(real)
	if err == nil && st.Mode().IsRegular() && root.Type == pipeline.TypeCommand && isCommandFile(filepath.Base(real)) {
		// A plugin may list single command files.
		w.exists = true
		w.dirs = append(w.dirs, filepath.Dir(real))
		wk.add(candidate{root: idx, dir: filepath.Dir(root.Path), realDir: filepath.Dir(real),
			file: root.Path, name: strings.TrimSuffix(filepath.Base(root.Path), commandExt)}, known{})
		return *w
	}
	if err != nil || !st.IsDir() {
		w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.RootNotFolder, root.Path,
			"%s root is not a folder", what))
		return *w
	}
	w.exists = true
	at := near{st: stampOf(st), known: true} // the root's own listing needs no second stat
	if root.Type == pipeline.TypeCommand {
		wk.visitCommands(ctx, opt, root.Path, real, 0, "", root.Flat, at)
	} else if root.Skills != nil {
		wk.declared(real, opt.Within)
	} else {
		wk.visit(ctx, opt, root.Path, real, 0, at)
		wk.visitHidden(ctx, opt)
	}
	return *w
}

// walker holds the state of one root's walk.
type walker struct {
	idx  int
	root pipeline.Root
	prev *Cache
	now  time.Time
	w    walk
	// visited is the loop guard: the real folders entered, once the
	// walk follows a symlink (see seen); unlisted are the folders entered
	// but not listed (over the limit, unreadable), not in w.dirs.
	visited  map[string]bool
	unlisted []string
	dirs     int
	depthHit bool
	// hidden are the hidden folders set aside by a repository walk
	// (Options.Hidden), to be walked once the rest of the tree is done.
	hidden []pending
	// inHidden is set while they are walked: hiddenDirs then counts the
	// folders against their own budget, and hiddenTop is the set-aside
	// folder being walked.
	inHidden   bool
	hiddenDirs int
	hiddenTop  string
	// keepLists is set when listings are kept for the next scan's cache.
	keepLists bool
	// key is scratch space for building cache keys (see precheck).
	key []byte
}

// pending is a folder set aside by a walk, with the depth it lies at.
type pending struct {
	dir, realDir string
	depth        int
}

// declared reads exactly the skill folders the root lists. Each parent
// folder is resolved once; a skill folder costs one lstat plus its listing
// (and on a rescan, the lstat of a folder that is no symlink is the stat
// that validates its cached listing).
func (wk *walker) declared(real, within string) {
	w, root := &wk.w, wk.root
	w.dirs = append(w.dirs, real)
	// The parent folders, resolved, by path; nil when one cannot be.
	parents := map[string]*folder{filepath.Clean(root.Path): newFolder(real)}
	defer func() {
		for _, f := range parents {
			if f != nil {
				f.close()
			}
		}
	}()
	for _, s := range root.Skills {
		dir := s
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root.Path, s)
		}
		dir = filepath.Clean(dir)
		parent := filepath.Dir(dir)
		pf, ok := parents[parent]
		if !ok {
			if rp, err := realPath(parent); err == nil {
				pf = newFolder(rp)
			}
			parents[parent] = pf
		}
		rd := ""
		var at near // rd's stat, when the lstat gave it
		if pf != nil {
			name := filepath.Base(dir)
			rd = filepath.Join(pf.path, name)
			if st, link, err := pf.lstat(name); err != nil {
				rd = ""
			} else if link {
				if rd, err = realPath(rd); err != nil {
					rd = ""
				}
			} else {
				at = near{parent: pf, name: name, st: st, known: true}
			}
		}
		if rd == "" {
			w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.DeclaredSkillMissing, dir,
				"declared skill folder does not exist"))
			continue
		}
		if within != "" && !safefile.Within(within, rd) {
			w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.BrokenSymlink, dir,
				"declared skill folder leads outside %s (to %s); not read", within, rd))
			continue
		}
		l, err := wk.list(rd, at)
		if err != nil {
			w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.FolderUnreadable, dir,
				"cannot read folder: %v", err))
			continue
		}
		w.dirs = append(w.dirs, rd)
		c, ok, d := inspect(wk.idx, root, dir, rd, l)
		w.diags = append(w.diags, d...)
		if !ok {
			w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.DeclaredSkillMissing, dir,
				"declared skill folder has no SKILL.md"))
			continue
		}
		wk.add(c, wk.precheck(c, at))
	}
}

// visit searches one folder and, unless it is a skill folder, its
// sub-folders. at says how to stat the folder cheaply, when known.
func (wk *walker) visit(ctx context.Context, opt Options, dir, realDir string, depth int, at near) {
	w, root := &wk.w, wk.root
	l := wk.enter(ctx, opt, dir, realDir, at)
	if l == nil {
		return
	}
	// A flat root's skills are its immediate sub-folders: the root itself
	// is never one, and a sub-folder that is not one is not searched.
	if !root.Flat || depth > 0 {
		c, ok, d := inspect(wk.idx, root, dir, realDir, l)
		w.diags = append(w.diags, d...)
		if ok {
			wk.add(c, wk.precheck(c, at))
			return // a skill folder's contents belong to the skill
		}
		if root.Flat {
			return
		}
	}
	if opt.Commands {
		if flat, ok := commandFolder(dir, realDir, depth); ok {
			wk.commandsIn(ctx, opt, dir, realDir, depth, "", flat, l)
			return
		}
	}
	wk.descend(opt, dir, realDir, depth, l.subdirs, func(child, childReal, _ string, at near) {
		wk.visit(ctx, opt, child, childReal, depth+1, at)
	})
	if opt.Hidden {
		wk.descend(opt, dir, realDir, depth, l.hidden, func(child, childReal, _ string, _ near) {
			wk.hidden = append(wk.hidden, pending{dir: child, realDir: childReal, depth: depth + 1})
		})
	}
}

// visitHidden walks the hidden folders a repository walk set aside, in
// the order met; the hidden folders found in them are set aside in turn
// and walked after them.
func (wk *walker) visitHidden(ctx context.Context, opt Options) {
	wk.inHidden = true
	for i := 0; i < len(wk.hidden) && ctx.Err() == nil; i++ {
		p := wk.hidden[i]
		wk.hiddenTop = p.dir
		wk.visit(ctx, opt, p.dir, p.realDir, p.depth, near{})
	}
	wk.hidden = nil
}

// commandFolder reports whether a repository walk (Options.Commands)
// takes dir, depth levels below the root, for a command folder, and
// whether that folder is flat: a folder named commands (whose sub-folders
// namespace its commands, as Claude Code reads them), or prompts (top
// level only, as Codex reads them) inside a .codex folder. The root
// itself is one when it is named either. A prompts folder's parent is
// read from realDir too, since dir may be relative ("prompts" in a walk of
// ".").
func commandFolder(dir, realDir string, depth int) (flat, ok bool) {
	if depth == 0 {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs // "." names the folder it is
		}
	}
	switch filepath.Base(dir) {
	case "commands":
		return false, true
	case "prompts":
		return true, depth == 0 || filepath.Base(filepath.Dir(dir)) == ".codex" ||
			filepath.Base(filepath.Dir(realDir)) == ".codex"
	}
	return false, false
}

// enter counts a folder against the walk's bounds and lists it. It returns
// nil when the folder is not to be searched: already visited, over the
// folder limit, unreadable or the walk is cancelled.
func (wk *walker) enter(ctx context.Context, opt Options, dir, realDir string, at near) *listing {
	w, root := &wk.w, wk.root
	if ctx.Err() != nil || wk.seen(realDir) {
		return nil
	}
	if wk.visited != nil {
		wk.visited[realDir] = true
	}
	if wk.inHidden {
		wk.hiddenDirs++
		if wk.hiddenDirs > opt.MaxDirs {
			wk.unlisted = append(wk.unlisted, realDir)
			if wk.hiddenDirs == opt.MaxDirs+1 {
				w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.HiddenWalkLimit, wk.hiddenTop,
					"stopped searching hidden folders after %d of them, in this one (every other folder was "+
						"searched first): point the walk at a smaller tree", opt.MaxDirs))
			}
			return nil
		}
	} else {
		wk.dirs++
		if wk.dirs > opt.MaxDirs {
			wk.unlisted = append(wk.unlisted, realDir)
			if wk.dirs == opt.MaxDirs+1 {
				w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.WalkLimit, root.Path,
					"stopped after %d folders; raise limits.max_dirs or point the root at a smaller tree", opt.MaxDirs))
			}
			return nil
		}
	}
	l, err := wk.list(realDir, at)
	if err != nil {
		wk.unlisted = append(wk.unlisted, realDir)
		w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.FolderUnreadable, dir,
			"cannot read folder: %v", err))
		return nil
	}
	w.dirs = append(w.dirs, realDir)
	return l
}

// seen reports whether the walk entered realDir already. Until a walk
// follows a symlink, the folders it enters form a tree, and none can be
// entered twice: the set of those entered is only built when the first
// symlink is followed (from w.dirs and unlisted), so that a walk of a
// tree without symlinks hashes no path for its loop guard.
func (wk *walker) seen(realDir string) bool { return wk.visited[realDir] }

// guard builds the set of the folders entered so far, if it is not built
// yet: the walk is about to follow a symlink.
func (wk *walker) guard() {
	if wk.visited != nil {
		return
	}
	wk.visited = make(map[string]bool, len(wk.w.dirs)+len(wk.unlisted))
	for _, d := range wk.w.dirs {
		wk.visited[d] = true
	}
	for _, d := range wk.unlisted {
		wk.visited[d] = true
	}
}

// visitCommands collects the command files of one folder and, unless it
// is flat, searches its sub-folders. prefix is the name prefix the
// folder's path gives ("frontend:"). In a repository walk
// (Options.Commands), a skill folder is a skill, not searched for
// commands.
func (wk *walker) visitCommands(ctx context.Context, opt Options, dir, realDir string, depth int, prefix string, flat bool, at near) {
	l := wk.enter(ctx, opt, dir, realDir, at)
	if l == nil {
		return
	}
	if opt.Commands {
		c, ok, d := inspect(wk.idx, wk.root, dir, realDir, l)
		wk.w.diags = append(wk.w.diags, d...)
		if ok {
			wk.add(c, wk.precheck(c, at))
			return
		}
	}
	wk.commandsIn(ctx, opt, dir, realDir, depth, prefix, flat, l)
}

// commandsIn collects the command files of a listed folder and, unless it
// is flat, searches its sub-folders (hidden ones never: agents do not
// read them).
func (wk *walker) commandsIn(ctx context.Context, opt Options, dir, realDir string, depth int, prefix string, flat bool, l *listing) {
	for _, f := range l.commands {
		if f.link { // a symlink: a command only if it leads to a file
			st, err := os.Stat(filepath.Join(realDir, f.name))
			if err != nil || !st.Mode().IsRegular() {
				continue
			}
		}
		wk.add(candidate{root: wk.idx, dir: dir, realDir: realDir,
			file: filepath.Join(dir, f.name), name: prefix + strings.TrimSuffix(f.name, commandExt)}, known{})
	}
	if flat {
		return
	}
	wk.descend(opt, dir, realDir, depth, l.subdirs, func(child, childReal, name string, at near) {
		wk.visitCommands(ctx, opt, child, childReal, depth+1, prefix+name+":", false, at)
	})
}

// descend calls fn for every folder of subdirs, sub-folders of a listed
// folder, that the walk may enter: a repository walk (Options.Hidden)
// leaves out the tool folders (see skipped), symlinks are resolved (a
// broken one or a loop is reported), and folders deeper than the depth
// bound are not entered. fn is also told how to stat the folder relative
// to realDir, opened on first use (on a rescan: a first scan lists every
// folder, which needs no stat of it).
func (wk *walker) descend(opt Options, dir, realDir string, depth int, subdirs []subdir, fn func(child, childReal, name string, at near)) {
	w, root := &wk.w, wk.root
	var parent *folder
	if wk.prev != nil {
		parent = newFolder(realDir)
		defer parent.close()
	}
	for _, sub := range subdirs {
		if opt.Hidden && skipped(sub.name, true) {
			continue
		}
		child := filepath.Join(dir, sub.name)
		childReal := child // the same string when no symlink is involved: one allocation
		if realDir != dir {
			childReal = filepath.Join(realDir, sub.name)
		}
		if sub.link {
			r, err := filepath.EvalSymlinks(childReal)
			if err != nil {
				w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.BrokenSymlink, child,
					"symlink cannot be followed: %v", err))
				continue
			}
			st, err := os.Stat(r)
			if err != nil || !st.IsDir() {
				continue
			}
			if opt.Within != "" {
				if rel, err := filepath.Rel(opt.Within, r); err != nil || rel != "." && !filepath.IsLocal(rel) {
					w.diags = append(w.diags, diag(root, pipeline.SeverityWarning, problems.BrokenSymlink, child,
						"symlink leads outside %s (to %s); not followed", opt.Within, r))
					continue
				}
			}
			if wk.guard(); wk.seen(r) {
				w.diags = append(w.diags, diag(root, pipeline.SeverityInfo, problems.SymlinkLoop, child,
					"symlink leads to a folder already scanned (%s); skipped", r))
				continue
			}
			childReal = r
		}
		if depth+1 > opt.MaxDepth {
			if !wk.depthHit {
				wk.depthHit = true
				w.diags = append(w.diags, diag(root, pipeline.SeverityInfo, problems.DepthLimit, child,
					"not searched: deeper than %d levels below the root (limits.max_depth)", opt.MaxDepth))
			}
			continue
		}
		at := near{}
		if !sub.link && parent != nil {
			at = near{parent: parent, name: sub.name}
		}
		fn(child, childReal, sub.name, at)
	}
}

// listing is what the scanner needs from one folder's entries.
type listing struct {
	id                     stamp // the folder's, when listed
	skill, disabled, lower bool
	refs, scripts, assets  bool
	// agents is set when an agents/ folder is present (see readOpenAI).
	agents bool
	// signature names the signature file of a skill folder's listing
	// (provenance.Find of its files), "" when none or not a skill folder.
	signature string
	// subdirs are the folders (or symlinks) to descend into, sorted;
	// hidden folders and the folders no walk enters (node_modules) are
	// left out.
	subdirs []subdir
	// hidden are the hidden folders (or symlinks) but the ones no walk
	// enters (.git), sorted: the walks enter them only with
	// Options.Hidden.
	hidden []subdir
	// commands are the *.md files (or symlinks named so), sorted; hidden
	// files and SKILL.md are left out.
	commands []subdir
}

// commandExt is the extension of command files.
const commandExt = ".md"

// isCommandFile reports whether a file name is a command's: *.md, not
// hidden, and not SKILL.md.
func isCommandFile(name string) bool {
	return strings.HasSuffix(name, commandExt) && len(name) > len(commandExt) &&
		!strings.HasPrefix(name, ".") && name != pipeline.SkillFile
}

type subdir struct {
	name string
	link bool // a symlink, to be resolved
}

// near says how a walk may stat a folder without resolving its whole path
// again: relative to its parent (opened once for all its sub-folders), or
// from a stat already taken. The zero near knows neither; the folder is
// then stat'ed by path.
type near struct {
	parent *folder
	name   string // the folder's name in parent
	st     stamp
	known  bool // st is the folder's stat
}

// stat returns the stamp of the folder at realDir, which at describes.
func (at near) stat(realDir string) (stamp, error) {
	if at.known {
		return at.st, nil
	}
	if at.parent != nil {
		if st, err := at.parent.stat(at.name); err == nil {
			return st, nil
		}
		// By path below, for an error that names it.
	}
	st, err := os.Stat(realDir)
	if err != nil {
		return stamp{}, err
	}
	return stampOf(st), nil
}

// list returns the listing of realDir, which at describes. When the
// previous scan listed the folder and its stamp has not changed since,
// that listing is reused: adding, removing or renaming an entry sets a
// folder's modification and change times, and the change time cannot be
// set back (see stamp).
func (wk *walker) list(realDir string, at near) (*listing, error) {
	if l := wk.prev.listing(realDir); l != nil { // stat first: an unchanged folder is not read
		st, err := at.stat(realDir)
		if err != nil {
			return nil, err
		}
		if st == l.id {
			wk.keep(realDir, l)
			return l, nil
		}
	}
	f, err := os.Open(realDir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", realDir)
	}
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	wk.w.listed++
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	l := &listing{id: stampOf(st)}
	for _, e := range ents {
		name := e.Name()
		switch name {
		case pipeline.SkillFile:
			l.skill = true
		case pipeline.DisabledSkillFile:
			l.disabled = true
		case "skill.md", "Skill.md":
			l.lower = true
		case "references":
			l.refs = isDir(realDir, e)
		case "scripts":
			l.scripts = isDir(realDir, e)
		case "assets":
			l.assets = isDir(realDir, e)
		case openAIFolder:
			l.agents = isDir(realDir, e)
		}
		if strings.HasPrefix(name, ".") || skipped(name, false) {
			if name[0] == '.' && !skipped(name, false) {
				if e.IsDir() {
					l.hidden = append(l.hidden, subdir{name: name})
				} else if e.Type()&fs.ModeSymlink != 0 && isDir(realDir, e) {
					// A broken hidden link (an editor's .#lock file) is
					// dropped here, not reported by descend.
					l.hidden = append(l.hidden, subdir{name: name, link: true})
				}
			}
			continue
		}
		if isCommandFile(name) {
			if e.Type().IsRegular() {
				l.commands = append(l.commands, subdir{name: name})
			} else if e.Type()&fs.ModeSymlink != 0 {
				l.commands = append(l.commands, subdir{name: name, link: true})
			}
		}
		switch {
		case e.IsDir():
			l.subdirs = append(l.subdirs, subdir{name: name})
		case e.Type()&fs.ModeSymlink != 0:
			l.subdirs = append(l.subdirs, subdir{name: name, link: true})
		}
	}
	if l.skill || l.disabled {
		l.signature = signatureIn(ents)
	}
	if !racy(l.id.ModTime(), wk.now) {
		wk.keep(realDir, l)
	}
	return l, nil
}

// signatureIn names the signature file among a skill folder's entries, by
// provenance's naming rule (provenance.Find), "" when none: discovery
// notes it, so that the engine verifies the skills that carry one and
// hashes nothing of the others.
func signatureIn(ents []fs.DirEntry) string {
	var files []manifest.File
	for _, e := range ents {
		if !e.IsDir() {
			files = append(files, manifest.File{Path: e.Name()})
		}
	}
	return provenance.Find(files)
}

// keep records a listing for the next scan's cache, unless caching is off.
func (wk *walker) keep(realDir string, l *listing) {
	if wk.keepLists {
		wk.w.lists = append(wk.w.lists, keptListing{realDir, l})
	}
}

// known is what a walk learnt of a skill's files beyond its folder's
// listing: the previous scan's readings of its skill file and of its
// agents/openai.yaml, when a stat taken during the walk shows the file
// unchanged since (nil when not known: the parse phase then looks as it
// would without the walk's help).
type known struct {
	entry *cacheEntry
	meta  *metaEntry
}

// precheck looks, for the skill folder of c, at the files the previous
// scan read: when their stamps are unchanged, it returns those readings,
// and the parse phase takes them as they are. It stats them relative to
// the skill folder's parent, as the walk stat'ed the folder itself (see
// near): a rescan that finds nothing changed resolves no full path but
// its folders'. It does nothing on a first scan, nor where at has no
// parent (a root, a symlinked folder: their files are stat'ed by path
// when parsed, as before). It looks cached readings up under the path the
// parse phase reads (c.dir is clean here: descend and declared make it
// with filepath.Join or filepath.Clean), built in scratch space.
func (wk *walker) precheck(c candidate, at near) known {
	var k known
	if wk.prev == nil || at.parent == nil || c.file != "" {
		return k
	}
	name := skillName(c)
	if e := wk.prev.m[string(wk.keyOf(c.dir, name))]; e != nil && e.command == nil {
		if st, err := at.parent.stat(at.name + "/" + name); err == nil && st == e.id {
			k.entry = e
		}
	}
	if c.agents {
		if m := wk.prev.meta[string(wk.keyOf(c.dir, openAIFolder, openAIFile))]; m != nil {
			if st, err := at.parent.stat(at.name + "/" + openAIFolder + "/" + openAIFile); err == nil && st == m.id {
				k.meta = m
			}
		}
	}
	return k
}

// keyOf builds filepath.Join(dir, names...) in the walker's scratch space,
// for a clean dir and names that are single clean elements. The result is
// valid until the next call.
func (wk *walker) keyOf(dir string, names ...string) []byte {
	b := append(wk.key[:0], dir...)
	for _, n := range names {
		b = append(b, filepath.Separator)
		b = append(b, n...)
	}
	wk.key = b
	return b
}

// racy reports whether a time is too close to now to trust: a change made
// within the file system's timestamp granularity of the last look would
// leave the time unchanged. Such entries are read again next time.
func racy(mtime, now time.Time) bool { return now.Sub(mtime) < filestamp.Window }

// realPath resolves symlinks and makes the path absolute, so that the loop
// guard and RealDir compare equal paths however the root was spelled.
func realPath(p string) (string, error) {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	return filepath.Abs(r)
}

// inspect decides whether a folder is a skill from its listing.
func inspect(idx int, root pipeline.Root, dir, realDir string, l *listing) (candidate, bool, []pipeline.Diagnostic) {
	c := candidate{root: idx, dir: dir, realDir: realDir, refs: l.refs, scripts: l.scripts, assets: l.assets,
		agents: l.agents, signature: l.signature}
	var diags []pipeline.Diagnostic
	if l.skill && l.disabled {
		diags = append(diags, diag(root, pipeline.SeverityWarning, problems.EnabledAndDisabled, dir,
			"both SKILL.md and .SKILL.md exist; SKILL.md is used: delete or merge .SKILL.md"))
	}
	if l.lower && !l.skill && !l.disabled {
		diags = append(diags, diag(root, pipeline.SeverityWarning, problems.LowercaseSkillFile, dir,
			"found a lowercase skill.md; agents look for SKILL.md: rename it"))
	}
	c.disabled = l.disabled && !l.skill
	return c, l.skill || l.disabled, diags
}

// isDir reports whether the entry e of folder parent is a folder or a
// symlink to one.
func isDir(parent string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(filepath.Join(parent, e.Name()))
	return err == nil && st.IsDir()
}

// parsedSkill is the outcome of reading one SKILL.md.
type parsedSkill struct {
	file  string
	entry *cacheEntry
	err   error
	// held is set when the file changed moments ago and could not be read
	// (most likely caught mid-write): entry is then the last good reading.
	held bool
	// metaFile and meta are the skill's agents/openai.yaml and its
	// reading, when the skill folder has an agents/ folder and the file
	// is there (see readOpenAI).
	metaFile string
	meta     *metaEntry
}

// paths fills in the paths of p that the parse phase left out, having
// served its readings from what the walk knew (see known): they are only
// needed when the records are built again.
func (p *parsedSkill) paths(c candidate) {
	if p.file == "" {
		p.file = skillPath(c)
	}
	if p.meta != nil && p.metaFile == "" {
		p.metaFile = openAIPath(c.dir)
	}
}

// skillName is the name of the skill file of the skill folder c.
func skillName(c candidate) string {
	if c.disabled {
		return pipeline.DisabledSkillFile
	}
	return pipeline.SkillFile
}

// skillPath is the path of the skill file of the skill folder c.
func skillPath(c candidate) string { return filepath.Join(c.dir, skillName(c)) }

// open opens file for reading, unless the cache holds it with the same
// stamp (then hit is set and f is nil). It never blocks: a FIFO or device
// named like a skill file is refused, not read.
func open(file string, cache *Cache, command bool) (f *os.File, st fs.FileInfo, hit *cacheEntry, err error) {
	if cache.has(file) { // stat first: an unchanged file is not opened
		if st, err = os.Stat(file); err != nil {
			return nil, nil, nil, err
		}
		if e := cache.get(file, stampOf(st), command); e != nil {
			return nil, st, e, nil
		}
	}
	// The info of the open file, not of the path: it is what is read.
	if f, st, err = safefile.Open(file); err != nil {
		return nil, nil, nil, err
	}
	return f, st, nil, nil
}

// hold keeps the previous reading of a file whose new reading is unusable
// while the file's time is racy: an editor that rewrites a file in place
// leaves it empty or half-written for a moment, and a skill must not
// vanish from clients for that. The next rescan reads the file again.
func hold(p parsedSkill, cache *Cache, now time.Time) parsedSkill {
	if p.entry == nil || !p.entry.fatal() || !racy(p.entry.id.ModTime(), now) || cache == nil {
		return p
	}
	if prev := cache.m[p.file]; prev != nil && !prev.fatal() && (prev.command != nil) == (p.entry.command != nil) {
		p.entry, p.held = prev, true
	}
	return p
}

// parse reads the files of a candidate, unless k, what the walk knew of
// them, holds their readings: a reading served from k leaves its path in
// p empty (see paths).
func parse(c candidate, k known, cache *Cache, read *atomic.Int64, now time.Time) parsedSkill {
	if c.file != "" {
		return hold(parseFile(c.file, cache, true, read, decodeCommand), cache, now)
	}
	var p parsedSkill
	if k.entry != nil {
		p.entry = k.entry
		if k.entry.fatal() {
			p.file = skillPath(c) // for hold
		}
	} else {
		p = parseFile(skillPath(c), cache, false, read, decodeSkill)
	}
	p = hold(p, cache, now)
	if k.meta != nil {
		p.meta = k.meta
	} else if c.agents {
		p.metaFile, p.meta = readOpenAI(c.dir, cache)
	}
	return p
}

// parseFile reads one SKILL.md (decodeSkill: its frontmatter) or, with
// command set, one command file (decodeCommand: whole) into a new cache
// entry, unless the cache holds it with the same stamp. An error from
// decode is the reading's error, and leaves no entry.
func parseFile(file string, cache *Cache, command bool, read *atomic.Int64,
	decode func(f *os.File, st fs.FileInfo, e *cacheEntry) error) parsedSkill {
	p := parsedSkill{file: file}
	f, st, hit, err := open(file, cache, command)
	switch {
	case err != nil:
		p.err = err
		return p
	case hit != nil:
		p.entry = hit
		return p
	}
	read.Add(1)
	defer f.Close()
	e := &cacheEntry{id: stampOf(st)}
	if command {
		e.command = &skillmd.Command{}
	}
	if p.err = decode(f, st, e); p.err == nil {
		p.entry = e
	}
	return p
}

// headReader hashes and counts the bytes read through it.
type headReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func newHeadReader(r io.Reader) *headReader { return &headReader{r: r, h: sha256.New()} }

func (hr *headReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	hr.n += int64(n)
	return n, err
}

// digest returns the digest (manifest.Digest) of the bytes read, and
// their count.
func (hr *headReader) digest() (string, int64) { return manifest.FormatDigest(hr.h.Sum(nil)), hr.n }

// decodeSkill reads the frontmatter of a SKILL.md into e: its fields, or
// the problem that keeps it from being read.
func decodeSkill(f *os.File, _ fs.FileInfo, e *cacheEntry) error {
	hr := newHeadReader(f)
	h, err := skillmd.ReadHead(hr)
	e.head, e.headSize = hr.digest()
	if err != nil {
		code := problems.NoFrontmatter
		switch {
		case errors.Is(err, skillmd.ErrUnterminated):
			code = problems.UnclosedFrontmatter
		case errors.Is(err, skillmd.ErrTooLarge):
			code = problems.FrontmatterTooLarge
		case !errors.Is(err, skillmd.ErrNoFrontmatter):
			return err
		}
		e.probs = []skillmd.Problem{{Code: code, Fatal: true, Line: 1, Message: err.Error()}}
		return nil
	}
	e.front, e.probs = skillmd.Decode(h)
	if h.LeadingBlank > 0 {
		e.probs = append(e.probs, skillmd.Problem{Code: problems.LeadingBlankLine, Line: 1,
			Message: "blank lines before the opening ---; some agents then find no frontmatter: delete them"})
	}
	if h.BOM {
		e.probs = append(e.probs, skillmd.Problem{Code: problems.ByteOrderMark, Line: 1,
			Message: "file starts with a byte order mark; some agents then find no frontmatter: save as UTF-8 without BOM"})
	}
	return nil
}

// decodeCommand reads a command file whole into e, or the problem that
// it is over the size limit.
func decodeCommand(f *os.File, st fs.FileInfo, e *cacheEntry) error {
	data, err := safefile.ReadAll(f, st, skillmd.MaxCommandSize)
	var big *safefile.TooLargeError
	switch {
	case errors.As(err, &big):
		size := "larger than" // it grew since the stat
		if big.Size > 0 {
			size = safefile.Size(big.Size) + ", over"
		}
		e.probs = []skillmd.Problem{{Code: problems.Unreadable, Fatal: true, Message: fmt.Sprintf(
			"command file is %s the %s limit: split it", size, safefile.Size(big.Limit))}}
		return nil
	case err != nil:
		return err
	}
	e.head, e.headSize = manifest.Digest(data), int64(len(data))
	cmd, probs := skillmd.DecodeCommand(data)
	e.command, e.probs = &cmd, probs
	return nil
}

// buildCommand turns a parsed command file into a record. A command whose
// frontmatter cannot be read is skipped with a warning: the other commands
// still load.
func buildCommand(root pipeline.Root, c candidate, p parsedSkill) (*pipeline.Record, []pipeline.Diagnostic) {
	if p.err != nil {
		return nil, []pipeline.Diagnostic{diag(root, pipeline.SeverityWarning, problems.Unreadable, p.file,
			"cannot read command file: %v (command skipped)", p.err)}
	}
	e := p.entry
	diags, ok := readingDiags(root, p.file, e.probs, pipeline.SeverityWarning, " (command skipped)")
	if !ok {
		return nil, diags
	}
	name := c.name
	if root.Prefix != "" {
		name = root.Prefix + ":" + name
	}
	r := newRecord(root, c, p, name, diags)
	r.Type = pipeline.TypeCommand
	r.Description = e.command.Description
	r.ArgumentHint, r.Handoffs = e.command.ArgumentHint, e.command.Handoffs
	r.Diagnostics = append(r.Diagnostics, cleanRecord(root, r)...)
	return r, r.Diagnostics
}

// build turns a parsed skill into a record, or into diagnostics only when
// the skill cannot be used.
func build(root pipeline.Root, c candidate, p parsedSkill) (*pipeline.Record, []pipeline.Diagnostic) {
	if p.err != nil {
		return nil, []pipeline.Diagnostic{diag(root, pipeline.SeverityError, problems.Unreadable, p.file,
			"cannot read skill file: %v", p.err)}
	}
	e := p.entry
	diags, ok := readingDiags(root, p.file, e.probs, pipeline.SeverityError, " (skill not loaded)")
	if !ok {
		return nil, diags
	}
	var openAI *pipeline.OpenAIMetadata
	if p.meta != nil {
		openAI = p.meta.meta
		diags = append(diags, p.meta.diagnostics(root, p.metaFile)...)
	}
	front, folder := strings.TrimSpace(e.front.Name), filepath.Base(c.dir)
	if front == "" {
		front = folder
	}
	name, alias := front, folder
	// A plugin may declare its own folder as its one skill: that folder's
	// name is the plugin's version, no skill's name.
	own := root.FolderNames && filepath.Clean(c.dir) == filepath.Clean(root.Path)
	byFolder := root.FolderNames && !own
	switch {
	case byFolder:
		name, alias = folder, front
	case own:
		alias = front // no alias
	}
	if root.Prefix != "" && !strings.Contains(name, ":") {
		name = root.Prefix + ":" + name
	}
	if root.Prefix != "" && !strings.Contains(alias, ":") {
		alias = root.Prefix + ":" + alias
	}
	r := newRecord(root, c, p, name, diags)
	if !strings.EqualFold(alias, name) {
		r.Alias = alias
	}
	r.FolderNamed = byFolder
	r.Description = skillmd.FoldSpace(e.front.Description)
	r.Hosts = root.Hosts
	r.Disabled = c.disabled
	r.HasReferences, r.HasScripts, r.HasAssets = c.refs, c.scripts, c.assets
	r.SignatureFile = c.signature
	r.OpenAI = openAI
	r.Diagnostics = append(r.Diagnostics, cleanRecord(root, r)...)
	return r, r.Diagnostics
}

// readingDiags turns the problems of the reading of file into
// diagnostics: a warning each, but a fatal problem at severity fatal with
// skipped added to its message. ok is false when a problem was fatal:
// the file gives no record.
func readingDiags(root pipeline.Root, file string, probs []skillmd.Problem, fatal pipeline.Severity,
	skipped string) (diags []pipeline.Diagnostic, ok bool) {
	ok = true
	for _, pr := range probs {
		d := diag(root, pipeline.SeverityWarning, pr.Code, file, "%s", pr.Message)
		if pr.Fatal {
			d.Severity, d.Message, ok = fatal, d.Message+skipped, false
		}
		d.Line = pr.Line
		diags = append(diags, d)
	}
	return diags, ok
}

// newRecord is the record named name of the file p read for c under root,
// with diags: what the root, the candidate and the file's stamp say. The
// caller adds what the kind of file says.
func newRecord(root pipeline.Root, c candidate, p parsedSkill, name string, diags []pipeline.Diagnostic) *pipeline.Record {
	return &pipeline.Record{
		Name:        name,
		Agent:       root.Agent,
		Location:    root.Location,
		Kind:        root.Kind,
		Depth:       root.Depth,
		Precedence:  root.Precedence,
		Root:        root.Path,
		Dir:         c.dir,
		File:        p.file,
		RealDir:     c.realDir,
		Plugin:      root.Plugin,
		Size:        p.entry.id.Size(),
		ModTime:     p.entry.id.ModTime(),
		HeadDigest:  p.entry.head,
		HeadSize:    p.entry.headSize,
		Diagnostics: diags,
	}
}

// Cache remembers parsed frontmatter by file and stamp (size, times, inode:
// see stamp), and folder listings by real folder and stamp. A Cache is
// immutable once returned by Scan and safe for concurrent reads.
type Cache struct {
	m    map[string]*cacheEntry
	dirs map[string]*listing
	// meta holds the readings of agents/openai.yaml files, by file.
	meta map[string]*metaEntry
	// last is what the scan that built the cache found, and from what,
	// for Options.Reuse; nil when that scan was cancelled.
	last *lastScan
}

type cacheEntry struct {
	id stamp // the file's, when read
	// head is the digest of the file's first headSize bytes, those read
	// to parse it (pipeline.Record.HeadDigest).
	head     string
	headSize int64
	front    skillmd.Front
	probs    []skillmd.Problem
	// command is set for a command file; front is then unused.
	command *skillmd.Command
}

func newCache(n int) *Cache {
	return &Cache{m: make(map[string]*cacheEntry, n), dirs: make(map[string]*listing, n),
		meta: map[string]*metaEntry{}}
}

// listing returns the cached listing of a folder, whatever its state now,
// or nil.
func (c *Cache) listing(realDir string) *listing {
	if c == nil {
		return nil
	}
	return c.dirs[realDir]
}

// get returns the entry of file when its stamp is id and it was read as
// the same type (a command, or a SKILL.md).
func (c *Cache) get(file string, id stamp, command bool) *cacheEntry {
	if c == nil {
		return nil
	}
	e := c.m[file]
	if e == nil || e.id != id || (e.command != nil) != command {
		return nil
	}
	return e
}

func (c *Cache) put(file string, e *cacheEntry) { c.m[file] = e }

// fatal reports whether the reading makes the skill or command unusable.
func (e *cacheEntry) fatal() bool {
	for _, p := range e.probs {
		if p.Fatal {
			return true
		}
	}
	return false
}

// has reports whether file was cached, whatever its state now.
func (c *Cache) has(file string) bool {
	if c == nil {
		return false
	}
	_, ok := c.m[file]
	return ok
}

// Len is the number of cached files.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	return len(c.m)
}
