package trust

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/pipeline"
)

// Checked reports whether the files of a record are checked against the
// store: project and plugin skills. A user's own skills, custom folders,
// system skills and commands are not.
func Checked(r *pipeline.Record) bool {
	return !r.IsCommand() && (r.Location == pipeline.LocationProject || r.Location == pipeline.LocationPlugin)
}

// Key is the store key of a record: its real folder path.
func Key(r *pipeline.Record) string {
	if r.RealDir != "" {
		return r.RealDir
	}
	if real, err := filepath.EvalSymlinks(r.Dir); err == nil {
		return real
	}
	return filepath.Clean(r.Dir)
}

// Compare compares the recorded files of an entry with the current ones
// (manifest.Diff: files and recorded links alike) and returns the
// integrity of the skill: trusted or recorded when they match, changed
// when they do not.
func Compare(e Entry, current []manifest.File) pipeline.Integrity {
	d := manifest.Diff(e.Files, current)
	in := pipeline.Integrity{Accepted: e.Accepted, Changed: d.Changed, Added: d.Added, Removed: d.Removed}
	switch {
	case len(in.Changed)+len(in.Added)+len(in.Removed) > 0:
		in.State = pipeline.IntegrityChanged
	case e.Accepted:
		in.State = pipeline.IntegrityTrusted
	default:
		in.State = pipeline.IntegrityRecorded
	}
	return in
}

// Checker compares the files of project and plugin skills with the store
// and records the ones it sees for the first time.
type Checker struct {
	// Path is the store's path.
	Path string
	// Cache keeps file digests between checks; nil builds every
	// manifest afresh.
	Cache *manifest.Cache
	// Results keeps the integrity found between checks, so that a check
	// of unchanged folders against an unchanged store does not read the
	// store; nil compares every folder with the store.
	Results *Results
	// ReadOnly leaves first sights unrecorded.
	ReadOnly bool
	// now is time.Now, replaced in tests.
	now func() time.Time
}

// Current is a checked skill folder and its current files.
type Current struct {
	Dir     string
	Records []*pipeline.Record
	Files   []manifest.File
	Err     error
}

// Manifests builds the manifests of the folders of the records Checked
// selects, each folder once, in record order. It stops early, with what it
// has, when ctx ends.
func (c *Checker) Manifests(ctx context.Context, records []*pipeline.Record) []Current {
	index := map[string]int{}
	var out []Current
	for _, r := range records {
		if !Checked(r) {
			continue
		}
		k := Key(r)
		if i, ok := index[k]; ok {
			out[i].Records = append(out[i].Records, r)
			continue
		}
		index[k] = len(out)
		out = append(out, Current{Dir: k, Records: []*pipeline.Record{r}})
	}
	cache := c.Cache
	if cache == nil {
		cache = manifest.NewCache()
	}
	dirs := make([]string, len(out))
	for i := range out {
		dirs[i] = out[i].Dir
	}
	if ctx.Err() != nil {
		return nil
	}
	for i, res := range cache.BuildAll(dirs) {
		if res.Err != nil {
			out[i].Err = res.Err
			continue
		}
		out[i].Files = res.Manifest.Files
		out[i].Err = skillFilesListed(out[i])
	}
	return out
}

// skillFilesListed checks that the skill file of every record of cu is
// among its recorded files. A SKILL.md that is a symlink out of its folder
// is not (a manifest records such a link, not the bytes it leads to), yet
// it is what the agent loads: its content could change unseen, so the
// skill's integrity cannot be known.
func skillFilesListed(cu Current) error {
	for _, r := range cu.Records {
		rel, err := filepath.Rel(r.Dir, r.File)
		if err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("the skill file %s is not inside the skill folder", r.File)
		}
		rel = filepath.ToSlash(rel)
		m := manifest.Manifest{Files: cu.Files}
		if _, listed := m.File(rel); !listed {
			return fmt.Errorf("the skill file %s leads out of the skill folder (a symlink), so its content cannot be recorded; "+
				"put the file itself in the folder", r.File)
		}
	}
	return nil
}

// Check returns the integrity of every project and plugin skill record,
// and records the folders the store does not know yet (unless ReadOnly).
// The error is the store's: when it cannot be read, every record is
// IntegrityUnknown with the error; when it cannot be written, the records
// are still compared.
func (c *Checker) Check(ctx context.Context, records []*pipeline.Record) (map[*pipeline.Record]pipeline.Integrity, error) {
	out, _, err := c.check(ctx, records)
	return out, err
}

// Judge is Check, and also what mcp.require_trusted judged of every
// record it gates (Gated; pipeline.Judgement.Files): the files compared
// with the store, when they are a state accepted with ccski trust, else
// an empty manifest, so that nothing of an untrusted skill is served.
// A server under mcp.require_trusted serves those bytes and no others.
func (c *Checker) Judge(ctx context.Context, records []*pipeline.Record) (map[*pipeline.Record]pipeline.Integrity, map[*pipeline.Record]pipeline.JudgedFiles, error) {
	out, cur, err := c.check(ctx, records)
	judged := map[*pipeline.Record]pipeline.JudgedFiles{}
	for _, cu := range cur {
		var files pipeline.JudgedFiles // the folder's, shared by its records
		for _, r := range cu.Records {
			if !Gated(r) {
				continue
			}
			judged[r] = nil
			if out[r].Trusted() {
				if files == nil {
					files = judgedFiles(cu.Files)
				}
				judged[r] = files
			}
		}
	}
	return out, judged, err
}

