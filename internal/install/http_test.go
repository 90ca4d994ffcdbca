package install

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ccski/ccski/internal/httpfetch"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/skillindex"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/google/go-cmp/cmp"
)

// entry is one entry of a test archive: a file (body), a folder (name
// ending in /), a symlink or a hard link (link).
type entry struct {
	name, body, link string
	hard             bool
	// mode is a file's mode in a zip (0: 0o644).
	mode fs.FileMode
}

// zipOf packs entries as a zip.
func zipOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode == 0 {
			e.mode = 0o644
		}
		h.SetMode(e.mode)
		body := e.body
		switch {
		case e.link != "":
			h.SetMode(fs.ModeSymlink | 0o777)
			body = e.link
		case strings.HasSuffix(e.name, "/"):
			h.SetMode(fs.ModeDir | 0o755)
		}
		f, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tarGzOf packs entries as a gzip-compressed tar.
func tarGzOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	w := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		switch {
		case e.link != "" && e.hard:
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, e.link, 0
		case e.link != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		case strings.HasSuffix(e.name, "/"):
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			if _, err := w.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const skillBody = "---\nname: %s\ndescription: A skill for the HTTP tests.\n---\n\n# Body\n"

func skillMD(name string) string { return strings.Replace(skillBody, "%s", name, 1) }

// TestUnpackRefuses checks that an archive with a link, a path leading
// out or past a limit is refused whole, with an error naming the entry,
// in both formats; and that a sound one unpacks.
func TestUnpackRefuses(t *testing.T) {
	ok := []entry{{name: "pdf/"}, {name: "pdf/SKILL.md", body: skillMD("pdf")}, {name: "pdf/scripts/run.sh", body: "echo hi\n"}}
	small := Limits{MaxDownload: 1 << 20, MaxUnpacked: 64, MaxFiles: 3}
	cases := []struct {
		name    string
		entries []entry
		lim     Limits
		tarOnly bool
		want    string // in the error; "" for success
	}{
		{name: "sound", entries: ok},
		{name: "symlink", entries: []entry{{name: "SKILL.md", body: "x"}, {name: "evil", link: "/etc/passwd"}}, want: `"evil" is a symlink`},
		{name: "hard link", entries: []entry{{name: "SKILL.md", body: "x"}, {name: "evil", link: "SKILL.md", hard: true}},
			tarOnly: true, want: `"evil" is a hard link`},
		{name: "absolute", entries: []entry{{name: "/etc/cron.d/x", body: "x"}}, want: `"/etc/cron.d/x" has an absolute path`},
		{name: "dot dot", entries: []entry{{name: "a/../../x", body: "x"}}, want: `"a/../../x" leads out`},
		{name: "backslash", entries: []entry{{name: `..\x`, body: "x"}}, want: "backslash"},
		{name: "too many files", entries: []entry{{name: "a", body: "1"}, {name: "b", body: "2"}, {name: "c", body: "3"},
			{name: "d", body: "4"}}, lim: small, want: "limit of 3 entries"},
		{name: "too large unpacked", entries: []entry{{name: "a", body: strings.Repeat("x", 40)},
			{name: "b", body: strings.Repeat("y", 40)}}, lim: small, want: `"b" takes the unpacked files past the limit of 64 bytes`},
		{name: "twice", entries: []entry{{name: "a", body: "1"}, {name: "a", body: "2"}}, want: `"a" is in the archive twice`},
	}
	for _, c := range cases {
		for _, format := range []string{"zip", "tar.gz"} {
			if c.tarOnly && format == "zip" {
				continue
			}
			t.Run(c.name+"/"+format, func(t *testing.T) {
				data := tarGzOf(t, c.entries...)
				if format == "zip" {
					data = zipOf(t, c.entries...)
				}
				dest := filepath.Join(testfs.TempDir(t), "out")
				err := unpack(data, "https://example.org/a."+format, dest, c.lim)
				if c.want == "" {
					if err != nil {
						t.Fatal(err)
					}
					if b, err := os.ReadFile(filepath.Join(dest, "pdf", "scripts", "run.sh")); err != nil || string(b) != "echo hi\n" {
						t.Fatalf("unpacked file: %q, %v", b, err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "https://example.org/a."+format) {
					t.Fatalf("want an error naming the archive and %q, got %v", c.want, err)
				}
				if _, err := os.Lstat("/etc/cron.d/x"); err == nil && c.name == "absolute" {
					t.Fatal("an absolute entry was written")
				}
			})
		}
	}
}

// TestGetCapsDownload checks that a download over the limit is refused,
// whether the server says its length or not.
func TestGetCapsDownload(t *testing.T) {
	big := strings.Repeat("x", 2048)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		w.Write([]byte(big))
	}))
	defer srv.Close()
	h := &HTTP{Limits: Limits{MaxDownload: 1024}}
	for _, p := range []string{"/sized", "/chunked"} {
		_, err := h.get(context.Background(), srv.URL+p, nil)
		if err == nil || !strings.Contains(err.Error(), "over the download limit of 1024 bytes") {
			t.Errorf("%s: want the download limit, got %v", p, err)
		}
	}
	h.Limits.MaxDownload = 4096
	if d, err := h.get(context.Background(), srv.URL+"/sized", nil); err != nil || len(d.data) != len(big) {
		t.Errorf("under the limit: %d bytes, %v", len(d.data), err)
	}
}

