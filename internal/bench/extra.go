package main

// The measurements of the work issues 11 to 14 added (host switch files,
// the security scan, the fairer catalogue, SEP-2640 skills/list), the
// live heap, and the baseline build.

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/bench/floor/floorlib"
	"github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/internal/security"
	"github.com/ccski/ccski/mcp"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/all"
)

// switchEvery is how sparse the host switch files are: one entry for
// every switchEvery-th skill folder of the providers they switch.
const switchEvery = 10

// switchModes are the skillOverrides values the Claude files cycle through.
var switchModes = []string{"off", "name-only", "user-invocable-only"}

// writeSwitches writes the host switch files into the fixture: Claude's
// user settings.json and the workspace's settings.local.json with
// skillOverrides for every switchEvery-th Claude skill folder, and
// Codex's config.toml with a [[skills.config]] table (enabled = false,
// by path and by name in turn) for every switchEvery-th Codex skill. It
// returns the files written and the number of entries.
func writeSwitches(t *fixture.Tree) ([]string, int, error) {
	folders := func(dir string) ([]string, error) {
		ents, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		var out []string
		for i, e := range ents {
			if e.IsDir() && i%switchEvery == 0 {
				out = append(out, e.Name())
			}
		}
		return out, nil
	}
	var written []string
	entries := 0
	for _, c := range []struct{ skills, settings string }{
		{filepath.Join(t.Home, ".claude", "skills"), filepath.Join(t.Home, ".claude", "settings.json")},
		{filepath.Join(t.Workspace, ".claude", "skills"), filepath.Join(t.Workspace, ".claude", "settings.local.json")},
	} {
		names, err := folders(c.skills)
		if err != nil {
			return written, entries, err
		}
		var b strings.Builder
		b.WriteString("{\n  \"skillOverrides\": {")
		for i, n := range names {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n    %q: %q", n, switchModes[i%len(switchModes)])
		}
		b.WriteString("\n  }\n}\n")
		if err := os.WriteFile(c.settings, []byte(b.String()), 0o644); err != nil {
			return written, entries, err
		}
		written, entries = append(written, c.settings), entries+len(names)
	}
	codexSkills := filepath.Join(t.Home, ".codex", "skills")
	names, err := folders(codexSkills)
	if err != nil {
		return written, entries, err
	}
	var b strings.Builder
	b.WriteString("model = \"gpt-5\"\n")
	for i, n := range names {
		if i%2 == 0 {
			fmt.Fprintf(&b, "\n[[skills.config]]\npath = %q\nenabled = false\n", filepath.Join(codexSkills, n, pipeline.SkillFile))
		} else {
			fmt.Fprintf(&b, "\n[[skills.config]]\nname = %q\nenabled = false\n", n)
		}
	}
	file := filepath.Join(t.Home, ".codex", "config.toml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		return written, entries, err
	}
	return append(written, file), entries + len(names), nil
}

