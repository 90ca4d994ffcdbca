package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestRemoveAndUpdateFindTheScope installs a skill for the user only and
// removes and updates it without --scope: ccski finds it in the user's
// lock. A skill both locks name is ambiguous and needs --scope.
func TestRemoveAndUpdateFindTheScope(t *testing.T) {
	b := newInstallBox(t)
	src := filepath.Join(b.root, "src")
	testfs.Write(t, src, map[string]string{
		"xlsx/SKILL.md": skillText("xlsx", "sheets"),
		"pdf/SKILL.md":  skillText("pdf", "pages"),
	})
	mustOK(t, b.run(t, "install", src, "xlsx", "pdf", "--scope", "user"))
	mustOK(t, b.run(t, "install", src, "pdf"))

	rep := b.jsonRun(t, 0, "update", "xlsx")
	if rep.Scope != "user" || strings.Join(rep.statuses(), ",") != "xlsx unchanged" {
		t.Errorf("update xlsx (user scope only) = %s %v, want user [xlsx unchanged]", rep.Scope, rep.statuses())
	}
	r := b.run(t, "remove", "pdf")
	if r.code != 2 || !strings.Contains(r.stderr, "--scope") {
		t.Errorf("remove pdf, installed in both scopes: want exit 2 asking for --scope\n%s", r)
	}
	rep = b.jsonRun(t, 0, "remove", "xlsx")
	if rep.Scope != "user" || strings.Join(rep.statuses(), ",") != "xlsx removed" {
		t.Errorf("remove xlsx = %s %v, want user [xlsx removed]", rep.Scope, rep.statuses())
	}
	if _, err := os.Lstat(filepath.Join(b.home, ".agents/skills/xlsx")); err == nil {
		t.Errorf("remove xlsx left its copy in the home folder")
	}
	rep = b.jsonRun(t, 0, "remove", "pdf", "--scope", "project")
	if rep.Scope != "project" {
		t.Errorf("remove pdf --scope project worked on %s", rep.Scope)
	}
}

// installedJSON is the --json output of ccski installed.
type installedJSON struct {
	Skills []struct {
		Skill, Scope, Source, Commit, Update, Latest string
		Agents                                       []string
		Edited                                       *struct{ Added, Changed, Removed []string }
	} `json:"skills"`
}

// TestInstalledShowsWhatCcskiInstalled: ccski installed lists the skills
// of both locks with scope, source, commit, agents, local edits and
// whether an update is available, the latter offline: a folder source is
// compared with its files now, a git source with its ref as last fetched
// (update --check fetches it).
func TestInstalledShowsWhatCcskiInstalled(t *testing.T) {
	b := newInstallBox(t)
	repo, shas := newGitSource(t, filepath.Join(b.root, "repo"), map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v1")})
	folder := filepath.Join(b.root, "folder")
	testfs.Write(t, folder, map[string]string{"xlsx/SKILL.md": skillText("xlsx", "v1"), "docx/SKILL.md": skillText("docx", "v1")})
	mustOK(t, b.run(t, "install", repo.url+"#skills/pdf", "--agent", "claude"))
	mustOK(t, b.run(t, "install", folder, "xlsx"))
	mustOK(t, b.run(t, "install", folder, "docx", "--scope", "user"))
	testfs.Write(t, b.proj, map[string]string{".agents/skills/xlsx/notes.md": "mine\n"})
	testfs.Write(t, folder, map[string]string{"docx/SKILL.md": skillText("docx", "v2")})
	newer := repo.commit(t, map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v2")})

	get := func() map[string]string {
		t.Helper()
		r := b.run(t, "installed", "--json")
		mustOK(t, r)
		var got installedJSON
		decodeOnly(t, r, &got)
		out := map[string]string{}
		for _, s := range got.Skills {
			edited := "no edits"
			if s.Edited != nil {
				edited = "edited " + strings.Join(s.Edited.Added, ",")
			}
			out[s.Skill] = strings.Join([]string{s.Scope, s.Commit, strings.Join(s.Agents, ","), edited, s.Update, s.Latest}, " ")
		}
		return out
	}
	got := get()
	if !strings.HasPrefix(got["pdf"], "project "+shas[0]+" ") || !strings.HasSuffix(got["pdf"], " no edits none ") {
		t.Errorf("pdf = %q, want project, its commit, no edits, no update known before a fetch", got["pdf"])
	}
	if !strings.HasPrefix(got["xlsx"], "project  ") || !strings.Contains(got["xlsx"], " edited notes.md none") {
		t.Errorf("xlsx = %q, want project, local edit notes.md, no update", got["xlsx"])
	}
	if !strings.HasPrefix(got["docx"], "user  ") || !strings.HasSuffix(got["docx"], " no edits available ") {
		t.Errorf("docx = %q, want user, no edits, update available", got["docx"])
	}
	if r := b.run(t, "update", "--check", "pdf"); r.code != 10 {
		t.Fatalf("update --check pdf: want exit 10\n%s", r)
	}
	if got := get()["pdf"]; !strings.HasSuffix(got, " available "+newer) {
		t.Errorf("pdf after update --check fetched it = %q, want update available %s", got, newer)
	}
	r := b.run(t, "installed")
	mustOK(t, r)
	for _, w := range []string{"pdf (project)", "xlsx (project)", "docx (user)", "local edits: +notes.md", "update available"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("ccski installed shows no %q\n%s", w, r)
		}
	}
}

// TestUpdateForceNamesTheEditsItOverwrites: a skill edited on disk is
// skipped by update; update --force names the local edits it overwrites
// and its diff shows them undone along with the source's change.
func TestUpdateForceNamesTheEditsItOverwrites(t *testing.T) {
	b := newInstallBox(t)
	src := filepath.Join(b.root, "src")
	testfs.Write(t, src, map[string]string{"xlsx/SKILL.md": skillText("xlsx", "v1"), "xlsx/guide.md": "step one\n"})
	mustOK(t, b.run(t, "install", src, "xlsx"))
	testfs.Write(t, b.proj, map[string]string{".agents/skills/xlsx/guide.md": "step one, my way\n"})
	testfs.Write(t, src, map[string]string{"xlsx/SKILL.md": skillText("xlsx", "v2")})

	rep := b.jsonRun(t, 0, "update", "xlsx")
	if strings.Join(rep.statuses(), ",") != "xlsx skipped" {
		t.Fatalf("update of an edited skill = %v, want skipped", rep.statuses())
	}
	r := b.run(t, "update", "xlsx", "--force")
	mustOK(t, r)
	for _, want := range []string{"overwrote local edits (--force): ~guide.md", "-step one, my way\n", "+step one\n", "+v2\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("update --force shows no %q\n%s", want, r)
		}
	}
	if got := textOf(t, filepath.Join(b.proj, ".agents/skills/xlsx/guide.md")); got != "step one\n" {
		t.Errorf("guide.md after update --force = %q", got)
	}
}
