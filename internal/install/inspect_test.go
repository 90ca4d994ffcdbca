package install

import (
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/testfs"
)

// TestInspect: an installed skill from a folder shows its agents, no
// edits and no update; after a local edit and a change in the source, it
// shows both; a git source whose ref the cache never fetched is unknown,
// one pinned to a commit has none.
func TestInspect(t *testing.T) {
	f := newFixture(t, map[string]string{"pdf/SKILL.md": skill("pdf")})
	x := f.installer()
	if got := statuses(f.install(t, x, "pdf")); strings.Join(got, ",") != "pdf installed" {
		t.Fatalf("install = %v", got)
	}
	e := *x.Lock.Find("pdf")
	r := x.Inspect(e)
	if r.Update != UpdateNone || r.Edited != nil || r.Missing || len(r.Agents) == 0 || r.Scope != ScopeProject {
		t.Errorf("fresh install: %+v", r)
	}
	testfs.Write(t, f.layout.Base, map[string]string{".agents/skills/pdf/mine.md": "mine\n"})
	testfs.Write(t, f.src, map[string]string{"pdf/more.md": "more\n"})
	r = x.Inspect(e)
	if r.Edited == nil || r.Edited.String() != "+mine.md" || r.Update != UpdateAvailable || !strings.Contains(r.UpdateNote, "+more.md") {
		t.Errorf("after an edit and a source change: edited %v, update %s (%s)", r.Edited, r.Update, r.UpdateNote)
	}
	g := e
	g.Source = Source{Kind: KindGit, URL: "https://example.invalid/r.git"}
	x.Git = &gitfetch.Git{CacheDir: t.TempDir()}
	if r := x.Inspect(g); r.Update != UpdateUnknown {
		t.Errorf("git source never fetched: update %s, want unknown", r.Update)
	}
	g.Source.Ref = strings.Repeat("a", 40)
	if r := x.Inspect(g); r.Update != UpdateNone || r.UpdateNote != "pinned to a commit" {
		t.Errorf("git source pinned to a commit: update %s (%s)", r.Update, r.UpdateNote)
	}
}
