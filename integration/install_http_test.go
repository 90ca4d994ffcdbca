package integration

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// webSite is a loopback HTTP server of fixed files, changeable while it
// serves. Requests with an Authorization header are recorded by path.
type webSite struct {
	mu    sync.Mutex
	files map[string][]byte
	// token, when set, is the Bearer token every request must carry.
	token string
	// auth records the Authorization header each path was asked with.
	auth map[string]string
	// redirects maps a path to the URL it redirects to.
	redirects map[string]string
	srv       *httptest.Server
}

func newWebSite(t *testing.T) *webSite {
	t.Helper()
	s := &webSite{files: map[string][]byte{}, auth: map[string]string{}, redirects: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.auth[r.URL.Path] = r.Header.Get("Authorization")
		if to, ok := s.redirects[r.URL.Path]; ok {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		b, ok := s.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// redirect makes path redirect to the URL to.
func (s *webSite) redirect(path, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redirects[path] = to
}

// authOf returns the Authorization header path was last asked with.
func (s *webSite) authOf(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auth[path]
}

func (s *webSite) put(path string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = b
}

func (s *webSite) get(path string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.files[path])
}

// host is the server's host:port.
func (s *webSite) host() string { return strings.TrimPrefix(s.srv.URL, "http://") }

// archiveEntry is a file of a test archive; link makes it a symlink.
type archiveEntry struct{ name, body, link string }

// packZip packs files as a zip.
func packZip(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range sortedNames(files) {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(files[name]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// packTarGz packs entries as a gzip-compressed tar.
func packTarGz(t *testing.T, entries ...archiveEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	w := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		if e.link != "" {
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e.body))
	}
	w.Close()
	gz.Close()
	return buf.Bytes()
}

// tarEntries are files as tar entries, sorted.
func tarEntries(files map[string]string) []archiveEntry {
	var out []archiveEntry
	for _, name := range sortedNames(files) {
		out = append(out, archiveEntry{name: name, body: files[name]})
	}
	return out
}

func sortedNames(files map[string]string) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// httpSources serves one skill from each HTTP source kind: a v0.2.0
// well-known index (a SKILL.md artifact), a v0.1.0 one, an archive of
// each format and an Agent Plugins package.
type httpSources struct {
	v2, v1, dl *webSite
	// args are the install sources, by skill.
	args map[string]string
	// served is, by skill, the site and path whose bytes a change
	// should be refused for.
	served map[string]struct {
		site *webSite
		path string
	}
}

const (
	v2Index = "/.well-known/agent-skills/index.json"
	v1Index = "/.well-known/skills/index.json"
)

func newHTTPSources(t *testing.T) *httpSources {
	t.Helper()
	h := &httpSources{v2: newWebSite(t), v1: newWebSite(t), dl: newWebSite(t), args: map[string]string{},
		served: map[string]struct {
			site *webSite
			path string
		}{}}
	serve := func(skill string, site *webSite, path string) {
		h.served[skill] = struct {
			site *webSite
			path string
		}{site, path}
	}
	h.v2.put("/.well-known/agent-skills/indexed/SKILL.md", []byte(skillText("indexed", "from a v0.2.0 index")))
	h.reindex()
	h.args["indexed"] = h.v2.srv.URL
	serve("indexed", h.v2, "/.well-known/agent-skills/indexed/SKILL.md")

	h.v1.put(v1Index, []byte(`{"skills": [{"name": "legacy", "description": "d", "files": ["SKILL.md", "notes/a.md"]}]}`))
	h.v1.put("/.well-known/skills/legacy/SKILL.md", []byte(skillText("legacy", "from a v0.1.0 index")))
	h.v1.put("/.well-known/skills/legacy/notes/a.md", []byte("notes\n"))
	h.args["legacy"] = h.v1.srv.URL
	serve("legacy", h.v1, "/.well-known/skills/legacy/notes/a.md")

	h.dl.put("/zipped.zip", packZip(t, map[string]string{"zipped/SKILL.md": skillText("zipped", "from a zip"),
		"zipped/scripts/run.sh": "echo zip\n"}))
	h.dl.put("/tarred.tar.gz", packTarGz(t, tarEntries(map[string]string{"SKILL.md": skillText("tarred", "from a tar.gz")})...))
	h.dl.put("/tgz.tgz", packTarGz(t, tarEntries(map[string]string{"skills/tgz/SKILL.md": skillText("tgz", "from a tgz")})...))
	h.dl.put("/plugin.zip", packZip(t, map[string]string{
		"plugin.json":                     `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "toolbox"}`,
		"skills/packaged/SKILL.md":        skillText("packaged", "from an Agent Plugins package"),
		"mcp.json":                        `{"mcpServers": {"tickets": {"type": "stdio", "command": "./bin/tickets"}}}`,
		"com.example.client/hooks/a.json": `{}`,
	}))
	for skill, path := range map[string]string{"zipped": "/zipped.zip", "tarred": "/tarred.tar.gz", "tgz": "/tgz.tgz",
		"packaged": "/plugin.zip"} {
		h.args[skill] = h.dl.srv.URL + path
		serve(skill, h.dl, path)
	}
	return h
}

// reindex rewrites the v0.2.0 index from the artifact served now, as a
// publisher would after changing it.
func (h *httpSources) reindex() {
	art := "/.well-known/agent-skills/indexed/SKILL.md"
	doc := map[string]any{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
		"skills": []map[string]string{{"name": "indexed", "type": "skill-md", "description": "d",
			"url": "indexed/SKILL.md", "digest": digestOf(h.v2.get(art))}}}
	b, _ := json.Marshal(doc)
	h.v2.put(v2Index, b)
}

// TestInstallFromHTTP installs one skill from each HTTP source kind (a
// v0.2.0 and a v0.1.0 well-known index, a .zip, a .tar.gz, a .tgz and an
// Agent Plugins package), restores them all with --frozen in a second
// clone of the project, and refuses each there once one byte its source
// serves changes, writing nothing of it.
func TestInstallFromHTTP(t *testing.T) {
	h := newHTTPSources(t)
	b := newInstallBox(t)
	skills := sortedNames(h.args)
	for _, skill := range skills {
		rep := b.jsonRun(t, 0, "install", h.args[skill], "--all")
		if got := rep.statuses(); !slices.Equal(got, []string{skill + " installed"}) {
			t.Fatalf("install %s: %v", h.args[skill], got)
		}
	}
	r := b.run(t, "install", h.args["packaged"], "--all", "--dry-run")
	if !strings.Contains(r.stderr+r.stdout, "MCP servers (tickets)") || !strings.Contains(r.stderr+r.stdout, "client extensions (com.example.client)") {
		t.Errorf("installing the package does not say what else it holds:\n%s", r)
	}
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	var parsed struct {
		Version int `json:"version"`
		Skills  []struct {
			Name   string `json:"name"`
			Commit string `json:"commit"`
			Source struct{ Kind, URL string }
		} `json:"skills"`
	}
	if err := json.Unmarshal([]byte(lock), &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.Version != 3 || len(parsed.Skills) != len(skills) {
		t.Fatalf("lock: version %d, %d skills\n%s", parsed.Version, len(parsed.Skills), lock)
	}
	for _, e := range parsed.Skills {
		want := digestOf(h.served[e.Name].site.get(h.served[e.Name].path))
		if e.Name == "legacy" {
			want = "" // v0.1.0 publishes no digest: the files' digests are the record
		}
		if e.Commit != want {
			t.Errorf("lock records %s with digest %q, want %q", e.Name, e.Commit, want)
		}
	}

	// A second clone: the lock alone restores every skill, checked.
	clone := func() *installBox {
		c := newInstallBox(t)
		testfs.Write(t, c.proj, map[string]string{"ccski.lock": lock})
		return c
	}
	c := clone()
	rep := c.jsonRun(t, 0, "install", "--frozen")
	if rep.Counts["installed"] != len(skills) {
		t.Fatalf("frozen restore in a clone: %v", rep.statuses())
	}
	for _, skill := range skills {
		if _, err := os.Stat(filepath.Join(c.proj, ".agents/skills", skill, "SKILL.md")); err != nil {
			t.Errorf("%s was not restored: %v", skill, err)
		}
	}

	// One byte changed: refused in a fresh clone, nothing written.
	for _, skill := range skills {
		t.Run("changed/"+skill, func(t *testing.T) {
			s := h.served[skill]
			orig := s.site.get(s.path)
			changed := bytes.Clone(orig)
			changed[len(changed)/2] ^= 0x20
			s.site.put(s.path, changed)
			if skill == "indexed" {
				h.reindex()
			}
			defer func() {
				s.site.put(s.path, orig)
				if skill == "indexed" {
					h.reindex()
				}
			}()
			frozenRefusesOnly(t, clone(), skill, lock)
		})
	}
}

// TestUpdateFromHTTP checks that update takes what an HTTP source serves
// now: the new digest in the lock, the old one reported as where it came
// from, and nothing done when the source is unchanged.
func TestUpdateFromHTTP(t *testing.T) {
	h := newHTTPSources(t)
	b := newInstallBox(t)
	for _, skill := range []string{"indexed", "tarred"} {
		b.jsonRun(t, 0, "install", h.args[skill], "--all")
	}
	rep := b.jsonRun(t, 0, "update")
	if got := rep.statuses(); !slices.Equal(got, []string{"indexed unchanged", "tarred unchanged"}) {
		t.Fatalf("update of unchanged sources: %v", got)
	}
	old := map[string]string{}
	for _, r := range rep.Results {
		old[r.Skill] = r.Commit
	}
	h.v2.put("/.well-known/agent-skills/indexed/SKILL.md", []byte(skillText("indexed", "a newer version")))
	h.reindex()
	h.dl.put("/tarred.tar.gz", packTarGz(t, tarEntries(map[string]string{"SKILL.md": skillText("tarred", "newer"),
		"references/new.md": "new\n"})...))
	rep = b.jsonRun(t, 0, "update")
	for _, r := range rep.Results {
		s := h.served[r.Skill]
		if r.Status != "updated" || r.From != old[r.Skill] || r.Commit != digestOf(s.site.get(s.path)) {
			t.Errorf("%s: %s from %s to %s, want updated from %s to the new digest", r.Skill, r.Status, r.From, r.Commit, old[r.Skill])
		}
	}
	if !strings.Contains(textOf(t, filepath.Join(b.proj, ".agents/skills/indexed/SKILL.md")), "a newer version") {
		t.Error("the update did not write the new SKILL.md")
	}
	if textOf(t, filepath.Join(b.proj, ".agents/skills/tarred/references/new.md")) != "new\n" {
		t.Error("the update did not write the archive's new file")
	}
}

// TestInstallFromHTTPRefuses checks the archive and download rules end to
// end: links and paths leading out refused naming the entry, a project
// config lowering the download cap, and a private host's token sent to
// that host only, never after a redirect to another.
func TestInstallFromHTTPRefuses(t *testing.T) {
	s := newWebSite(t)
	s.put("/link.tar.gz", packTarGz(t, archiveEntry{name: "SKILL.md", body: skillText("x", "x")},
		archiveEntry{name: "secret", link: "/etc/passwd"}))
	s.put("/out.tar.gz", packTarGz(t, archiveEntry{name: "SKILL.md", body: skillText("x", "x")},
		archiveEntry{name: "../../escaped", body: "x"}))
	s.put("/big.zip", packZip(t, map[string]string{"big/SKILL.md": skillText("big", strings.Repeat("b", 4000))}))
	for _, c := range []struct {
		name, path string
		proj       map[string]string
		want       []string
	}{
		{name: "symlink", path: "/link.tar.gz", want: []string{`entry "secret" is a symlink`}},
		{name: "path leading out", path: "/out.tar.gz", want: []string{`entry "../../escaped" leads out`}},
		{name: "download cap lowered by the project", path: "/big.zip", proj: map[string]string{"ccski.yaml": "install: {max_download: 100}\n"},
			want: []string{"over the download limit of 100 bytes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newInstallBox(t)
			testfs.Write(t, b.proj, c.proj)
			r := b.run(t, "install", s.srv.URL+c.path, "--all")
			if r.code == 0 {
				t.Fatalf("want a failure\n%s", r)
			}
			for _, w := range c.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q\n%s", w, r)
				}
			}
			if _, err := os.Lstat(filepath.Join(b.proj, ".agents")); err == nil {
				t.Error("something was installed")
			}
			if _, err := os.Lstat(filepath.Join(b.root, "escaped")); err == nil {
				t.Error("the entry leading out was written")
			}
		})
	}

	// A private host: its origin's token from the environment opens it, and a
	// redirect from it to another host carries none.
	private, other := newWebSite(t), newWebSite(t)
	private.mu.Lock()
	private.token = "s3cret"
	private.mu.Unlock()
	private.put("/private.zip", packZip(t, map[string]string{"SKILL.md": skillText("private", "p")}))
	other.put("/moved.zip", packZip(t, map[string]string{"SKILL.md": skillText("moved", "m")}))
	private.redirect("/moved.zip", other.srv.URL+"/moved.zip")
	b := newInstallBox(t)
	r := b.run(t, "install", private.srv.URL+"/private.zip", "--all")
	if r.code == 0 || !strings.Contains(r.stderr, private.srv.URL+"=<token>") || !strings.Contains(r.stderr, "http.tokens") {
		t.Fatalf("without its token: want a failure naming http.tokens and %s\n%s", private.srv.URL, r)
	}
	b.vars = append(b.vars, "CCSKI_HTTP__TOKENS="+private.srv.URL+"=s3cret")
	b.jsonRun(t, 0, "install", private.srv.URL+"/private.zip", "--all")
	b.jsonRun(t, 0, "install", private.srv.URL+"/moved.zip", "--all")
	if got := private.authOf("/moved.zip"); got != "Bearer s3cret" {
		t.Errorf("the private host got Authorization %q", got)
	}
	if got := other.authOf("/moved.zip"); got != "" {
		t.Errorf("the host redirected to got Authorization %q: the token left its host", got)
	}
	if strings.Contains(textOf(t, filepath.Join(b.proj, "ccski.lock")), "s3cret") {
		t.Error("the token is in the lock")
	}
}

// frozenRefusesOnly runs `install --frozen --json` in c and checks that it
// exits 1 with skill failed and every other skill installed, that nothing
// of skill was written, and that the lock is still lock. It returns the
// report.
func frozenRefusesOnly(t *testing.T, c *installBox, skill, lock string) installJSON {
	t.Helper()
	r := c.run(t, "install", "--frozen", "--json")
	if r.code != 1 {
		t.Fatalf("want exit 1\n%s", r)
	}
	var rep installJSON
	decodeOnly(t, r, &rep)
	for _, res := range rep.Results {
		want := "installed"
		if res.Skill == skill {
			want = "failed"
		}
		if res.Status != want {
			t.Errorf("%s: %s (%s), want %s", res.Skill, res.Status, res.Message, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(c.proj, ".agents/skills", skill)); err == nil {
		t.Errorf("%s was written", skill)
	}
	if got := textOf(t, filepath.Join(c.proj, "ccski.lock")); got != lock {
		t.Errorf("the lock changed")
	}
	return rep
}
