package providers

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// marketTree is a tree of marketplace files and skill folders.
var marketTree = map[string]string{
	"m/.claude-plugin/marketplace.json":  "{}",
	"c/.agents/plugins/marketplace.json": "{}",
	"x/plugins/marketplace.json":         "{}",
	"plain/market.json":                  "{}",
	"folder.json/":                       "",
	"skills/b/SKILL.md":                  "x",
	"skills/a/SKILL.md":                  "x",
	"skills/.hidden/SKILL.md":            "x",
	"skills/no-skill/README.md":          "x",
	"skills/dir-named/SKILL.md/":         "",
	"skills/file.md":                     "x",
}

// TestOpenCatalog checks the start every marketplace reader shares: the
// marketplace root above a manifest folder (or the file's own folder), the
// default name, and an error naming a missing or irregular file.
func TestOpenCatalog(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, marketTree)
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	dirs := []string{".agents/plugins", ".claude-plugin"}
	for _, tt := range []struct{ file, dir string }{
		{"m/.claude-plugin/marketplace.json", "m"},
		{"c/.agents/plugins/marketplace.json", "c"},
		{"x/plugins/marketplace.json", "x/plugins"}, // plugins/ alone is no manifest folder
		{"plain/./market.json", "plain"},
	} {
		c, err := OpenCatalog(abs(tt.file), dirs...)
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if c.File != filepath.Clean(abs(tt.file)) || c.Dir != abs(tt.dir) || c.Name != filepath.Base(abs(tt.dir)) {
			t.Errorf("%s: File %q, Dir %q, Name %q; want the root %s", tt.file, c.File, c.Dir, c.Name, tt.dir)
		}
	}
	if c, _ := OpenCatalog(abs("c/.agents/plugins/marketplace.json"), ".claude-plugin"); c.Dir != abs("c/.agents/plugins") {
		t.Errorf("without .agents/plugins among the manifest folders, Dir = %q", c.Dir)
	}
	if _, err := OpenCatalog(abs("missing.json")); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), abs("missing.json")) {
		t.Errorf("missing file: error %v", err)
	}
	if _, err := OpenCatalog(abs("folder.json")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("folder: error %v", err)
	}
}

// TestSkillNames checks the listing of the skill folders below a folder:
// hidden ones and those without a SKILL.md regular file left out, sorted.
func TestSkillNames(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, marketTree)
	got := SkillNames(filepath.Join(base, "skills"))
	if strings.Join(got, ",") != "a,b" {
		t.Errorf("SkillNames = %q, want a, b", got)
	}
	if got := SkillNames(filepath.Join(base, "missing")); got != nil {
		t.Errorf("SkillNames of a missing folder = %q", got)
	}
	if !IsSkill(filepath.Join(base, "skills", "a")) || IsSkill(filepath.Join(base, "skills", "dir-named")) {
		t.Error("IsSkill: a is a skill, dir-named (SKILL.md is a folder) is not")
	}
}
