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
// time, so only the first listing hashes; later ones walk and stat. A
// page is built in parallel, and entries are never split across pages.

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/manifest"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/skillmd"
)

// SkillsExtension is the identifier of the MCP Skills Extension.
const SkillsExtension = "io.modelcontextprotocol/skills"

// skillsPageSize is how many entries one skills/list page holds at most.
const skillsPageSize = 200

// protocol2026 is the first protocol revision whose list results carry
// resultType, ttlMs and cacheScope.
const protocol2026 = "2026-07-28"

// extEntry is one skill of skills/list and skills/get.
type extEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []extResource  `json:"resources"`
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
	ResultType string `json:"resultType,omitempty"`
	TTLMs      int64  `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
}

type listSkillsResult struct {
	sdk.ResultBase
	listCache
	Skills     []*extEntry `json:"skills"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

type getSkillParams struct {
	sdk.ParamsBase
	URI string `json:"uri"`
}

type getSkillResult struct {
	sdk.ResultBase
	listCache
	Skill *extEntry `json:"skill"`
}

// skillsState is what the extension keeps between requests: the digest
// cache, and per snapshot the listable skills in URI order and which
// left-out skills were logged.
type skillsState struct {
	files *manifest.Cache
	// fronts caches each SKILL.md's frontmatter by the file's digest, so
	// a warm listing opens no SKILL.md; seen holds the digests used since
	// the last snapshot change, and the others are dropped then.
	frontMu sync.Mutex
	fronts  map[string]map[string]any
	seen    map[string]bool

	mu     sync.Mutex
	snap   *pipeline.Snapshot
	listed []*pipeline.Record
	logged map[string]bool
}

// initSkills registers skills/list, skills/get and
// resources/directory/read.
func (s *Server) initSkills() {
	s.skills.files = manifest.NewCache()
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
// interval. resultType is set for 2026-07-28 clients only.
func (s *Server) cacheFields(ss *sdk.ServerSession) listCache {
	c := listCache{TTLMs: s.listTTL.Milliseconds(), CacheScope: "private"}
	if newProtocol(ss) {
		c.ResultType = "complete"
	}
	return c
}

// newProtocol reports whether the session speaks 2026-07-28 or later; a
// stateless request carries no initialize parameters and does.
func newProtocol(ss *sdk.ServerSession) bool {
	if ss == nil {
		return true
	}
	if p := ss.InitializeParams(); p != nil {
		return p.ProtocolVersion >= protocol2026
	}
	return true
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
		st.files.Sweep() // forget the digests of files no listing saw since the last snapshot
		st.frontMu.Lock()
		for d := range st.fronts {
			if !st.seen[d] {
				delete(st.fronts, d)
			}
		}
		st.seen = map[string]bool{}
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

// listSkills answers skills/list.
func (s *Server) listSkills(ctx context.Context, ss *sdk.ServerSession, p *listSkillsParams) (*listSkillsResult, error) {
	snap := s.snap.Load()
	listed, logged := s.listable(snap)
	start := 0
	if p != nil && p.Cursor != "" {
		last, err := base64.RawURLEncoding.DecodeString(p.Cursor)
		if err != nil {
			return nil, invalidParams(fmt.Sprintf("skills/list: cursor %q is not one this server gave; start again without a cursor", p.Cursor))
		}
		// The cursor is the last skill path of the previous page, so a
		// page boundary holds across a refresh.
		start = sort.Search(len(listed), func(i int) bool { return listed[i].SkillPath > string(last) })
	}
	res := &listSkillsResult{listCache: s.cacheFields(ss), Skills: []*extEntry{}}
	for start < len(listed) && len(res.Skills) < skillsPageSize {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(len(listed), start+skillsPageSize-len(res.Skills))
		batch := listed[start:end]
		entries, errs := s.entries(batch)
		for i, e := range entries {
			if errs[i] != nil {
				s.leftOut(logged, batch[i], errs[i])
				continue
			}
			res.Skills = append(res.Skills, e)
		}
		start = end
	}
	if start < len(listed) {
		res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(listed[start-1].SkillPath))
	}
	return res, nil
}

// getSkill answers skills/get for any skill the server serves, listed or
// not; an unknown URI is -32602.
func (s *Server) getSkill(_ context.Context, ss *sdk.ServerSession, p *getSkillParams) (*getSkillResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("skills/get: params.uri is required: the skill:// URI of a skill's SKILL.md, as skills/list gives it")
	}
	snap := s.snap.Load()
	r, rel, err := resolveURI(snap, p.URI)
	if err != nil {
		return nil, invalidParams(fmt.Sprintf("skills/get: %s: %v", p.URI, err))
	}
	if rel != pipeline.SkillFile || r.SkillPath == "" {
		return nil, invalidParams(fmt.Sprintf("skills/get: %s is not the URI of a skill's SKILL.md; use skill://<skill path>/SKILL.md", p.URI))
	}
	entries, errs := s.entries([]*pipeline.Record{r})
	if errs[0] != nil {
		return nil, invalidParams(fmt.Sprintf("skills/get: %s cannot be served as a skills entry: %v; load it with the skill tool", p.URI, errs[0]))
	}
	return &getSkillResult{listCache: s.cacheFields(ss), Skill: entries[0]}, nil
}

