package mcp

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ccski/ccski/pipeline"
)

// wkIndex is a v0.2.0 discovery index as a client decodes it.
type wkIndex struct {
	Schema string `json:"$schema"`
	Skills []struct {
		Name        string `json:"name"`
		Type        string `json:"type"`
		Description string `json:"description"`
		URL         string `json:"url"`
		Digest      string `json:"digest"`
	} `json:"skills"`
}

const wkIndexPath = "/.well-known/agent-skills/index.json"

// wkGet gets path from ts and fails unless it answers 200.
func wkGet(t *testing.T, ts *httptest.Server, path string) (http.Header, []byte) {
	t.Helper()
	code, h, body := rawRequest(t, http.MethodGet, ts.URL+path, "", nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	return h, []byte(body)
}

// wkFetch reads the index of ts, then every artifact it lists, each
// checked against its digest as a client of the RFC checks it. It returns
// the index and each skill's files (a skill-md entry's SKILL.md, an
// archive's entries, with their modes).
func wkFetch(t *testing.T, ts *httptest.Server) (wkIndex, map[string]map[string]string, map[string]map[string]os.FileMode) {
	t.Helper()
	h, raw := wkGet(t, ts, wkIndexPath)
	if ct := h.Get("Content-Type"); ct != "application/json" {
		t.Errorf("index Content-Type %q", ct)
	}
	var idx wkIndex
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&idx); err != nil {
		t.Fatalf("index: %v\n%s", err, raw)
	}
	if idx.Schema != "https://schemas.agentskills.io/discovery/0.2.0/schema.json" {
		t.Errorf("$schema %q", idx.Schema)
	}
	files := map[string]map[string]string{}
	modes := map[string]map[string]os.FileMode{}
	for _, e := range idx.Skills {
		if e.Description == "" || len(e.Description) > 1024 || e.Name == "" {
			t.Errorf("entry %+v: empty name or description", e)
		}
		h, data := wkGet(t, ts, "/.well-known/agent-skills/"+e.URL)
		if got := digestOf(data); got != e.Digest {
			t.Errorf("%s: %s has digest %s, the index lists %s", e.Name, e.URL, got, e.Digest)
		}
		files[e.Name], modes[e.Name] = map[string]string{}, map[string]os.FileMode{}
		switch e.Type {
		case "skill-md":
			if e.URL != e.Name+"/SKILL.md" || !strings.HasPrefix(h.Get("Content-Type"), "text/markdown") {
				t.Errorf("%s: skill-md at %q, Content-Type %q", e.Name, e.URL, h.Get("Content-Type"))
			}
			files[e.Name]["SKILL.md"] = string(data)
		case "archive":
			if e.URL != e.Name+".zip" || h.Get("Content-Type") != "application/zip" {
				t.Errorf("%s: archive at %q, Content-Type %q", e.Name, e.URL, h.Get("Content-Type"))
			}
			zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("%s: %v", e.Name, err)
			}
			for _, f := range zr.File {
				if !f.Mode().IsRegular() {
					t.Errorf("%s: entry %s of mode %v: only regular files are packed", e.Name, f.Name, f.Mode())
				}
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(rc)
				rc.Close()
				files[e.Name][f.Name], modes[e.Name][f.Name] = string(b), f.Mode().Perm()
			}
		default:
			t.Errorf("%s: type %q", e.Name, e.Type)
		}
	}
	return idx, files, modes
}

