package mcp

// The Agent Skills Discovery RFC v0.2.0 over the HTTP transport:
// GET /.well-known/agent-skills/index.json lists the skills this server
// serves, each with one artifact and the sha256: digest of that
// artifact's bytes; the artifacts are served beside it. A skill of a
// SKILL.md alone is a "skill-md" entry (<name>/SKILL.md, the file's own
// bytes); any other is an "archive" entry (<name>.zip, the skill folder
// packed with SKILL.md at the root). URLs are relative to the index, as
// the RFC allows, so the index holds behind a proxy that mounts the
// server under a path.
//
// What is published is exactly what skills/list serves (the same
// listable records and the same checks, entryOf), one entry per name:
// two served skills of one name cannot both be listed under it, and the
// first in the snapshot's order (its precedence) is. Every file packed is
// read as resources/read reads it and, under mcp.scan: block,
// mcp.require_trusted or mcp.require_signed, checked against what was
// judged: the bytes judged
// are the bytes published. A skill over the caps the installer applies
// (install.DefaultLimits: download, unpacked bytes, files) is left out,
// as is one whose files changed while they were packed; each is logged
// once per snapshot.
//
// Archives are deterministic (files in path order, fixed times and
// modes, no folder entries), so two replicas over the same tree publish
// the same bytes and digests. They are built on demand and cached by
// their key: each file's path, digest and executable bit, so a request
// over an unchanged tree packs nothing.
//
// The v0.1.0 index, /.well-known/skills/index.json, lists the same
// skills with their files (no digests: v0.1.0 has none), served under
// /.well-known/skills/<name>/<path> with the same checks: dotagents and
// other clients of v0.1.0 read nothing else. A client that reads both
// (ccski, the skills CLI) takes v0.2.0 first.

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/skillindex"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/pipeline"
)

// The well-known paths and the RFC's identifiers (package skillindex).
const (
	wellKnownDir    = skillindex.DirV2
	wellKnownDirV1  = skillindex.DirV1
	wellKnownSchema = skillindex.SchemaV2
	artifactSkillMD = skillindex.TypeSkillMD
	artifactArchive = skillindex.TypeArchive
)

// The caps an installer applies to one artifact, and the largest
// index.json it reads (package skillindex, shared with the installer).
const (
	maxUnpackedBytes = skillindex.MaxUnpacked
	maxArtifactFiles = skillindex.MaxFiles
	maxIndexBytes    = skillindex.MaxIndexBytes
)

// maxArtifactBytes is the installer's download cap (a variable so that a
// test can lower it rather than pack 10 MiB of noise).
var maxArtifactBytes = skillindex.MaxDownload

// archiveTime is the modification time of every archived file: the
// earliest an MS-DOS date can state, so that no clock leaks in.
var archiveTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// artifact is the published form of one skill.
type artifact struct {
	key    string   // what it was built from (artifactKey)
	files  []string // the paths of the files it holds, sorted
	kind   string   // artifactSkillMD or artifactArchive
	data   []byte
	digest string
}

// file is what the index entry's url names, relative to the index.
func (a *artifact) file(name string) string {
	if a.kind == artifactSkillMD {
		return name + "/" + pipeline.SkillFile
	}
	return name + ".zip"
}

// wellKnownState caches the artifacts by key and remembers, per
// snapshot, which skills were logged as left out.
type wellKnownState struct {
	mu     sync.Mutex
	built  map[string]*artifact // by key
	used   map[string]bool      // keys used since the last index was built
	byID   map[string]string    // the key last built for each record id
	snap   *pipeline.Snapshot
	logged map[string]bool // by record id, for snap
}

// serveWellKnown registers the discovery routes on mux, behind the same
// Origin and token checks as the MCP endpoint: v0.2.0 under
// /.well-known/agent-skills/, v0.1.0 under /.well-known/skills/.
func (s *Server) serveWellKnown(mux *http.ServeMux, o HTTPOptions) {
	mux.Handle("GET "+wellKnownDir+"{file...}", s.guard(o, s.wellKnownHandler(o, false)))
	mux.Handle("GET "+wellKnownDirV1+"{file...}", s.guard(o, s.wellKnownHandler(o, true)))
}