// TestTokenStaysOnItsHost checks that the token of a host goes to that
// host only: a redirect to another host (another port of 127.0.0.1)
// carries no Authorization header.
func TestTokenStaysOnItsHost(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen["other"] = r.Header.Get("Authorization")
		mu.Unlock()
		w.Write([]byte("payload"))
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen["first"] = r.Header.Get("Authorization")
		mu.Unlock()
		http.Redirect(w, r, other.URL+"/a.zip", http.StatusFound)
	}))
	defer first.Close()
	tokens, err := httpfetch.ParseTokens([]httpfetch.Token{httpfetch.Token(first.URL + "=s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	h := &HTTP{Tokens: tokens}
	d, err := h.get(context.Background(), first.URL+"/a.zip", nil)
	if err != nil || string(d.data) != "payload" {
		t.Fatalf("get: %q, %v", d.data, err)
	}
	if seen["first"] != "Bearer s3cret" {
		t.Errorf("the token's own host got Authorization %q, want the token", seen["first"])
	}
	if seen["other"] != "" {
		t.Errorf("the host redirected to got Authorization %q: the token left its host", seen["other"])
	}
}

// TestParseHTTPSources checks which http(s) URLs are HTTP sources, and
// that the others stay git URLs.
func TestParseHTTPSources(t *testing.T) {
	cases := map[string]Source{
		"https://example.org":                                     {Kind: KindIndex, URL: "https://example.org"},
		"https://example.org/":                                    {Kind: KindIndex, URL: "https://example.org"},
		"https://example.org#pdf":                                 {Kind: KindIndex, URL: "https://example.org", Path: "pdf"},
		"https://example.org/.well-known/skills/index.json":       {Kind: KindIndex, URL: "https://example.org/.well-known/skills/index.json"},
		"https://example.org/.well-known/agent-skills/index.json": {Kind: KindIndex, URL: "https://example.org/.well-known/agent-skills/index.json"},
		"https://example.org/.well-known/skills/":                 {Kind: KindIndex, URL: "https://example.org/.well-known/skills/index.json"},
		"https://example.org/.well-known/agent-skills":            {Kind: KindIndex, URL: "https://example.org/.well-known/agent-skills/index.json"},
		"https://example.org/dl/skills.zip":                       {Kind: KindArchive, URL: "https://example.org/dl/skills.zip"},
		"http://127.0.0.1:3700/a.tar.gz#skills/pdf":               {Kind: KindArchive, URL: "http://127.0.0.1:3700/a.tar.gz", Path: "skills/pdf"},
		"https://example.org/a.TGZ":                               {Kind: KindArchive, URL: "https://example.org/a.TGZ"},
		"https://example.org/org/repo.git":                        {Kind: KindGit, URL: "https://example.org/org/repo.git"},
		"https://example.org/org/repo":                            {Kind: KindGit, URL: "https://example.org/org/repo"},
	}
	for arg, want := range cases {
		got, err := ParseSource(arg, ParseOptions{Cwd: t.TempDir()})
		if err != nil || got != want {
			t.Errorf("ParseSource(%q) = %+v, %v; want %+v", arg, got, err, want)
		}
	}
	for _, arg := range []string{"https://u:pw@example.org/a.zip", "https://ghp_secret@example.org/a.zip", "https://example.org/a.zip#../x"} {
		if _, err := ParseSource(arg, ParseOptions{Cwd: t.TempDir()}); err == nil {
			t.Errorf("ParseSource(%q) took it", arg)
		}
	}
	if _, err := ParseSource("https://example.org/a.zip", ParseOptions{Cwd: t.TempDir(), Ref: "main"}); err == nil {
		t.Error("--ref with an archive was taken")
	}
}

// site is a test server of skills: its files by path, changeable.
type site struct {
	mu    sync.Mutex
	files map[string][]byte
	// asked counts the requests of each path.
	asked map[string]int
	srv   *httptest.Server
}

func newSite(t testing.TB) *site {
	s := &site{files: map[string][]byte{}, asked: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked[r.URL.Path]++
		b, ok := s.files[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// askedFor returns the paths asked for, sorted, and forgets them.
func (s *site) askedFor() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	paths := slices.Sorted(maps.Keys(s.asked))
	clear(s.asked)
	return paths
}

func (s *site) put(path string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = b
}

// indexV2 is a v0.2.0 index of the artifacts at paths, by skill name.
func indexV2(t *testing.T, s *site, entries map[string]string) []byte {
	t.Helper()
	doc := skillindex.Doc{Schema: skillindex.SchemaV2}
	for name, p := range entries {
		typ := "skill-md"
		if !strings.HasSuffix(p, "SKILL.md") {
			typ = "archive"
		}
		served := p
		if !strings.HasPrefix(p, "/") {
			served = "/.well-known/agent-skills/" + p // relative to the index
		}
		doc.Skills = append(doc.Skills, skillindex.Entry{Name: name, Type: typ, Description: "d", URL: p,
			Digest: manifest.Digest(s.files[served])})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestIndexInstallAndFrozen installs a skill-md and an archive skill from
// a v0.2.0 index and one from a v0.1.0 index, records their digests, and
// checks that a frozen restore refuses each once a byte it serves
// changes, before writing anything.
func TestIndexInstallAndFrozen(t *testing.T) {
	s := newSite(t)
	s.put("/.well-known/agent-skills/plain/SKILL.md", []byte(skillMD("plain")))
	s.put("/.well-known/agent-skills/packed.tar.gz", tarGzOf(t, entry{name: "SKILL.md", body: skillMD("packed")},
		entry{name: "references/more.md", body: "more\n"}))
	s.put("/.well-known/agent-skills/index.json", indexV2(t, s, map[string]string{
		"plain": "/.well-known/agent-skills/plain/SKILL.md", "packed": "packed.tar.gz"}))
	old := newSite(t)
	old.put("/.well-known/skills/index.json", []byte(`{"skills":[{"name":"legacy","description":"d","files":["SKILL.md","notes/a.md"]}]}`))
	old.put("/.well-known/skills/legacy/SKILL.md", []byte(skillMD("legacy")))
	old.put("/.well-known/skills/legacy/notes/a.md", []byte("a\n"))

	f := newFixture(t, nil)
	x := f.installer()
	x.HTTP = &HTTP{TempDir: t.TempDir()}
	defer x.Close()
	agents, _ := ParseAgents(nil)
	for _, site := range []string{s.srv.URL, old.srv.URL} {
		src, err := ParseSource(site, ParseOptions{Cwd: f.base})
		if err != nil {
			t.Fatal(err)
		}
		root, commit, o := offer(t, x, src)
		cands, err := Select(site, o, Selection{All: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range x.Install(src, root, commit, cands, Want{Agents: agents}) {
			if r.Status != StatusInstalled {
				t.Fatalf("%s: %s %s", r.Skill, r.Status, r.Message)
			}
		}
	}
	want := map[string]string{"plain": manifest.Digest(s.files["/.well-known/agent-skills/plain/SKILL.md"]),
		"packed": manifest.Digest(s.files["/.well-known/agent-skills/packed.tar.gz"]), "legacy": ""}
	for name, d := range want {
		e := x.Lock.Find(name)
		if e == nil || e.Commit != d || e.Source.Kind != KindIndex {
			t.Fatalf("lock entry of %s: %+v, want digest %q", name, e, d)
		}
	}
	x.Close()

	// Each served file changed by one byte: the frozen restore refuses
	// the skill, and leaves its copy on disk as it was.
	changes := []struct {
		skill string
		s     *site
		path  string
	}{
		{"plain", s, "/.well-known/agent-skills/plain/SKILL.md"},
		{"packed", s, "/.well-known/agent-skills/packed.tar.gz"},
		{"legacy", old, "/.well-known/skills/legacy/notes/a.md"},
	}
	for _, c := range changes {
		e := *x.Lock.Find(c.skill)
		y := f.installer()
		y.Lock = x.Lock
		y.HTTP = &HTTP{TempDir: t.TempDir()}
		if r := y.Restore(e, true); r.Status != StatusUnchanged {
			t.Fatalf("restore of %s before the change: %s %s", c.skill, r.Status, r.Message)
		}
		y.Close()
		orig := c.s.files[c.path]
		changed := bytes.Clone(orig)
		changed[len(changed)-1] ^= 1
		c.s.put(c.path, changed)
		if c.skill != "legacy" {
			// The index follows, as a publisher's would: the lock's
			// digest is what catches it.
			c.s.put("/.well-known/agent-skills/index.json", indexV2(t, s, map[string]string{
				"plain": "/.well-known/agent-skills/plain/SKILL.md", "packed": "packed.tar.gz"}))
		}
		y = f.installer()
		y.Lock = x.Lock
		y.HTTP = &HTTP{TempDir: t.TempDir()}
		r := y.Restore(e, true)
		y.Close()
		why := "not the sha256:" // the lock's digest
		if c.skill == "legacy" {
			why = "no longer matches the lock" // the lock's file digests
		}
		if r.Status != StatusFailed || !strings.Contains(r.Message, why) {
			t.Errorf("%s: a changed byte was not refused for its digest: %s %s", c.skill, r.Status, r.Message)
		}
		c.s.put(c.path, orig)
		if c.skill != "legacy" {
			c.s.put("/.well-known/agent-skills/index.json", indexV2(t, s, map[string]string{
				"plain": "/.well-known/agent-skills/plain/SKILL.md", "packed": "packed.tar.gz"}))
		}
	}
}

// TestIndexDigestChecked checks that an artifact whose bytes are not the
// digest its index lists is refused when the skill is installed, naming
// the skill, and nothing of it is written.
func TestIndexDigestChecked(t *testing.T) {
	s := newSite(t)
	s.put("/.well-known/agent-skills/plain/SKILL.md", []byte(skillMD("plain")))
	s.put("/.well-known/agent-skills/index.json", indexV2(t, s, map[string]string{"plain": "/.well-known/agent-skills/plain/SKILL.md"}))
	s.put("/.well-known/agent-skills/plain/SKILL.md", []byte(skillMD("plain")+"x"))
	f := newFixture(t, nil)
	x := f.installer()
	x.HTTP = &HTTP{TempDir: t.TempDir()}
	src := Source{Kind: KindIndex, URL: s.srv.URL}
	root, commit, o := offer(t, x, src)
	agents, _ := ParseAgents(nil)
	rs := x.Install(src, root, commit, o.Candidates, Want{Agents: agents})
	x.Close()
	if len(rs) != 1 || rs[0].Status != StatusFailed || !strings.Contains(rs[0].Message, "skill plain") ||
		!strings.Contains(rs[0].Message, "not the sha256:") {
		t.Fatalf("install = %+v, want the digest refused", rs)
	}
	if _, err := os.Lstat(filepath.Join(f.layout.Base, ".agents", "skills", "plain")); err == nil {
		t.Error("the refused skill was written")
	}
	if entries, _ := os.ReadDir(x.HTTP.TempDir); len(entries) != 0 {
		t.Errorf("the refused download left %d entries in the temporary folder", len(entries))
	}
}

// TestIndexLeavesOutOnlyTheBadSkill checks that an index whose one
// entry cannot be checked (a digest of another form) still offers its
// other skills, names the refused one in a warning, and refuses to
// restore it with that reason; and that a skill whose artifact fails its
// digest fails alone, the others installed.
func TestIndexLeavesOutOnlyTheBadSkill(t *testing.T) {
	s := newSite(t)
	s.put("/.well-known/agent-skills/good/SKILL.md", []byte(skillMD("good")))
	s.put("/.well-known/agent-skills/bad.zip", zipOf(t, entry{name: "SKILL.md", body: skillMD("bad")}))
	s.put("/.well-known/agent-skills/index.json", indexV2(t, s, map[string]string{
		"good": "/.well-known/agent-skills/good/SKILL.md", "bad": "bad.zip"}))
	s.put("/.well-known/agent-skills/bad.zip", zipOf(t, entry{name: "SKILL.md", body: skillMD("bad")}, entry{name: "evil", body: "x"}))
	var doc skillindex.Doc
	if err := json.Unmarshal(s.files["/.well-known/agent-skills/index.json"], &doc); err != nil {
		t.Fatal(err)
	}
	doc.Skills = append(doc.Skills, skillindex.Entry{Name: "ugly", Type: "skill-md", URL: "ugly/SKILL.md", Digest: "md5:00"})
	b, _ := json.Marshal(doc)
	s.put("/.well-known/agent-skills/index.json", b)
	f := newFixture(t, nil)
	x := f.installer()
	x.HTTP = &HTTP{TempDir: t.TempDir()}
	defer x.Close()
	src := Source{Kind: KindIndex, URL: s.srv.URL}
	root, commit, o := offer(t, x, src)
	if len(o.Candidates) != 2 || o.Candidates[0].Name != "bad" || o.Candidates[1].Name != "good" {
		t.Fatalf("candidates %+v, want bad and good", o.Candidates)
	}
	w := x.SourceWarnings(root)
	if len(w) != 1 || !strings.Contains(w[0], "ugly") || !strings.Contains(w[0], `"md5:00"`) {
		t.Fatalf("warnings %q, want the ugly skill's digest named", w)
	}
	e := Entry{Name: "ugly", Source: src, Path: "ugly"}
	if _, _, err := x.lockedTree(e); err == nil || !strings.Contains(err.Error(), "md5:00") {
		t.Fatalf("restoring the ugly skill: want its digest refused, got %v", err)
	}
	agents, _ := ParseAgents(nil)
	rs := x.Install(src, root, commit, o.Candidates, Want{Agents: agents})
	if d := cmp.Diff([]string{"bad failed", "good installed"}, statuses(rs)); d != "" || !strings.Contains(rs[0].Message, "not the sha256:") {
		t.Fatalf("install (-want +got):\n%s\n%+v", d, rs)
	}
}
