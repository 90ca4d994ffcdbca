package mcp

import (
	"context"
	"log/slog"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/engine"
	"github.com/ccski/ccski/pipeline"
)

// Refresher is the one goroutine that rebuilds snapshots. It rescans on a
// ticker and whenever Poke is called (pokes coalesce), swaps the new
// snapshot into the server, and logs one line per refresh that changed
// something. A rescan that fails keeps the previous snapshot.
type Refresher struct {
	server   *Server
	interval time.Duration
	log      *slog.Logger
	build    func(workspace string) (*engine.Engine, error)
	// OnSnapshot, if set, runs after every successful rescan (the watcher
	// uses it to follow new folders).
	OnSnapshot func(*pipeline.Snapshot)

	trigger chan struct{}
	// scan serialises Refresh: a rescan with the engine of a workspace
	// that SetWorkspace just replaced must not finish after, and so
	// overwrite, the rescan of the new one.
	scan sync.Mutex
	mu   sync.Mutex
	eng  *engine.Engine
	ws   string
}

// NewRefresher returns a refresher for eng. interval 0 turns the periodic
// rescan off. build makes an engine for another workspace, when a client
// declares its roots; nil ignores client roots.
func NewRefresher(s *Server, eng *engine.Engine, interval time.Duration, log *slog.Logger,
	build func(workspace string) (*engine.Engine, error)) *Refresher {
	return &Refresher{server: s, eng: eng, interval: interval, log: log, build: build,
		trigger: make(chan struct{}, 1), ws: eng.Env().Workspace}
}

// Poke asks for a rescan soon. It never blocks.
func (r *Refresher) Poke() {
	select {
	case r.trigger <- struct{}{}:
	default:
	}
}

// Run rescans until ctx is done. It returns nil.
func (r *Refresher) Run(ctx context.Context) error {
	var tick <-chan time.Time
	if r.interval > 0 {
		t := time.NewTicker(r.interval)
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

// First builds and serves the first snapshot. Unlike Refresh it returns
// the error: with no snapshot there is nothing to keep serving.
func (r *Refresher) First(ctx context.Context) (*pipeline.Snapshot, engine.Stats, error) {
	_, stats, err := r.refresh(ctx)
	return r.server.Snapshot(), stats, err
}

func (r *Refresher) refresh(ctx context.Context) (Diff, engine.Stats, error) {
	r.scan.Lock()
	defer r.scan.Unlock()
	r.mu.Lock()
	eng := r.eng
	r.mu.Unlock()
	snap, stats, err := eng.Snapshot(ctx)
	if err != nil {
		return Diff{}, stats, err
	}
	var before []*pipeline.Record
	old := r.server.Snapshot()
	if old != nil {
		before = old.Visible
	}
	d := Compare(before, snap.Visible)
	r.server.Update(snap)
	r.server.Touch() // the old snapshot is garbage now: release it once idle
	if r.OnSnapshot != nil {
		r.OnSnapshot(snap)
	}
	if !d.Empty() && old != nil { // the first snapshot is logged by the caller
		r.log.Info("skills refreshed", "added", d.Added, "removed", d.Removed, "changed", d.Changed,
			"skills", len(snap.Visible), "files_read", stats.FilesRead, "took", stats.Duration.Round(time.Microsecond))
	}
	return d, stats, nil
}

// SetWorkspace switches discovery to another workspace folder and rescans.
func (r *Refresher) SetWorkspace(ctx context.Context, ws string) {
	if r.build == nil {
		return
	}
	r.mu.Lock()
	if filepath.Clean(ws) == filepath.Clean(r.ws) {
		r.mu.Unlock()
		return
	}
	eng, err := r.build(ws)
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

// UseClientRoots asks the session for its roots, if the client has them,
// and makes the first file root the workspace. It is meant for the
// server's initialized and roots-changed hooks, and returns at once.
func (r *Refresher) UseClientRoots(ctx context.Context, ss *sdk.ServerSession) {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		return
	}
	go func() {
		// The deadline is for the client's answer only: the rescan of the
		// new workspace is a cold scan that may take longer, and cutting
		// it short would leave the old skills served.
		base := context.WithoutCancel(ctx)
		lctx, cancel := context.WithTimeout(base, 5*time.Second)
		res, err := ss.ListRoots(lctx, nil)
		cancel()
		if err != nil || res == nil {
			return
		}
		for _, root := range res.Roots {
			u, err := url.Parse(root.URI)
			if err == nil && u.Scheme == "file" && filepath.IsAbs(u.Path) {
				r.SetWorkspace(base, u.Path)
				return
			}
		}
	}()
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