// wellKnownHandler answers the index of one version and its artifacts
// (v0.2.0) or files (v0.1.0).
func (s *Server) wellKnownHandler(o HTTPOptions, v1 bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-s.ready:
		case <-r.Context().Done():
			return
		}
		// A short request, however its method reads to guard: its
		// connection is not closed to make room while it is answered.
		serving(r.Context(), false)
		cache := "no-cache" // revalidate (ETag): the same URL serves new bytes after an edit
		if o.AuthToken != "" {
			cache = "private, no-cache"
		}
		w.Header().Set("Cache-Control", cache)
		file := r.PathValue("file")
		var data []byte
		switch {
		case file == "index.json":
			data = s.wellKnownIndex(v1)
			w.Header().Set("Content-Type", "application/json")
		case v1:
			var name string
			data, name = s.wellKnownFile(file)
			if data == nil {
				http.NotFound(w, r)
				return
			}
			ct := mimeByName(name)
			if strings.HasPrefix(ct, "text/") {
				ct += "; charset=utf-8"
			}
			w.Header().Set("Content-Type", ct)
		default:
			a := s.wellKnownArtifact(file)
			if a == nil {
				http.NotFound(w, r)
				return
			}
			data = a.data
			if a.kind == artifactSkillMD {
				w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
			} else {
				w.Header().Set("Content-Type", "application/zip")
			}
		}
		w.Header().Set("ETag", `"`+manifest.Digest(data)+`"`)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	})
}

// published is one skill of the index: its record and artifact.
type published struct {
	r   *pipeline.Record
	art *artifact
	err error
}

// wellKnownIndex builds index.json for the current snapshot: of v0.2.0,
// or with v1 of v0.1.0 (each skill's files, no digest), listing the same
// skills.
func (s *Server) wellKnownIndex(v1 bool) []byte {
	snap := s.snap.Load()
	recs := publishable(snap)
	out := make([]published, len(recs))
	parallel.Each(context.Background(), len(recs), 0, func(i int) {
		a, err := s.artifactOf(snap, recs[i])
		out[i] = published{r: recs[i], art: a, err: err}
	})
	wk := &s.wellKnown
	used := map[string]bool{}
	doc := skillindex.Doc{Schema: wellKnownSchema, Skills: []skillindex.Entry{}}
	if v1 {
		doc.Schema = ""
	}
	size := 0
	for _, p := range out {
		if p.err != nil {
			s.leftOutOfIndex(snap, p.r, p.err)
			continue
		}
		name := publishedName(p.r)
		e := skillindex.Entry{Name: name, Type: p.art.kind, Description: p.r.Description, URL: p.art.file(name), Digest: p.art.digest}
		if v1 {
			e = skillindex.Entry{Name: name, Description: p.r.Description, Files: p.art.files}
		}
		b, _ := json.Marshal(e)
		if size += len(b) + 1; size > maxIndexBytes-1024 {
			s.leftOutOfIndex(snap, p.r, fmt.Errorf("the index would pass the %d bytes an installer reads", maxIndexBytes))
			continue
		}
		used[p.art.key] = true
		doc.Skills = append(doc.Skills, e)
	}
	// Forget the artifacts of skills no longer published, but keep those
	// an artifact request built since the last index (see artifactOf).
	wk.mu.Lock()
	for k := range wk.built {
		if !used[k] && !wk.used[k] {
			delete(wk.built, k)
		}
	}
	wk.used = used
	wk.mu.Unlock()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(doc) // plain strings: it cannot fail
	return buf.Bytes()
}

