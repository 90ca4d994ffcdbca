package integration

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/testfs"
)

// publishTree is a machine of its own: three skills in the user's Claude
// folder (one a SKILL.md alone, one with references, an executable
// script and binary bytes, one disabled) and nothing else.
func publishTree(t *testing.T) *machine.Machine {
	t.Helper()
	root := testfs.TempDir(t)
	testfs.Write(t, root, map[string]string{
		"home/.claude/skills/notes/SKILL.md":               "---\nname: notes\ndescription: Take meeting notes.\n---\n# Notes\n",
		"home/.claude/skills/deploy/SKILL.md":              "---\nname: deploy\ndescription: Deploy the site.\n---\nRun scripts/run.sh; see references/guide.md.\n",
		"home/.claude/skills/deploy/references/guide.md":   "# Guide\n\nStep one.\n",
		"home/.claude/skills/deploy/references/deep/a.txt": "deep\n",
		"home/.claude/skills/deploy/scripts/run.sh":        "#!/bin/sh\necho deploy\n",
		"home/.claude/skills/deploy/assets/logo.bin":       "\x00\x01\x02\xff\xfe",
		"home/.claude/skills/off/.SKILL.md":                "---\nname: off\ndescription: Disabled.\n---\n",
		"extra/docs/":                                      "",
		"work/repo/.git/HEAD":                              "ref: refs/heads/main\n",
	})
	if err := os.Chmod(filepath.Join(root, "home/.claude/skills/deploy/scripts/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &machine.Machine{Root: root, Home: filepath.Join(root, "home"), Workspace: filepath.Join(root, "work", "repo"),
		DocsDir: filepath.Join(root, "extra", "docs")}
}

// sameTree fails unless the folder got holds exactly the files of want,
// byte for byte, and with modes the executable bits of want's files.
func sameTree(t *testing.T, want, got string, modes bool) {
	t.Helper()
	read := func(dir string) map[string]string {
		out := map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			st, err := os.Lstat(p)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			mode := st.Mode().Type().String()
			if modes {
				mode += " " + (st.Mode().Perm() & 0o100).String()
			}
			out[filepath.ToSlash(rel)] = mode + " " + string(b)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	w, g := read(want), read(got)
	for name, b := range w {
		if g[name] != b {
			t.Errorf("%s: %q in %s, %q in the source %s", name, g[name], got, b, want)
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			t.Errorf("%s: in %s, not in the source %s", name, got, want)
		}
	}
}

// TestPublishWellKnown: `ccski mcp --transport http` publishes its skills
// as a v0.2.0 well-known index behind its token; `ccski install` of the
// server's URL installs every one of them, byte-equal to the source
// tree, and `install --frozen` in a second clone restores the same
// bytes, each checked against the digest the lock records. A disabled
// skill is not published. The v0.1.0 index installs the same bytes.
func TestPublishWellKnown(t *testing.T) {
	m := publishTree(t)
	const token = "publish-token"
	s := startHTTP(t, m, map[string]string{"CCSKI_AUTH_TOKEN": token}, "--transport", "http")

	// Without the token: 401, as /mcp.
	resp, err := http.Get(s.base + "/.well-known/agent-skills/index.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("index without the token: %d, want 401", resp.StatusCode)
	}
	get := func(path string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, s.base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	code, raw := get("/.well-known/agent-skills/index.json")
	if code != http.StatusOK {
		t.Fatalf("index: %d %s", code, raw)
	}
	var idx struct {
		Skills []struct{ Name, Type, Digest string } `json:"skills"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	var listed []string
	digests := map[string]string{}
	for _, e := range idx.Skills {
		listed = append(listed, e.Name+":"+e.Type)
		digests[e.Name] = e.Digest
	}
	if want := []string{"deploy:archive", "notes:skill-md"}; !slices.Equal(listed, want) {
		t.Fatalf("published %v, want %v\n%s", listed, want, raw)
	}

	b := newInstallBox(t)
	b.vars = append(b.vars, "CCSKI_HTTP__TOKENS="+s.base+"="+token)
	rep := b.jsonRun(t, 0, "install", s.base, "--all")
	if got := rep.statuses(); !slices.Equal(got, []string{"deploy installed", "notes installed"}) {
		t.Fatalf("install %s: %v", s.base, got)
	}
	for _, name := range []string{"deploy", "notes"} {
		sameTree(t, filepath.Join(m.Home, ".claude/skills", name), filepath.Join(b.proj, ".agents/skills", name), true)
	}
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	for name, d := range digests {
		if !strings.Contains(lock, d) {
			t.Errorf("the lock does not record %s's digest %s:\n%s", name, d, lock)
		}
	}

	// The v0.1.0 index, which dotagents reads, installs the same bytes.
	v1 := newInstallBox(t)
	v1.vars = append(v1.vars, "CCSKI_HTTP__TOKENS="+s.base+"="+token)
	rep = v1.jsonRun(t, 0, "install", s.base+"/.well-known/skills/index.json", "--all")
	if got := rep.statuses(); !slices.Equal(got, []string{"deploy installed", "notes installed"}) {
		t.Fatalf("install from the v0.1.0 index: %v", got)
	}
	for _, name := range []string{"deploy", "notes"} {
		sameTree(t, filepath.Join(m.Home, ".claude/skills", name), filepath.Join(v1.proj, ".agents/skills", name), false) // v0.1.0 states no modes
	}

	c := newInstallBox(t)
	c.vars = append(c.vars, "CCSKI_HTTP__TOKENS="+s.base+"="+token)
	testfs.Write(t, c.proj, map[string]string{"ccski.lock": lock})
	rep = c.jsonRun(t, 0, "install", "--frozen")
	if rep.Counts["installed"] != 2 {
		t.Fatalf("frozen restore in a clone: %v", rep.statuses())
	}
	for _, name := range []string{"deploy", "notes"} {
		sameTree(t, filepath.Join(m.Home, ".claude/skills", name), filepath.Join(c.proj, ".agents/skills", name), true)
	}

	// One byte of a served file changes: the server publishes the new
	// archive, and a restore from the lock refuses it, writing nothing.
	guide := filepath.Join(m.Home, ".claude/skills/deploy/references/guide.md")
	if err := os.WriteFile(guide, []byte("# Guide\n\nStep 0ne.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := newInstallBox(t)
	d.vars = append(d.vars, "CCSKI_HTTP__TOKENS="+s.base+"="+token)
	testfs.Write(t, d.proj, map[string]string{"ccski.lock": lock})
	r := d.run(t, "install", "--frozen", "--json")
	if r.code != 1 {
		t.Fatalf("frozen restore after an edit: want exit 1\n%s", r)
	}
	var after installJSON
	decodeOnly(t, r, &after)
	if got := after.statuses(); !slices.Equal(got, []string{"deploy failed", "notes installed"}) {
		t.Errorf("frozen restore after an edit: %v", got)
	}
	if _, err := os.Lstat(filepath.Join(d.proj, ".agents/skills/deploy")); err == nil {
		t.Error("the changed deploy was written")
	}
}
