package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/httpfetch"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/skillsext"
	"github.com/ccski/ccski/internal/skillsext/skillsexttest"
)

// TestParseMCPSource reads mcp+ URLs: an MCP server by its endpoint, with
// an optional #path, and nothing the lock could not take back.
func TestParseMCPSource(t *testing.T) {
	tests := []struct {
		arg, ref, path string
		want           Source
		err            string
	}{
		{arg: "mcp+https://skills.example/mcp", want: Source{Kind: KindMCP, URL: "https://skills.example/mcp"}},
		{arg: "MCP+http://127.0.0.1:3801/mcp#codex", want: Source{Kind: KindMCP, URL: "http://127.0.0.1:3801/mcp", Path: "codex"}},
		{arg: "mcp+http://127.0.0.1:3801/mcp", path: "codex/pdf", want: Source{Kind: KindMCP, URL: "http://127.0.0.1:3801/mcp", Path: "codex/pdf"}},
		{arg: "mcp+http://127.0.0.1:3801/mcp", ref: "main", err: "is not a git repository"},
		{arg: "mcp+ftp://host/mcp", err: "http:// or https://"},
		{arg: "mcp+https://me:pw@host/mcp", err: "user or password"},
		{arg: "mcp+https://host/mcp#../x", err: "must stay inside"},
	}
	for _, tc := range tests {
		got, err := ParseSource(tc.arg, ParseOptions{Cwd: t.TempDir(), Ref: tc.ref, Path: tc.path})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseSource(%q) = %+v, %v; want an error containing %q", tc.arg, got, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSource(%q): %v", tc.arg, err)
			continue
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("ParseSource(%q) (-want +got):\n%s", tc.arg, d)
		}
		again, err := ParseSource(got.String(), ParseOptions{Cwd: t.TempDir()})
		if err != nil || again != got {
			t.Errorf("ParseSource(%q.String() = %q) = %+v, %v; want it back", tc.arg, got.String(), again, err)
		}
	}
}

// TestLockChecksMCPSources: a lock's MCP entry is a URL ccski reads and
// nothing else (no ref, origin or commit: the digests pin it).
func TestLockChecksMCPSources(t *testing.T) {
	ok := Entry{Name: "pdf", Source: Source{Kind: KindMCP, URL: "http://127.0.0.1:3801/mcp"}, Path: "up/pdf",
		Targets: []Target{{Dir: ".agents/skills"}}, Files: []manifest.File{{Path: "SKILL.md", Size: 1, Digest: manifest.Digest([]byte("x"))}}}
	base := t.TempDir()
	file := filepath.Join(base, LockName)
	if err := (&Lock{Skills: []Entry{ok}}).Write(file, base); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(file); !strings.Contains(string(data), `"version": 3`) {
		t.Errorf("a lock with an MCP source is not version 3, which older ccski refuse:\n%s", data)
	}
	back, err := ReadLock(file, base, true)
	if err != nil || len(back.Skills) != 1 || back.Skills[0].Source != ok.Source {
		t.Errorf("ReadLock = %+v, %v; want the MCP entry back", back, err)
	}
	for name, e := range map[string]Entry{
		"a git URL":     {Source: Source{Kind: KindMCP, URL: "git@host:o/r"}},
		"a password":    {Source: Source{Kind: KindMCP, URL: "https://u:p@host/mcp"}},
		"a commit":      {Source: Source{Kind: KindMCP, URL: "https://host/mcp"}, Commit: strings.Repeat("a", 40)},
		"a ref":         {Source: Source{Kind: KindMCP, URL: "https://host/mcp", Ref: "main"}},
		"an origin URL": {Source: Source{Kind: KindMCP, URL: "https://host/mcp", Origin: Origin{URL: "https://host/r.git"}}},
	} {
		e.Name, e.Path, e.Targets = "pdf", "up/pdf", []Target{{Dir: ".agents/skills"}}
		if err := checkLockSource(&e); err == nil {
			t.Errorf("an MCP entry with %s: no error", name)
		}
	}
}