// switches measures cold discovery with the host switch files present,
// beside the floor walk, interleaved. The files are removed afterwards;
// while they are there the fixture is not marked complete.
func (s *suite) switches(ctx context.Context, t *fixture.Tree, res *sizeResult) (err error) {
	_, plain, err := s.snapshot(ctx, t)
	if err != nil {
		return err
	}
	dir := filepath.Dir(t.Home) // the fixture folder
	if err := os.Remove(markerPath(dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	files, entries, werr := writeSwitches(t)
	defer func() {
		var rerr error
		for _, f := range files {
			if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
				rerr = errors.Join(rerr, err)
			}
		}
		if rerr == nil {
			rerr = writeMarker(dir, t)
		}
		err = errors.Join(err, rerr)
	}()
	if werr != nil {
		return werr
	}
	res.Switches = entries
	cold, floor, err := s.coldRuns(ctx, t, res.Roots, func(snap *pipeline.Snapshot) {
		res.Switched = len(plain.Skills()) - len(snap.Skills())
	})
	if err != nil {
		return err
	}
	if res.Switched <= 0 {
		res.Problems = append(res.Problems, fmt.Sprintf("the %d switch entries hid no skill", entries))
	}
	res.metric("cold-switches").set(cold, floor)
	return nil
}

// heap measures the live heap that discovery and the MCP server hold, as
// `ccski mcp` builds them: an engine with the default configuration, its
// first snapshot (the engine keeps its rescan cache) and mcp.New with the
// default options. Collected twice before and after, so HeapAlloc counts
// live objects only. The scan monitor and trust recorder `ccski mcp` runs
// in the background are not in it (the peak RSS rows count them).
func (s *suite) heap(ctx context.Context, t *fixture.Tree, res *sizeResult) error {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	e, snap, err := s.snapshot(ctx, t)
	if err != nil {
		return err
	}
	def := configs.Default(all.Registry()).MCP
	srv := mcp.New(snap, mcp.Options{Version: "bench", Logger: slog.New(slog.DiscardHandler), SkillPrompts: def.SkillPrompts,
		Tools: def.Tools, Catalog: def.Catalog, AskContext: def.AskContext, ListTTL: def.RefreshInterval})
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(e)
	runtime.KeepAlive(srv)
	live := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	res.metric("heap").set(live/(1<<20), math.NaN())
	if len(snap.All) > 0 {
		res.metric("heap-per-skill").set(live/float64(len(snap.All)), math.NaN())
	}
	return nil
}

// catalogueMin is how long one timed rendering of the catalogue repeats,
// so that a sub-millisecond figure is an average of many.
const catalogueMin = 20 * time.Millisecond

// catalogue times the skill tool's description at the default budget,
// rendered from snap's visible skills as the server renders it.
func (s *suite) catalogue(snap *pipeline.Snapshot, res *sizeResult) {
	budget := configs.Default(all.Registry()).MCP.Catalog
	recs := snap.Skills()
	var d []float64
	var st mcp.CatalogueStats
	for range s.cfg.Runs {
		n, start := 0, time.Now()
		for n == 0 || time.Since(start) < catalogueMin {
			_, st = mcp.Catalogue(recs, budget)
			n++
		}
		d = append(d, ms(time.Since(start))/float64(n))
	}
	res.Named = st.Named()
	res.metric("catalog").set(median(d), math.NaN())
}

// skillFolderFiles lists every regular file under the folders of the
// given skill files, hidden ones included: what a scan of every skill
// folder reads.
func skillFolderFiles(skillFiles []string) ([]string, error) {
	var out []string
	for _, f := range skillFiles {
		err := filepath.WalkDir(filepath.Dir(f), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scan measures the security scan of every skill folder the floor walk
// found (a new scanner each run: nothing remembered), beside reading
// every file under those folders with as many workers.
func (s *suite) scan(ctx context.Context, res *sizeResult) error {
	_, skills, err := floorlib.List(res.Roots)
	if err != nil {
		return err
	}
	files, err := skillFolderFiles(skills)
	if err != nil {
		return err
	}
	res.Scanned = len(files)
	security.NewScanner().Skills(ctx, skills) // warm-up, not timed
	var d, f []float64
	for range s.cfg.Runs {
		runtime.GC()
		start := time.Now()
		security.NewScanner().Skills(ctx, skills)
		d = append(d, ms(time.Since(start)))
		runtime.GC()
		start = time.Now()
		if err := readFiles(files, false); err != nil {
			return err
		}
		f = append(f, ms(time.Since(start)))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	res.metric("scan").set(median(d), median(f))
	return nil
}

// readFiles reads every file whole with GOMAXPROCS workers, hashing it
// with SHA-256 when hash is set.
func readFiles(files []string, hash bool) error {
	errs := make([]error, len(files))
	workers := runtime.GOMAXPROCS(0)
	bufs := make(chan []byte, workers)
	for range workers {
		bufs <- make([]byte, 32<<10)
	}
	parallel.Each(context.Background(), len(files), workers, func(i int) {
		buf := <-bufs
		defer func() { bufs <- buf }()
		fh, err := os.Open(files[i])
		if err != nil {
			errs[i] = err
			return
		}
		defer fh.Close()
		var w io.Writer = io.Discard
		if hash {
			w = sha256.New()
		}
		// Plain Reader and Writer: neither side picks its own buffer.
		_, errs[i] = io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{fh}, buf)
	})
	return errors.Join(errs...)
}

// statFiles stats every file.
func statFiles(files []string) error {
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return err
		}
	}
	return nil
}

// skillsList measures the work a new default server does in the
// background once it has answered tools/list (its CPU time until idle),
// then SEP-2640 skills/list, every page: first, with no digests kept by
// an earlier server (every file is hashed), beside reading and hashing
// every file of the listed skills with GOMAXPROCS workers; again on the
// same server (digests cached: a stat per file), beside a stat of every
// file; and first on the server started again, with the digests the
// last one kept (skills.bin in the cache folder), beside the same stats.
func (s *suite) skillsList(ctx context.Context, t *fixture.Tree, env []string, recs []listRecord, res *sizeResult) error {
	dirs := map[string]string{}
	for _, r := range recs {
		if r.URI != "" {
			dirs[r.URI] = r.Dir
		}
	}
	var files []string
	var first, warm, restart, fh, fst, bgCPU, bgWall []float64
	digests := filepath.Join(s.state(res.N, "ccski"), "cache", "ccski", "skills.bin")
	// idleServer starts a server, asks for its tools and waits until its
	// background work is done.
	idleServer := func() (*server, float64, time.Duration, error) {
		srv, err := startServer(ctx, s.ccski, t, env)
		if err != nil {
			return nil, 0, 0, err
		}
		if _, err := srv.cs.ListTools(ctx, nil); err != nil {
			srv.close()
			return nil, 0, 0, fmt.Errorf("tools/list: %w", err)
		}
		cpu, took, err := waitIdle(ctx, srv.pid())
		if err != nil {
			srv.close()
			return nil, 0, 0, err
		}
		return srv, cpu, took, nil
	}
	for range s.cfg.Runs {
		// A first start: no digests kept by an earlier server.
		if err := os.Remove(digests); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		srv, cpu, took, err := idleServer()
		if err != nil {
			return err
		}
		bgCPU, bgWall = append(bgCPU, cpu), append(bgWall, ms(took))
		start := time.Now()
		entries, err := listSkills(ctx, srv)
		first = append(first, ms(time.Since(start)))
		if err == nil {
			start = time.Now()
			_, err = listSkills(ctx, srv)
			warm = append(warm, ms(time.Since(start)))
		}
		if err == nil {
			err = waitFile(ctx, digests) // saved in the background after the first listing
		}
		if cerr := srv.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		// The same server started again: the digests the last one kept.
		srv, _, _, err = idleServer()
		if err != nil {
			return err
		}
		start = time.Now()
		_, err = listSkills(ctx, srv)
		restart = append(restart, ms(time.Since(start)))
		if cerr := srv.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if files == nil {
			var problems []string
			files, problems = manifestFiles(entries, dirs)
			res.Problems = append(res.Problems, problems...)
			res.Listed = len(entries)
			res.Files = 0
			for _, e := range entries {
				res.Files += len(e.Resources)
			}
		}
		runtime.GC()
		start = time.Now()
		if err := readFiles(files, true); err != nil {
			return err
		}
		fh = append(fh, ms(time.Since(start)))
		start = time.Now()
		if err := statFiles(files); err != nil {
			return err
		}
		fst = append(fst, ms(time.Since(start)))
	}
	res.metric("mcp-background").set(median(bgCPU), math.NaN())
	res.BusyMS = median(bgWall)
	res.metric("skills-list-first").set(median(first), median(fh))
	res.metric("skills-list-warm").set(median(warm), median(fst))
	res.metric("skills-list-restart").set(median(restart), median(fst))
	return nil
}

// waitFile waits until the file path exists, for at most 30 seconds.
func waitFile(ctx context.Context, path string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not written within 30 s of the listing", path)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// manifestFiles maps the manifests of skills/list entries to files on
// disk, through the folders `list --json` gave for each SKILL.md URI.
// What it cannot map is returned as problems (at most a few).
func manifestFiles(entries []skillEntry, dirs map[string]string) ([]string, []string) {
	var files, problems []string
	miss := 0
	for _, e := range entries {
		dir, ok := dirs[e.URI]
		prefix, isSkill := strings.CutSuffix(e.URI, pipeline.SkillFile)
		if !ok || !isSkill {
			miss++
			continue
		}
		for _, r := range e.Resources {
			rel, ok := strings.CutPrefix(r.URI, prefix)
			if ok {
				rel, ok = unescapePath(rel)
			}
			if !ok {
				miss++
				continue
			}
			files = append(files, filepath.Join(dir, filepath.FromSlash(rel)))
		}
	}
	if miss > 0 {
		problems = append(problems, fmt.Sprintf("%d skills/list entries or files not found in list --json; left out of the floors", miss))
	}
	return files, problems
}

func unescapePath(p string) (string, bool) {
	u, err := url.PathUnescape(p)
	return u, err == nil && !slices.Contains(strings.Split(u, "/"), "..")
}

// buildBaseline builds ccski at cfg.Baseline into the work folder, from
// `git archive` of that commit (the working tree and the index are not
// touched). The source is kept per commit, so a rerun reuses it.
func (s *suite) buildBaseline(ctx context.Context, root string) error {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--verify", s.cfg.Baseline+"^{commit}").Output()
	if err != nil {
		return fmt.Errorf("-baseline %q: not a commit of the repository at %s: %w", s.cfg.Baseline, root, err)
	}
	sha := strings.TrimSpace(string(out))
	s.baseRev = sha[:min(12, len(sha))]
	src := filepath.Join(s.work, "baseline", sha)
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		if err := os.RemoveAll(src); err != nil {
			return err
		}
		if err := os.MkdirAll(src, 0o755); err != nil {
			return err
		}
		tarball := src + ".tar"
		s.logf("git archive %s > %s", s.baseRev, tarball)
		if out, err := exec.CommandContext(ctx, "git", "-C", root, "archive", "--format=tar", "-o", tarball, sha).CombinedOutput(); err != nil {
			return fmt.Errorf("git archive %s: %v\n%s", s.baseRev, err, out)
		}
		if out, err := exec.CommandContext(ctx, "tar", "-xf", tarball, "-C", src).CombinedOutput(); err != nil {
			return fmt.Errorf("tar -xf %s: %v\n%s", tarball, err, out)
		}
		_ = os.Remove(tarball)
	}
	s.baseline = filepath.Join(s.work, "bin", "ccski-"+s.baseRev)
	s.logf("CGO_ENABLED=0 go build -trimpath -o %s ./cmd/ccski (baseline %s)", s.baseline, s.baseRev)
	cmd := goBuild(ctx, s.baseline, "./cmd/ccski")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		s.baseline = ""
		return fmt.Errorf("go build the baseline %s: %v\n%s", s.baseRev, err, out)
	}
	return nil
}
