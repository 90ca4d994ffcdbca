package floorlib

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWalk(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("x", 3*HeadSize)
	files := map[string]string{
		"skills/a/SKILL.md":                   "---\nname: a\n---\n",
		"skills/a/references/inner/SKILL.md":  "inside a skill: not a skill",
		"skills/cat/b/SKILL.md":               big,
		"skills/cat/c/.SKILL.md":              "disabled",
		"skills/d/SKILL.md":                   "both",
		"skills/d/.SKILL.md":                  "both",
		"skills/.hidden/e/SKILL.md":           "hidden",
		"skills/node_modules/f/SKILL.md":      "node_modules",
		"skills/cat/empty/README.md":          "no skill",
		"plugin/.claude-plugin/plugin.json":   "{}",
		"plugin/skills/g/SKILL.md":            "plugin skill",
		"plugin/skills/g/scripts/x/SKILL.md":  "inside a skill",
		"unlisted/h/SKILL.md":                 "not under a root",
		"plugin/skills/.git/objects/SKILL.md": "hidden",
	}
	for p, c := range files {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	skills, plugin := filepath.Join(root, "skills"), filepath.Join(root, "plugin")
	roots := []string{skills, plugin, skills, filepath.Join(root, "missing")}
	res, err := Walk(roots)
	if err != nil {
		t.Fatal(err)
	}
	if res.Skills != 5 { // a, b, c (disabled), d, g
		t.Errorf("read %d skill files, want 5", res.Skills)
	}
	want := int64(len(files["skills/a/SKILL.md"]) + HeadSize + len("disabled") + len("both") + len("plugin skill"))
	if res.Bytes != want {
		t.Errorf("read %d bytes, want %d", res.Bytes, want)
	}
	dirs, found, err := List(roots)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 5 || len(dirs) != res.Dirs {
		t.Errorf("List: %d files, %d folders; Walk listed %d folders", len(found), len(dirs), res.Dirs)
	}
	if n, err := Restat(dirs, found); err != nil || n != len(dirs)+len(found) {
		t.Errorf("Restat = %d, %v", n, err)
	}
	if _, err := Walk([]string{filepath.Join(skills, "a", "SKILL.md")}); err == nil {
		t.Error("a file as a root is not an error")
	}
}
