package linkfix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/install"
)

// tree makes files (path relative to root: content) below a new root.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range files {
		p = filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const skillMD = "---\nname: x\ndescription: y\n---\n"

// TestTextLinks: a text file holding the path of a skill folder is a text
// link; a note, a two-line file, a path to a folder without SKILL.md and
// a real folder are not.
func TestTextLinks(t *testing.T) {
	root := tree(t, map[string]string{
		".agents/skills/shared/SKILL.md": skillMD,
		".agents/skills/empty/README.md": "no skill here",
		".claude/skills/shared":          "../../.agents/skills/shared",
		".claude/skills/note":            "remember to write tests",
		".claude/skills/twolines":        "../../.agents/skills/shared\nmore",
		".claude/skills/empty":           "../../.agents/skills/empty",
		".claude/skills/real/SKILL.md":   skillMD,
	})
	got := TextLinks(filepath.Join(root, ".claude", "skills"), root)
	if len(got) != 1 || got[0].Path != filepath.Join(root, ".claude/skills/shared") || got[0].Target != "../../.agents/skills/shared" {
		t.Fatalf("got %+v", got)
	}
	if got[0].Skill() != filepath.Join(root, ".agents/skills/shared") {
		t.Errorf("skill %s", got[0].Skill())
	}
	if !strings.Contains(got[0].Detail(), "core.symlinks") {
		t.Errorf("detail %q", got[0].Detail())
	}
	if TextLinks(filepath.Join(root, "nowhere"), root) != nil {
		t.Error("a missing folder has text links")
	}
}

// TestFixTextLink: the text file becomes a link to the skill folder, read
// through it as the folder itself.
func TestFixTextLink(t *testing.T) {
	root := tree(t, map[string]string{
		".agents/skills/shared/SKILL.md": skillMD,
		".claude/skills/shared":          "../../.agents/skills/shared",
	})
	p := TextLinks(filepath.Join(root, ".claude", "skills"), root)[0]
	if err := Fix(p); err != nil {
		t.Fatal(err)
	}
	target, err := os.Readlink(p.Path)
	if err != nil || target != filepath.FromSlash("../../.agents/skills/shared") {
		t.Fatalf("readlink %q, %v", target, err)
	}
	if b, err := os.ReadFile(filepath.Join(p.Path, "SKILL.md")); err != nil || string(b) != skillMD {
		t.Errorf("through the link: %q, %v", b, err)
	}
	if len(TextLinks(filepath.Join(root, ".claude", "skills"), root)) != 0 {
		t.Error("still a text link after the fix")
	}
	if entries, _ := os.ReadDir(filepath.Join(root, ".claude", "skills")); len(entries) != 1 {
		t.Errorf("the fix left files behind: %v", entries)
	}
}

// TestFixChangedFile: a text file changed since it was found is left
// alone.
func TestFixChangedFile(t *testing.T) {
	root := tree(t, map[string]string{
		".agents/skills/shared/SKILL.md": skillMD,
		".agents/skills/other/SKILL.md":  skillMD,
		".claude/skills/shared":          "../../.agents/skills/shared",
	})
	p := TextLinks(filepath.Join(root, ".claude", "skills"), root)[0]
	if err := os.WriteFile(p.Path, []byte("../../.agents/skills/other"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Fix(p); err == nil || !strings.Contains(err.Error(), "no longer") {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(p.Path); string(b) != "../../.agents/skills/other" {
		t.Errorf("the file changed: %q", b)
	}
}

// TestFixNeverThroughALink: when the skills folder is reached through a
// symlink leading out of the base folder, nothing is written there.
func TestFixNeverThroughALink(t *testing.T) {
	outside := tree(t, map[string]string{
		"skills/shared": "../../proj/.agents/skills/shared",
	})
	root := tree(t, map[string]string{"proj/.agents/skills/shared/SKILL.md": skillMD})
	proj := filepath.Join(root, "proj")
	if err := os.Symlink(outside, filepath.Join(proj, ".claude")); err != nil {
		t.Fatal(err)
	}
	p := Problem{Kind: TextFile, Path: filepath.Join(proj, ".claude", "skills", "shared"),
		Target: "../../proj/.agents/skills/shared", Base: proj}
	err := Fix(p)
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("err %v", err)
	}
	if st, err := os.Lstat(filepath.Join(outside, "skills", "shared")); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the file outside changed: %v %v", st, err)
	}
	p.Base = filepath.Join(root, "elsewhere")
	if err := Fix(p); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("a link outside its base: %v", err)
	}
}

// TestMissingLinks: a link the lock records and that is gone is found and
// made again; a copy target and a link still there are not touched.
func TestMissingLinks(t *testing.T) {
	root := tree(t, map[string]string{
		".agents/skills/shared/SKILL.md": skillMD,
		".agents/skills/kept/SKILL.md":   skillMD,
	})
	agents, claude := filepath.Join(root, ".agents", "skills"), filepath.Join(root, ".claude", "skills")
	if err := os.MkdirAll(claude, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../.agents/skills/kept", filepath.Join(claude, "kept")); err != nil {
		t.Fatal(err)
	}
	lock := &install.Lock{Version: install.LockVersion, Skills: []install.Entry{
		{Name: "shared", Targets: []install.Target{{Agent: "agents", Dir: agents}, {Agent: "claude", Dir: claude, Link: true}}},
		{Name: "kept", Targets: []install.Target{{Agent: "agents", Dir: agents}, {Agent: "claude", Dir: claude, Link: true}}},
		{Name: "copied", Targets: []install.Target{{Agent: "agents", Dir: agents}, {Agent: "claude", Dir: claude}}},
	}}
	layout := install.Layout{Base: root, LockFile: filepath.Join(root, "ccski.lock")}
	got := MissingLinks(layout, lock)
	if len(got) != 1 || got[0].Path != filepath.Join(claude, "shared") || got[0].Kind != Missing {
		t.Fatalf("got %+v", got)
	}
	if err := Fix(got[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(claude, "shared", "SKILL.md")); err != nil {
		t.Errorf("after the fix: %v", err)
	}
	if len(MissingLinks(layout, lock)) != 0 {
		t.Error("still missing after the fix")
	}
	// Something put there in between is never replaced.
	if err := os.Remove(filepath.Join(claude, "shared")); err != nil {
		t.Fatal(err)
	}
	p := MissingLinks(layout, lock)[0]
	if err := os.WriteFile(p.Path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Fix(p); err == nil {
		t.Error("replaced a file put there in between")
	}
}
