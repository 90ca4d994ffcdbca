package mcp

// The MCP Skills Extension (SEP-2640, io.modelcontextprotocol/skills):
// skills/list enumerates the visible skills whose names keep the Agent
// Skills rules, each with its frontmatter as JSON and the complete
// manifest of its files (URI, sha256 digest, size); skills/get returns one
// entry by the URI of its SKILL.md, listed or not; and
// resources/directory/read lists a folder of a skill (directory.go). The
// files themselves are read with resources/read (resources.go).
//
// Digests come from a manifest.Cache keyed by path, size and modification
// time, so only the first listing hashes; later ones walk and stat. The
// frontmatter of each SKILL.md is parsed once and kept as JSON by the
// file's digest. A page is built in parallel (manifest and frontmatter of
// each skill), each entry is written as JSON directly (skillwire.go), and
// entries are never split across pages. The JSON of a page is kept per
// snapshot and cursor (pages.go): a later request for it walks and stats
// the page's skills as a build does and, when every manifest is the one
// the page was built from, is answered with the kept bytes.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// SkillsExtension is the identifier of the MCP Skills Extension.
const SkillsExtension = "io.modelcontextprotocol/skills"

// skillsPageSize is how many entries one skills/list page holds at most.
const skillsPageSize = 200

// extEntry is one skill of skills/list and skills/get. The server fills
// in Wire only (the entry as JSON, see appendEntry), which MarshalJSON
// writes; a client decodes the other fields. (Wire is exported so that
// go-cmp compares decoded entries, where it is nil.)
type extEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []extResource  `json:"resources"`
	Meta        *entryMeta     `json:"_meta,omitempty"`

	Wire []byte `json:"-"`
}

// SignerMetaKey is the _meta key of a skills/list and skills/get entry
// that says who signed the skill, for a skill whose signature verified
// against exactly the files the entry lists: a host may show it. It is
// namespaced, as MCP asks of _meta keys, by the reverse domain of
// ccski's repository (github.com/ccski).
const SignerMetaKey = "io.github.ccski/signer"

// entryMeta is the _meta of a skill entry.
type entryMeta struct {
	Signer *pipeline.Signer `json:"io.github.ccski/signer,omitempty"`
}

// extResource is one file of a skill entry.
type extResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

type listSkillsParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// listCache carries the SEP-2549 cache attributes of a list result.
type listCache struct {
	TTLMs      int64  `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
}

// listSkillsResult is a skills/list result as a client decodes it.
type listSkillsResult struct {
	sdk.ResultBase
	typedResult
	listCache
	Skills     []*extEntry `json:"skills"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

// listSkillsPage is a skills/list result as the server writes it: the
// fields of listSkillsResult, with the entries as the JSON array a page
// keeps (pages.go).
type listSkillsPage struct {
	sdk.ResultBase
	typedResult
	listCache
	Skills     json.RawMessage `json:"skills"`
	NextCursor string          `json:"nextCursor,omitempty"`
}

type getSkillParams struct {
	sdk.ParamsBase
	URI string `json:"uri"`
}

type getSkillResult struct {
	sdk.ResultBase
	typedResult
	listCache
	Skill *extEntry `json:"skill"`
}

// skillsState is what the extension keeps between requests: the digest
// cache, and per snapshot the listable skills in URI order and which
// left-out skills were logged.
type skillsState struct {
	files *manifest.Cache
	// file is where files is kept between runs (Options.SkillDigests):
	// loaded at the first listing, so that the first skills/list after a
	// restart hashes only the files whose stat changed, and saved in the
	// background after a listing's last page when it hashed or listed
	// something new. "": kept in memory only.
	file   string
	loaded bool        // file was read (under mu)
	saving atomic.Bool // a save is under way
	// fronts caches each SKILL.md's frontmatter, as JSON, or why it
	// cannot be listed, by the file's digest: a warm listing opens no
	// SKILL.md, not even a broken one. An entry is a function of the
	// bytes the digest names, so it is never stale. Entries not used
	// since the last snapshot change are dropped then (frontGen is the
	// current generation).
	frontMu  sync.Mutex
	fronts   map[string]*frontEntry
	frontGen uint64
	// frontsAdded is set when a SKILL.md was parsed since fronts were
	// loaded or saved: saving them again would keep something new.
	frontsAdded atomic.Bool
	// frontReads counts the SKILL.md files read for their frontmatter,
	// pageHits the skills/list pages answered with the bytes kept.
	frontReads atomic.Int64
	pageHits   atomic.Int64

	mu     sync.Mutex
	snap   *pipeline.Snapshot
	listed []*pipeline.Record
	logged map[string]bool
	// pages are the skills/list pages built for snap, by the index in
	// listed of their first skill (under mu; see pages.go).
	pages pageCache
}

// initSkills registers skills/list, skills/get and
// resources/directory/read.
func (s *Server) initSkills() {
	s.skills.files = manifest.NewCache()
	s.skills.pages.seed = maphash.MakeSeed()
	must := func(err error) {
		if err != nil {
			panic(err) // a programming error: the method names are fixed
		}
	}
	must(sdk.AddReceivingCustomMethod(s.sdk, "skills/list", s.listSkills))
	must(sdk.AddReceivingCustomMethod(s.sdk, "skills/get", s.getSkill))
	must(sdk.AddReceivingCustomMethod(s.sdk, "resources/directory/read", s.readDirectory))
}

// cacheFields are the cache attributes of a list result: private, since
// the listing depends on the user's folders, and fresh for one refresh
// interval. (resultType is eraResults's.)
func (s *Server) cacheFields() listCache {
	var sc sdk.Cacheable
	s.cacheable(nil, &sc)
	return listCache{TTLMs: int64(sc.TTLMs), CacheScope: sc.CacheScope}
}

// listable returns the snapshot's listable skills in URI order, and the
// logged set of that snapshot.
func (s *Server) listable(snap *pipeline.Snapshot) ([]*pipeline.Record, map[string]bool) {
	st := &s.skills
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.snap != snap {
		var out []*pipeline.Record
		for _, r := range snap.Skills() {
			if r.SkillPath != "" && r.Unlistable() == "" {
				out = append(out, r)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].SkillPath < out[j].SkillPath })
		st.snap, st.listed, st.logged = snap, out, map[string]bool{}
		st.pages.reset()
		st.files.Sweep() // forget the digests of files no listing saw since the last snapshot
		if !st.loaded {
			// After the sweep, which would drop what was loaded: the
			// entries read are used by this snapshot's listings or
			// dropped at the next sweep.
			st.loaded = true
			if st.file != "" {
				// A missing or bad file costs only hashing and reading.
				fronts := map[string]*frontEntry{}
				_ = st.files.LoadFile(st.file, frontsTable(nil, fronts))
				st.frontMu.Lock()
				if st.fronts == nil {
					st.fronts = map[string]*frontEntry{}
				}
				for d, f := range fronts {
					if st.fronts[d] == nil {
						f.gen = st.frontGen // kept by the sweep below, dropped at the next unless used
						st.fronts[d] = f
					}
				}
				st.frontMu.Unlock()
			}
		}
		st.frontMu.Lock()
		for d, f := range st.fronts {
			if f.gen != st.frontGen {
				delete(st.fronts, d)
			}
		}
		st.frontGen++
		st.frontMu.Unlock()
	}
	return st.listed, st.logged
}

// leftOut logs once per snapshot that a skill is not listed.
func (s *Server) leftOut(logged map[string]bool, r *pipeline.Record, why error) {
	s.skills.mu.Lock()
	seen := logged[r.ID]
	logged[r.ID] = true
	s.skills.mu.Unlock()
	if !seen {
		s.log.Warn("skill left out of skills/list", "id", r.ID, "uri", r.SkillURI(), "reason", why.Error())
	}
}

// listSkills answers skills/list. A page holds up to skillsPageSize
// skills and pageResources manifest entries (at least one skill), so it
// stays far below a 16 MiB stdio line.
func (s *Server) listSkills(ctx context.Context, _ *sdk.ServerSession, p *listSkillsParams) (*listSkillsPage, error) {
	snap := s.snap.Load()
	listed, logged := s.listable(snap)
	start := 0
	if p != nil && p.Cursor != "" {
		last, ok := decodeCursor(p.Cursor)
		if !ok {
			return nil, invalidParams(fmt.Sprintf("skills/list: cursor %q is not one this server gave; start again without a cursor", p.Cursor))
		}
		// The cursor is the last skill path of the previous page, so a
		// page boundary holds across a refresh.
		start = sort.Search(len(listed), func(i int) bool { return listed[i].SkillPath > last })
	}
	pg, err := s.page(ctx, snap, listed, logged, start)
	if err != nil {
		return nil, err
	}
	if pg.next >= len(listed) {
		s.saveDigests()
	}
	return &listSkillsPage{listCache: s.cacheFields(), Skills: pg.skills, NextCursor: pg.cursor}, nil
}

