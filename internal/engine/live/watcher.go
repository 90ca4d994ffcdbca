package live

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

// missingLevels is how many folders up the watcher looks for an existing
// parent of a root or file that does not exist yet.
const missingLevels = 3

// watcher watches what the current snapshot was built from and pokes the
// refresher when something there changes. fsnotify is not recursive: sync
// watches exactly the folders discovery listed (Snapshot.Folders), where
// every event counts, and, where only some names matter, the folder of
// each file the providers read (Snapshot.Manifests) and the nearest
// existing parent of each root or file that does not exist yet.
// Watching a file's folder rather than the file itself sees an editor
// that saves by writing a new file and renaming it over the old one, and a
// file that appears.
type watcher struct {
	fs   *fsnotify.Watcher
	poke func()
	log  *slog.Logger

	mu      sync.Mutex
	watched map[string]bool
	// only maps a watched folder that discovery did not list to the paths
	// below it that matter: an event there counts only when it names one
	// of them or a folder on the way to one.
	only map[string][]string
	full bool // the watch limit was hit; periodic rescans cover the rest
}

// newWatcher starts an fsnotify watcher that calls poke after changes.
func newWatcher(poke func(), log *slog.Logger) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return &watcher{fs: fw, poke: poke, log: log, watched: map[string]bool{}, only: map[string][]string{}}, nil
}

// sync makes the watched set match snap: new folders are added and gone
// ones removed. It reports whether it added a folder.
func (w *watcher) sync(snap *pipeline.Snapshot) (added bool) {
	want := make(map[string]bool, len(snap.Folders)+len(snap.Manifests)+8)
	for _, d := range snap.Folders {
		want[d] = true
	}
	only := map[string][]string{}
	target := func(dir, path string) {
		if dir != "" && !want[dir] {
			only[dir] = append(only[dir], path)
		}
	}
	for _, r := range snap.Roots {
		if !r.Exists {
			target(existingParent(r.Path, missingLevels))
		}
	}
	for _, d := range snap.Listings {
		// A folder whose entries are install state is watched whole; a
		// missing one through its nearest parent, until it is created.
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			want[d] = true
			continue
		}
		target(existingParent(filepath.Join(d, "."), missingLevels))
	}
	for _, f := range snap.Manifests {
		target(existingParent(f, missingLevels))
		// A file that is a symlink (a dotfiles checkout) changes where
		// it points to.
		if real, err := filepath.EvalSymlinks(f); err == nil {
			target(filepath.Dir(real), real)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.only = only
	for d := range only {
		want[d] = true
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
				return added
			}
			continue // the folder went away meanwhile
		}
		w.watched[d] = true
		added = true
	}
	w.log.Debug("watching skill folders", "folders", len(w.watched), "filtered", len(only), "manifests", len(snap.Manifests))
	return added
}

// len is the number of watched folders.
func (w *watcher) len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watched)
}

// run delivers events until ctx is done, then closes the watcher.
func (w *watcher) run(ctx context.Context) {
	defer w.fs.Close()
	var timer *time.Timer
	var fire <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
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
				return
			}
			w.log.Warn("file watcher error; periodic rescans continue", "err", err)
			w.poke() // an overflow may have dropped events
		}
	}
}

// relevant filters out events that cannot change what is discovered:
// attribute changes, editor swap and backup files, and, in a folder
// watched only for some names, every other name.
func (w *watcher) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	base := filepath.Base(ev.Name)
	if strings.HasSuffix(base, "~") || strings.HasSuffix(base, ".swp") || strings.HasSuffix(base, ".swx") ||
		strings.HasPrefix(base, ".#") || base == "4913" {
		return false
	}
	dir := filepath.Dir(ev.Name)
	w.mu.Lock()
	targets, filtered := w.only[dir]
	watchedDir := w.watched[dir]
	w.mu.Unlock()
	if !filtered || !watchedDir {
		return true
	}
	for _, t := range targets {
		if t == ev.Name || strings.HasPrefix(t, ev.Name+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// existingParent returns the nearest existing ancestor of p at most up
// levels up, symlinks resolved, and p re-rooted under it; or "", "".
// Events name paths under the watched (resolved) folder, so p is matched
// there too.
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
