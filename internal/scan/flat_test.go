package scan

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
)

// TestFlatSkillRoot checks that a flat skill root (a Claude plugin's
// skills/ folder) yields only its immediate sub-folders as skills: not the
// root itself, nor anything deeper, nor hidden folders.
func TestFlatSkillRoot(t *testing.T) {
	base := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("skills/SKILL.md", skill("root", "the flat root itself"))
	write("skills/a/SKILL.md", skill("a", "an immediate sub-folder"))
	write("skills/a/deeper/SKILL.md", skill("deeper", "inside a skill"))
	write("skills/cat/b/SKILL.md", skill("b", "two levels down"))
	write("skills/.hidden/SKILL.md", skill("hidden", "a hidden folder"))
	write("skills/off/.SKILL.md", skill("off", "a disabled skill"))
	write("skills/notes/README.md", "not a skill")

	root := pipeline.Root{Path: filepath.Join(base, "skills"), Agent: "claude", Flat: true,
		Plugin: &pipeline.PluginInfo{Plugin: "p", Marketplace: "m", Version: "1"}}
	res := Scan(context.Background(), []pipeline.Root{root}, DefaultOptions())
	var got []string
	for _, r := range res.Records {
		got = append(got, rel(base, r.Dir))
	}
	if diff := cmp.Diff([]string{"skills/a", "skills/off"}, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if len(res.Diagnostics) != 0 {
		t.Errorf("unexpected diagnostics: %+v", res.Diagnostics)
	}
	if r := res.Reports[0]; !r.Exists || r.Skills != 2 {
		t.Errorf("report = %+v, want it to exist with 2 skills", r)
	}

	// Without Flat, the same folder is a skill itself.
	root.Flat = false
	res = Scan(context.Background(), []pipeline.Root{root}, DefaultOptions())
	got = got[:0]
	for _, r := range res.Records {
		got = append(got, rel(base, r.Dir))
	}
	if diff := cmp.Diff([]string{"skills"}, got); diff != "" {
		t.Errorf("non-flat skills (-want +got):\n%s", diff)
	}
}