// wellKnownArtifact returns the artifact that file (relative to the
// index: <name>/SKILL.md or <name>.zip) names, or nil when it names none
// the index lists now.
func (s *Server) wellKnownArtifact(file string) *artifact {
	name, kind := strings.TrimSuffix(file, "/"+pipeline.SkillFile), artifactSkillMD
	if name == file {
		name, kind = strings.TrimSuffix(file, ".zip"), artifactArchive
	}
	if name == file || strings.Contains(name, "/") {
		return nil
	}
	snap := s.snap.Load()
	for _, r := range publishable(snap) {
		if publishedName(r) != name {
			continue
		}
		a, err := s.artifactOf(snap, r)
		if err != nil {
			s.leftOutOfIndex(snap, r, err)
			return nil
		}
		if a.kind != kind {
			return nil
		}
		return a
	}
	return nil
}

// wellKnownFile returns the bytes of the file that file (relative to the
// v0.1.0 index: <name>/<path>) names, and its name, or nil when the index
// lists no such file now. The file is read as resources/read reads it,
// and under a gate served only when its bytes are the ones judged.
func (s *Server) wellKnownFile(file string) ([]byte, string) {
	name, rel, ok := strings.Cut(file, "/")
	if !ok {
		return nil, ""
	}
	snap := s.snap.Load()
	for _, r := range publishable(snap) {
		if publishedName(r) != name {
			continue
		}
		a, err := s.artifactOf(snap, r)
		if err != nil {
			s.leftOutOfIndex(snap, r, err)
			return nil, ""
		}
		if _, found := slices.BinarySearch(a.files, rel); !found {
			return nil, ""
		}
		data, err := readInSkill(r, rel)
		if err == nil {
			err = judgedOf(snap, r, rel).check(data)
		}
		if err != nil {
			s.log.Warn("skill file not served over the well-known index", "id", r.ID, "file", rel, "reason", err.Error())
			return nil, ""
		}
		return data, path.Base(rel)
	}
	return nil, ""
}

// publishable returns the skills of snap the index may list, in the
// snapshot's order, one per name (the first), sorted by name: the records
// skills/list lists (listable, whose checks artifactOf repeats).
func publishable(snap *pipeline.Snapshot) []*pipeline.Record {
	if snap == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []*pipeline.Record
	for _, r := range snap.Skills() {
		name := publishedName(r)
		if r.SkillPath == "" || r.Unlistable() != "" || !skillindex.ValidName(name) || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *pipeline.Record) int { return strings.Compare(publishedName(a), publishedName(b)) })
	return out
}

// publishedName is the name a skill is published under: the name its
// SKILL.md states, which entryOf holds the record to (a plugin's prefix
// left out).
func publishedName(r *pipeline.Record) string {
	name := r.FrontmatterName()
	return name[strings.LastIndexByte(name, ':')+1:]
}

// leftOutOfIndex logs once per snapshot that a skill is not published.
func (s *Server) leftOutOfIndex(snap *pipeline.Snapshot, r *pipeline.Record, why error) {
	wk := &s.wellKnown
	wk.mu.Lock()
	if wk.snap != snap {
		wk.snap, wk.logged = snap, map[string]bool{}
	}
	seen := wk.logged[r.ID]
	wk.logged[r.ID] = true
	wk.mu.Unlock()
	if !seen {
		s.log.Warn("skill left out of the well-known index", "id", r.ID, "uri", r.SkillURI(), "reason", why.Error())
	}
}

