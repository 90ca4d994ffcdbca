package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// This file drives the whole install lifecycle as a team meets it: what
// ccski leaves in the project, and what a teammate's clone restores from
// the lock alone.

// TestInstallLeavesNoLockFileInProject installs, updates and removes in a
// git project and checks that `git status` shows only the skills and
// ccski.lock: the lock that serialises runs lives in ccski's state
// folder, so a plain `git add -A` commits nothing of ccski's own.
func TestInstallLeavesNoLockFileInProject(t *testing.T) {
	b := newInstallBox(t)
	os.RemoveAll(filepath.Join(b.proj, ".git"))
	gitRun(t, b.proj, "init", "-q")
	testfs.Write(t, b.root, map[string]string{"src/pdf/SKILL.md": skillText("pdf", "p")})
	for _, args := range [][]string{
		{"install", filepath.Join(b.root, "src"), "pdf"},
		{"update"},
		{"remove", "pdf"},
		{"install", filepath.Join(b.root, "src"), "pdf"},
	} {
		mustOK(t, b.run(t, args...))
		if _, err := os.Lstat(filepath.Join(b.proj, "ccski.lock.lck")); err == nil {
			t.Fatalf("ccski %s left ccski.lock.lck in the project", strings.Join(args, " "))
		}
	}
	status := gitRun(t, b.proj, "status", "--porcelain", "--untracked-files=all")
	var got []string
	for _, l := range strings.Split(status, "\n") {
		got = append(got, strings.TrimSpace(l))
	}
	want := []string{"?? .agents/skills/pdf/SKILL.md", "?? .claude/skills/pdf", "?? ccski.lock"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("git status after install:\n%s\nwant:\n%s", status, strings.Join(want, "\n"))
	}
}
