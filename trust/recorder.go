package trust

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ccski/ccski/manifest"
	"github.com/ccski/ccski/pipeline"
)

// Recorder checks the skills a server serves against the store in the
// background, so that serving never waits for it: it records the project
// and plugin skills seen for the first time and logs, once per skill and
// state, the ones whose files changed. A snapshot the engine checked
// already (Snapshot.Integrity, under mcp.require_trusted) is only logged.
// A newer snapshot replaces one not yet checked; the first check waits
// Delay, so that the clients' first requests are answered first.
type Recorder struct {
	Delay time.Duration
	// DigestFile and ResultsFile, when set, keep the digests and results
	// of the checks in those files between checks (see LoadDigests and
	// LoadResults), as one-shot commands do, rather than in the server's
	// heap: a server that checks only when skills change keeps none of it
	// in between, and a check with nothing changed reads no store.
	DigestFile, ResultsFile string

	checker Checker
	log     *slog.Logger

	mu      sync.Mutex
	started bool
	next    *pipeline.Snapshot
	running bool
	logged  map[string]string // skill folder: the state last logged
	idle    *sync.Cond
}

// NewRecorder returns a recorder for the store at path that logs to log.
func NewRecorder(path string, log *slog.Logger) *Recorder {
	r := &Recorder{Delay: time.Second, checker: Checker{Path: path}, log: log,
		logged: map[string]string{}}
	r.idle = sync.NewCond(&r.mu)
	return r
}

// Observe takes a new snapshot; it never blocks on a check. It is meant
// for a discovery subscription.
func (r *Recorder) Observe(snap *pipeline.Snapshot) {
	if snap.Integrity != nil {
		r.report(snap, snap.Integrity, nil)
		return
	}
	r.mu.Lock()
	r.next = snap
	start := !r.running
	r.running = true
	r.mu.Unlock()
	if start {
		go r.loop()
	}
}

// Wait returns once no check is running or pending: for tests.
func (r *Recorder) Wait() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.running {
		r.idle.Wait()
	}
}

func (r *Recorder) loop() {
	r.mu.Lock()
	first := !r.started
	r.started = true
	r.mu.Unlock()
	if first && r.Delay > 0 {
		time.Sleep(r.Delay)
	}
	for {
		r.mu.Lock()
		snap := r.next
		r.next = nil
		if snap == nil {
			r.running = false
			r.idle.Broadcast()
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		records := servable(snap)
		r.loadCaches()
		found, err := r.checker.Check(context.Background(), records)
		r.storeCaches()
		r.report(snap, found, err)
	}
}

// loadCaches reads the digests and results of the last checks from their
// files, when the recorder keeps them there and holds none.
func (r *Recorder) loadCaches() {
	switch {
	case r.DigestFile == "" || r.ResultsFile == "":
		if r.checker.Cache == nil {
			r.checker.Cache = manifest.NewCache() // kept in memory
		}
		return
	case r.checker.Results != nil:
		return // a write failed: what is in memory is all there is
	}
	r.checker.Cache, r.checker.Results = manifest.NewCache(), &Results{}
	LoadDigests(r.checker.Cache, r.DigestFile)
	LoadResults(r.checker.Results, r.ResultsFile)
}

// storeCaches writes what changed of the digests and results to their
// files and forgets them; without files (or when one cannot be written)
// the digests stay in memory, swept of the folders no longer served.
func (r *Recorder) storeCaches() {
	if r.DigestFile == "" || r.ResultsFile == "" {
		r.checker.Cache.Sweep()
		return
	}
	if r.checker.Cache.Changed() && SaveDigests(r.checker.Cache, r.DigestFile) != nil {
		return
	}
	if r.checker.Results.Changed() && SaveResults(r.checker.Results, r.ResultsFile) != nil {
		return
	}
	r.checker.Cache, r.checker.Results = nil, nil
}

// servable returns the skill records an agent can be served: the visible
// skills and the copies only a dedupe hid.
func servable(snap *pipeline.Snapshot) []*pipeline.Record {
	out := slices.Clone(snap.Skills())
	for _, d := range snap.Drops {
		if d.Loadable() && !d.Record.IsCommand() {
			out = append(out, d.Record)
		}
	}
	return out
}

// report logs the store's error, and the skills whose state is news.
func (r *Recorder) report(snap *pipeline.Snapshot, found map[*pipeline.Record]pipeline.Integrity, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil && r.logged[""] != err.Error() {
		r.logged[""] = err.Error()
		r.log.Warn("trust store", "error", err.Error())
	}
	seen := map[string]bool{"": err != nil}
	for _, rec := range servable(snap) {
		in, ok := found[rec]
		if !ok || in.State != pipeline.IntegrityChanged {
			continue
		}
		k := Key(rec)
		seen[k] = true
		sum := strings.Join([]string{in.Summary(), strings.Join(in.Changed, ","), strings.Join(in.Added, ","),
			strings.Join(in.Removed, ",")}, "|")
		if r.logged[k] == sum {
			continue
		}
		r.logged[k] = sum
		r.log.Warn("skill files changed since recorded; run ccski sources for details", "skill", rec.ID,
			"dir", rec.Dir, "message", in.Describe(rec.ID))
	}
	for k := range r.logged {
		if !seen[k] {
			delete(r.logged, k)
		}
	}
}