// TestInstallFromMCPServer installs a skill of an upstream server, whose
// files the lock records with the server's digests; a frozen restore in
// a clone gets the same bytes, and refuses them once one byte changed
// upstream. A server whose reads disagree with its listing installs
// nothing.
func TestInstallFromMCPServer(t *testing.T) {
	files := map[string]string{
		"SKILL.md":          "---\nname: pdf\ndescription: Read PDF files.\n---\nUse it.\n",
		"references/api.md": "API\n",
	}
	up := skillsexttest.Start(t, map[string]map[string]string{"up/pdf": files,
		"up/docx": {"SKILL.md": "---\nname: docx\ndescription: Word files.\n---\n"}})
	f := newFixture(t, nil)
	x := f.installer()
	tokens, err := httpfetch.ParseTokens([]httpfetch.Token{httpfetch.Token(strings.TrimSuffix(up.URL(), "/mcp") + "=t0ken")})
	if err != nil {
		t.Fatal(err)
	}
	x.MCP = func(string) skillsext.Options { return skillsext.Options{Tokens: tokens} }
	src, err := ParseSource("mcp+"+up.URL(), ParseOptions{Cwd: f.base})
	if err != nil {
		t.Fatal(err)
	}
	root, commit, o := offer(t, x, src)
	cands, err := Select(src.String(), o, Selection{Names: []string{"pdf"}})
	if err != nil {
		t.Fatal(err)
	}
	agents, _ := ParseAgents(nil)
	rs := x.Install(src, root, commit, cands, Want{Agents: agents})
	if d := cmp.Diff([]string{"pdf installed"}, statuses(rs)); d != "" {
		t.Fatalf("install (-want +got):\n%s\n%+v", d, rs)
	}
	x.Close()
	e := x.Lock.Find("pdf")
	if e.Source != src || e.Path != "up/pdf" || e.Commit != "" {
		t.Errorf("lock entry %+v, want the server's URL and the skill's path", e)
	}
	var want []manifest.File
	for _, rel := range []string{"SKILL.md", "references/api.md"} {
		want = append(want, manifest.File{Path: rel, Size: int64(len(files[rel])), Digest: manifest.Digest([]byte(files[rel]))})
	}
	if d := cmp.Diff(want, e.Files); d != "" {
		t.Errorf("lock files are not the server's digests (-want +got):\n%s", d)
	}
	for _, a := range up.Auth {
		if a != "Bearer t0ken" {
			t.Errorf("a request carried %q, want the token", a)
		}
	}

	// A clone without the skill restores it frozen, from the server.
	canon := filepath.Join(e.Targets[0].Dir, "pdf")
	if err := os.RemoveAll(canon); err != nil {
		t.Fatal(err)
	}
	y := f.installer()
	y.Lock = &Lock{Skills: []Entry{*e}}
	if r := y.Restore(*e, true); r.Status != StatusInstalled {
		t.Fatalf("frozen restore = %+v, want installed", r)
	}
	y.Close()
	if got, _ := os.ReadFile(filepath.Join(canon, "references", "api.md")); string(got) != files["references/api.md"] {
		t.Errorf("restored api.md = %q", got)
	}

	// One byte changed upstream: refused, the copy on disk untouched.
	os.RemoveAll(canon)
	up.Set("up/pdf", "references/api.md", "APi\n")
	z := f.installer()
	z.Lock = &Lock{Skills: []Entry{*e}}
	r := z.Restore(*e, true)
	z.Close()
	if r.Status != StatusFailed || !strings.Contains(r.Message, "no longer matches the lock") {
		t.Errorf("frozen restore after a changed byte = %+v, want a failure against the lock", r)
	}
	if _, err := os.Stat(canon); !os.IsNotExist(err) {
		t.Errorf("the refused skill was written: %v", err)
	}

	// A server whose bytes differ from its own listing installs nothing.
	up.Listed["skill://up/pdf/references/api.md"] = "API\n"
	f = newFixture(t, nil)
	canon = filepath.Join(f.layout.Base, ".agents", "skills", "pdf")
	w := f.installer()
	defer w.Close()
	w.Lock = &Lock{}
	root, commit, err = w.Materialize(src, "")
	if err != nil {
		t.Fatal(err)
	}
	if o, err = Discover(w.Ctx, root, ""); err != nil {
		t.Fatal(err)
	}
	cands, err = Select(src.String(), o, Selection{Names: []string{"pdf"}})
	if err != nil {
		t.Fatal(err)
	}
	rs = w.Install(src, root, commit, cands, Want{Agents: agents})
	if len(rs) != 1 || rs[0].Status != StatusFailed || !strings.Contains(rs[0].Message, "refused") {
		t.Errorf("install from a server whose reads disagree with skills/list = %+v, want a refusal", rs)
	}
	if _, err := os.Stat(canon); !os.IsNotExist(err) {
		t.Errorf("the refused skill was written: %v", err)
	}
}

