package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/httpfetch"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/safefile"
)

// LockVersion is the newest version of the lock format this ccski reads.
// Version 2 adds a source's origin (Source.Origin) and the commit of a
// folder or marketplace source; version 3 the HTTP sources (index and
// archive, whose Commit is a sha256: digest) and the MCP server source
// (KindMCP); version 4 the signer of a signed skill (Entry.Signer). A
// lock is written in the oldest version that holds its entries (version 1
// when it records none of these), which older versions of ccski read; a
// newer one they refuse, saying to upgrade.
const LockVersion = 4

// maxLockBytes bounds the lock file read.
const maxLockBytes = 64 << 20

// Lock is a ccski.lock: every skill ccski installed in one scope, with
// where it came from and every file it installed. It is JSON; paths in it
// are '/'-separated and relative to the scope's base folder when they lie
// below it (Layout.Base: the project root, or the user folder), so that a
// project's lock holds in every clone of the project.
type Lock struct {
	Version int     `json:"version"`
	Skills  []Entry `json:"skills"`
}

// Entry is one installed skill.
type Entry struct {
	// Name is the skill's folder name in each target.
	Name   string `json:"name"`
	Source Source `json:"source"`
	// Commit is the resolved commit of a git source (or of the clone a
	// pinned folder or marketplace is), or the sha256: digest of the
	// artifact an HTTP source's skill came in (its index entry's, the
	// archive's; none for a v0.1.0 index, which publishes none).
	Commit string `json:"commit,omitempty"`
	// Path is the skill folder's '/'-separated path in the source ("."
	// for the source's root).
	Path string `json:"path"`
	// Targets are where the skill is installed, the copy first.
	Targets []Target `json:"targets"`
	// Files is the installed copy's manifest, in the shape of the MCP
	// Skills Extension's resources: every file, sorted by path.
	Files []manifest.File `json:"files"`
	// Signer is who the signature the skill carries says signed it, as
	// verified when it was installed (provenance.Verify); nil for an
	// unsigned skill. install --frozen and update hold the skill to it.
	Signer *provenance.Signer `json:"signer,omitempty"`
}

// Find returns the entry of the skill name, or nil.
func (l *Lock) Find(name string) *Entry {
	for i := range l.Skills {
		if l.Skills[i].Name == name {
			return &l.Skills[i]
		}
	}
	return nil
}

// Put adds or replaces the entry of e.Name.
func (l *Lock) Put(e Entry) {
	if old := l.Find(e.Name); old != nil {
		*old = e
		return
	}
	l.Skills = append(l.Skills, e)
}

// Drop removes the entry of name.
func (l *Lock) Drop(name string) {
	l.Skills = slices.DeleteFunc(l.Skills, func(e Entry) bool { return e.Name == name })
}

// Names lists the entries' names.
func (l *Lock) Names() []string {
	out := make([]string, len(l.Skills))
	for i, e := range l.Skills {
		out[i] = e.Name
	}
	return out
}

// ReadLock reads the lock file; a missing file is an empty lock. Relative
// paths in it are made absolute from base. With confine (a project's
// lock, which arrives with a clone), every target must lie below base, so
// that a lock cannot make ccski write outside the project.
func ReadLock(file, base string, confine bool) (*Lock, error) {
	data, err := safefile.Read(file, maxLockBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return &Lock{Version: LockVersion}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading lock %s: %w", file, err)
	}
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("lock %s is not a valid ccski lock (%v): fix it, or delete it and install again", file, err)
	}
	if l.Version > LockVersion {
		return nil, fmt.Errorf("lock %s has version %d, newer than this ccski reads (%d): upgrade ccski", file, l.Version, LockVersion)
	}
	if l.Version < 1 {
		return nil, fmt.Errorf("lock %s has no version (\"version\": %d): it was not written by ccski; fix it, or delete it and install again", file, l.Version)
	}
	names := make(map[string]bool, len(l.Skills))
	for i := range l.Skills {
		e := &l.Skills[i]
		if names[e.Name] {
			return nil, fmt.Errorf("lock %s names skill %s twice: keep one entry, or delete the lock and install again", file, e.Name)
		}
		names[e.Name] = true
		if err := e.fromLock(base, confine); err != nil {
			return nil, fmt.Errorf("lock %s: %w", file, err)
		}
	}
	return &l, nil
}

