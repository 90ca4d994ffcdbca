// Package live keeps a discovery snapshot current while a program runs. A
// Refresher builds the first snapshot with an engine, then rescans on a
// timer and whenever a watched file changes; each new snapshot is swapped
// in atomically and handed to the subscribers. The file watcher follows
// the snapshot: the folders discovery listed (pipeline.Snapshot.Folders),
// the files the providers read to plan them (Snapshot.Manifests), and the
// nearest existing parent of a root or file that does not exist yet.
//
// The MCP server subscribes to a Refresher without importing this package
// (see mcp.Discovery), so the watcher stays out of its dependencies; any
// other long-running command can use it the same way.
package live

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/pipeline"
)

// Options configure a Refresher.
type Options struct {
	// Interval is the time between periodic rescans; 0 turns them off.
	Interval time.Duration
	// Watch runs the file watcher, so that a change on disk is seen
	// within about Debounce plus one rescan rather than at the next
	// periodic rescan.
	Watch bool
	// Logger receives one line for the first snapshot and one per
	// rescan that changed something; nil discards them.
	Logger *slog.Logger
	// Build makes the engine for another workspace folder, for
	// SetWorkspace. nil means the current engine's ForWorkspace.
	Build func(workspace string) (*engine.Engine, error)
}

// Refresher is the one goroutine that rebuilds snapshots. It rescans on a
// ticker and whenever Poke is called (pokes coalesce), swaps the new
// snapshot in, hands it to every subscriber, and logs one line per rescan
// that changed something. A rescan that fails, or whose snapshot is the
// same as the one served (pipeline.Snapshot.Same), keeps the previous
// snapshot and notifies no subscriber; after the second, the snapshot
// kept goes to those of SubscribeUnchanged.
type Refresher struct {
	opts    Options
	log     *slog.Logger
	trigger chan struct{}
	current atomic.Pointer[pipeline.Snapshot]
	scans   atomic.Int32 // rescans run, the first included: for tests
	watcher *watcher     // set by Run when Options.Watch is on and the watcher starts

	// scan serialises rescans: a rescan with the engine of a workspace
	// that SetWorkspace just replaced must not finish after, and so
	// overwrite, the rescan of the new one. Subscribers run under it,
	// so they see the snapshots one at a time, in order.
	scan sync.Mutex
	mu   sync.Mutex // guards the fields below
	eng  *engine.Engine
	ws   string
	subs []func(*pipeline.Snapshot)
	same []func(*pipeline.Snapshot) // SubscribeUnchanged
}

// New returns a refresher that discovers with eng.
func New(eng *engine.Engine, o Options) *Refresher {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Refresher{opts: o, log: log, trigger: make(chan struct{}, 1), eng: eng, ws: eng.Env().Workspace}
}

// Subscribe registers fn to receive every new snapshot, the first one
// included, right after it is swapped in. fn runs on the refresher's
// goroutine, one snapshot at a time; it must not call Refresh, First or
// SetWorkspace. Subscribe before Run, so that no snapshot is missed.
func (r *Refresher) Subscribe(fn func(*pipeline.Snapshot)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subs = append(r.subs, fn)
}

// SubscribeUnchanged registers fn to receive the snapshot served after
// every rescan that found nothing changed and kept it: for work that
// checks files discovery does not read (the scripts and references of a
// skill, which the security scan and the trust check hash), which an edit
// in place may have changed all the same. fn runs as Subscribe's do, and
// must not block: hand the snapshot to a pipeline.Background's Rerun.
func (r *Refresher) SubscribeUnchanged(fn func(*pipeline.Snapshot)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.same = append(r.same, fn)
}

// Snapshot returns the current snapshot, or nil before the first one.
func (r *Refresher) Snapshot() *pipeline.Snapshot { return r.current.Load() }

// Workspace returns the workspace folder discovery runs for.
func (r *Refresher) Workspace() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ws
}

// Poke asks for a rescan soon. It never blocks.
func (r *Refresher) Poke() {
	select {
	case r.trigger <- struct{}{}:
	default:
	}
}

// Run builds the first snapshot, logs what it found, starts the watcher
// when Options.Watch is on, then rescans at every Interval and after every
// Poke until ctx is done; it returns nil then. An error of the first
// discovery is returned: with no snapshot there is nothing to serve. It
// is an *engine.ConfigError when the configuration is at fault (see
// engine.IsConfigError).
func (r *Refresher) Run(ctx context.Context) error {
	if r.opts.Watch {
		w, err := newWatcher(r.Poke, r.log)
		if err != nil {
			r.log.Warn("file watcher unavailable; relying on periodic rescans", "err", err)
		} else {
			r.scan.Lock()
			r.watcher = w // from the first snapshot on
			r.scan.Unlock()
			// The watcher stops when Run returns, an error included.
			wctx, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			wg.Go(func() { w.run(wctx) })
			defer wg.Wait()
			defer stop()
		}
	}
	snap, stats, err := r.First(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		if engine.IsConfigError(err) { // a filter token that names nothing in the scan
			return err
		}
		return fmt.Errorf("discovery failed: %w", err)
	}
	r.log.Info("skills discovered", "skills", len(snap.Skills()), "commands", len(snap.Commands()),
		"discovered", len(snap.All), "took", stats.Duration.Round(time.Microsecond))
	// A config file's filter token that names nothing here does not stop
	// discovery (see engine.Snapshot), so say so where the operator looks.
	for _, d := range snap.Diagnostics {
		if d.Code == engine.FilterNamesNothing {
			r.log.Warn("a filter token names nothing; serving without it", "warning", d.Message)
		}
	}
	var tick <-chan time.Time
	if r.opts.Interval > 0 {
		t := time.NewTicker(r.opts.Interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
		case <-r.trigger:
		}
		r.Refresh(ctx)
	}
}

