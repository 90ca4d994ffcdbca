package install

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/skillsext/skillsexttest"
)

// TestIndexFetchesOnlyWhatIsInstalled: a well-known index is offered
// from the index itself; installing one skill of it downloads that
// skill's artifact alone, and so does restoring it from the lock.
func TestIndexFetchesOnlyWhatIsInstalled(t *testing.T) {
	s := newSite(t)
	for _, n := range []string{"a", "c"} {
		s.put("/.well-known/agent-skills/"+n+"/SKILL.md", []byte(skillMD(n)))
	}
	s.put("/.well-known/agent-skills/b.zip", zipOf(t, entry{name: "SKILL.md", body: skillMD("b")},
		entry{name: "references/more.md", body: "more\n"}))
	s.put("/.well-known/agent-skills/index.json", indexV2(t, s, map[string]string{
		"a": "/.well-known/agent-skills/a/SKILL.md", "b": "b.zip", "c": "/.well-known/agent-skills/c/SKILL.md"}))
	f := newFixture(t, nil)
	x := f.installer()
	x.HTTP = &HTTP{TempDir: t.TempDir()}
	src := Source{Kind: KindIndex, URL: s.srv.URL}
	root, commit, o := offer(t, x, src)
	if len(o.Candidates) != 3 {
		t.Fatalf("offered %+v, want a, b and c from the index", o.Candidates)
	}
	if d := cmp.Diff([]string{"/.well-known/agent-skills/index.json"}, s.askedFor()); d != "" {
		t.Errorf("offering the index downloaded (-want +got):\n%s", d)
	}
	cands, err := Select(src.String(), o, Selection{Names: []string{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	agents, _ := ParseAgents(nil)
	if rs := x.Install(src, root, commit, cands, Want{Agents: agents}); len(rs) != 1 || rs[0].Status != StatusInstalled {
		t.Fatalf("install b = %+v", rs)
	}
	x.Close()
	if d := cmp.Diff([]string{"/.well-known/agent-skills/b.zip"}, s.askedFor()); d != "" {
		t.Errorf("installing b downloaded (-want +got):\n%s", d)
	}
	e := *x.Lock.Find("b")
	if e.Commit != manifest.Digest(s.files["/.well-known/agent-skills/b.zip"]) || len(e.Files) != 2 {
		t.Errorf("lock entry %+v, want b.zip's digest and both its files", e)
	}

	y := f.installer()
	y.HTTP = &HTTP{TempDir: t.TempDir()}
	y.Lock = x.Lock
	if r := y.Restore(e, true); r.Status != StatusUnchanged {
		t.Errorf("restore = %+v", r)
	}
	y.Close()
	if d := cmp.Diff([]string{"/.well-known/agent-skills/b.zip", "/.well-known/agent-skills/index.json"}, s.askedFor()); d != "" {
		t.Errorf("restoring b downloaded (-want +got):\n%s", d)
	}
}

// TestIndexCapsTheTotal: the artifacts one index brings in one run are
// capped in total (indexTotal: 16 times install.max_download), not only
// each: past it, a skill is refused, naming the cap, and nothing of it
// is written.
func TestIndexCapsTheTotal(t *testing.T) {
	s := newSite(t)
	arts := map[string]string{}
	for i := range 20 {
		n := fmt.Sprintf("s%02d", i)
		s.put("/.well-known/agent-skills/"+n+"/SKILL.md", []byte(skillMD(n)+strings.Repeat("x", 3900-len(skillMD(n)))))
		arts[n] = "/.well-known/agent-skills/" + n + "/SKILL.md"
	}
	s.put("/.well-known/agent-skills/index.json", indexV2(t, s, arts))
	f := newFixture(t, nil)
	x := f.installer()
	x.HTTP = &HTTP{TempDir: t.TempDir(), Limits: Limits{MaxDownload: 4000}}
	defer x.Close()
	src := Source{Kind: KindIndex, URL: s.srv.URL}
	root, commit, o := offer(t, x, src)
	agents, _ := ParseAgents(nil)
	installed, refused := 0, 0
	for _, r := range x.Install(src, root, commit, o.Candidates, Want{Agents: agents}) {
		switch {
		case r.Status == StatusInstalled:
			installed++
		case r.Status == StatusFailed && strings.Contains(r.Message, "in total"):
			refused++
		default:
			t.Errorf("%s: %s %s", r.Skill, r.Status, r.Message)
		}
	}
	if installed != 64000/3900 || refused != 20-64000/3900 {
		t.Errorf("%d installed and %d refused, want %d within the total of 64000 bytes and the rest refused",
			installed, refused, 64000/3900)
	}
}

// TestFetchedFileModes: a fetched skill's files get their mode by one
// rule whatever brought them (manifest.Mode): 0o755 below a scripts/
// folder or when the source marks the file executable (an archive
// can; an MCP server's manifest and a v0.1.0 index cannot), else 0o644.
func TestFetchedFileModes(t *testing.T) {
	files := map[string]string{"SKILL.md": skillMD("tool"), "scripts/run.sh": "#!/bin/sh\n", "bin/tool": "#!/bin/sh\n"}
	old := newSite(t)
	old.put("/.well-known/skills/index.json", []byte(`{"skills":[{"name":"tool","description":"d","files":["SKILL.md","scripts/run.sh","bin/tool"]}]}`))
	for rel, body := range files {
		old.put("/.well-known/skills/tool/"+rel, []byte(body))
	}
	dl := newSite(t)
	dl.put("/tool.zip", zipOf(t, entry{name: "tool/SKILL.md", body: files["SKILL.md"]},
		entry{name: "tool/scripts/run.sh", body: files["scripts/run.sh"]},
		entry{name: "tool/bin/tool", body: files["bin/tool"], mode: 0o755}))
	up := skillsexttest.Start(t, map[string]map[string]string{"up/tool": files})
	want := map[string]map[string]fs.FileMode{
		"index":   {"SKILL.md": 0o644, "scripts/run.sh": 0o755, "bin/tool": 0o644},
		"mcp":     {"SKILL.md": 0o644, "scripts/run.sh": 0o755, "bin/tool": 0o644},
		"archive": {"SKILL.md": 0o644, "scripts/run.sh": 0o755, "bin/tool": 0o755},
	}
	for kind, src := range map[string]Source{"index": {Kind: KindIndex, URL: old.srv.URL}, "mcp": {Kind: KindMCP, URL: up.URL()},
		"archive": {Kind: KindArchive, URL: dl.srv.URL + "/tool.zip"}} {
		f := newFixture(t, nil)
		x := f.installer()
		x.HTTP = &HTTP{TempDir: t.TempDir()}
		root, commit, o := offer(t, x, src)
		agents, _ := ParseAgents(nil)
		if rs := x.Install(src, root, commit, o.Candidates, Want{Agents: agents}); len(rs) != 1 || rs[0].Status != StatusInstalled {
			t.Fatalf("%s: install = %+v", kind, rs)
		}
		x.Close()
		dir := filepath.Join(x.Lock.Find("tool").Targets[0].Dir, "tool")
		for rel, mode := range want[kind] {
			st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil || st.Mode().Perm() != mode {
				t.Errorf("%s: %s has mode %v (%v), want %v", kind, rel, st.Mode().Perm(), err, mode)
			}
		}
	}
}