// entries builds the entries of records, in parallel, with an error for
// each record that cannot have one.
func (s *Server) entries(records []*pipeline.Record) ([]*extEntry, []error) {
	dirs := make([]string, len(records))
	for i, r := range records {
		dirs[i] = skillFolder(r)
	}
	built := s.skills.files.BuildAll(dirs)
	out := make([]*extEntry, len(records))
	errs := make([]error, len(records))
	for i, r := range records {
		if built[i].Err != nil {
			errs[i] = built[i].Err
			continue
		}
		out[i], errs[i] = s.entryOf(r, built[i].Manifest)
	}
	return out, errs
}

// skillFolder is the folder a skill's files are served from.
func skillFolder(r *pipeline.Record) string {
	if r.RealDir != "" {
		return r.RealDir
	}
	return r.Dir
}

// entryOf builds a record's entry from its manifest: the frontmatter of
// its SKILL.md as JSON, whose name must be the last segment of the URI,
// and every file.
func (s *Server) entryOf(r *pipeline.Record, m *manifest.Manifest) (*extEntry, error) {
	i := slices.IndexFunc(m.Files, func(f manifest.File) bool { return f.Path == pipeline.SkillFile })
	if i < 0 {
		return nil, errors.New("the folder has no SKILL.md (it is disabled or was removed)")
	}
	front, err := s.frontmatter(skillFolder(r), m.Files[i].Digest)
	if err != nil {
		return nil, err
	}
	if name, _ := front["name"].(string); name != r.ShortName() {
		return nil, fmt.Errorf("the frontmatter name %q is not %q, the last segment of the skill's URI", name, r.ShortName())
	}
	e := &extEntry{URI: r.SkillURI(), Frontmatter: front, Resources: make([]extResource, len(m.Files))}
	for i, f := range m.Files {
		e.Resources[i] = extResource{URI: skillFileURI(r, f.Path), Digest: f.Digest, Size: f.Size}
	}
	return e, nil
}

// frontmatter returns the frontmatter of the SKILL.md in dir, whose
// digest is digest, from the cache or from the file. The maps are shared
// between responses and never changed.
func (s *Server) frontmatter(dir, digest string) (map[string]any, error) {
	st := &s.skills
	st.frontMu.Lock()
	front, ok := st.fronts[digest]
	if st.seen == nil {
		st.seen = map[string]bool{}
	}
	st.seen[digest] = true
	st.frontMu.Unlock()
	if ok {
		return front, nil
	}
	front, err := readFrontmatter(dir)
	if err != nil {
		return nil, err
	}
	st.frontMu.Lock()
	if st.fronts == nil {
		st.fronts = map[string]map[string]any{}
	}
	st.fronts[digest] = front
	st.frontMu.Unlock()
	return front, nil
}

// readFrontmatter reads the frontmatter of the SKILL.md in dir as
// JSON-compatible data.
func readFrontmatter(dir string) (map[string]any, error) {
	f, _, err := safefile.Open(filepath.Join(dir, pipeline.SkillFile))
	if err != nil {
		return nil, fmt.Errorf("read SKILL.md: %w", unwrapPath(err))
	}
	defer f.Close()
	h, err := skillmd.ReadHead(f)
	if err != nil {
		return nil, fmt.Errorf("SKILL.md: %w", err)
	}
	front, err := skillmd.FrontmatterData(h)
	if err != nil {
		return nil, fmt.Errorf("SKILL.md frontmatter: %w", err)
	}
	return front, nil
}

// skillFileURI is the URI of the file rel ('/'-separated) of a skill.
func skillFileURI(r *pipeline.Record, rel string) string {
	return pathBase(r.SkillPath, rel)
}

// escapeSegment escapes one segment of a URI path.
func escapeSegment(seg string) string { return url.PathEscape(seg) }
