package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"

	"github.com/ccski/ccski/pipeline"
)

// TestUniqueRootsKeepsPluginsSharingAFolder checks that plugins installed
// in one marketplace folder are all scanned, each with its own skill list,
// while a walked folder planned twice is scanned once.
func TestUniqueRootsKeepsPluginsSharingAFolder(t *testing.T) {
	dir := t.TempDir()
	roots := []pipeline.Root{
		{Path: dir, Agent: "claude", Prefix: "doc-tools", Skills: []string{"pdf"}},
		{Path: dir, Agent: "claude", Prefix: "examples", Skills: []string{"demo"}},
		{Path: dir, Agent: "claude", Location: pipeline.LocationProject},
		{Path: dir + "/", Agent: "claude", Location: pipeline.LocationUser},
	}
	out, diags := uniqueRoots(roots)
	if len(out) != 3 {
		t.Fatalf("kept %d roots, want 3 (both plugins and one walked root): %+v", len(out), out)
	}
	if out[0].Prefix != "doc-tools" || out[1].Prefix != "examples" || out[2].Location != pipeline.LocationProject {
		t.Errorf("kept the wrong roots: %+v", out)
	}
	if len(diags) != 1 || diags[0].Code != "root-planned-twice" {
		t.Errorf("diagnostics = %+v, want one root-planned-twice", diags)
	}
}

// TestDisableCacheReadsEveryTime checks that an engine with the cache
// disabled reads every file on every snapshot.
func TestDisableCacheReadsEveryTime(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "skills", "a")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: a\ndescription: A.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{filepath.Join(dir, "SKILL.md"), dir} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	e, err := New(configs.Default(all.Registry()), providers.NewEnv(home, t.TempDir(), func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	e.DisableCache()
	for i := 0; i < 2; i++ {
		snap, st, err := e.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.FilesRead != 1 || len(snap.Visible) != 1 {
			t.Errorf("snapshot %d: read %d files, %d visible; want 1 and 1", i, st.FilesRead, len(snap.Visible))
		}
	}
}
