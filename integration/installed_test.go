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
