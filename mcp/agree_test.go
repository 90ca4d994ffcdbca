package mcp

// skills/list, skills/get, resources/directory/read and resources/read
// agree on what a skill serves.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSymlinkedFolderOneRule gives a skill a symlink to one of its own
// folders: the manifest, directory reads and resources/read agree that
// nothing is served through it (a symlink to a file inside is).
func TestSymlinkedFolderOneRule(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "lint", desc: "Lint code."})
	dir := recs[0].Dir
	writeFile(t, filepath.Join(dir, "references", "guide.md"), []byte("# Guide\n"))
	if err := os.Symlink("references", filepath.Join(dir, "refs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("references", "guide.md"), filepath.Join(dir, "guide.md")); err != nil {
		t.Fatal(err)
	}
	srv := New(snapOf(recs), Options{Logger: discard()})
	root := "skill://claude/lint"
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := skillsClient(t, srv, pv)
			e, err := getSkill(ctx, cs, recs[0].SkillURI())
			if err != nil {
				t.Fatal(err)
			}
			var manifest []string
			for _, f := range e.Resources {
				manifest = append(manifest, strings.TrimPrefix(f.URI, root+"/"))
			}
			if want := []string{"SKILL.md", "guide.md", "references/guide.md"}; !slices.Equal(manifest, want) {
				t.Errorf("manifest %v, want %v", manifest, want)
			}
			children, err := readDir(ctx, cs, root)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range children {
				names = append(names, c.Name)
			}
			if want := []string{"SKILL.md", "guide.md", "references"}; !slices.Equal(names, want) {
				t.Errorf("directory read of the skill: %v, want %v", names, want)
			}
			// What the manifest lists reads; what it leaves out does not.
			for _, rel := range manifest {
				readOne(t, ctx, cs, root+"/"+rel)
			}
			if msg := readErr(t, ctx, cs, root+"/refs/guide.md"); !strings.Contains(msg, "not found") {
				t.Errorf("read through the folder link: %q, want not found", msg)
			}
			_, err = readDir(ctx, cs, root+"/refs")
			wantNotFound(t, pv, "directory read of the folder link", err)
		})
	}
}

// TestGetRefusesWhatListLeavesOut asks skills/get for skills skills/list
// leaves out because they break the Agent Skills rules: each is -32602
// saying why, as for a skill over the manifest limits.
func TestGetRefusesWhatListLeavesOut(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "codex", name: "My_Skill", desc: "Bad name."},
		skillSpec{provider: "codex", name: "quiet", desc: ""},
		skillSpec{provider: "codex", name: "good", desc: "Fine."})
	srv := New(snapOf(recs), Options{Logger: discard()})
	ctx := testCtx(t, 10*time.Second)
	cs := skillsClient(t, srv, "")
	entries, _ := listAll(t, ctx, cs)
	if len(entries) != 1 || entries[0].URI != recs[2].SkillURI() {
		t.Fatalf("skills/list gave %d entries, want only %s", len(entries), recs[2].SkillURI())
	}
	for _, r := range recs[:2] {
		if r.SkillURI() == "" {
			t.Fatalf("%s has no URI", r.ID)
		}
		_, err := getSkill(ctx, cs, r.SkillURI())
		wantInvalidParams(t, "skills/get "+r.SkillURI(), err)
		if why := r.Unlistable(); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("skills/get %s: %v, want the reason %q", r.SkillURI(), err, why)
		}
	}
}
