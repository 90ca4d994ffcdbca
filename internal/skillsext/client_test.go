package skillsext

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/manifest"
)

// fake is an upstream server of the extension: skills by path, each a map
// of files; listed overrides what skills/list says of a file's bytes.
type fake struct {
	mu     sync.Mutex
	skills map[string]map[string]string // skill path -> file -> bytes
	order  []string
	listed map[string]string // resource URI -> bytes skills/list hashes instead
	rawURI string            // when set, the only entry's uri
	auth   []string
}

func (f *fake) server(t *testing.T) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1"}, nil)
	if err := sdk.AddReceivingCustomMethod(srv, "skills/list", f.list); err != nil {
		t.Fatal(err)
	}
	srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "skill://{+path}", Name: "skills"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			for p, files := range f.skills {
				if rel, ok := strings.CutPrefix(req.Params.URI, "skill://"+p+"/"); ok {
					if b, ok := files[rel]; ok {
						return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Blob: []byte(b)}}}, nil
					}
				}
			}
			return nil, sdk.ResourceNotFoundError(req.Params.URI)
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// list gives one skill a page.
func (f *fake) list(_ context.Context, _ *sdk.ServerSession, p *listParams) (*listResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := 0
	if p != nil && p.Cursor != "" {
		b, _ := base64.RawURLEncoding.DecodeString(p.Cursor)
		i = int(b[0])
	}
	res := &listResult{TTLMs: int64(60000 - i*1000)}
	if i >= len(f.order) {
		return res, nil
	}
	path := f.order[i]
	e := rawEntry{URI: "skill://" + path + "/SKILL.md"}
	if f.rawURI != "" {
		e.URI = f.rawURI
	}
	for rel, b := range f.skills[path] {
		uri := "skill://" + path + "/" + rel
		if l, ok := f.listed[uri]; ok {
			b = l
		}
		e.Resources = append(e.Resources, struct {
			URI    string `json:"uri"`
			Digest string `json:"digest"`
			Size   int64  `json:"size"`
		}{uri, manifest.Digest([]byte(b)), int64(len(b))})
	}
	res.Skills = []rawEntry{e}
	if i+1 < len(f.order) {
		res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte{byte(i + 1)})
	}
	return res, nil
}

func newFake() *fake {
	return &fake{
		skills: map[string]map[string]string{
			"codex/pdf":        {"SKILL.md": "---\nname: pdf\ndescription: PDFs.\n---\nBody\n", "scripts/run.sh": "#!/bin/sh\necho hi\n"},
			"claude/user/docx": {"SKILL.md": "---\nname: docx\ndescription: Word.\n---\n", "empty.txt": ""},
		},
		order:  []string{"claude/user/docx", "codex/pdf"},
		listed: map[string]string{},
	}
}

func TestListAndWriteEveryPage(t *testing.T) {
	f := newFake()
	url := f.server(t)
	s, err := Dial(context.Background(), url, Options{Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skills) != 2 || l.Skills[0].Path != "claude/user/docx" || l.Skills[1].Name() != "pdf" {
		t.Fatalf("skills = %+v, want docx then pdf from two pages", l.Skills)
	}
	if l.TTL.Milliseconds() != 59000 {
		t.Errorf("TTL = %v, want the smallest ttlMs of the pages (59s)", l.TTL)
	}
	dir := t.TempDir()
	for _, sk := range l.Skills {
		if err := s.WriteSkill(sk, dir); err != nil {
			t.Fatal(err)
		}
	}
	for path, files := range f.skills {
		for rel, want := range files {
			got, err := os.ReadFile(filepath.Join(dir, path, rel))
			if err != nil || string(got) != want {
				t.Errorf("%s/%s = %q, %v; want %q", path, rel, got, err, want)
			}
		}
	}
	for _, a := range f.auth {
		if a != "Bearer s3cret" {
			t.Errorf("a request carried Authorization %q, want the bearer token", a)
		}
	}
}

func TestChangedBytesAreRefused(t *testing.T) {
	for _, tc := range []struct{ name, listed string }{
		{"digest", "#!/bin/sh\necho ho\n"},
		{"size", "#!/bin/sh\necho hi!\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			f.listed["skill://codex/pdf/scripts/run.sh"] = tc.listed
			s, err := Dial(context.Background(), f.server(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			l, err := s.List()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			err = s.WriteSkill(l.Skills[1], dir)
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Fatalf("WriteSkill = %v, want a refusal", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "codex")); !os.IsNotExist(err) {
				t.Errorf("something of the refused skill was written: %v", err)
			}
		})
	}
}

func TestBadEntriesAreRefused(t *testing.T) {
	for _, uri := range []string{
		"skill://codex/../pdf/SKILL.md",
		"skill://codex/pdf/SKILL.txt",
		"skill://codex/%2e%2e/SKILL.md",
		"skill://.git/pdf/SKILL.md",
		"file:///etc/SKILL.md",
	} {
		f := newFake()
		f.order = []string{"codex/pdf"}
		f.rawURI = uri
		s, err := Dial(context.Background(), f.server(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.List(); err == nil {
			t.Errorf("List with entry %s: no error, want a refusal", uri)
		}
		s.Close()
	}
}

func TestCheckURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"http://127.0.0.1:3801/mcp":    true,
		"https://skills.example/mcp":   true,
		"ftp://x/mcp":                  false,
		"https://user:pw@example/mcp":  false,
		"https:///mcp":                 false,
		"https://example/mcp#fragment": false,
	} {
		if err := CheckURL(u); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v, want ok %v", u, err, ok)
		}
	}
}
