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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccski/ccski/bench/floor/floorlib"
	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/engine"
	"github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/providers"
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
	rep := &report{cfg: cfg, machine: machineInfo(), started: time.Now().UTC()}
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
	cfg     config
	work    string
	ccski   string // binaries
	floor   string
	peakrss string
	logf    func(string, ...any)
}

// build compiles ccski and the floor once, into the work folder.
func (s *suite) build(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return errors.New("run the suite inside the ccski module (go run ./bench from the repository root)")
	}
	root := filepath.Dir(gomod)
	bin := filepath.Join(s.work, "bin")
	s.ccski, s.floor, s.peakrss = filepath.Join(bin, "ccski"), filepath.Join(bin, "floor"), filepath.Join(bin, "peakrss")
	for _, b := range []struct{ out, pkg string }{{s.ccski, "./cmd/ccski"}, {s.floor, "./bench/floor"}, {s.peakrss, "./bench/peakrss"}} {
		s.logf("go build -o %s %s", b.out, b.pkg)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", b.out, b.pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return nil
}

// sizeResult is everything measured at one size.
type sizeResult struct {
	N        int
	Tree     fixture.Tree
	Cached   bool // the fixture was reused from the work folder
	Roots    []string
	Found    int // skill files the floor read
	Records  int // records ccski discovered (cold, in-process)
	Visible  int // skills `ccski list --json` printed
	Listed   int // ids in the tool description
	Metrics  []*metric
	Problems []string // anomalies seen while measuring

	coldCCSki, coldFloor float64 // for the growth table
}

func (r *sizeResult) metric(key string) *metric {
	for _, m := range r.Metrics {
		if m.Key == key {
			return m
		}
	}
	panic("unknown metric " + key)
}

