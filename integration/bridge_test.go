package integration

// The bridge from SEP-2640 servers: a first `ccski mcp --transport http`
// over a fixture tree is the upstream. `ccski install mcp+<url>` takes a
// skill from it, checked against its digests; a second clone restores it
// with --frozen; one byte changed upstream is refused. A second `ccski
// mcp` with providers.remote pointing at the first serves its skills
// byte-exact, and keeps serving them once the first is stopped.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
)

// bridgeSkills are the upstream's skills: text, a script, binary bytes
// and an empty file.
var bridgeSkills = map[string]string{
	"pdf/SKILL.md":           "---\nname: pdf\ndescription: Read and fill PDF forms.\n---\n# PDF\n\nSee references/api.md.\n",
	"pdf/references/api.md":  "# API\n\nfill(form)\n",
	"pdf/scripts/extract.sh": "#!/bin/sh\necho extract\n",
	"pdf/assets/logo.bin":    "\x00\x01\x02\xff\xfe binary\n",
	"pdf/empty.txt":          "",
	"docx/SKILL.md":          "---\nname: docx\ndescription: Edit Word documents.\n---\n# DOCX\n",
}

// bareMachine is a machine with an empty home and a workspace that is a
// project (it has .git), whose --skill-dir holds files (path -> bytes).
func bareMachine(t *testing.T, files map[string]string) *machine.Machine {
	t.Helper()
	registerSourcesOnce(t)
	root := t.TempDir()
	m := &machine.Machine{Root: root, Home: filepath.Join(root, "home"), Workspace: filepath.Join(root, "proj"),
		DocsDir: filepath.Join(root, "skills")}
	for _, d := range []string{m.Home, filepath.Join(m.Workspace, ".git"), m.DocsDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for rel, data := range files {
		p := filepath.Join(m.DocsDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// servedFiles is what a server serves of one skill: each file's digest, size
// and the bytes resources/read gave.
type servedFiles map[string]struct {
	Digest string
	Size   int64
	Data   string
}

// serveOf lists every page of the server's skills/list and reads every
// file of every entry, by skill name.
func serveOf(t *testing.T, ctx context.Context, base string) map[string]servedFiles {
	t.Helper()
	cs, err := extClient(t).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out := map[string]servedFiles{}
	p := &extListParams{}
	for {
		res, err := sdk.CallCustomMethod[*extListParams, *extListResult](ctx, cs, "skills/list", p)
		if err != nil {
			t.Fatalf("skills/list: %v", err)
		}
		for _, e := range res.Skills {
			dir := strings.TrimSuffix(e.URI, "SKILL.md")
			name := dir[strings.LastIndexByte(strings.TrimSuffix(dir, "/"), '/')+1 : len(dir)-1]
			s := servedFiles{}
			for _, r := range e.Resources {
				rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: r.URI})
				if err != nil {
					t.Fatalf("resources/read %s: %v", r.URI, err)
				}
				data := rr.Contents[0].Text
				if rr.Contents[0].Blob != nil {
					data = string(rr.Contents[0].Blob)
				}
				s[strings.TrimPrefix(r.URI, dir)] = struct {
					Digest string
					Size   int64
					Data   string
				}{r.Digest, r.Size, data}
			}
			out[name] = s
		}
		if res.NextCursor == "" {
			return out
		}
		p = &extListParams{Cursor: res.NextCursor}
	}
}

func TestBridgeFromSkillsServer(t *testing.T) {
	t.Parallel()
	ctx := mcpContext(t)
	upM := bareMachine(t, bridgeSkills)
	up := startHTTP(t, upM, nil, "--transport", "http", "--refresh-interval", "1s")
	want := serveOf(t, ctx, up.base)
	if len(want["pdf"]) != 5 || len(want["docx"]) != 1 {
		t.Fatalf("the upstream serves %v, want pdf (5 files) and docx", want)
	}
	for rel, f := range want["pdf"] {
		if f.Data != bridgeSkills["pdf/"+rel] || f.Digest != sha([]byte(f.Data)) {
			t.Fatalf("the upstream serves pdf/%s as %q (%s)", rel, f.Data, f.Digest)
		}
	}
	source := "mcp+" + up.base + "/mcp"

	// Install pdf from the upstream.
	a := bareMachine(t, nil)
	r := ccski(t, a, runOpts{}, "install", source, "pdf", "--json", "--user-dir", a.Home)
	mustOK(t, r)
	lockData, err := os.ReadFile(filepath.Join(a.Workspace, "ccski.lock"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Version int
		Skills  []struct {
			Name   string
			Source struct{ Kind, URL string }
			Path   string
			Files  []struct {
				Path, Digest string
				Size         int64
			}
		}
	}
	if err := json.Unmarshal(lockData, &lock); err != nil || len(lock.Skills) != 1 || lock.Version != 3 {
		t.Fatalf("lock: %v\n%s", err, lockData)
	}
	e := lock.Skills[0]
	if e.Name != "pdf" || e.Source.Kind != "mcp" || e.Source.URL != up.base+"/mcp" || len(e.Files) != len(want["pdf"]) {
		t.Fatalf("lock entry %+v, want pdf from %s/mcp with every file", e, up.base)
	}
	for _, f := range e.Files {
		if w := want["pdf"][f.Path]; f.Digest != w.Digest || f.Size != w.Size {
			t.Errorf("lock records %s as %s (%d), the server as %s (%d)", f.Path, f.Digest, f.Size, w.Digest, w.Size)
		}
	}
	installed := filepath.Join(a.Workspace, ".agents", "skills", "pdf")
	for rel, f := range want["pdf"] {
		if got, err := os.ReadFile(filepath.Join(installed, filepath.FromSlash(rel))); err != nil || string(got) != f.Data {
			t.Errorf("installed %s = %q, %v; want the servedFiles bytes", rel, got, err)
		}
	}

	// A second clone restores it with --frozen.
	b := bareMachine(t, nil)
	if err := os.WriteFile(filepath.Join(b.Workspace, "ccski.lock"), lockData, 0o644); err != nil {
		t.Fatal(err)
	}
	mustOK(t, ccski(t, b, runOpts{}, "install", "--frozen", "--user-dir", b.Home))
	for rel, f := range want["pdf"] {
		if got, err := os.ReadFile(filepath.Join(b.Workspace, ".agents", "skills", "pdf", filepath.FromSlash(rel))); err != nil || string(got) != f.Data {
			t.Errorf("restored %s = %q, %v; want the servedFiles bytes", rel, got, err)
		}
	}

	// A second ccski mcp serves the upstream's skills byte-exact.
	s2M := bareMachine(t, nil)
	cfg := filepath.Join(s2M.Home, ".config", "ccski", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("providers:\n  remote:\n    servers: [\""+up.base+"/mcp\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := startHTTP(t, s2M, nil, "--transport", "http", "--refresh-interval", "1s", "--tools", "sources")
	var got map[string]servedFiles
	if !waitUntil(60*time.Second, func() bool { got = serveOf(t, ctx, s2.base); return len(got) == 2 }) {
		t.Fatalf("the second server serves %v, want pdf and docx\nstderr:\n%s", got, s2.stderr)
	}
	for name, files := range want {
		if d := diffServed(files, got[name]); d != "" {
			t.Errorf("the second server's %s differs from the upstream's: %s", name, d)
		}
	}

	// One byte changed upstream: a third clone's --frozen refuses it.
	api := filepath.Join(upM.DocsDir, "pdf", "references", "api.md")
	if err := os.WriteFile(api, []byte(strings.Replace(bridgeSkills["pdf/references/api.md"], "fill", "fil!", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := bareMachine(t, nil)
	if err := os.WriteFile(filepath.Join(c.Workspace, "ccski.lock"), lockData, 0o644); err != nil {
		t.Fatal(err)
	}
	r = ccski(t, c, runOpts{}, "install", "--frozen", "--user-dir", c.Home)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "no longer matches the lock") {
		t.Errorf("--frozen after a byte changed upstream: want exit 1 naming the lock\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(c.Workspace, ".agents", "skills", "pdf")); !os.IsNotExist(err) {
		t.Errorf("the refused skill was installed: %v", err)
	}
	if err := os.WriteFile(api, []byte(bridgeSkills["pdf/references/api.md"]), 0o644); err != nil {
		t.Fatal(err)
	}

	// The upstream stops: the second server keeps serving the last good
	// copy, once a rescan has found the upstream down, and sources says so.
	if n := sourcesWarnings(t, ctx, s2.base); n != 0 {
		t.Fatalf("the second server reports %d warnings while the upstream is up, want none", n)
	}
	up.stop(t, os.Interrupt, 10*time.Second)
	// The second server reads the upstream again once its copy's ttlMs
	// (1 s: the upstream's --refresh-interval) has passed, and after a
	// failed read not before providers/remote's retryAfter (30 s): only
	// the first holds here, as no read failed yet, but the deadline is a
	// bound, not a timing, so it leaves room for both on a loaded machine.
	if !waitUntil(120*time.Second, func() bool { return sourcesWarnings(t, ctx, s2.base) > 0 }) {
		t.Fatalf("the second server never found the upstream down\nstderr:\n%s", s2.stderr)
	}
	got = serveOf(t, ctx, s2.base)
	for name, files := range want {
		if d := diffServed(files, got[name]); d != "" {
			t.Errorf("with the upstream down, the second server's %s differs: %s", name, d)
		}
	}
	r = ccski(t, s2M, runOpts{}, std(s2M, "sources")...)
	mustOK(t, r)
	if !strings.Contains(r.stdout, "remote-unreachable") || !strings.Contains(r.stdout, "serving its last good copy, fetched at") {
		t.Errorf("sources does not say the upstream is down and since when\n%s", r)
	}
}

// diffServed says how got differs from want, or "".
func diffServed(want, got servedFiles) string {
	if len(want) != len(got) {
		return "files " + strings.Join(fileNames(got), ", ") + ", want " + strings.Join(fileNames(want), ", ")
	}
	for rel, w := range want {
		if g, ok := got[rel]; !ok || g != w {
			return rel + ": " + g.Digest + ", want " + w.Digest
		}
	}
	return ""
}

func fileNames(s servedFiles) []string {
	var out []string
	for k := range s {
		out = append(out, k)
	}
	return out
}

// sourcesWarnings is the count of warnings the server's sources tool
// reports.
func sourcesWarnings(t *testing.T, ctx context.Context, base string) int {
	t.Helper()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bridge", Version: "0"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "sources", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Diagnostics struct{ Warnings int } `json:"diagnostics"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out.Diagnostics.Warnings
}