// folderFiles reads the files of a folder as the archive should hold
// them, leaving out what the test names.
func folderFiles(t *testing.T, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if slices.Contains(skip, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWellKnownIndex: the index lists what skills/list lists, one entry
// per name, a SKILL.md alone as a skill-md artifact and a folder as a
// zip of exactly its served files (links resolved inside, none leading
// out, no .git), each digest that of the bytes sent; a hidden skill, a
// skill whose name breaks the rules, one over the manifest's limits and
// one of a name already listed are absent; the v0.1.0 index lists the
// same skills, each file served with the artifact's bytes, and nothing
// else of the folder.
func TestWellKnownIndex(t *testing.T) {
	recs, lint, _, _ := extensionSkills(t)
	more := makeRecords(t, t.TempDir(),
		skillSpec{provider: "codex", name: "lint", desc: "Another lint, shadowed."},
		skillSpec{provider: "claude", name: "pdf", desc: "PDF files."},
		skillSpec{provider: "claude", name: "secret", desc: "Hidden by a filter."})
	if err := os.Chmod(filepath.Join(lint.Dir, "scripts", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	all := append(slices.Clone(recs), more...)
	visible := slices.DeleteFunc(slices.Clone(all), func(r *pipeline.Record) bool { return r.Name == "secret" })
	pipeline.AssignIDs(all)
	srv := New(pipeline.NewSnapshot(all, visible, nil, nil, nil), Options{Logger: discard()})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	t.Cleanup(ts.Close)

	idx, files, modes := wkFetch(t, ts)
	var names []string
	for _, e := range idx.Skills {
		names = append(names, e.Name+":"+e.Type)
	}
	if want := []string{"lint:archive", "pdf:skill-md", "review:skill-md"}; !slices.Equal(names, want) {
		t.Fatalf("index lists %v, want %v", names, want)
	}
	if idx.Skills[0].Description != "Lint code." {
		t.Errorf("lint is described %q: the first of the name, in the snapshot's order, is listed", idx.Skills[0].Description)
	}
	want := folderFiles(t, lint.Dir, ".git", "gitdir", "refs-link", "leak.txt")
	if got := files["lint"]; !mapsEqual(got, want) {
		t.Errorf("lint.zip holds %v\nwant %v", keys(got), keys(want))
	}
	if modes["lint"]["scripts/run.sh"] != 0o755 || modes["lint"]["SKILL.md"] != 0o644 {
		t.Errorf("modes in lint.zip: %v", modes["lint"])
	}
	pdf, _ := os.ReadFile(more[1].File)
	if files["pdf"]["SKILL.md"] != string(pdf) {
		t.Errorf("pdf/SKILL.md is not the file's bytes")
	}

	// The v0.1.0 index lists the same skills, each with the files its
	// artifact holds, served one by one with the same bytes.
	_, raw := wkGet(t, ts, "/.well-known/skills/index.json")
	var v1 struct {
		Schema *string `json:"$schema"`
		Skills []struct {
			Name, Description string
			Files             []string
		} `json:"skills"`
	}
	if err := json.Unmarshal(raw, &v1); err != nil || v1.Schema != nil {
		t.Fatalf("v0.1.0 index (no $schema): %v\n%s", err, raw)
	}
	if len(v1.Skills) != len(idx.Skills) {
		t.Fatalf("v0.1.0 index lists %d skills, v0.2.0 %d", len(v1.Skills), len(idx.Skills))
	}
	for i, e := range v1.Skills {
		if e.Name != idx.Skills[i].Name || e.Description != idx.Skills[i].Description {
			t.Errorf("v0.1.0 entry %d is %s, v0.2.0 %s", i, e.Name, idx.Skills[i].Name)
		}
		if !slices.Equal(e.Files, keys(files[e.Name])) {
			t.Errorf("%s: v0.1.0 lists %v, the artifact holds %v", e.Name, e.Files, keys(files[e.Name]))
		}
		for _, f := range e.Files {
			if _, b := wkGet(t, ts, "/.well-known/skills/"+e.Name+"/"+f); string(b) != files[e.Name][f] {
				t.Errorf("%s/%s over v0.1.0 is not the artifact's bytes", e.Name, f)
			}
		}
	}

	for _, p := range []string{"/.well-known/skills/lint/.git/HEAD", "/.well-known/skills/lint/leak.txt",
		"/.well-known/skills/lint/gitdir/HEAD", "/.well-known/skills/secret/SKILL.md", "/.well-known/skills/lint",
		"/.well-known/agent-skills/secret/SKILL.md",
		"/.well-known/agent-skills/lint/SKILL.md", "/.well-known/agent-skills/pdf.zip", "/.well-known/agent-skills/huge.zip",
		"/.well-known/agent-skills/../mcp"} {
		if code, _, _ := rawRequest(t, http.MethodGet, ts.URL+p, "", nil); code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
	// HEAD answers as GET does, without the body (the RFC requires both).
	req, _ := http.NewRequest(http.MethodHead, ts.URL+wkIndexPath, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("HEAD index: %v %v", err, resp)
	}
	resp.Body.Close()
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestWellKnownDeterministic: two servers over the same tree publish the
// same index and the same artifact bytes, and an edit changes the digest
// of that skill alone.
func TestWellKnownDeterministic(t *testing.T) {
	recs, lint, _, _ := extensionSkills(t)
	serve := func() *httptest.Server {
		srv := New(snapOf(recs), Options{Logger: discard()})
		ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
		t.Cleanup(ts.Close)
		return ts
	}
	a, b := serve(), serve()
	_, ia := wkGet(t, a, wkIndexPath)
	_, ib := wkGet(t, b, wkIndexPath)
	if !bytes.Equal(ia, ib) {
		t.Fatalf("two servers over one tree publish different indexes:\n%s\n%s", ia, ib)
	}
	_, za := wkGet(t, a, "/.well-known/agent-skills/lint.zip")
	_, zb := wkGet(t, b, "/.well-known/agent-skills/lint.zip")
	if !bytes.Equal(za, zb) {
		t.Fatal("two servers over one tree publish different archives")
	}
	// A third, asked for the artifact before any index, packs the same.
	if _, zc := wkGet(t, serve(), "/.well-known/agent-skills/lint.zip"); !bytes.Equal(za, zc) {
		t.Fatal("an archive asked for before the index differs")
	}
	// An unchanged tree is packed once.
	_, again := wkGet(t, a, wkIndexPath)
	if !bytes.Equal(again, ia) {
		t.Fatal("the index changed over an unchanged tree")
	}

	writeFile(t, filepath.Join(lint.Dir, "references", "guide.md"), []byte("# Guide, edited\n"))
	before, after := digests(t, ia), digests(t, wkGetBody(t, a, wkIndexPath))
	for name, d := range before {
		if changed := after[name] != d; changed != (name == "lint") {
			t.Errorf("%s: digest changed %v after an edit of lint", name, changed)
		}
	}
	_, files, _ := wkFetch(t, a)
	if files["lint"]["references/guide.md"] != "# Guide, edited\n" {
		t.Errorf("the archive after the edit holds %q", files["lint"]["references/guide.md"])
	}
}

func wkGetBody(t *testing.T, ts *httptest.Server, path string) []byte {
	t.Helper()
	_, b := wkGet(t, ts, path)
	return b
}

func digests(t *testing.T, raw []byte) map[string]string {
	t.Helper()
	var idx wkIndex
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range idx.Skills {
		out[e.Name] = e.Digest
	}
	return out
}

// TestWellKnownGuard: the index and its artifacts are behind the MCP
// endpoint's checks: a foreign Origin is 403, and with a token set a
// request without it is 401.
func TestWellKnownGuard(t *testing.T) {
	_, open := httpFixture(t, HTTPOptions{})
	_, locked := httpFixture(t, HTTPOptions{AuthToken: "s3cret"})
	for _, p := range []string{wkIndexPath, "/.well-known/agent-skills/pdf/SKILL.md"} {
		for _, tc := range []struct {
			name   string
			ts     *httptest.Server
			header map[string]string
			want   int
		}{
			{"no token", locked, nil, http.StatusUnauthorized},
			{"wrong token", locked, map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
			{"token", locked, map[string]string{"Authorization": "Bearer s3cret"}, http.StatusOK},
			{"foreign origin", open, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
			{"loopback origin", open, map[string]string{"Origin": "http://localhost:3000"}, http.StatusOK},
			{"no origin", open, nil, http.StatusOK},
		} {
			code, h, body := rawRequest(t, http.MethodGet, tc.ts.URL+p, "", tc.header)
			if code != tc.want {
				t.Errorf("%s %s: %d %s, want %d", tc.name, p, code, body, tc.want)
			}
			if code == http.StatusOK && tc.ts == locked && !strings.Contains(h.Get("Cache-Control"), "private") {
				t.Errorf("%s %s: Cache-Control %q: an answer behind a token is private", tc.name, p, h.Get("Cache-Control"))
			}
		}
	}
}

// TestWellKnownJudged: under a gate, a skill with a file changed or
// added since the judgement is not published; the skills judged are.
func TestWellKnownJudged(t *testing.T) {
	for _, gate := range []pipeline.Gate{pipeline.GateScan, pipeline.GateTrust, pipeline.GateSigned} {
		t.Run(string(gate), func(t *testing.T) {
			// Project skills: the gates of both kinds cover them.
			loc := pipeline.LocationProject
			recs := makeRecords(t, t.TempDir(),
				skillSpec{provider: "claude", loc: loc, name: "kept", desc: "Unchanged."},
				skillSpec{provider: "claude", loc: loc, name: "edited", desc: "Edited after the scan."},
				skillSpec{provider: "claude", loc: loc, name: "grown", desc: "A file added after the scan."})
			writeFile(t, filepath.Join(recs[1].Dir, "notes.md"), []byte("fine\n"))
			snap := snapOf(recs)
			snap.Judged = []pipeline.Judgement{judgeAll(t, gate, recs...)}
			writeFile(t, filepath.Join(recs[1].Dir, "notes.md"), []byte("curl x | sh\n"))
			writeFile(t, filepath.Join(recs[2].Dir, "extra.md"), []byte("added\n"))
			srv := New(snap, Options{Logger: discard()})
			ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
			t.Cleanup(ts.Close)
			idx, _, _ := wkFetch(t, ts)
			if len(idx.Skills) != 1 || idx.Skills[0].Name != "kept" {
				t.Errorf("published %+v, want kept alone", idx.Skills)
			}
			for _, p := range []string{"agent-skills/edited.zip", "agent-skills/grown.zip", "skills/edited/notes.md",
				"skills/grown/SKILL.md"} {
				if code, _, _ := rawRequest(t, http.MethodGet, ts.URL+"/.well-known/"+p, "", nil); code != http.StatusNotFound {
					t.Errorf("GET %s: %d, want 404", p, code)
				}
			}
		})
	}
}

// logBuffer collects log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWellKnownCaps: a skill whose archive would pass the installer's
// download cap is left out of the index, and logged once however often
// the index is asked for.
func TestWellKnownCaps(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "small", desc: "Fits."},
		skillSpec{provider: "claude", name: "big", desc: "Incompressible, past the cap packed."})
	// The cap is restored after the server has closed (cleanups run last
	// in, first out, and ts.Close waits for the requests it serves): a
	// request that failed the test may still be packing, reading it.
	t.Cleanup(func(n int) func() { return func() { maxArtifactBytes = n } }(maxArtifactBytes))
	maxArtifactBytes = 64 << 10 // the cap lowered: megabytes of noise pack slowly under -race
	for _, f := range []string{"a.bin", "b.bin"} {
		data := make([]byte, 40<<10)
		_, _ = rand.Read(data)
		writeFile(t, filepath.Join(recs[1].Dir, "assets", f), data)
	}
	var logs logBuffer
	srv := New(snapOf(recs), Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	t.Cleanup(ts.Close)
	for range 2 {
		idx, _, _ := wkFetch(t, ts)
		if len(idx.Skills) != 1 || idx.Skills[0].Name != "small" {
			t.Fatalf("published %+v, want small alone", idx.Skills)
		}
	}
	if n := strings.Count(logs.String(), "left out of the well-known index"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "bytes an installer downloads") {
		t.Errorf("the log does not say why:\n%s", logs.String())
	}
}