// fromLock checks an entry as read from a lock (or a journal, see
// journal.go) and makes its paths absolute from base. With confine, every
// target must lie below base.
func (e *Entry) fromLock(base string, confine bool) error {
	if err := checkName(e.Name); err != nil {
		return err
	}
	if p, err := cleanSubpath(e.Source.Path); err != nil || p != e.Source.Path {
		return fmt.Errorf("skill %s has source path %q, which must be a clean path inside its source", e.Name, e.Source.Path)
	}
	if err := checkLockSource(e); err != nil {
		return fmt.Errorf("skill %s: %w: fix it, or delete the entry and install again", e.Name, err)
	}
	if err := checkLockSigner(e); err != nil {
		return fmt.Errorf("skill %s: %w: fix it, or delete the entry and install again", e.Name, err)
	}
	if e.Source.Kind == KindDir {
		e.Source.Dir = fromLock(base, e.Source.Dir)
	}
	if len(e.Targets) == 0 {
		return fmt.Errorf("skill %s has no targets: fix it, or delete the entry and install again", e.Name)
	}
	for j := range e.Targets {
		dir := fromLock(base, e.Targets[j].Dir)
		if confine {
			if err := confined(base, dir); err != nil {
				return fmt.Errorf("skill %s: %w", e.Name, err)
			}
		}
		e.Targets[j].Dir = dir
	}
	return nil
}

// checkLockSource accepts the sources ParseSource makes: a lock arrives
// with a clone, and its git URL is handed to git.
func checkLockSource(e *Entry) error {
	switch e.Source.Kind {
	case KindGit:
		if err := gitfetch.CheckURL(e.Source.URL); err != nil {
			return err
		}
		if r := e.Source.Ref; r != "" && (strings.HasPrefix(r, "-") || strings.ContainsAny(r, " :^~?*[\\") ||
			strings.ContainsFunc(r, unicode.IsControl)) {
			return fmt.Errorf("source ref %q is no branch, tag or commit", r)
		}
		if e.Commit != "" && !gitfetch.IsCommit(e.Commit) {
			return fmt.Errorf("commit %q is no full commit hash", e.Commit)
		}
		if e.Source.Origin != (Origin{}) {
			return errors.New("a git source has no origin (it is its own repository)")
		}
	case KindIndex, KindArchive:
		if err := httpfetch.CheckURL(e.Source.URL); err != nil {
			return err
		}
		if e.Source.Ref != "" || e.Source.Origin != (Origin{}) {
			return fmt.Errorf("an %s source has no ref and no origin", e.Source.Kind)
		}
		if e.Commit != "" && !manifest.DigestForm.MatchString(e.Commit) {
			return fmt.Errorf("digest %q is no sha256: digest", e.Commit)
		}
	case KindDir:
	case KindMCP:
		if err := checkMCPURL(e.Source.URL); err != nil {
			return err
		}
		if e.Source.Ref != "" || e.Source.Origin != (Origin{}) || e.Commit != "" {
			return errors.New("an MCP server source has no ref, origin or commit (the lock's file digests pin it)")
		}
	case KindMarketplace:
		if !marketplaceName.MatchString(e.Source.Name) {
			return fmt.Errorf("marketplace name %q is not valid", e.Source.Name)
		}
	default:
		return fmt.Errorf("unknown source kind %q (want git, dir, marketplace, index, archive or mcp)", e.Source.Kind)
	}
	if o := e.Source.Origin; o != (Origin{}) {
		if err := gitfetch.CheckURL(o.URL); err != nil {
			return fmt.Errorf("origin: %w", err)
		}
		if p, err := cleanSubpath(o.Path); err != nil || p != o.Path {
			return fmt.Errorf("origin path %q must be a clean path inside its repository", o.Path)
		}
		if !gitfetch.IsCommit(e.Commit) {
			return fmt.Errorf("origin %s needs the full commit the folder was at, not %q", o.URL, e.Commit)
		}
	}
	return nil
}