// Refresh rescans now and swaps the result in. It reports what changed.
// A failed rescan is logged and keeps the previous snapshot.
func (r *Refresher) Refresh(ctx context.Context) Diff {
	d, _, err := r.refresh(ctx)
	if err != nil && ctx.Err() == nil {
		r.log.Warn("rescan failed; still serving the previous skills", "err", err)
	}
	return d
}

// First builds and swaps in the first snapshot. Unlike Refresh it returns
// the error: with no snapshot there is nothing to keep serving.
func (r *Refresher) First(ctx context.Context) (*pipeline.Snapshot, engine.Stats, error) {
	_, stats, err := r.refresh(ctx)
	return r.Snapshot(), stats, err
}

func (r *Refresher) refresh(ctx context.Context) (Diff, engine.Stats, error) {
	r.scan.Lock()
	defer r.scan.Unlock()
	r.mu.Lock()
	eng := r.eng
	r.mu.Unlock()
	r.scans.Add(1)
	snap, stats, err := eng.Snapshot(ctx)
	if err != nil {
		return Diff{}, stats, err
	}
	var before []*pipeline.Record
	old := r.current.Load()
	if old.Same(snap) {
		// Nothing changed: the snapshot served stays, so that no index,
		// id table or subscriber's work is built again for a copy of it,
		// and no client is told of a change. The folders are those
		// already watched. The work on files the snapshot does not
		// describe is offered it again.
		r.mu.Lock()
		same := r.same
		r.mu.Unlock()
		for _, fn := range same {
			fn(old)
		}
		return Diff{}, stats, nil
	}
	if old != nil {
		before = old.Visible
	}
	d := Compare(before, snap.Visible)
	snap.Inherit(old) // the name index, when no name moved
	r.current.Store(snap)
	r.mu.Lock()
	subs := r.subs
	r.mu.Unlock()
	for _, fn := range subs {
		fn(snap)
	}
	// Clients have the snapshot first (at start, the first tools/list
	// waits for nothing else); the folders it was built from are watched
	// right after. A change made before a new folder's watch is in place
	// would go unseen by the watcher, so when folders were added one more
	// rescan follows: it catches any change since this scan read the
	// files, and reads no file when there is none.
	if r.watcher != nil && r.watcher.sync(snap) {
		r.Poke()
	}
	if !d.Empty() && old != nil { // Run logs the first snapshot
		r.log.Info("skills refreshed", "added", d.Added, "removed", d.Removed, "changed", d.Changed,
			"skills", len(snap.Visible), "files_read", stats.FilesRead, "took", stats.Duration.Round(time.Microsecond))
	}
	return d, stats, nil
}

// SetWorkspace switches discovery to another workspace folder and rescans.
// The same folder again does nothing; a folder whose engine cannot be
// built is logged and keeps the current one.
func (r *Refresher) SetWorkspace(ctx context.Context, ws string) {
	r.mu.Lock()
	if filepath.Clean(ws) == filepath.Clean(r.ws) {
		r.mu.Unlock()
		return
	}
	build := r.opts.Build
	if build == nil {
		build = r.eng.ForWorkspace
	}
	eng, err := build(ws)
	if err != nil {
		r.mu.Unlock()
		r.log.Warn("cannot use the client's root as workspace", "root", ws, "err", err)
		return
	}
	r.eng, r.ws = eng, ws
	r.mu.Unlock()
	r.log.Info("workspace set from the client's roots", "workspace", ws)
	r.Refresh(ctx)
}

// Diff counts the differences between two visible sets, by id.
type Diff struct{ Added, Removed, Changed int }

// Empty reports whether nothing changed.
func (d Diff) Empty() bool { return d == Diff{} }

// Compare counts records added, removed and changed (same id, different
// file, size, time, description or state) from old to new.
func Compare(old, new []*pipeline.Record) Diff {
	prev := make(map[string]*pipeline.Record, len(old))
	for _, r := range old {
		prev[r.ID] = r
	}
	var d Diff
	for _, r := range new {
		o, ok := prev[r.ID]
		if !ok {
			d.Added++
			continue
		}
		delete(prev, r.ID)
		if o.File != r.File || o.Size != r.Size || !o.ModTime.Equal(r.ModTime) ||
			o.Description != r.Description || o.Disabled != r.Disabled {
			d.Changed++
		}
	}
	d.Removed = len(prev)
	return d
}