// buildPage builds the page of listed (the listable skills of snap) that
// starts at start: up to skillsPageSize entries and pageResources
// manifest entries (at least one skill). Skills left out are logged once
// per snapshot.
func (s *Server) buildPage(ctx context.Context, snap *pipeline.Snapshot, listed []*pipeline.Record, logged map[string]bool, start int) (*page, error) {
	pg := &page{start: start, sums: make([]uint64, 0, skillsPageSize), keep: true}
	wire := append(make([]byte, 0, 64<<10), '[')
	entries, files, next := 0, 0, start
	for full := false; next < len(listed) && !full; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch := listed[next:min(len(listed), next+skillsPageSize-entries)]
		for i, b := range s.entries(snap, batch) {
			if b.err == nil && entries > 0 && (entries == skillsPageSize || files+b.files > pageResources) {
				full = true
				break
			}
			next++
			pg.sums = append(pg.sums, b.sum)
			pg.keep = pg.keep && !b.transient
			if b.err != nil {
				s.leftOut(logged, batch[i], b.err)
				continue
			}
			if entries > 0 {
				wire = append(wire, ',')
			}
			wire = append(wire, b.entry.Wire...)
			entries++
			files += b.files
		}
		full = full || entries == skillsPageSize
	}
	pg.next, pg.skills = next, append(wire, ']')
	if next < len(listed) {
		pg.cursor = encodeCursor(listed[next-1].SkillPath)
	}
	return pg, nil
}

// saveDigests writes the digest cache and the frontmatter of each
// SKILL.md (frontfile.go) to its file in the background when a listing
// added to either, one save at a time. A failure costs only hashing and
// reading at the next start.
func (s *Server) saveDigests() {
	st := &s.skills
	if st.file == "" || !st.files.Changed() && !st.frontsAdded.Load() || !st.saving.CompareAndSwap(false, true) {
		return
	}
	st.frontsAdded.Store(false)
	st.frontMu.Lock()
	fronts := make(map[string]*frontEntry, len(st.fronts)+1)
	for d, f := range st.fronts {
		fronts[d] = f
	}
	st.frontMu.Unlock()
	go func() {
		defer st.saving.Store(false)
		err := st.files.SaveFile(st.file, frontsTable(fronts, nil))
		if errors.Is(err, binenc.ErrTooLarge) {
			// The digests first: they save hashing every file, the
			// frontmatter only reading each SKILL.md.
			err = st.files.SaveFile(st.file, frontsTable(map[string]*frontEntry{}, nil))
		}
		if err != nil {
			st.frontsAdded.Store(true)
			s.log.Warn("skill digests not saved: the next start hashes every listed file again", "file", st.file, "err", err)
		}
	}()
}

// pageResources caps the manifest entries of one skills/list page.
const pageResources = 5000

// encodeCursor and decodeCursor make an opaque pagination cursor of the
// last key of a page.
func encodeCursor(last string) string { return base64.RawURLEncoding.EncodeToString([]byte(last)) }

func decodeCursor(c string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	return string(b), err == nil
}