// artifactOf returns the artifact of r: the cached one when the files of
// r's folder are those it was built from, else a new one. It applies the
// checks of a skills/list entry (entryOf) first.
func (s *Server) artifactOf(snap *pipeline.Snapshot, r *pipeline.Record) (*artifact, error) {
	if b := s.entryOf(snap, r); b.err != nil {
		return nil, b.err
	}
	dir := r.FilesDir()
	l, err := s.skills.files.List(dir)
	if err != nil {
		return nil, err
	}
	m, err := s.skills.files.Build(dir)
	if err != nil {
		return nil, err
	}
	files := m.Contents()
	if len(files) > maxArtifactFiles {
		return nil, fmt.Errorf("it has %d files, over the %d an installer takes from one archive", len(files), maxArtifactFiles)
	}
	if m.Bytes > maxUnpackedBytes {
		return nil, fmt.Errorf("its files hold %d bytes, over the %d an installer unpacks from one archive", m.Bytes, maxUnpackedBytes)
	}
	exec := map[string]bool{}
	for _, e := range l.Entries {
		if e.Kind == manifest.KindFile && e.Info != nil && e.Info.Mode()&0o111 != 0 {
			exec[e.Path] = true
		}
	}
	key := artifactKey(files, exec)
	wk := &s.wellKnown
	wk.mu.Lock()
	a, ok := wk.built[key]
	if ok && wk.used != nil {
		wk.used[key] = true
	}
	wk.mu.Unlock()
	if ok {
		return a, nil
	}
	if a, err = buildArtifact(snap, r, files, exec); err != nil {
		return nil, err
	}
	a.key = key
	for _, f := range files {
		a.files = append(a.files, f.Path)
	}
	wk.mu.Lock()
	if wk.built == nil {
		wk.built = map[string]*artifact{}
	}
	if wk.used == nil {
		wk.used = map[string]bool{}
	}
	if wk.byID == nil {
		wk.byID = map[string]string{}
	}
	wk.built[key], wk.used[key] = a, true
	// The skill's previous artifact is stale: at most one per skill is
	// kept between two indexes.
	if old := wk.byID[r.ID]; old != "" && old != key {
		delete(wk.built, old)
	}
	wk.byID[r.ID] = key
	wk.mu.Unlock()
	return a, nil
}

// artifactKey names what an artifact is built from: each file's path,
// digest and executable bit, in path order.
func artifactKey(files []manifest.File, exec map[string]bool) string {
	h := sha256.New()
	for _, f := range files {
		x := "-"
		if exec[f.Path] {
			x = "x"
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", f.Path, f.Digest, x)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// buildArtifact reads the files of r (as resources/read reads them) and
// packs them: a SKILL.md alone, not executable, is its own artifact; any
// other skill is a zip archive. A file whose bytes are not the ones the
// manifest hashed (changed since), or not the ones judged, fails it.
func buildArtifact(snap *pipeline.Snapshot, r *pipeline.Record, files []manifest.File, exec map[string]bool) (*artifact, error) {
	read := func(f manifest.File) ([]byte, error) {
		data, err := readInSkill(r, f.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		if manifest.Digest(data) != f.Digest {
			return nil, fmt.Errorf("%s changed while it was packed; it is published again at the next request", f.Path)
		}
		if err := judgedOf(snap, r, f.Path).check(data); err != nil {
			return nil, err
		}
		return data, nil
	}
	if len(files) == 1 && files[0].Path == pipeline.SkillFile && !exec[pipeline.SkillFile] {
		data, err := read(files[0])
		if err != nil {
			return nil, err
		}
		if len(data) > maxArtifactBytes {
			return nil, fmt.Errorf("its SKILL.md has %d bytes, over the %d an installer downloads", len(data), maxArtifactBytes)
		}
		return &artifact{kind: artifactSkillMD, data: data, digest: manifest.Digest(data)}, nil
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		data, err := read(f)
		if err != nil {
			return nil, err
		}
		h := &zip.FileHeader{Name: f.Path, Method: zip.Deflate, Modified: archiveTime}
		mode := fs.FileMode(0o644)
		if exec[f.Path] {
			mode = 0o755
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
		if buf.Len() > maxArtifactBytes {
			break // reported below
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if buf.Len() > maxArtifactBytes {
		return nil, fmt.Errorf("its archive has more than the %d bytes an installer downloads", maxArtifactBytes)
	}
	data := buf.Bytes()
	return &artifact{kind: artifactArchive, data: data, digest: manifest.Digest(data)}, nil
}
