package trust

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/manifest"
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
	// Background runs the checks; its Delay is how long the first waits
	// after the first snapshot, and its Wait is for tests.
	*pipeline.Background
	// DigestFile and ResultsFile, when set, keep the digests and results
	// of the checks in those files between checks (see LoadDigests and
	// LoadResults), as one-shot commands do, rather than in the server's
	// heap: a server that checks only when skills change keeps none of it
	// in between, and a check with nothing changed reads no store.
	DigestFile, ResultsFile string

	checker Checker
	log     *slog.Logger

	mu     sync.Mutex
	logged map[string]string // skill folder: the state last logged
	// drift holds, by skill folder, the integrity the last check found of
	// the skills whose files changed since recorded (see Drift).
	drift map[string]pipeline.Integrity
}

// NewRecorder returns a recorder for the store at path that logs to log.
func NewRecorder(path string, log *slog.Logger) *Recorder {
	r := &Recorder{checker: Checker{Path: path}, log: log, logged: map[string]string{}}
	r.Background = pipeline.NewBackground(time.Second, r.check)
	return r
}

// Observe takes a new snapshot; it never blocks on a check. It is meant
// for a discovery subscription.
func (r *Recorder) Observe(snap *pipeline.Snapshot) {
	if snap.Integrity != nil {
		r.report(snap, snap.Integrity, nil)
		return
	}
	r.Offer(snap)
}

// Recheck takes the snapshot served again, after a rescan that found
// nothing changed kept it; it never blocks on a check. The snapshot is
// checked again: the check hashes every file of a skill, and an edit in
// place of a script or reference changes nothing discovery reads. A
// snapshot the engine checked (under mcp.require_trusted) was checked
// inside the rescan. It is meant for live.Refresher.SubscribeUnchanged.
func (r *Recorder) Recheck(snap *pipeline.Snapshot) {
	if snap.Integrity != nil {
		return
	}
	r.Rerun(snap)
}

// check checks snap's servable skills against the store and reports.
func (r *Recorder) check(snap *pipeline.Snapshot) {
	records := snap.Servable()
	r.loadCaches()
	found, err := r.checker.Check(context.Background(), records)
	r.storeCaches()
	r.report(snap, found, err)
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
	r.checker.LoadCaches(r.DigestFile, r.ResultsFile)
}

// storeCaches writes what changed of the digests and results to their
// files and forgets them; without files (or when one cannot be written)
// the digests stay in memory, swept of the folders no longer served.
func (r *Recorder) storeCaches() {
	if r.DigestFile == "" || r.ResultsFile == "" {
		r.checker.Cache.Sweep()
		return
	}
	if r.checker.SaveCaches(r.DigestFile, r.ResultsFile) != nil {
		return
	}
	r.checker.Cache, r.checker.Results = nil, nil
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
	drift := map[string]pipeline.Integrity{}
	for _, rec := range snap.Servable() {
		in, ok := found[rec]
		if !ok || in.State != pipeline.IntegrityChanged {
			continue
		}
		k := Key(rec)
		seen[k] = true
		drift[k] = in
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
	r.drift = drift
}

// Drift returns what the last check found of rec's files when they
// changed since recorded (or since trusted); ok is false when they did
// not, when rec is not checked, before the first check, and for a nil
// Recorder. The skill tool's header says it (mcp.Options.Drift). It is
// safe for concurrent use.
func (r *Recorder) Drift(rec *pipeline.Record) (in pipeline.Integrity, ok bool) {
	if r == nil || !Checked(rec) {
		return in, false
	}
	k := Key(rec)
	r.mu.Lock()
	defer r.mu.Unlock()
	in, ok = r.drift[k]
	return in, ok
}
