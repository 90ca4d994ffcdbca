package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewSkill drives ccski new as a user would: the skill lands in the
// project's .agents/skills with a link in .claude/skills, ccski validate
// passes it under every profile while warning about the placeholder,
// ccski list shows it, a second ccski new of the name is refused without
// a change, and a bad name is a usage error naming the rule and the name
// to use.
func TestNewSkill(t *testing.T) {
	b := newInstallBox(t)
	r := b.run(t, "new", "release-notes", "--agent", "claude,codex", "--references")
	mustOK(t, r)
	dir := filepath.Join(b.proj, ".agents", "skills", "release-notes")
	if !strings.Contains(r.stdout, "created") || !strings.Contains(r.stdout, ".claude/skills/release-notes (link)") {
		t.Errorf("ccski new does not say where it wrote the skill:\n%s", r)
	}
	if st, err := os.Stat(filepath.Join(dir, "references")); err != nil || !st.IsDir() {
		t.Errorf("references/ was not made: %v", err)
	}
	if dest, err := os.Readlink(filepath.Join(b.proj, ".claude", "skills", "release-notes")); err != nil ||
		dest != filepath.Join("..", "..", ".agents", "skills", "release-notes") {
		t.Errorf(".claude/skills/release-notes links to %q (%v), want the shared copy", dest, err)
	}
	for _, p := range []string{"spec", "claude", "codex", "strict"} {
		v := b.run(t, "validate", "--profile", p, dir)
		if v.code != 0 || !strings.Contains(v.stdout, "description-placeholder") || !strings.Contains(v.stdout, "0 errors") {
			t.Errorf("validate --profile %s of the new skill: want exit 0 and the placeholder warning\n%s", p, v)
		}
	}
	if l := b.run(t, "list"); !strings.Contains(l.stdout, "release-notes") {
		t.Errorf("ccski list does not show the new skill:\n%s", l)
	}

	md := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(md, []byte("---\nname: release-notes\ndescription: Mine.\n---\nMine.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := b.run(t, "new", "release-notes")
	if again.code != 1 || !strings.Contains(again.stderr, "never overwrites") {
		t.Errorf("a second ccski new of the name: want exit 1 and a refusal\n%s", again)
	}
	if got, _ := os.ReadFile(md); string(got) != "---\nname: release-notes\ndescription: Mine.\n---\nMine.\n" {
		t.Errorf("the second ccski new changed SKILL.md:\n%s", got)
	}

	bad := b.run(t, "new", "Release_Notes")
	if bad.code != 2 || !strings.Contains(bad.stderr, "name-uppercase") || !strings.Contains(bad.stderr, "write name: release-notes") {
		t.Errorf("ccski new Release_Notes: want exit 2 naming the rule and the name to use\n%s", bad)
	}
	if _, err := os.Lstat(filepath.Join(b.proj, ".agents", "skills", "Release_Notes")); err == nil {
		t.Error("a refused name was written")
	}
}
