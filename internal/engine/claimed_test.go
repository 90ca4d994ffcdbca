package engine

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// TestRegistryFoldersAreNoDynamicAgents checks that the engine tells the
// agents provider which folders the registered providers stand for
// (providers.Env.Claimed, from the registry): their skills are found once,
// under their own provider, and a folder named like a provider is no
// dynamic agent, while any other hidden folder with skills is one.
func TestRegistryFoldersAreNoDynamicAgents(t *testing.T) {
	base := t.TempDir()
	skill := func(name string) string { return "---\nname: " + name + "\ndescription: " + name + ".\n---\n" }
	testfs.Write(t, base, map[string]string{
		"home/.claude/skills/mine/SKILL.md":      skill("mine"),
		"ws/.codex/skills/repo/SKILL.md":         skill("repo"),
		"ws/.Claude/skills/upper/SKILL.md":       skill("upper"),
		"ws/.marketplace/skills/posing/SKILL.md": skill("posing"),
		"ws/.commands/skills/posing2/SKILL.md":   skill("posing2"),
		"ws/.zed/skills/zed-skill/SKILL.md":      skill("zed-skill"),
	})
	e, err := New(configs.Default(all.Registry()), providers.NewEnv(filepath.Join(base, "home"), filepath.Join(base, "ws"),
		func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(all.Claimed(), e.Env().Claimed); d != "" {
		t.Errorf("Env.Claimed (-registry +engine):\n%s", d)
	}
	snap, _, err := e.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range snap.All {
		got = append(got, r.Agent+" "+r.Name)
	}
	slices.Sort(got)
	want := []string{"claude mine", "codex repo", "zed zed-skill"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
}
