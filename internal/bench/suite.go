package main

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/bench/floor/floorlib"
	"github.com/ccski/ccski/internal/browsertest"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// Bounds that keep a broken build from hanging the suite. None of them is
// a timing assertion: a bound that is hit is reported as an error.
const (
	sizeTimeout   = 30 * time.Minute // everything measured at one size
	notifyTimeout = 15 * time.Second // an edit's list_changed
	inFlight      = 8                // concurrent tools/call requests
)

// run measures every size of cfg. It returns the report even when some
// measurements failed, with the failures joined in the error.
func run(ctx context.Context, cfg config, progress io.Writer) (*report, error) {
	logf := func(format string, a ...any) { fmt.Fprintf(progress, "bench: "+format+"\n", a...) }
	work := cfg.Workdir
	if work == "" {
		tmp, err := os.MkdirTemp("", "ccski-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	work, err := filepath.Abs(work)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	s := &suite{cfg: cfg, work: work, logf: logf}
	if err := s.build(ctx); err != nil {
		return nil, err
	}
	rep := &report{cfg: cfg, machine: machineInfo(), started: time.Now().UTC(), baseRev: s.baseRev}
	var errs []error
	for _, n := range cfg.Sizes {
		sctx, cancel := context.WithTimeout(ctx, sizeTimeout)
		res, err := s.measure(sctx, n)
		cancel()
		if res != nil {
			rep.sizes = append(rep.sizes, res)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("N=%d: %w", n, err))
		}
		if ctx.Err() != nil {
			break
		}
	}
	rep.took = time.Since(rep.started)
	return rep, errors.Join(errs...)
}

// suite holds what every size shares.
type suite struct {
	cfg      config
	work     string
	ccski    string // binaries
	floor    string
	peakrss  string
	baseline string // ccski built at cfg.Baseline; "" without one
	baseRev  string // its short commit
	logf     func(string, ...any)
}

// build compiles ccski and the floor once, into the work folder, and the
// baseline's ccski when there is one.
func (s *suite) build(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return errors.New("run the suite inside the ccski module (go run ./internal/bench from the repository root)")
	}
	root := filepath.Dir(gomod)
	bin := filepath.Join(s.work, "bin")
	s.ccski, s.floor, s.peakrss = filepath.Join(bin, "ccski"), filepath.Join(bin, "floor"), filepath.Join(bin, "peakrss")
	for _, b := range []struct{ out, pkg string }{{s.ccski, "./cmd/ccski"}, {s.floor, "./internal/bench/floor"}, {s.peakrss, "./internal/bench/peakrss"}} {
		s.logf("CGO_ENABLED=0 go build -trimpath -o %s %s", b.out, b.pkg)
		cmd := goBuild(ctx, b.out, b.pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	if s.cfg.Baseline != "" {
		return s.buildBaseline(ctx, root)
	}
	return nil
}

// goBuild is the command that builds pkg into out as releases are built
// (.goreleaser.yaml): static, without cgo, with trimmed paths.
func goBuild(ctx context.Context, out, pkg string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}

// sizeResult is everything measured at one size.
type sizeResult struct {
	N        int
	Tree     fixture.Tree
	Cached   bool // the fixture was reused from the work folder
	Roots    []string
	Found    int     // skill files the floor read
	Records  int     // records ccski discovered (cold, in-process)
	Visible  int     // skills `ccski list --json` printed
	Named    int     // skills the skill tool's description names at the default budget
	Switched int     // skills the host switch files hid
	Switches int     // entries in the host switch files
	Listed   int     // skills in the SEP-2640 skills/list
	Files    int     // files in their manifests
	Scanned  int     // files under the skill folders (the scan floor read them)
	BusyMS   float64 // how long a new server worked after it answered tools/list (ms)
	Metrics  []*metric
	Problems []string // anomalies seen while measuring
}

func (r *sizeResult) metric(key string) *metric {
	if m := r.lookup(key); m != nil {
		return m
	}
	panic("unknown metric " + key)
}

// lookup is the metric of key, nil when this size has none.
func (r *sizeResult) lookup(key string) *metric {
	for _, m := range r.Metrics {
		if m.Key == key {
			return m
		}
	}
	return nil
}

// measure runs every measurement at size n. Each failure is noted on its
// metric and in the returned error; the others still run.
func (s *suite) measure(ctx context.Context, n int) (*sizeResult, error) {
	res := &sizeResult{N: n, Metrics: newMetrics(n, s.cfg.Calls, s.baseline != "")}
	tree, cached, err := s.fixture(n)
	if err != nil {
		return nil, fmt.Errorf("fixture: %w", err)
	}
	res.Tree, res.Cached = *tree, cached
	env := childEnv(tree, s.state(n, "ccski"))
	var errs []error
	fail := func(keys []string, err error) {
		for _, k := range keys {
			if m := res.lookup(k); m != nil {
				m.Err = err.Error()
			}
		}
		if len(keys) == 0 {
			res.Problems = append(res.Problems, firstLine(err.Error()))
		}
		errs = append(errs, err)
		s.logf("N=%d: %v", n, err)
	}
	defer func() {
		for _, m := range res.Metrics {
			m.evaluate()
		}
	}()

	roots, err := s.roots(ctx, tree, env)
	if err == nil {
		var fres floorlib.Result
		fres, err = floorlib.Walk(roots)
		res.Roots, res.Found = roots, fres.Skills
	}
	if err != nil {
		fail(metricKeys(s.baseline != ""), fmt.Errorf("the roots to measure: %w", err))
		return res, errors.Join(errs...)
	}

	if s.cfg.Only == "search" {
		res.Metrics = slices.DeleteFunc(res.Metrics, func(m *metric) bool { return !slices.Contains(searchKeys, m.Key) })
		s.logf("N=%d: skills_search sessions", n)
		if err := s.searchRows(ctx, tree, env, res); err != nil {
			fail(searchKeys, err)
		}
		return res, errors.Join(errs...)
	}
	if s.cfg.Only == "web" {
		res.Metrics = slices.DeleteFunc(res.Metrics, func(m *metric) bool { return !slices.Contains(webKeys, m.Key) })
		s.logf("N=%d: the web catalogue's first paint", n)
		if err := s.webRows(ctx, tree, s.state(n, "ccski"), res); err != nil {
			fail(webKeys, err)
		}
		return res, errors.Join(errs...)
	}
	if s.cfg.Only == "start" {
		s.startRows(ctx, tree, env, res, fail)
		return res, errors.Join(errs...)
	}
	if s.cfg.Only == "memory" {
		keys := append([]string{"heap", "heap-per-skill", "list-wall", "list-first", "list-rss"}, sessionKeys...)
		res.Metrics = slices.DeleteFunc(res.Metrics, func(m *metric) bool { return !slices.Contains(keys, m.Key) })
		s.logf("N=%d: live heap, in-process", n)
		if err := s.heap(ctx, tree, res); err != nil {
			fail([]string{"heap", "heap-per-skill"}, err)
		}
		s.logf("N=%d: ccski list --json and the floor process", n)
		recs, _, err := s.list(ctx, tree, env, res)
		if err != nil {
			fail([]string{"list-wall", "list-first", "list-rss"}, err)
			return res, errors.Join(errs...)
		}
		s.logf("N=%d: ccski mcp sessions of %d calls", n, s.cfg.Calls)
		if err := s.sessions(ctx, tree, env, recs, res); err != nil {
			keys := sessionKeys
			if pe := (*phaseError)(nil); errors.As(err, &pe) {
				keys = pe.keys
			}
			fail(keys, err)
		}
		return res, errors.Join(errs...)
	}
	s.logf("N=%d: cold discovery and rescan, in-process", n)
	snap, err := s.discovery(ctx, tree, res)
	if err != nil {
		fail([]string{"cold", "rescan", "rescan-reads"}, err)
	}
	s.logf("N=%d: discovery with host switch files, in-process", n)
	if err := s.switches(ctx, tree, res); err != nil {
		fail([]string{"cold-switches"}, err)
	}
	s.logf("N=%d: live heap, catalogue, security scan, in-process", n)
	if err := s.heap(ctx, tree, res); err != nil {
		fail([]string{"heap", "heap-per-skill"}, err)
	}
	if snap != nil {
		s.catalogue(snap, res)
	} else {
		fail([]string{"catalog"}, errors.New("no snapshot to render the catalogue of"))
	}
	if err := s.scan(ctx, res); err != nil {
		fail([]string{"scan"}, err)
	}
	s.logf("N=%d: ccski list --json and the floor process", n)
	recs, floorWall, err := s.list(ctx, tree, env, res)
	if err != nil {
		fail([]string{"list-wall", "list-wall-base", "list-first", "list-rss"}, err)
	}
	s.logf("N=%d: ccski mcp ready", n)
	if err := s.ready(ctx, tree, env, res, floorWall); err != nil {
		fail([]string{"mcp-ready", "mcp-ready-base", "mcp-ready-block", "mcp-ready-full"}, err)
	}
	s.logf("N=%d: SEP-2640 skills/list", n)
	if err := s.skillsList(ctx, tree, env, recs, res); err != nil {
		fail([]string{"mcp-background", "skills-list-first", "skills-list-warm", "skills-list-restart"}, err)
	}
	s.logf("N=%d: ccski mcp sessions of %d calls", n, s.cfg.Calls)
	if err := s.sessions(ctx, tree, env, recs, res); err != nil {
		var pe *phaseError
		keys := []string{"call-p50", "call-p99", "call-cpu", "client-cpu", "call-8", "call-8-base", "peak-rss", "peak-rss-base", "rss-idle"}
		if errors.As(err, &pe) {
			keys = pe.keys
		}
		fail(keys, err)
	}
	s.logf("N=%d: skills_search sessions", n)
	if err := s.searchRows(ctx, tree, env, res); err != nil {
		keys := searchKeys
		if pe := (*phaseError)(nil); errors.As(err, &pe) {
			keys = pe.keys
		}
		fail(keys, err)
	}
	s.logf("N=%d: edit → list_changed", n)
	if err := s.editSession(ctx, tree, env, recs, res); err != nil {
		fail([]string{"edit"}, err)
	}
	if browsertest.Find() == "" {
		// Only -only web requires the browser.
		s.logf("N=%d: the web catalogue's first paint is not measured: %v", n, browsertest.ErrNoBrowser)
		for _, k := range webKeys {
			res.metric(k).Err = browsertest.ErrNoBrowser.Error()
		}
		return res, errors.Join(errs...)
	}
	s.logf("N=%d: the web catalogue's first paint", n)
	if err := s.webRows(ctx, tree, s.state(n, "ccski"), res); err != nil {
		fail(webKeys, err)
	}
	return res, errors.Join(errs...)
}

// webKeys are the rows of -only web, which webRows fills.
var webKeys = []string{"web-fcp", "web-ready", "web-html"}

// startKeys are the rows of -only start: the time to serve a tree.
var startKeys = []string{"list-wall", "list-wall-base", "list-first", "list-rss", "mcp-ready", "mcp-ready-base",
	"mcp-ready-block", "mcp-ready-full", "mcp-background", "skills-list-first", "skills-list-warm", "skills-list-restart", "edit"}

// startRows measures the rows of -only start alone: list --json, mcp
// ready, skills/list and edit → list_changed; fail records each failure.
func (s *suite) startRows(ctx context.Context, tree *fixture.Tree, env []string, res *sizeResult, fail func([]string, error)) {
	res.Metrics = slices.DeleteFunc(res.Metrics, func(m *metric) bool { return !slices.Contains(startKeys, m.Key) })
	n := res.N
	s.logf("N=%d: ccski list --json and the floor process", n)
	recs, floorWall, err := s.list(ctx, tree, env, res)
	if err != nil {
		fail([]string{"list-wall", "list-wall-base", "list-first", "list-rss"}, err)
		return // the rows below need the list
	}
	s.logf("N=%d: ccski mcp ready", n)
	if err := s.ready(ctx, tree, env, res, floorWall); err != nil {
		fail([]string{"mcp-ready", "mcp-ready-base", "mcp-ready-block", "mcp-ready-full"}, err)
	}
	s.logf("N=%d: SEP-2640 skills/list", n)
	if err := s.skillsList(ctx, tree, env, recs, res); err != nil {
		fail([]string{"mcp-background", "skills-list-first", "skills-list-warm", "skills-list-restart"}, err)
	}
	s.logf("N=%d: edit → list_changed", n)
	if err := s.editSession(ctx, tree, env, recs, res); err != nil {
		fail([]string{"edit"}, err)
	}
}

// state is the folder of ccski's own files (XDG_CONFIG_HOME and
// XDG_CACHE_HOME: the trust store, cached digests) for one size and one
// binary, so that neither sizes nor builds share them.
func (s *suite) state(n int, who string) string {
	return filepath.Join(s.work, "state", fmt.Sprintf("n%d-seed%d", n, s.cfg.Seed), who)
}

// settleWait is how long the suite lets ccski's own files age before the
// timed runs: ccski reuses what it cached of a file only once the file's
// times are two seconds old.
const settleWait = 2100 * time.Millisecond

// phaseError names the metrics a failure leaves without a value.
type phaseError struct {
	keys []string
	err  error
}

func (e *phaseError) Error() string { return e.err.Error() }
func (e *phaseError) Unwrap() error { return e.err }

// fixture returns the tree for n, generated once per work folder: a
// marker written after generation says the tree is complete and
// unmodified (the edit measurement removes it while a file is edited).
func (s *suite) fixture(n int) (*fixture.Tree, bool, error) {
	dir := filepath.Join(s.work, "fixtures", fmt.Sprintf("n%d-seed%d", n, s.cfg.Seed))
	marker := markerPath(dir)
	if b, err := os.ReadFile(marker); err == nil {
		var t fixture.Tree
		if json.Unmarshal(b, &t) == nil && t.Skills == n {
			s.logf("N=%d: reusing the fixture in %s", n, dir)
			return &t, true, nil
		}
	}
	s.logf("N=%d: generating the fixture in %s", n, dir)
	if err := os.RemoveAll(dir); err != nil {
		return nil, false, err
	}
	start := time.Now()
	t, err := fixture.Generate(dir, n, s.cfg.Seed)
	if err != nil {
		return nil, false, err
	}
	s.logf("N=%d: generated in %v", n, time.Since(start).Round(time.Millisecond))
	return t, false, writeMarker(dir, t)
}

func markerPath(dir string) string { return filepath.Join(dir, "complete.json") }

func writeMarker(dir string, t *fixture.Tree) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return os.WriteFile(markerPath(dir), b, 0o644)
}

// childEnv is the whole environment of every ccski and floor process: the
// fixture's home, ccski's config and cache folders under state, no user
// configuration, no other CCSKI_* or agent variables.
func childEnv(t *fixture.Tree, state string) []string {
	return []string{
		"HOME=" + t.Home,
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TMPDIR=" + os.TempDir(),
		"XDG_CONFIG_HOME=" + filepath.Join(state, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(state, "cache"),
	}
}

// roots are the roots ccski scans: every root `ccski sources --json`
// reports as existing. For a Claude plugin that is the plugin's install
// folder, which the floor walks whole (ccski reads only the skills the
// plugin declares; in the fixture they are the same).
func (s *suite) roots(ctx context.Context, t *fixture.Tree, env []string) ([]string, error) {
	var out bytes.Buffer
	if err := s.exec(ctx, t, env, &out, s.ccski, "sources", "--json", "--user-dir", t.Home); err != nil {
		return nil, err
	}
	var src struct {
		Roots []struct {
			Path   string `json:"path"`
			Exists bool   `json:"exists"`
		} `json:"roots"`
	}
	if err := json.Unmarshal(out.Bytes(), &src); err != nil {
		return nil, fmt.Errorf("ccski sources --json: %w", err)
	}
	var roots []string
	for _, r := range src.Roots {
		if r.Exists {
			roots = append(roots, r.Path)
		}
	}
	if len(roots) == 0 {
		return nil, errors.New("ccski sources --json reported no existing root")
	}
	return roots, nil
}

// exec runs bin in the workspace with env, stdout to out.
func (s *suite) exec(ctx context.Context, t *fixture.Tree, env []string, out io.Writer, bin string, args ...string) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.Workspace
	cmd.Env = env
	cmd.Stdout = out
	var stderr tailBuffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

// timed runs bin like exec under internal/bench/peakrss, which forks it from a
// small process and reports its wall time and peak RSS (KiB).
func (s *suite) timed(ctx context.Context, t *fixture.Tree, env []string, out io.Writer, bin string, args ...string) (time.Duration, float64, error) {
	report := filepath.Join(s.work, "peakrss.out")
	_ = os.Remove(report)
	if err := s.exec(ctx, t, env, out, s.peakrss, append([]string{report, bin}, args...)...); err != nil {
		return 0, math.NaN(), err
	}
	b, err := os.ReadFile(report)
	if err != nil {
		return 0, math.NaN(), err
	}
	var ns, kib int64
	if _, err := fmt.Sscan(string(b), &ns, &kib); err != nil {
		return 0, math.NaN(), fmt.Errorf("peakrss output %q: %w", b, err)
	}
	rss := float64(kib)
	if kib < 0 {
		rss = math.NaN()
	}
	return time.Duration(ns), rss, nil
}

func (s *suite) engine(t *fixture.Tree) (*engine.Engine, error) {
	return engine.New(configs.Default(all.Registry()), providers.NewEnv(t.Home, t.Workspace, func(string) string { return "" }))
}

// snapshot builds an engine over t and takes its first snapshot, untimed.
func (s *suite) snapshot(ctx context.Context, t *fixture.Tree) (*engine.Engine, *pipeline.Snapshot, error) {
	e, err := s.engine(t)
	if err != nil {
		return nil, nil, err
	}
	snap, _, err := e.Snapshot(ctx)
	return e, snap, err
}

// coldRuns measures cold discovery (a new engine per run) beside the floor
// walk of roots, interleaved, s.cfg.Runs times, and returns the medians in
// milliseconds. seen gets each snapshot taken.
func (s *suite) coldRuns(ctx context.Context, t *fixture.Tree, roots []string,
	seen func(*pipeline.Snapshot)) (cold, floor float64, err error) {
	var cc, cf []float64
	for range s.cfg.Runs {
		e, err := s.engine(t)
		if err != nil {
			return 0, 0, err
		}
		runtime.GC()
		start := time.Now()
		snap, _, err := e.Snapshot(ctx)
		cc = append(cc, ms(time.Since(start)))
		if err != nil {
			return 0, 0, err
		}
		seen(snap)
		runtime.GC()
		start = time.Now()
		if _, err := floorlib.Walk(roots); err != nil {
			return 0, 0, err
		}
		cf = append(cf, ms(time.Since(start)))
	}
	return median(cc), median(cf), nil
}

// discovery measures cold discovery (a new engine per run) beside the
// floor walk, then a rescan with nothing changed on a warm engine beside
// the floor's restat of every folder and skill file. It returns the last
// cold snapshot.
func (s *suite) discovery(ctx context.Context, t *fixture.Tree, res *sizeResult) (*pipeline.Snapshot, error) {
	// Warm the page cache and the runtime; not timed.
	if _, err := floorlib.Walk(res.Roots); err != nil {
		return nil, err
	}
	e, _, err := s.snapshot(ctx, t)
	if err != nil {
		return nil, err
	}
	var snap *pipeline.Snapshot
	cold, floor, err := s.coldRuns(ctx, t, res.Roots, func(sn *pipeline.Snapshot) {
		snap, res.Records = sn, len(sn.All)
	})
	if err != nil {
		return nil, err
	}
	res.metric("cold").set(cold, floor)

	// Rescan: e is warm (it scanned once above).
	dirs, files, err := floorlib.List(res.Roots)
	if err != nil {
		return snap, err
	}
	var rc, rf []float64
	reads := 0
	for range s.cfg.Runs {
		runtime.GC()
		start := time.Now()
		_, st, err := e.Snapshot(ctx)
		rc = append(rc, ms(time.Since(start)))
		if err != nil {
			return snap, err
		}
		reads = max(reads, st.FilesRead)
		runtime.GC()
		start = time.Now()
		if _, err := floorlib.Restat(dirs, files); err != nil {
			return snap, err
		}
		rf = append(rf, ms(time.Since(start)))
	}
	res.metric("rescan").set(median(rc), median(rf))
	res.metric("rescan-reads").set(float64(reads), 0)
	return snap, nil
}

// listRecord is the part of a `ccski list --json` record the suite uses.
type listRecord struct {
	ID   string `json:"id"`
	File string `json:"file"`
	Dir  string `json:"path"`
	URI  string `json:"uri"` // the skill:// URI of its SKILL.md
}

// list measures `ccski list --json` beside the floor process, interleaved
// after one untimed warm-up each: with the trust store the warm-up
// recorded (every later run a user makes), and as a first run, with new
// config and cache folders each time (no store: every project and plugin
// skill is hashed and recorded). It returns the listed records and the
// floor process's median wall time (in ms).
func (s *suite) list(ctx context.Context, t *fixture.Tree, env []string, res *sizeResult) ([]listRecord, float64, error) {
	args := []string{"list", "--json", "--user-dir", t.Home}
	var out bytes.Buffer
	if err := s.exec(ctx, t, env, &out, s.ccski, args...); err != nil {
		return nil, math.NaN(), err
	}
	var recs []listRecord
	if err := json.Unmarshal(out.Bytes(), &recs); err != nil {
		return nil, math.NaN(), fmt.Errorf("ccski list --json: %w", err)
	}
	res.Visible = len(recs)
	// The untimed run above recorded the trust store and wrote ccski's
	// caches. ccski trusts a file's stat only once its times are two
	// seconds old (a change within the same clock tick could hide), so
	// the timed runs start after that, as on a machine where the store
	// was written long ago: a store written just now is read every time.
	time.Sleep(settleWait)
	var fout bytes.Buffer
	if err := s.exec(ctx, t, env, &fout, s.floor, res.Roots...); err != nil {
		return recs, math.NaN(), err
	}
	if got := strings.TrimSpace(fout.String()); got != fmt.Sprint(res.Found) {
		res.Problems = append(res.Problems, fmt.Sprintf("the floor process read %s skill files, the in-process floor %d", got, res.Found))
	}
	first := s.state(res.N, "first-run")
	firstEnv := childEnv(t, first)
	baseEnv := childEnv(t, s.state(res.N, "baseline"))
	if s.baseline != "" {
		// The baseline's warm-up run, in its own folders.
		if err := s.exec(ctx, t, baseEnv, io.Discard, s.baseline, args...); err != nil {
			return recs, math.NaN(), fmt.Errorf("baseline %s: %w", s.baseRev, err)
		}
		time.Sleep(settleWait)
	}
	var cw, cr, fw, fr, c1, bw []float64
	for range s.cfg.Runs {
		out.Reset()
		wall, rss, err := s.timed(ctx, t, env, &out, s.ccski, args...)
		if err != nil {
			return recs, math.NaN(), err
		}
		cw, cr = append(cw, ms(wall)), append(cr, rss/1024)
		if s.baseline != "" {
			wall, _, err := s.timed(ctx, t, baseEnv, io.Discard, s.baseline, args...)
			if err != nil {
				return recs, math.NaN(), fmt.Errorf("baseline %s: %w", s.baseRev, err)
			}
			bw = append(bw, ms(wall))
		}
		fout.Reset()
		wall, rss, err = s.timed(ctx, t, env, &fout, s.floor, res.Roots...)
		if err != nil {
			return recs, math.NaN(), err
		}
		fw, fr = append(fw, ms(wall)), append(fr, rss/1024)
		if err := os.RemoveAll(first); err != nil {
			return recs, math.NaN(), err
		}
		out.Reset()
		wall, _, err = s.timed(ctx, t, firstEnv, &out, s.ccski, args...)
		if err != nil {
			return recs, math.NaN(), err
		}
		c1 = append(c1, ms(wall))
	}
	if _, err := os.Stat(filepath.Join(first, "config", "ccski", "trust.json")); err != nil {
		res.Problems = append(res.Problems, fmt.Sprintf("the first run of list --json recorded no trust store: %v", err))
	}
	res.metric("list-wall").set(median(cw), median(fw))
	if s.baseline != "" {
		res.metric("list-wall-base").set(median(cw), median(bw)) // the floor column holds the baseline's figure
	}
	res.metric("list-first").set(median(c1), median(fw))
	res.metric("list-rss").set(median(cr), median(fr))
	return recs, median(fw), nil
}

// ready measures `ccski mcp` from spawn to the first tools/list answered,
// with the default catalogue budget (what users run), with mcp.scan set
// to block (every skill scanned before the first list is served) and with
// the full list (--catalog 0), beside the floor process's wall time, and
// with a baseline build its server with the defaults. The variants are
// interleaved within each run.
func (s *suite) ready(ctx context.Context, t *fixture.Tree, env []string, res *sizeResult, floorWall float64) error {
	variants := []readyVariant{
		{"mcp-ready", env, nil, s.ccski},
		{"mcp-ready-block", append(slices.Clip(env), "CCSKI_MCP__SCAN=block"), nil, s.ccski},
		{"mcp-ready-full", env, []string{"--catalog", "0"}, s.ccski},
	}
	if s.baseline != "" {
		variants = append(variants, readyVariant{"mcp-ready-base", childEnv(t, s.state(res.N, "baseline")), nil, s.baseline})
	}
	d := make([][]float64, len(variants))
	for range s.cfg.Runs {
		for i, v := range variants {
			start := time.Now()
			srv, err := startServer(ctx, v.bin, t, v.env, v.extra...)
			if err != nil {
				return err
			}
			tools, err := srv.cs.ListTools(ctx, nil)
			took := time.Since(start)
			if err == nil && !hasTool(tools.Tools, "skill") {
				err = fmt.Errorf("tools/list gave %d tools without the skill tool", len(tools.Tools))
			}
			if cerr := srv.close(); err == nil && cerr != nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%s: %w", v.key, err)
			}
			if v.key == "mcp-ready-full" && len(d[i]) == 0 {
				if got := len(parseIDs(skillTool(tools.Tools).Description)); got != res.Visible {
					res.Problems = append(res.Problems, fmt.Sprintf("with --catalog 0 the skill tool lists %d skills, ccski list --json %d", got, res.Visible))
				}
			}
			d[i] = append(d[i], ms(took))
		}
	}
	for i, v := range variants {
		if v.key == "mcp-ready-base" {
			res.metric(v.key).set(median(d[0]), median(d[i])) // the floor column holds the baseline's figure
			continue
		}
		res.metric(v.key).set(median(d[i]), floorWall)
	}
	return nil
}

// readyVariant is one way of starting `ccski mcp` that ready measures:
// its row, environment, extra flags and binary.
type readyVariant struct {
	key   string
	env   []string
	extra []string
	bin   string
}

func hasTool(tools []*sdk.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// skillTool is the skill tool of a tools/list answer that has one.
func skillTool(tools []*sdk.Tool) *sdk.Tool {
	for _, t := range tools {
		if t.Name == "skill" {
			return t
		}
	}
	return &sdk.Tool{}
}

// idleWait is how long the suite lets the server idle before it reads the
// resident set again (the server releases memory after 1 s idle).
const idleWait = 2 * time.Second

// sessionResult is what one MCP session measured.
type sessionResult struct {
	lat                  []float64 // sequential call latencies (ms)
	serverCPU, clientCPU float64   // CPU time over the sequential calls (ms)
	tput                 float64   // calls/s with 8 in flight
	hwm                  float64   // peak resident set, VmHWM, at the end (MiB)
	idle                 float64   // VmRSS after idleWait (MiB); NaN unless asked for
}

// session is one `ccski mcp` session as an agent holds it: default flags
// (the catalogue budget, rescans and the watcher), tools/list, then the
// calls of sample: the first half one at a time, the second half 8 in
// flight. At the end it reads the peak resident set (VmHWM) and, with
// idle, the resident set after idleWait.
func (s *suite) session(ctx context.Context, bin string, t *fixture.Tree, env []string, sample []string, idle bool) (*sessionResult, error) {
	srv, err := startServer(ctx, bin, t, env)
	if err != nil {
		return nil, err
	}
	defer srv.close()
	if _, err := srv.cs.ListTools(ctx, nil); err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	if _, _, err := waitIdle(ctx, srv.pid()); err != nil {
		return nil, err
	}
	r := &sessionResult{idle: math.NaN()}
	seq, par := sample[:len(sample)/2], sample[len(sample)/2:]
	serverCPU, clientCPU := cpuMS(srv.pid()), selfCPUMS()
	for _, id := range seq {
		start := time.Now()
		if err := srv.call(ctx, id); err != nil {
			return nil, err
		}
		r.lat = append(r.lat, ms(time.Since(start)))
	}
	r.serverCPU, r.clientCPU = cpuMS(srv.pid())-serverCPU, selfCPUMS()-clientCPU
	took, err := srv.callAll(ctx, par, inFlight)
	if err != nil {
		return nil, err
	}
	r.tput = float64(len(par)) / took.Seconds()
	r.hwm = statusKiB(srv.pid(), "VmHWM") / 1024
	if idle {
		time.Sleep(idleWait) // the server gives freed memory back once idle
		r.idle = statusKiB(srv.pid(), "VmRSS") / 1024
	}
	return r, srv.close()
}

// Idle detection: a server is idle once its CPU time grows by at most
// idleCPU over idleSpan; waitIdle gives up after idleMax.
const (
	idlePoll = 100 * time.Millisecond
	idleSpan = 400 * time.Millisecond
	idleCPU  = 10.0 // ms, one clock tick
	idleMax  = 3 * time.Minute
)

// waitIdle waits until the process pid has stopped working (the
// background scan and trust recording a server starts once it has
// answered) and returns the CPU time it used meanwhile (ms) and how long
// that took.
// idleFrom is how long after tools/list the suite starts looking for the
// server to be idle: the background scan and trust recording start 1 s
// after the first snapshot, and a server idle before then is not done.
const idleFrom = 1500 * time.Millisecond

func waitIdle(ctx context.Context, pid int) (float64, time.Duration, error) {
	start := time.Now()
	cpu0 := cpuMS(pid)
	if math.IsNaN(cpu0) {
		return math.NaN(), 0, nil // no /proc: nothing to wait for
	}
	var window []float64
	for {
		if time.Since(start) < idleFrom {
			select { // the background work has not started yet
			case <-ctx.Done():
				return math.NaN(), time.Since(start), ctx.Err()
			case <-time.After(idlePoll):
			}
			continue
		}
		c := cpuMS(pid)
		window = append(window, c)
		if n := int(idleSpan / idlePoll); len(window) > n {
			window = window[len(window)-n-1:]
			if c-window[0] <= idleCPU {
				return c - cpu0, time.Since(start), nil
			}
		}
		if time.Since(start) > idleMax {
			return c - cpu0, time.Since(start), fmt.Errorf("the server was still busy %v after it answered tools/list", idleMax)
		}
		select {
		case <-ctx.Done():
			return c - cpu0, time.Since(start), ctx.Err()
		case <-time.After(idlePoll):
		}
	}
}

// sessionKeys are the rows the sessions measure.
var sessionKeys = []string{"call-p50", "call-p99", "call-cpu", "client-cpu", "call-8", "call-8-base", "peak-rss", "peak-rss-base", "rss-idle"}

// sessions runs -runs sessions of -calls tools/call requests, the ids
// drawn with the seed from the skills `list --json` printed (the skill
// tool loads any of them, named in its description or not), beside
// reading the same files in-process; with a baseline build, each run is
// followed by the same session with it.
func (s *suite) sessions(ctx context.Context, t *fixture.Tree, env []string, recs []listRecord, res *sizeResult) error {
	if len(recs) == 0 {
		return errors.New("no skills from ccski list --json to call")
	}
	rng := rand.New(rand.NewPCG(s.cfg.Seed, uint64(res.N)))
	sample := make([]string, s.cfg.Calls)
	files := map[string]string{}
	for _, r := range recs {
		files[r.ID] = r.File
	}
	for i := range sample {
		sample[i] = recs[rng.IntN(len(recs))].ID
	}
	var baseErr error
	baseEnv := childEnv(t, s.state(res.N, "baseline"))
	if s.baseline != "" {
		// The baseline records its own trust store first, as the warm-up
		// of list --json did for ccski.
		if err := s.exec(ctx, t, baseEnv, io.Discard, s.baseline, "list", "--json", "--user-dir", t.Home); err != nil {
			baseErr = fmt.Errorf("baseline %s: %w", s.baseRev, err)
		}
	}
	var lat, hwm, tput, idle, bTput, bHWM []float64
	var serverCPU, clientCPU float64
	for run := range s.cfg.Runs {
		r, err := s.session(ctx, s.ccski, t, env, sample, run == s.cfg.Runs-1)
		if err != nil {
			return &phaseError{sessionKeys, err}
		}
		lat, hwm, tput = append(lat, r.lat...), append(hwm, r.hwm), append(tput, r.tput)
		serverCPU, clientCPU = serverCPU+r.serverCPU, clientCPU+r.clientCPU
		if !math.IsNaN(r.idle) {
			idle = append(idle, r.idle)
		}
		if s.baseline != "" && baseErr == nil {
			b, err := s.session(ctx, s.baseline, t, baseEnv, sample, false)
			if err != nil {
				baseErr = fmt.Errorf("baseline %s: %w", s.baseRev, err)
				continue
			}
			bTput, bHWM = append(bTput, b.tput), append(bHWM, b.hwm)
		}
	}
	// The disk's share: the same files read in-process, one at a time and
	// 8 at once.
	seq, par := sample[:len(sample)/2], sample[len(sample)/2:]
	var flat, ftput []float64
	for range s.cfg.Runs {
		for _, id := range seq {
			start := time.Now()
			_, _ = os.ReadFile(files[id])
			flat = append(flat, ms(time.Since(start)))
		}
		start := time.Now()
		parallel.Each(context.Background(), len(par), inFlight, func(i int) { _, _ = os.ReadFile(files[par[i]]) })
		ftput = append(ftput, float64(len(par))/time.Since(start).Seconds())
	}
	res.metric("call-p50").set(percentile(lat, 0.50), percentile(flat, 0.50))
	res.metric("call-p99").set(percentile(lat, 0.99), percentile(flat, 0.99))
	res.metric("call-cpu").set(serverCPU/float64(len(lat)), math.NaN())
	res.metric("client-cpu").set(clientCPU/float64(len(lat)), math.NaN())
	res.metric("call-8").set(median(tput), median(ftput))
	res.metric("peak-rss").set(median(hwm), math.NaN())
	res.metric("rss-idle").set(median(idle), math.NaN())
	if s.baseline != "" {
		// The floor column holds the baseline's figure.
		res.metric("call-8-base").set(median(tput), median(bTput))
		res.metric("peak-rss-base").set(median(hwm), median(bHWM))
		if baseErr != nil {
			return &phaseError{[]string{"call-8-base", "peak-rss-base"}, baseErr}
		}
	}
	return nil
}

// editSession measures edit → list_changed on one `ccski mcp
// --refresh-interval 1h --catalog 0` session: the watcher alone sees
// edits, and every description is in the skill tool's, so that an edited
// description always changes the tool list (at the default budget most
// descriptions are not shown, and their edits change no list).
func (s *suite) editSession(ctx context.Context, t *fixture.Tree, env []string, recs []listRecord, res *sizeResult) error {
	srv, err := startServer(ctx, s.ccski, t, env, "--refresh-interval", "1h", "--catalog", "0")
	if err != nil {
		return err
	}
	defer srv.close()
	if _, err := srv.cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if _, _, err := waitIdle(ctx, srv.pid()); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(s.cfg.Seed^0xed17, uint64(res.N)))
	d, err := s.edits(ctx, t, srv, recs, rng)
	if err != nil {
		return err
	}
	res.metric("edit").set(median(d), math.NaN())
	return srv.close()
}

// edits rewrites the description of a different visible skill each run
// and times the notification; each file is put back (content and time)
// and that change's notification awaited before the next edit.
func (s *suite) edits(ctx context.Context, t *fixture.Tree, srv *server, recs []listRecord, rng *rand.Rand) ([]float64, error) {
	// While a file is edited the fixture is not the generated tree: the
	// marker goes, and comes back once every file is put back.
	dir := filepath.Dir(t.Home) // the fixture folder
	if err := os.Remove(markerPath(dir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	intact := true
	defer func() {
		if intact {
			_ = writeMarker(dir, t)
		}
	}()
	if len(recs) == 0 {
		return nil, errors.New("no skills from ccski list --json to edit")
	}
	var d []float64
	picked := map[int]bool{}
	for round := range s.cfg.Runs {
		i := rng.IntN(len(recs))
		for picked[i] && len(picked) < len(recs) {
			i = rng.IntN(len(recs))
		}
		picked[i] = true
		file := recs[i].File
		orig, err := os.ReadFile(file)
		if err != nil {
			return d, err
		}
		st, err := os.Stat(file)
		if err != nil {
			return d, err
		}
		edited, err := replaceDescription(orig, fmt.Sprintf("Edited by the benchmark suite, round %d.", round+1))
		if err != nil {
			return d, fmt.Errorf("%s: %w", file, err)
		}
		settle(srv.changed)
		start := time.Now()
		intact = false
		if err := os.WriteFile(file, edited, 0o644); err != nil {
			return d, err
		}
		var took time.Duration
		select {
		case at := <-srv.changed:
			took = at.Sub(start)
		case <-time.After(notifyTimeout):
			took = -1
		case <-ctx.Done():
			took = -1
		}
		// Put the file back, then wait for the change back.
		if err := os.WriteFile(file, orig, 0o644); err != nil {
			return d, err
		}
		if err := os.Chtimes(file, st.ModTime(), st.ModTime()); err != nil {
			return d, err
		}
		intact = true
		if took < 0 {
			return d, fmt.Errorf("no notifications/tools/list_changed within %v of editing %s\nserver stderr:\n%s", notifyTimeout, file, srv.stderr.String())
		}
		d = append(d, ms(took))
		select {
		case <-srv.changed:
		case <-time.After(notifyTimeout):
			return d, fmt.Errorf("no notifications/tools/list_changed within %v of restoring %s", notifyTimeout, file)
		}
	}
	return d, nil
}

// settle waits out the watcher's debounce of earlier events and drops
// their notifications.
func settle(ch chan time.Time) {
	time.Sleep(300 * time.Millisecond)
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// replaceDescription replaces the frontmatter's description line.
func replaceDescription(b []byte, desc string) ([]byte, error) {
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], "\r\n") != "---" {
		return nil, errors.New("no frontmatter")
	}
	for i, l := range lines[1:] {
		if strings.TrimRight(l, "\r\n") == "---" {
			break
		}
		if strings.HasPrefix(l, "description:") {
			lines[i+1] = fmt.Sprintf("description: %q\n", desc)
			return []byte(strings.Join(lines, "")), nil
		}
	}
	return nil, errors.New("no description line in the frontmatter")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