// checkLockSigner accepts the signer record ccski writes: an identity, a
// known format, and a signature file among the entry's files whose digest
// is the record's bundle digest (the lock pins the signature's bytes as
// it pins every file's).
func checkLockSigner(e *Entry) error {
	s := e.Signer
	if s == nil {
		return nil
	}
	switch {
	case s.Identity == "" || strings.ContainsFunc(s.Identity+s.Issuer, unicode.IsControl):
		return fmt.Errorf("signer identity %q is empty or holds a control character", s.Identity)
	case s.Format != provenance.FormatOMS && s.Format != provenance.FormatSigstore:
		return fmt.Errorf("signer format %q is unknown (want %s or %s)", s.Format, provenance.FormatOMS, provenance.FormatSigstore)
	case !manifest.DigestForm.MatchString(s.Bundle):
		return fmt.Errorf("signer bundle %q is no sha256: digest", s.Bundle)
	}
	i := slices.IndexFunc(e.Files, func(f manifest.File) bool { return f.Path == s.File })
	if i < 0 || e.Files[i].Digest != s.Bundle {
		return fmt.Errorf("the signer's signature file %q is not among the skill's files with the digest %s", s.File, s.Bundle)
	}
	return nil
}

// Write writes the lock to file atomically, sorted by name, with paths
// below base made relative: as version 1 unless an entry records an
// origin (2), version 3 when one has an HTTP or MCP server source, or
// version 4 when one records a signer. A lock that names no skill is
// deleted instead, so that removing every skill leaves the project as it
// was before the first install.
func (l *Lock) Write(file, base string) error {
	if len(l.Skills) == 0 {
		if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the empty lock %s: %w", file, err)
		}
		return nil
	}
	out := Lock{Version: 1, Skills: make([]Entry, len(l.Skills))}
	for i, e := range l.Skills {
		out.Skills[i] = e.toLock(base)
		if e.Source.Origin != (Origin{}) {
			out.Version = max(out.Version, 2)
		}
		if e.Source.Kind.Remote() {
			out.Version = max(out.Version, 3)
		}
		if e.Signer != nil {
			out.Version = max(out.Version, 4)
		}
	}
	slices.SortFunc(out.Skills, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	data, err := encodeJSON(out)
	if err != nil {
		return err
	}
	if err := safefile.WriteAtomic(file, data, 0o644); err != nil {
		return fmt.Errorf("writing lock %s: %w", file, err)
	}
	return nil
}

// toLock returns e as a lock records it: paths below base relative, a
// marketplace by its name only.
func (e Entry) toLock(base string) Entry {
	e.Targets = slices.Clone(e.Targets)
	switch e.Source.Kind {
	case KindDir:
		e.Source.Dir = toLock(base, e.Source.Dir)
	case KindMarketplace:
		e.Source.Dir = "" // found again by name
	}
	for j := range e.Targets {
		e.Targets[j].Dir = toLock(base, e.Targets[j].Dir)
	}
	return e
}

// encodeJSON is v as the lock writes JSON: indented, HTML left alone.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// toLock writes path relative to base when it lies below it.
func toLock(base, path string) string {
	if rel, err := filepath.Rel(base, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	if path == base {
		return "."
	}
	return filepath.ToSlash(path)
}

// fromLock reads a lock path: relative ones start from base.
func fromLock(base, path string) string {
	p := filepath.FromSlash(path)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// Installed says where an installed skill came from, for ccski list.
type Installed struct {
	Source string `json:"source"`
	Commit string `json:"commit,omitempty"`
	Scope  Scope  `json:"scope"`
	// Lock is the lock file that names the skill.
	Lock string `json:"lock"`
	// From is the source as the lock records it, which the
	// organisation's policy matches.
	From Source `json:"-"`
	// Entry is the lock's whole entry (its ref, commit, signer and
	// targets), for the web page's facts of a skill.
	Entry *Entry `json:"-"`
}

// IndexInstalled maps every installed copy and link the locks of layouts
// name (their cleaned paths) to where the skill came from. A lock that
// cannot be read is left out.
func IndexInstalled(layouts []Layout) map[string]*Installed {
	out := map[string]*Installed{}
	for _, l := range layouts {
		lock, err := ReadLock(l.LockFile, l.Base, l.Scope == ScopeProject)
		if err != nil {
			continue
		}
		for i, e := range lock.Skills {
			in := &Installed{Source: e.Source.String(), Commit: e.Commit, Scope: l.Scope, Lock: l.LockFile, From: e.Source,
				Entry: &lock.Skills[i]}
			for _, t := range e.Targets {
				p := filepath.Join(t.Dir, e.Name)
				if _, dup := out[p]; !dup {
					out[p] = in
				}
			}
		}
	}
	return out
}
