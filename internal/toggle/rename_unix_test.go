//go:build unix

package toggle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// TestRenameRefusesLinkOutOfProject: the .SKILL.md switch of a project's
// skill whose folder is a link leading out of the project (to a skill of
// the user's) is refused, in a dry run too, naming the link; the skill it
// leads to keeps its SKILL.md. A skill folder linked inside the project is
// renamed.
func TestRenameRefusesLinkOutOfProject(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"home/.agents/skills/mine/SKILL.md": "",
		"repo/.git/":                        "",
		"repo/vendor/ours/SKILL.md":         "",
	})
	repo := filepath.Join(base, "repo")
	skills := filepath.Join(repo, ".cursor", "skills")
	if err := os.MkdirAll(skills, 0o755); err != nil {
		t.Fatal(err)
	}
	mine, ours := filepath.Join(skills, "mine"), filepath.Join(skills, "ours")
	target := filepath.Join(base, "home", ".agents", "skills", "mine")
	if err := os.Symlink(target, mine); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "vendor", "ours"), ours); err != nil {
		t.Fatal(err)
	}
	rec := func(dir string) *pipeline.Record {
		return &pipeline.Record{ID: "cursor:" + filepath.Base(dir), Name: filepath.Base(dir), Agent: "cursor",
			Location: pipeline.LocationProject, Dir: dir, File: filepath.Join(dir, pipeline.SkillFile)}
	}
	all := []*pipeline.Record{rec(mine), rec(ours)}
	env := providers.Env{UserDir: filepath.Join(base, "home"), Workspace: repo, WorkspaceDirs: []string{repo}}
	tg := New(env, pipeline.NewSnapshot(all, all, nil, nil, nil), nil)
	plan := func() {
		for _, r := range all {
			tg.Record(r, Request{})
		}
	}
	for _, dry := range []bool{true, false} {
		p := tg.Commit(plan, dry)
		if len(p.Results) != 2 || p.Results[0].Status != Failed || p.Results[1].Status != Changed {
			t.Fatalf("dry %v: results %+v", dry, p.Results)
		}
		if msg := p.Results[0].Error; !strings.Contains(msg, mine) || !strings.Contains(msg, target) || !strings.Contains(msg, "symbolic link") {
			t.Errorf("dry %v: the error does not name the link and its target: %s", dry, msg)
		}
		if len(p.Renames) != 1 || p.Renames[0].From != filepath.Join(ours, pipeline.SkillFile) {
			t.Errorf("dry %v: renames %+v", dry, p.Renames)
		}
	}
	if _, err := os.Stat(filepath.Join(target, pipeline.SkillFile)); err != nil {
		t.Errorf("the user's skill was renamed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(repo, "vendor", "ours", pipeline.DisabledSkillFile)); err != nil {
		t.Errorf("the skill linked inside the project was not renamed: %v", err)
	}
}
