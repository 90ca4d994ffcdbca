package pipeline

import (
	"strings"
	"sync"
	"sync/atomic"
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
	// Manifests lists the files the providers read, or looked for, to
	// plan the roots (settings.json, installed_plugins.json, each
	// marketplace.json and plugin.json, ...), sorted and without repeats:
	// what a watcher watches to see a plugin enabled, installed or
	// changed. See providers.Plan.Manifests.
	Manifests []string
	// Listings lists the folders whose every entry the providers read as
	// install state, sorted, each once. See providers.Plan.Listings.
	Listings []string
	// Disabled lists the installed plugins that the settings turn off, so
	// that Lookup can say why a name qualified with one finds nothing.
	Disabled []DisabledPlugin
	// Priority is the root kind order that ranked copies of one skill,
	// highest first, as the engine configured it; nil means
	// DefaultPriority. A provider's Precedence adjusts it for its own
	// user and project copies.
	Priority []Kind
	// Created is when the snapshot was built.
	Created time.Time
	// Security holds what the offline security scan (package security)
	// found in each skill record's folder, for the records with a
	// finding, when the engine ran the scan (see engine.Engine.SetScan);
	// nil when it did not. The findings are diagnostics with the rules'
	// codes, paths and severities.
	Security map[*Record][]Diagnostic
	// Integrity holds what the trust store (package trust) says of the
	// files of each project and plugin skill record, when the engine
	// checked them (see engine.Engine.SetTrust); nil when it did not.
	Integrity map[*Record]Integrity
	// Signatures holds what the signature each skill record that carries
	// one says of its files (package provenance), when the engine verified
	// them (see engine.Engine.SetSigning); nil when it did not. A record
	// it does not hold is unsigned: SignatureOf reads it so.
	Signatures map[*Record]Signature
	// Judged holds what each gate the engine ran (mcp.scan: block,
	// mcp.require_trusted, mcp.require_signed) judged of the files of the records it
	// covers; nil when none ran. A server serves a file of a covered
	// record only while its bytes are those every covering gate judged.
	Judged []Judgement

	// The name indexes are built on first use: listing needs neither.
	visibleOnce sync.Once
	visible     *Index
	allOnce     sync.Once
	all         *Index
	// The visible records split by type, and the name index of the
	// visible skills, also built on first use.
	splitOnce  sync.Once
	skills     []*Record
	commands   []*Record
	skillsOnce sync.Once
	skillIndex *Index
	// skillsBuilt is skillIndex once it is built, for Inherit to read
	// without building it; donor is the skills index of the snapshot
	// this one inherits from (Inherit), until its own is built.
	skillsBuilt atomic.Pointer[Index]
	donor       atomic.Pointer[Index]
	// Lookup's indexes: the visible commands, the hidden skills and
	// commands, and the drop of each hidden record.
	commandsOnce sync.Once
	commandIndex *Index
	hiddenOnce   sync.Once
	hidden       [2]*Index
	dropsOnce    sync.Once
	dropOf       map[*Record]int
	idsOnce      sync.Once
	ids          map[string]*Record
	pathsOnce    sync.Once
	paths        map[string]*Record
	pathMax      int // the length of the longest skill path in paths
}

// NewSnapshot builds a snapshot and its name-resolution indexes. It takes
// ownership of the slices.
func NewSnapshot(all, visible []*Record, drops []Drop, roots []RootReport, diags []Diagnostic) *Snapshot {
	return &Snapshot{
		All: all, Visible: visible, Drops: drops, Roots: roots, Diagnostics: diags,
		Created: time.Now(),
	}
}

// Warm builds what ResolveSkill and Load of a skill use now (the visible
// skills' index and the id table), so that the first call does not pay for
// it. The MCP server calls it before it publishes a snapshot; the other
// indexes are built only if something asks for them.
func (s *Snapshot) Warm() {
	s.skillsIndex()
	s.idTable()
}

// split divides the visible records by type, keeping their order. When
// there are no commands, Skills is Visible itself.
func (s *Snapshot) split() {
	s.splitOnce.Do(func() {
		n := 0
		for _, r := range s.Visible {
			if r.IsCommand() {
				n++
			}
		}
		if n == 0 {
			s.skills = s.Visible
			return
		}
		s.skills = make([]*Record, 0, len(s.Visible)-n)
		s.commands = make([]*Record, 0, n)
		for _, r := range s.Visible {
			if r.IsCommand() {
				s.commands = append(s.commands, r)
			} else {
				s.skills = append(s.skills, r)
			}
		}
	})
}

