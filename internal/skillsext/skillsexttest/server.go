// Package skillsexttest is an upstream MCP server of the Skills Extension
// for tests: skills held in memory, served over streamable HTTP on
// 127.0.0.1 (skills/list, one skill a page, and resources/read), whose
// files and listed digests a test changes between requests.
package skillsexttest

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/manifest"
)

// Server is the upstream. Its fields may be changed under Lock.
type Server struct {
	sync.Mutex
	// Skills are the files of each skill by skill path ("up/pdf"), each
	// file's bytes by its path in the skill folder.
	Skills map[string]map[string]string
	// Listed, by resource URI, are bytes skills/list hashes instead of
	// the file's: a server whose listing and reads disagree.
	Listed map[string]string
	// EntryURI, by skill path, replaces the uri of an entry: a server
	// breaking the extension's URI rules.
	EntryURI map[string]string
	// TTLMs is the ttlMs of every page.
	TTLMs int64
	// Lists counts the skills/list requests; Auth records the
	// Authorization header of every HTTP request.
	Lists int
	Auth  []string

	ts *httptest.Server
}

type resource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

type entry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []resource     `json:"resources"`
}

type listParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type listResult struct {
	sdk.ResultBase
	TTLMs      int64   `json:"ttlMs"`
	Skills     []entry `json:"skills"`
	NextCursor string  `json:"nextCursor,omitempty"`
}

// Start serves skills until the test ends (or Close).
func Start(t testing.TB, skills map[string]map[string]string) *Server {
	t.Helper()
	s := &Server{Skills: skills, Listed: map[string]string{}, EntryURI: map[string]string{}, TTLMs: 60_000}
	srv := sdk.NewServer(&sdk.Implementation{Name: "skillsexttest", Version: "1"}, nil)
	if err := sdk.AddReceivingCustomMethod(srv, "skills/list", s.list); err != nil {
		t.Fatal(err)
	}
	srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "skill://{+path}", Name: "skills"}, s.read)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	s.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Lock()
		s.Auth = append(s.Auth, r.Header.Get("Authorization"))
		s.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.ts.Close)
	return s
}

// URL is the server's endpoint.
func (s *Server) URL() string { return s.ts.URL + "/mcp" }

// Close stops the server: the upstream is down.
func (s *Server) Close() { s.ts.Close() }

// Set sets one file of a skill.
func (s *Server) Set(skill, rel, data string) {
	s.Lock()
	defer s.Unlock()
	s.Skills[skill][rel] = data
}

// list gives one skill a page, in skill path order.
func (s *Server) list(_ context.Context, _ *sdk.ServerSession, p *listParams) (*listResult, error) {
	s.Lock()
	defer s.Unlock()
	s.Lists++
	paths := make([]string, 0, len(s.Skills))
	for p := range s.Skills {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	i := 0
	if p != nil && p.Cursor != "" {
		b, _ := base64.RawURLEncoding.DecodeString(p.Cursor)
		i, _ = strconv.Atoi(string(b))
	}
	res := &listResult{TTLMs: s.TTLMs, Skills: []entry{}}
	if i >= len(paths) {
		return res, nil
	}
	path := paths[i]
	e := entry{URI: "skill://" + path + "/SKILL.md", Frontmatter: map[string]any{"name": path[strings.LastIndexByte(path, '/')+1:]}}
	if u, ok := s.EntryURI[path]; ok {
		e.URI = u
	}
	rels := make([]string, 0, len(s.Skills[path]))
	for rel := range s.Skills[path] {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	for _, rel := range rels {
		uri := "skill://" + path + "/" + escape(rel)
		b := s.Skills[path][rel]
		if l, ok := s.Listed[uri]; ok {
			b = l
		}
		e.Resources = append(e.Resources, resource{uri, manifest.Digest([]byte(b)), int64(len(b))})
	}
	res.Skills = []entry{e}
	if i+1 < len(paths) {
		res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(i + 1)))
	}
	return res, nil
}

// read serves a file as a blob.
func (s *Server) read(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	s.Lock()
	defer s.Unlock()
	for p, files := range s.Skills {
		for rel, b := range files {
			if req.Params.URI == "skill://"+p+"/"+escape(rel) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Blob: []byte(b)}}}, nil
			}
		}
	}
	return nil, sdk.ResourceNotFoundError(req.Params.URI)
}

// escape escapes each segment of a '/'-separated path, as ccski's server
// writes resource URIs.
func escape(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