// measure runs every measurement at size n. Each failure is noted on its
// metric and in the returned error; the others still run.
func (s *suite) measure(ctx context.Context, n int) (*sizeResult, error) {
	res := &sizeResult{N: n, Metrics: newMetrics(n)}
	tree, cached, err := s.fixture(n)
	if err != nil {
		return nil, fmt.Errorf("fixture: %w", err)
	}
	res.Tree, res.Cached = *tree, cached
	env := childEnv(tree, s.work)
	var errs []error
	fail := func(keys []string, err error) {
		for _, k := range keys {
			res.metric(k).Err = err.Error()
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
		fail(metricKeys, fmt.Errorf("the roots to measure: %w", err))
		return res, errors.Join(errs...)
	}

	s.logf("N=%d: cold discovery and rescan, in-process", n)
	if err := s.discovery(ctx, tree, res); err != nil {
		fail([]string{"cold", "rescan", "rescan-reads"}, err)
	}
	s.logf("N=%d: ccski list --json and the floor process", n)
	recs, floorWall, err := s.list(ctx, tree, env, res)
	if err != nil {
		fail([]string{"list-wall", "list-rss"}, err)
	}
	s.logf("N=%d: ccski mcp ready", n)
	if err := s.ready(ctx, tree, env, res, floorWall); err != nil {
		fail([]string{"mcp-ready", "mcp-ready-full"}, err)
	}
	s.logf("N=%d: ccski mcp session: load every skill, calls, edits", n)
	if err := s.session(ctx, tree, env, recs, res); err != nil {
		var pe *phaseError
		keys := []string{"server-rss", "server-rss-idle", "call-p50", "call-p99", "call-cpu", "client-cpu", "call-8", "edit"}
		if errors.As(err, &pe) {
			keys = pe.keys
		}
		fail(keys, err)
	}
	return res, errors.Join(errs...)
}

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
// fixture's home, no user configuration, no CCSKI_* or agent variables.
func childEnv(t *fixture.Tree, work string) []string {
	return []string{
		"HOME=" + t.Home,
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TMPDIR=" + os.TempDir(),
		"XDG_CONFIG_HOME=" + filepath.Join(work, "no-config"),
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

// timed runs bin like exec under bench/peakrss, which forks it from a
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
	return engine.New(configs.Default(), providers.NewEnv(t.Home, t.Workspace, func(string) string { return "" }))
}

// discovery measures cold discovery (a new engine per run) beside the
// floor walk, then a rescan with nothing changed on a warm engine beside
// the floor's restat of every folder and skill file.
func (s *suite) discovery(ctx context.Context, t *fixture.Tree, res *sizeResult) error {
	// Warm the page cache and the runtime; not timed.
	if _, err := floorlib.Walk(res.Roots); err != nil {
		return err
	}
	e, err := s.engine(t)
	if err != nil {
		return err
	}
	if _, _, err := e.Snapshot(ctx); err != nil {
		return err
	}
	var cc, cf []float64
	for range s.cfg.Runs {
		e, err := s.engine(t)
		if err != nil {
			return err
		}
		runtime.GC()
		start := time.Now()
		snap, _, err := e.Snapshot(ctx)
		cc = append(cc, ms(time.Since(start)))
		if err != nil {
			return err
		}
		res.Records = len(snap.All)
		runtime.GC()
		start = time.Now()
		if _, err := floorlib.Walk(res.Roots); err != nil {
			return err
		}
		cf = append(cf, ms(time.Since(start)))
	}
	res.coldCCSki, res.coldFloor = median(cc), median(cf)
	res.metric("cold").set(res.coldCCSki, res.coldFloor)

	// Rescan: e is warm (it scanned once above).
	dirs, files, err := floorlib.List(res.Roots)
	if err != nil {
		return err
	}
	var rc, rf []float64
	reads := 0
	for range s.cfg.Runs {
		runtime.GC()
		start := time.Now()
		_, st, err := e.Snapshot(ctx)
		rc = append(rc, ms(time.Since(start)))
		if err != nil {
			return err
		}
		reads = max(reads, st.FilesRead)
		runtime.GC()
		start = time.Now()
		if _, err := floorlib.Restat(dirs, files); err != nil {
			return err
		}
		rf = append(rf, ms(time.Since(start)))
	}
	res.metric("rescan").set(median(rc), median(rf))
	res.metric("rescan-reads").set(float64(reads), 0)
	return nil
}

// listRecord is the part of a `ccski list --json` record the suite uses.
type listRecord struct {
	ID   string `json:"id"`
	File string `json:"file"`
}

// list measures `ccski list --json` beside the floor process, interleaved
// after one untimed warm-up each. It returns the listed records and the
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
	var fout bytes.Buffer
	if err := s.exec(ctx, t, env, &fout, s.floor, res.Roots...); err != nil {
		return recs, math.NaN(), err
	}
	if got := strings.TrimSpace(fout.String()); got != fmt.Sprint(res.Found) {
		res.Problems = append(res.Problems, fmt.Sprintf("the floor process read %s skill files, the in-process floor %d", got, res.Found))
	}
	var cw, cr, fw, fr []float64
	for range s.cfg.Runs {
		out.Reset()
		wall, rss, err := s.timed(ctx, t, env, &out, s.ccski, args...)
		if err != nil {
			return recs, math.NaN(), err
		}
		cw, cr = append(cw, ms(wall)), append(cr, rss/1024)
		fout.Reset()
		wall, rss, err = s.timed(ctx, t, env, &fout, s.floor, res.Roots...)
		if err != nil {
			return recs, math.NaN(), err
		}
		fw, fr = append(fw, ms(wall)), append(fr, rss/1024)
	}
	res.metric("list-wall").set(median(cw), median(fw))
	res.metric("list-rss").set(median(cr), median(fr))
	return recs, median(fw), nil
}

// ready measures `ccski mcp` from spawn to the first tools/list answered,
// with the default catalogue budget (what users run) and with the full
// list (--catalog 0), beside the floor process's wall time.
func (s *suite) ready(ctx context.Context, t *fixture.Tree, env []string, res *sizeResult, floorWall float64) error {
	for _, v := range []struct {
		key   string
		extra []string
	}{{"mcp-ready", nil}, {"mcp-ready-full", []string{"--catalog", "0"}}} {
		var d []float64
		for range s.cfg.Runs {
			start := time.Now()
			srv, err := startServer(ctx, s.ccski, t, env, v.extra...)
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
				return err
			}
			d = append(d, ms(took))
		}
		res.metric(v.key).set(median(d), floorWall)
	}
	return nil
}

