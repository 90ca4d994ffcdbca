package pipeline

import (
	"sync"
	"time"
)

// RootReport describes one root that discovery considered.
type RootReport struct {
	Root
	// Exists is false when the folder is missing.
	Exists bool
	// Skills counts the records found under the root, before filtering.
	Skills int
}

// Snapshot is the immutable result of one discovery and pipeline run. The
// CLI and the MCP server read snapshots; a refresh builds a new one and
// swaps it in, so a reader keeps the snapshot it started with.
type Snapshot struct {
	// All holds every record discovered, in scan order.
	All []*Record
	// Visible holds the records the pipeline kept, in priority order.
	Visible []*Record
	// Drops says why each of the other records is not visible.
	Drops []Drop
	// Roots lists every root considered, in provider order.
	Roots []RootReport
	// Diagnostics holds every problem found, including the ones attached
	// to records.
	Diagnostics []Diagnostic
	// Folders lists every folder discovery listed, symlinks resolved: what
	// a watcher watches to see skills appear, change or go.
	Folders []string
	// Created is when the snapshot was built.
	Created time.Time

	// The name indexes are built on first use: listing needs neither.
	visibleOnce sync.Once
	visible     *Index
	allOnce     sync.Once
	all         *Index
}

// NewSnapshot builds a snapshot and its name-resolution indexes. It takes
// ownership of the slices.
func NewSnapshot(all, visible []*Record, drops []Drop, roots []RootReport, diags []Diagnostic) *Snapshot {
	return &Snapshot{
		All: all, Visible: visible, Drops: drops, Roots: roots, Diagnostics: diags,
		Created: time.Now(),
	}
}

// Warm builds the name index of the visible records now, so that the
// first Resolve does not pay for it. The MCP server calls it before it
// publishes a snapshot.
func (s *Snapshot) Warm() { s.visibleIndex() }

func (s *Snapshot) visibleIndex() *Index {
	s.visibleOnce.Do(func() { s.visible = NewIndex(s.Visible) })
	return s.visible
}

// Resolve finds a visible record by name, id, provider-qualified or plugin
// name, case-insensitively.
func (s *Snapshot) Resolve(name string) (*Record, error) { return s.visibleIndex().Resolve(name) }

// ResolveAny is Resolve over every discovered record, including those the
// pipeline dropped. The CLI uses it to explain a hidden skill.
func (s *Snapshot) ResolveAny(name string) (*Record, error) {
	s.allOnce.Do(func() { s.all = NewIndex(s.All) })
	return s.all.Resolve(name)
}

// DropOf returns the drop that removed r, if any.
func (s *Snapshot) DropOf(r *Record) (Drop, bool) {
	for _, d := range s.Drops {
		if d.Record == r {
			return d, true
		}
	}
	return Drop{}, false
}
