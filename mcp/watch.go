package mcp

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ccski/ccski/pipeline"
)

// Debounce is how long the watcher waits after the last event before it
// asks for a rescan, so a burst of writes costs one rescan.
const Debounce = 75 * time.Millisecond

// Watcher watches the folders of the current snapshot and pokes the
// refresher when something in them changes. fsnotify is not recursive:
// Sync watches exactly the folders discovery listed (Snapshot.Folders),
// plus, for each root that does not exist yet, its nearest existing parent
// so that creating the root is seen.
type Watcher struct {
	fs   *fsnotify.Watcher
	poke func()
	log  *slog.Logger

	mu      sync.Mutex
	watched map[string]bool
	// pending maps a watched parent to the missing roots below it; events
	// there count only when they lead towards one of them.
	pending map[string][]string
	full    bool // the watch limit was hit; periodic rescans cover the rest
}

// NewWatcher starts an fsnotify watcher that calls poke after changes.
func NewWatcher(poke func(), log *slog.Logger) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return &Watcher{fs: fw, poke: poke, log: log, watched: map[string]bool{}, pending: map[string][]string{}}, nil
}

// Sync makes the watched set match snap: new folders are added and gone
// ones removed.
func (w *Watcher) Sync(snap *pipeline.Snapshot) {
	want := make(map[string]bool, len(snap.Folders)+8)
	for _, d := range snap.Folders {
		want[d] = true
	}
	pending := map[string][]string{}
	for _, r := range snap.Roots {
		if r.Exists {
			continue
		}
		// Events name paths under the watched (symlink-resolved)
		// parent, so the root is matched under that parent too.
		if p, path := existingParent(r.Path, 3); p != "" && !want[p] {
			pending[p] = append(pending[p], path)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = pending
	for p := range pending {
		want[p] = true
	}
	for d := range w.watched {
		if !want[d] {
			_ = w.fs.Remove(d)
			delete(w.watched, d)
		}
	}
	for d := range want {
		if w.watched[d] {
			continue
		}
		if err := w.fs.Add(d); err != nil {
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
				if !w.full {
					w.full = true
					w.log.Warn("file watch limit reached; changes in the remaining folders are seen at the next periodic rescan",
						"watched", len(w.watched), "hint", "raise fs.inotify.max_user_watches")
				}
				return
			}
			continue // the folder went away meanwhile
		}
		w.watched[d] = true
	}
	w.log.Debug("watching skill folders", "folders", len(w.watched), "pending_roots", len(pending))
}

// Len is the number of watched folders.
func (w *Watcher) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watched)
}

// Run delivers events until ctx is done, then closes the watcher. It
// returns nil.
func (w *Watcher) Run(ctx context.Context) error {
	defer w.fs.Close()
	var timer *time.Timer
	var fire <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.fs.Events:
			if !ok {
				return nil
			}
			if !w.relevant(ev) {
				continue
			}
			if timer == nil {
				timer = time.NewTimer(Debounce)
			} else {
				timer.Reset(Debounce)
			}
			fire = timer.C
		case <-fire:
			fire = nil
			w.poke()
		case err, ok := <-w.fs.Errors:
			if !ok {
				return nil
			}
			w.log.Warn("file watcher error; periodic rescans continue", "err", err)
			w.poke() // an overflow may have dropped events
		}
	}
}

// relevant filters out events that cannot change what is discovered:
// attribute changes, editor swap and backup files, and, in the parent of
// a missing root, anything not on the way to that root.
func (w *Watcher) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	base := filepath.Base(ev.Name)
	if strings.HasSuffix(base, "~") || strings.HasSuffix(base, ".swp") || strings.HasSuffix(base, ".swx") ||
		strings.HasPrefix(base, ".#") || base == "4913" {
		return false
	}
	w.mu.Lock()
	roots, ok := w.pending[filepath.Dir(ev.Name)]
	watchedDir := w.watched[filepath.Dir(ev.Name)]
	w.mu.Unlock()
	if !ok || !watchedDir {
		return true
	}
	for _, r := range roots {
		if r == ev.Name || strings.HasPrefix(r, ev.Name+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// existingParent returns the nearest existing ancestor of p at most up
// levels up, symlinks resolved, and p re-rooted under it; or "", "".
func existingParent(p string, up int) (parent, path string) {
	for d := filepath.Dir(p); up > 0; up, d = up-1, filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			real, err := filepath.EvalSymlinks(d)
			if err != nil {
				return d, p
			}
			rel, err := filepath.Rel(d, p)
			if err != nil {
				return d, p
			}
			return real, filepath.Join(real, rel)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", ""
}
