// Package usage keeps the count of skill loads on this machine: how many
// times `ccski mcp` served each skill through its skill tool. The MCP
// catalogue gives descriptions first to the skills loaded most (after the
// project's own), so the count decides which descriptions an agent sees
// when not every one fits.
//
// The count is private and local: one file in ccski's state folder
// (internal/userdirs), never sent anywhere, holding a skill id and a
// number per skill, nothing of any skill's content. Deleting the file
// clears it. Concurrent servers share it safely: each write locks a file
// beside it, reads it again, adds what it counted and replaces it
// atomically (where the system has no file locks, a write made at the
// same instant as another's may be lost, never the file).
//
// A server counts through a Counter, which keeps the loads in memory and
// adds them to the file in the background, at most once per interval and
// when it closes: no load waits on the file or on another process's lock.
package usage

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/userdirs"
)

// FileName is the name of the count's file in ccski's state folder.
const FileName = "usage.json"

// version is the format of the file this package reads and writes.
const version = 1

// Limits: the file is read up to maxBytes, and keeps the maxSkills most
// loaded skills (the others are dropped at the next increment).
const (
	maxBytes  = 4 << 20
	maxSkills = 5000
	// maxKey is the longest skill id counted; a longer one is not.
	maxKey = 1024
)

// Path is the count's file for the user whose home folder is home, with
// getenv reading the environment (os.Getenv when nil):
// $XDG_STATE_HOME/ccski/usage.json, else ~/.local/state/ccski/usage.json.
func Path(home string, getenv func(string) string) (string, error) {
	dir, err := userdirs.StateDir(home, getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, FileName), nil
}

// document is the file's JSON form.
type document struct {
	Version int            `json:"version"`
	Loads   map[string]int `json:"loads"`
}

// Read returns the count of loads by skill id in the file at path; a
// missing file is an empty count. A file that cannot be parsed is an
// error naming it, with what to do.
func Read(path string) (map[string]int, error) {
	counts, _, err := read(path)
	return counts, err
}

func read(path string) (map[string]int, []byte, error) {
	data, err := safefile.Read(path, maxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]int{}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("skill usage count %s: %w", path, err)
	}
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil || doc.Version != version {
		if err == nil {
			err = fmt.Errorf("format version %d, this ccski reads version %d", doc.Version, version)
		}
		return nil, nil, fmt.Errorf("skill usage count %s: %w; delete the file to start the count again", path, err)
	}
	if doc.Loads == nil {
		doc.Loads = map[string]int{}
	}
	return doc.Loads, data, nil
}

// Add counts one load of the skill id in the file at path, making the
// file (mode 0600) and its folder when missing. Concurrent servers are
// serialised and checked by safefile.Update, so no load is lost. A server
// counts through a Counter instead, which writes many loads at once.
func Add(path, id string) error {
	if id == "" || len(id) > maxKey {
		return nil
	}
	return addAll(path, map[string]int{id: 1})
}

// addAll adds loads (counts by skill id) to the file at path in one
// locked read-modify-write.
func addAll(path string, loads map[string]int) error {
	err := safefile.Update(path, 0o600, func() ([]byte, []byte, error) {
		counts, before, err := read(path)
		if err != nil {
			return nil, nil, err
		}
		for id, n := range loads {
			counts[id] += n
		}
		trim(counts)
		data, err := json.MarshalIndent(document{Version: version, Loads: counts}, "", "  ")
		if err != nil {
			return nil, nil, fmt.Errorf("skill usage count %s: %w", path, err)
		}
		return before, append(data, '\n'), nil
	})
	return safefile.WrapUpdate("skill usage count "+path, err)
}

// DefaultInterval is how long a Counter keeps loads in memory before it
// adds them to the file, at most.
const DefaultInterval = time.Second

// Counter counts skill loads in memory and adds them to the file at its
// path (Add's file) in the background: a write is due an interval after
// the first load it holds, so that the file is written at most once per
// interval however many loads come, and Close writes what is left. A
// write merges with the file as it is then, under its lock, so counters of
// several processes lose no load. Memory is bounded by the skills loaded
// in one interval: a write is due at once when maxSkills distinct ones
// wait. The zero Counter and a nil *Counter count nothing.
type Counter struct {
	path  string
	every time.Duration
	// onErr is told of a failed background write (its loads wait for
	// the next write); nil: not told.
	onErr func(error)

	mu      sync.Mutex
	pending map[string]int // loads not yet in the file, by skill id
	timer   *time.Timer    // set while a write is due
	closed  bool

	write sync.Mutex // one write at a time
}

// NewCounter returns a Counter of the file at path ("": a Counter that
// counts nothing), writing at most once per every (DefaultInterval when
// 0), telling onErr of a background write that failed.
func NewCounter(path string, every time.Duration, onErr func(error)) *Counter {
	if every <= 0 {
		every = DefaultInterval
	}
	return &Counter{path: path, every: every, onErr: onErr}
}

// Add counts one load of the skill id. It never waits on the file: the
// load is written by the next background write, or by Close. After Close
// a load is written at once.
func (c *Counter) Add(id string) {
	if c == nil || c.path == "" || id == "" || len(id) > maxKey {
		return
	}
	c.mu.Lock()
	if c.pending == nil {
		c.pending = map[string]int{}
	}
	c.pending[id]++
	closed := c.closed
	switch {
	case closed:
	case len(c.pending) >= maxSkills && c.timer != nil && c.timer.Stop():
		c.timer = time.AfterFunc(0, c.tick)
	case c.timer == nil:
		c.timer = time.AfterFunc(c.every, c.tick)
	}
	c.mu.Unlock()
	if closed {
		c.report(c.Flush())
	}
}

// tick is a due background write.
func (c *Counter) tick() {
	c.mu.Lock()
	c.timer = nil
	c.mu.Unlock()
	c.report(c.Flush())
}

func (c *Counter) report(err error) {
	if err != nil && c.onErr != nil {
		c.onErr(err)
	}
}

// Flush adds the loads counted so far to the file now. When the write
// fails, they are kept for the next one, and the error names the file.
func (c *Counter) Flush() error {
	if c == nil || c.path == "" {
		return nil
	}
	c.write.Lock()
	defer c.write.Unlock()
	c.mu.Lock()
	batch := c.pending
	c.pending = nil
	c.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := addAll(c.path, batch)
	if err != nil {
		c.mu.Lock()
		if c.pending == nil {
			c.pending = batch
		} else {
			for id, n := range batch {
				c.pending[id] += n
			}
		}
		c.mu.Unlock()
	}
	return err
}

// Close writes the loads counted so far and stops the background writes;
// a load counted after Close is written at once.
func (c *Counter) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	return c.Flush()
}

// trim keeps the maxSkills most loaded skills of counts (ties: the
// smaller id).
func trim(counts map[string]int) {
	if len(counts) <= maxSkills {
		return
	}
	ids := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
	})
	for _, id := range ids[maxSkills:] {
		delete(counts, id)
	}
}