func hasTool(tools []*sdk.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// idleWait is how long the suite lets the server idle before it reads the
// resident set a second time (the server releases memory after 1 s idle).
const idleWait = 2 * time.Second

// session measures one `ccski mcp --refresh-interval 1h` session (the
// watcher alone triggers rescans): RSS after loading every listed skill
// once, tools/call latency sequentially and throughput with 8 in flight
// (beside reading the same files in-process), then edit → list_changed.
func (s *suite) session(ctx context.Context, t *fixture.Tree, env []string, recs []listRecord, res *sizeResult) error {
	srv, err := startServer(ctx, s.ccski, t, env, "--refresh-interval", "1h", "--catalog", "0")
	if err != nil {
		return err
	}
	defer srv.close()
	tools, err := srv.cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if len(tools.Tools) != 1 {
		return fmt.Errorf("tools/list gave %d tools, want the one skill tool", len(tools.Tools))
	}
	ids := parseIDs(tools.Tools[0].Description)
	res.Listed = len(ids)
	if len(ids) == 0 {
		return errors.New("the skill tool lists no skills")
	}
	if len(ids) != res.Visible {
		res.Problems = append(res.Problems, fmt.Sprintf("tools/list lists %d skills, ccski list --json %d", len(ids), res.Visible))
	}
	files := map[string]string{}
	for _, r := range recs {
		files[r.ID] = r.File
	}

	// Every skill once, 8 in flight, then the server's resident set.
	if _, err := srv.callAll(ctx, ids, inFlight); err != nil {
		return &phaseError{[]string{"server-rss", "server-rss-idle", "call-p50", "call-p99", "call-cpu", "client-cpu", "call-8", "edit"}, err}
	}
	res.metric("server-rss").set(vmRSSKiB(srv.pid())/1024, math.NaN())
	time.Sleep(idleWait) // the server gives freed memory back once idle
	res.metric("server-rss-idle").set(vmRSSKiB(srv.pid())/1024, math.NaN())

	// Sequential latency over ids sampled with the seed.
	rng := rand.New(rand.NewPCG(s.cfg.Seed, uint64(res.N)))
	sample := make([]string, s.cfg.Calls)
	for i := range sample {
		sample[i] = ids[rng.IntN(len(ids))]
	}
	var lat []float64
	serverCPU, clientCPU := cpuMS(srv.pid()), selfCPUMS()
	for range s.cfg.Runs {
		for _, id := range sample {
			start := time.Now()
			if err := srv.call(ctx, id); err != nil {
				return &phaseError{[]string{"call-p50", "call-p99", "call-cpu", "client-cpu", "call-8", "edit"}, err}
			}
			lat = append(lat, ms(time.Since(start)))
		}
	}
	serverCPU, clientCPU = cpuMS(srv.pid())-serverCPU, selfCPUMS()-clientCPU
	var flat []float64
	for range s.cfg.Runs {
		for _, id := range sample {
			start := time.Now()
			_, _ = os.ReadFile(files[id])
			flat = append(flat, ms(time.Since(start)))
		}
	}
	res.metric("call-p50").set(percentile(lat, 0.50), percentile(flat, 0.50))
	res.metric("call-p99").set(percentile(lat, 0.99), percentile(flat, 0.99))
	res.metric("call-cpu").set(serverCPU/float64(len(lat)), math.NaN())
	res.metric("client-cpu").set(clientCPU/float64(len(lat)), math.NaN())

	// Throughput with 8 in flight on the one session.
	var tc, tf []float64
	for range s.cfg.Runs {
		took, err := srv.callAll(ctx, sample, inFlight)
		if err != nil {
			return &phaseError{[]string{"call-8", "edit"}, err}
		}
		tc = append(tc, float64(len(sample))/took.Seconds())
		start := time.Now()
		parallel(len(sample), inFlight, func(i int) { _, _ = os.ReadFile(files[sample[i]]) })
		tf = append(tf, float64(len(sample))/time.Since(start).Seconds())
	}
	res.metric("call-8").set(median(tc), median(tf))

	// Edit → list_changed.
	d, err := s.edits(ctx, t, srv, recs, rng)
	if err != nil {
		return &phaseError{[]string{"edit"}, err}
	}
	res.metric("edit").set(median(d), math.NaN())
	if err := srv.close(); err != nil {
		return &phaseError{nil, err} // every figure stands
	}
	return nil
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

// parallel runs f(0..n-1) on workers goroutines.
func parallel(n, workers int, f func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