// getSkill answers skills/get for any skill the server serves, listed or
// not; an unknown URI is -32602.
func (s *Server) getSkill(_ context.Context, _ *sdk.ServerSession, p *getSkillParams) (*getSkillResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("skills/get: params.uri is required: the skill:// URI of a skill's SKILL.md, as skills/list gives it")
	}
	// Only the extension's URIs: an entry's uri must be the one asked
	// for, as hosts bind approvals to it; earlier URIs still read.
	snap := s.snap.Load()
	r, rel, ok, err := snap.LoadURI(p.URI)
	switch {
	case !ok:
		return nil, invalidParams(fmt.Sprintf("skills/get: %s is not a skill this server serves; use a uri from skills/list", p.URI))
	case err != nil:
		return nil, invalidParams(fmt.Sprintf("skills/get: %s: %v", p.URI, err))
	case rel != pipeline.SkillFile:
		return nil, invalidParams(fmt.Sprintf("skills/get: %s is not the URI of a skill's SKILL.md; use skill://<skill path>/SKILL.md", p.URI))
	}
	b := s.entryOf(snap, r)
	if b.err != nil {
		return nil, invalidParams(fmt.Sprintf("skills/get: %s cannot be served as a skills entry: %v; load it with the skill tool", p.URI, b.err))
	}
	return &getSkillResult{listCache: s.cacheFields(), Skill: b.entry}, nil
}

// built is the entry of one skill, with the number of its files, or why
// it has none, and the sum of what it was built from (manifestOf).
type built struct {
	entry *extEntry
	files int
	err   error
	sum   uint64
	// transient is set for an error that the skill's manifest does not
	// decide (its SKILL.md could not be read): a page holding it is not
	// kept.
	transient bool
}

// entries builds the entries of records of snap in parallel, with
// runtime.GOMAXPROCS(0) workers: each builds the manifest of a skill and
// its entry.
func (s *Server) entries(snap *pipeline.Snapshot, records []*pipeline.Record) []built {
	out := make([]built, len(records))
	parallel.Each(context.Background(), len(records), 0, func(i int) { out[i] = s.entryOf(snap, records[i]) })
	return out
}

// entryOf builds the entry of a record of snap from the manifest of its
// folder: the frontmatter of its SKILL.md as JSON, whose name must be the
// last segment of the URI, and every file; under a gate, only when every
// file is what it judged (entryJudged).
func (s *Server) entryOf(snap *pipeline.Snapshot, r *pipeline.Record) built {
	m, sum, err := s.manifestOf(r)
	if err != nil {
		return built{err: err, sum: sum}
	}
	files := m.Contents() // a recorded link (one leading out, say) has nothing to serve
	i := slices.IndexFunc(files, func(f manifest.File) bool { return f.Path == pipeline.SkillFile })
	if i < 0 {
		return built{err: errors.New("the folder has no SKILL.md (it is disabled or was removed)"), sum: sum}
	}
	front, digest, size, err := s.frontmatter(r, files[i].Digest)
	if err != nil {
		return built{err: err, sum: sum, transient: true}
	}
	if front.err != nil {
		return built{err: front.err, sum: sum}
	}
	if name := r.FrontmatterName(); front.name != name[strings.LastIndexByte(name, ':')+1:] {
		return built{err: fmt.Errorf("the frontmatter name %q is not %q, the last segment of the skill's URI", front.name, name[strings.LastIndexByte(name, ':')+1:]), sum: sum}
	}
	// SKILL.md changed since the walk hashed it: state the bytes the
	// frontmatter was read from. The entry is then not the one the
	// manifest's sum names, and a page holding it is not kept.
	moved := files[i].Digest != digest
	files[i].Digest, files[i].Size = digest, size
	if err := entryJudged(snap, r, files); err != nil {
		return built{err: err, sum: sum, transient: moved}
	}
	return built{entry: &extEntry{Wire: appendEntry(nil, r, front.json, files, entrySigner(snap, r, files))},
		files: len(files), sum: sum, transient: moved}
}

// manifestOf builds the manifest of r's folder, and its sum: what an
// entry of r depends on besides the snapshot (sumFiles), or a fixed
// value for a skill that cannot be listed or whose folder cannot be
// walked.
func (s *Server) manifestOf(r *pipeline.Record) (*manifest.Manifest, uint64, error) {
	// What keeps a skill out of skills/list keeps it out of skills/get:
	// an entry whose name, description or frontmatter break the Agent
	// Skills rules is one a client checking them refuses.
	if why := r.Unlistable(); why != "" {
		return nil, sumUnlistable, errors.New(why)
	}
	m, err := s.skills.files.Build(r.FilesDir())
	if err != nil {
		return nil, sumUnwalkable, err
	}
	return m, s.skills.pages.sumFiles(m.Files), nil
}