// TestUpdateFromMCPServer: update takes what the server serves now,
// showing what changed, and leaves a skill the server did not change.
func TestUpdateFromMCPServer(t *testing.T) {
	up := skillsexttest.Start(t, map[string]map[string]string{"up/pdf": {
		"SKILL.md": "---\nname: pdf\ndescription: Read PDF files.\n---\nUse it.\n", "notes.md": "v1\n"}})
	f := newFixture(t, nil)
	x := f.installer()
	src := Source{Kind: KindMCP, URL: up.URL()}
	root, commit, o := offer(t, x, src)
	agents, _ := ParseAgents(nil)
	if rs := x.Install(src, root, commit, o.Candidates, Want{Agents: agents}); rs[0].Status != StatusInstalled {
		t.Fatalf("install = %+v", rs)
	}
	x.Close()

	y := f.installer()
	y.Lock = x.Lock
	if r := y.Update(*y.Lock.Find("pdf"), ""); r.Status != StatusUnchanged {
		t.Errorf("update with nothing changed upstream = %+v, want unchanged", r)
	}
	y.Close()
	if r := f.installer().Update(*x.Lock.Find("pdf"), "v2"); r.Status != StatusFailed {
		t.Errorf("update to a ref = %+v, want a failure: an MCP server has no refs", r)
	}

	up.Set("up/pdf", "notes.md", "v2\n")
	z := f.installer()
	z.Lock = x.Lock
	r := z.Update(*z.Lock.Find("pdf"), "")
	z.Close()
	if r.Status != StatusUpdated || r.Changes == nil || len(r.Changes.Changed) != 1 || r.Changes.Changed[0] != "notes.md" {
		t.Fatalf("update after a change upstream = %+v, want updated with notes.md changed", r)
	}
	got, _ := os.ReadFile(filepath.Join(z.Lock.Find("pdf").Targets[0].Dir, "pdf", "notes.md"))
	if string(got) != "v2\n" || z.Lock.Find("pdf").Files[1].Digest != manifest.Digest([]byte("v2\n")) {
		t.Errorf("after the update notes.md = %q and the lock %+v", got, z.Lock.Find("pdf").Files)
	}
}

// TestRestoreMCPSourcesWithTwoPaths: two lock entries from one MCP server
// under different #paths (and one without a path, restored after a
// narrowed one) restore in one Installer: each source's tree holds the
// skills its own path narrows to, not those of the entry fetched first.
func TestRestoreMCPSourcesWithTwoPaths(t *testing.T) {
	skill := func(name string) map[string]string {
		return map[string]string{"SKILL.md": "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n"}
	}
	up := skillsexttest.Start(t, map[string]map[string]string{"a/pdf": skill("pdf"), "b/docx": skill("docx"),
		"c/xlsx": skill("xlsx")})
	f := newFixture(t, nil)
	agents, _ := ParseAgents(nil)
	x := f.installer()
	for _, arg := range []string{"mcp+" + up.URL() + "#a", "mcp+" + up.URL() + "#b", "mcp+" + up.URL()} {
		src, err := ParseSource(arg, ParseOptions{Cwd: f.base})
		if err != nil {
			t.Fatal(err)
		}
		root, commit, err := x.Materialize(src, "")
		if err != nil {
			t.Fatal(err)
		}
		o, err := Discover(x.Ctx, root, src.Path)
		if err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		var cands []Candidate
		for _, c := range o.Candidates {
			if src.Path != "" || c.Name == "xlsx" {
				cands = append(cands, c)
			}
		}
		if rs := x.Install(src, root, commit, cands, Want{Agents: agents}); len(rs) != 1 || rs[0].Status != StatusInstalled {
			t.Fatalf("install from %s = %+v", arg, rs)
		}
	}
	x.Close()
	if d := cmp.Diff([]string{"a", "b", ""}, []string{x.Lock.Find("pdf").Source.Path, x.Lock.Find("docx").Source.Path,
		x.Lock.Find("xlsx").Source.Path}); d != "" {
		t.Fatalf("lock paths (-want +got):\n%s", d)
	}

	// A clone restores all three in one run: a, then b, then the whole
	// server, and each again in the other order.
	for _, order := range [][]string{{"pdf", "docx", "xlsx"}, {"xlsx", "docx", "pdf"}} {
		y := f.installer()
		y.Lock = &Lock{Skills: slices.Clone(x.Lock.Skills)}
		for _, name := range order {
			e := *x.Lock.Find(name)
			os.RemoveAll(filepath.Join(e.Targets[0].Dir, name))
			if r := y.Restore(e, true); r.Status != StatusInstalled {
				t.Errorf("order %v: frozen restore of %s = %+v, want installed", order, name, r)
			}
		}
		y.Close()
	}
}

// TestMCPTreeInTheRunsTempDir: an MCP source's tree is made where the
// run's other fetched sources are (HTTP.TempDir), and removed on Close.
func TestMCPTreeInTheRunsTempDir(t *testing.T) {
	up := skillsexttest.Start(t, map[string]map[string]string{"up/pdf": {"SKILL.md": "---\nname: pdf\ndescription: d\n---\n"}})
	f := newFixture(t, nil)
	x := f.installer()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	x.HTTP = &HTTP{TempDir: tmp}
	root, _, err := x.Materialize(Source{Kind: KindMCP, URL: up.URL()}, "")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(root) != tmp {
		t.Errorf("the tree is at %s, want it in %s", root, tmp)
	}
	x.Close()
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("Close left %d entries in the temporary folder", len(entries))
	}
}