// Skills returns the visible records that are skills, in priority order.
// The slice is shared: do not modify it.
func (s *Snapshot) Skills() []*Record {
	s.split()
	return s.skills
}

// Commands returns the visible records that are commands, in priority
// order. The slice is shared: do not modify it.
func (s *Snapshot) Commands() []*Record {
	s.split()
	return s.commands
}

func (s *Snapshot) skillsIndex() *Index {
	s.skillsOnce.Do(func() {
		if sk := s.Skills(); len(sk) == len(s.Visible) {
			s.skillIndex = s.visibleIndex() // no commands: the same records
		} else if s.skillIndex = s.donor.Load().reuse(sk); s.skillIndex == nil {
			s.skillIndex = NewIndex(sk)
		}
		s.skillsBuilt.Store(s.skillIndex)
		s.donor.Store(nil) // let the previous snapshot's records go
	})
	return s.skillIndex
}

// Inherit lets s take the name index of the visible skills from prev, the
// snapshot it replaces, when its skills have the names prev's have, each
// at the same place: a rescan that changed a description or a file then
// builds no index again (the index of 100,000 skills takes a quarter of a
// rescan). It takes the index only if prev has built it; prev stays as it
// is. Call it before s is published.
func (s *Snapshot) Inherit(prev *Snapshot) {
	if prev != nil && prev != s {
		s.donor.Store(prev.skillsBuilt.Load())
	}
}

// ResolveSkill is Resolve over the visible skills only: a command never
// answers, and suggestions name skills only. Commands and tools resolve
// names with Lookup and Load; Resolve, ResolveAny and ResolveSkill answer
// the tests that check what a snapshot holds.
func (s *Snapshot) ResolveSkill(name string) (*Record, error) { return s.skillsIndex().Resolve(name) }

func (s *Snapshot) visibleIndex() *Index {
	s.visibleOnce.Do(func() {
		if s.visible = s.donor.Load().reuse(s.Visible); s.visible == nil {
			s.visible = NewIndex(s.Visible)
		}
	})
	return s.visible
}

// Resolve finds a visible record by name, id, provider-qualified or plugin
// name, case-insensitively.
func (s *Snapshot) Resolve(name string) (*Record, error) { return s.visibleIndex().Resolve(name) }

// ResolveAny is Resolve over every discovered record, including those the
// pipeline dropped.
func (s *Snapshot) ResolveAny(name string) (*Record, error) { return s.allIndex().Resolve(name) }

// ByID returns the discovered record, visible or not, whose id is id
// (case-insensitive), or nil.
func (s *Snapshot) ByID(id string) *Record {
	return s.idTable()[strings.ToLower(strings.TrimSpace(id))]
}

// idTable maps every record's lower-cased id to the record; AssignIDs
// makes ids unique, and an id records share anyway maps to nil.
func (s *Snapshot) idTable() map[string]*Record {
	s.idsOnce.Do(func() {
		s.ids = make(map[string]*Record, len(s.All))
		for _, r := range s.All {
			k := strings.ToLower(r.ID)
			if _, dup := s.ids[k]; dup {
				s.ids[k] = nil // shared: the id designates no one record
				continue
			}
			s.ids[k] = r
		}
	})
	return s.ids
}

func (s *Snapshot) allIndex() *Index {
	s.allOnce.Do(func() { s.all = NewIndex(s.All) })
	return s.all
}

// DropOf returns the drop that removed r, if any.
func (s *Snapshot) DropOf(r *Record) (Drop, bool) {
	s.dropsOnce.Do(func() {
		s.dropOf = make(map[*Record]int, len(s.Drops))
		for i, d := range s.Drops {
			if _, dup := s.dropOf[d.Record]; !dup {
				s.dropOf[d.Record] = i
			}
		}
	})
	if i, ok := s.dropOf[r]; ok {
		return s.Drops[i], true
	}
	return Drop{}, false
}

// CodeSourceNotReady is the code of a diagnostic a provider gives while a
// source it plans has nothing to serve yet but will (providers.git before
// its first checkout): a server is not ready (/readyz answers 503) while
// its snapshot holds one, since it would serve fewer skills than its
// replicas. The diagnostic's Path names the source.
const CodeSourceNotReady = "source-not-ready"

// NotReady returns the first diagnostic of s with CodeSourceNotReady, or
// nil: what a server is still waiting for.
func (s *Snapshot) NotReady() *Diagnostic {
	if s == nil {
		return nil
	}
	for i := range s.Diagnostics {
		if s.Diagnostics[i].Code == CodeSourceNotReady {
			return &s.Diagnostics[i]
		}
	}
	return nil
}