// entrySigner returns who signed r, for its entry's _meta, when its
// signature verified against exactly files (the entry's, sorted by path):
// a file changed, added or gone since the verification, and the entry
// names no signer, for what it lists is not what was signed. It returns
// nil for a skill without a verified signature.
func entrySigner(snap *pipeline.Snapshot, r *pipeline.Record, files []manifest.File) *pipeline.Signer {
	if snap == nil {
		return nil
	}
	sig := snap.SignatureOf(r)
	if !sig.Signed() {
		return nil
	}
	listed := make([]pipeline.JudgedFile, len(files))
	for i, f := range files {
		listed[i] = pipeline.JudgedFile{Path: f.Path, Size: f.Size, Digest: f.Digest}
	}
	if !sig.Covers(listed) {
		return nil
	}
	return sig.Signer
}

// frontmatter returns the frontmatter of r's SKILL.md, with the digest
// and size of the bytes it was read from: from the cache when digest (the
// manifest's) is known, else from the file (see readSkillFile). The cache
// is keyed by the digest of the bytes parsed, so an edit between the walk
// and the read never pairs a digest with another version's frontmatter.
// The error is for a file that cannot be read; one that cannot be parsed
// gives an entry whose err says why.
func (s *Server) frontmatter(r *pipeline.Record, digest string) (*frontEntry, string, int64, error) {
	st := &s.skills
	st.frontMu.Lock()
	c, ok := st.fronts[digest]
	if ok {
		c.gen = st.frontGen
	}
	st.frontMu.Unlock()
	if ok {
		return c, digest, c.size, nil
	}
	data, got, err := s.readSkillFile(r, digest)
	if err != nil {
		return nil, "", 0, fmt.Errorf("read SKILL.md: %w", safefile.Cause(err))
	}
	c = parseFront(data)
	st.frontMu.Lock()
	if st.fronts == nil {
		st.fronts = map[string]*frontEntry{}
	}
	c.gen = st.frontGen
	st.fronts[got] = c
	st.frontMu.Unlock()
	st.frontsAdded.Store(true)
	return c, got, c.size, nil
}

// readSkillFile reads r's SKILL.md and returns its bytes and their
// digest. It first reads it through an os.Root on the skill's folder,
// which is cheap; when that fails, or the bytes are not those the
// manifest hashed (want), it reads again as resources/read does
// (readInSkill: the folder resolved, symlinks into .git refused), whose
// bytes or error are the answer.
func (s *Server) readSkillFile(r *pipeline.Record, want string) ([]byte, string, error) {
	s.skills.frontReads.Add(1)
	if root, err := os.OpenRoot(r.FilesDir()); err == nil {
		data, err := safefile.ReadIn(root, pipeline.SkillFile, MaxResourceBytes)
		root.Close()
		if err == nil {
			if got := manifest.Digest(data); got == want {
				return data, got, nil
			}
		}
	}
	data, err := readInSkill(r, pipeline.SkillFile)
	if err != nil {
		return nil, "", err
	}
	return data, manifest.Digest(data), nil
}

// frontEntry is a SKILL.md's frontmatter as JSON and its name, or why it
// cannot be listed, and the file's size.
type frontEntry struct {
	json []byte
	name string // the frontmatter's name, "" when it is not a string
	err  error
	size int64
	gen  uint64 // the last generation of skillsState.fronts that used it
}

// parseFront parses the frontmatter of a SKILL.md's bytes.
func parseFront(data []byte) *frontEntry {
	c := &frontEntry{size: int64(len(data))}
	h, err := skillmd.ReadHead(bytes.NewReader(data))
	if err != nil {
		c.err = fmt.Errorf("SKILL.md: %w", err)
		return c
	}
	front, err := skillmd.FrontmatterData(h)
	if err != nil {
		c.err = fmt.Errorf("SKILL.md frontmatter: %w", err)
		return c
	}
	if c.json, err = marshalJSON(front); err != nil {
		c.err = fmt.Errorf("SKILL.md frontmatter: %w", err)
		return c
	}
	c.name, _ = front["name"].(string)
	return c
}

// skillFileURI is the URI of the file rel ('/'-separated) of a skill.
func skillFileURI(r *pipeline.Record, rel string) string {
	return pathBase(r.SkillPath, rel)
}

// escapeSegment escapes one segment of a URI path.
func escapeSegment(seg string) string { return url.PathEscape(seg) }