// judgedFiles are the files of a manifest (its recorded links have no
// bytes to serve), as a gate's judgement lists them.
func judgedFiles(files []manifest.File) pipeline.JudgedFiles {
	out := make(pipeline.JudgedFiles, 0, len(files))
	for _, f := range files {
		if !f.IsLink() {
			out = append(out, pipeline.JudgedFile{Path: f.Path, Size: f.Size, Digest: f.Digest})
		}
	}
	return out
}

// check is Check, with the folders it compared.
func (c *Checker) check(ctx context.Context, records []*pipeline.Record) (map[*pipeline.Record]pipeline.Integrity, []Current, error) {
	cur := c.Manifests(ctx, records)
	out := map[*pipeline.Record]pipeline.Integrity{}
	if len(cur) == 0 {
		return out, cur, nil
	}
	set := func(cu Current, in pipeline.Integrity) {
		for _, r := range cu.Records {
			out[r] = in
		}
	}
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	// The store's stamp is taken before the store is read: a store written
	// in between is found changed at the next check (see Results).
	stamp, settled := stampStore(c.Path, now())
	sums := make([][sha256.Size]byte, len(cur))
	hit := make([]bool, len(cur))
	miss := false
	for i, cu := range cur {
		if cu.Err != nil {
			continue
		}
		sums[i] = sumFiles(cu.Files)
		if in, ok := c.Results.lookup(stamp, cu.Dir, sums[i]); settled && ok {
			set(cu, in)
			hit[i] = true
			continue
		}
		miss = true
	}
	var store *Store
	if miss {
		var err error
		if store, err = Load(c.Path); err != nil {
			for _, cu := range cur {
				set(cu, pipeline.Integrity{State: pipeline.IntegrityUnknown, Error: err.Error()})
			}
			return out, cur, err
		}
	}
	var fresh []Current
	for i, cu := range cur {
		if cu.Err != nil {
			set(cu, pipeline.Integrity{State: pipeline.IntegrityUnknown, Error: cu.Err.Error()})
			continue
		}
		if hit[i] {
			continue
		}
		in := pipeline.Integrity{State: pipeline.IntegrityNew}
		if e, ok := store.Skills[cu.Dir]; ok {
			in = Compare(e, cu.Files)
		} else {
			fresh = append(fresh, cu)
		}
		set(cu, in)
		if settled {
			c.Results.put(stamp, cu.Dir, sums[i], in)
		}
	}
	if len(fresh) == 0 || c.ReadOnly {
		return out, cur, nil
	}
	at := now().UTC().Truncate(time.Second)
	wrote := false
	err := Update(c.Path, func(s *Store) (bool, error) {
		changed := false
		for _, cu := range fresh {
			if _, ok := s.Skills[cu.Dir]; ok {
				continue // another process recorded it meanwhile
			}
			s.Skills[cu.Dir] = newEntry(cu, at)
			changed = true
		}
		wrote = wrote || changed
		return changed, nil
	})
	if wrote {
		c.Results.forget() // compared against a store that is no more
	}
	if err != nil {
		return out, cur, fmt.Errorf("cannot record the files of %d new project or plugin skills: %w", len(fresh), err)
	}
	return out, cur, nil
}

// newEntry is the entry of a folder first seen at at.
func newEntry(cu Current, at time.Time) Entry {
	r := cu.Records[0]
	e := Entry{ID: r.ID, Provider: r.Agent, FirstSeen: at, Files: cu.Files}
	if r.Plugin != nil {
		e.Plugin = r.Plugin.Plugin
	}
	if e.Files == nil {
		e.Files = []manifest.File{}
	}
	return e
}

// Accept records the current files of the given folders as accepted, at
// at, and returns the folders whose entry changed (new, or not accepted
// in this state before).
func Accept(path string, cur []Current, at time.Time) ([]Current, error) {
	var done []Current
	err := Update(path, func(s *Store) (bool, error) {
		done = done[:0]
		for _, cu := range cur {
			if cu.Err != nil {
				return false, fmt.Errorf("cannot read the files of %s: %w", cu.Dir, cu.Err)
			}
			old, ok := s.Skills[cu.Dir]
			if ok && old.Accepted && Compare(old, cu.Files).State == pipeline.IntegrityTrusted {
				continue
			}
			e := newEntry(cu, at)
			if ok {
				e.FirstSeen = old.FirstSeen
			}
			t := at
			e.Accepted, e.AcceptedAt = true, &t
			s.Skills[cu.Dir] = e
			done = append(done, cu)
		}
		return len(done) > 0, nil
	})
	return done, err
}

// Rewritten records files as what the folders dir (keys of written,
// real paths, as Key gives them) now hold, for folders the store already
// knows: ccski's own install or update wrote them, after showing what
// changed, so they are no change to warn of. An entry keeps its first
// sight and its acceptance (now of the new files, at at). A folder the
// store does not know is left for its first sight to record.
func Rewritten(path string, written map[string][]manifest.File, at time.Time) error {
	if path == "" || len(written) == 0 {
		return nil
	}
	return Update(path, func(s *Store) (bool, error) {
		changed := false
		for dir, files := range written {
			e, ok := s.Skills[dir]
			if !ok || Compare(e, files).State != pipeline.IntegrityChanged {
				continue
			}
			e.Files = slices.Clone(files)
			if e.Files == nil {
				e.Files = []manifest.File{}
			}
			if e.Accepted {
				t := at
				e.AcceptedAt = &t
			}
			s.Skills[dir] = e
			changed = true
		}
		return changed, nil
	})
}
