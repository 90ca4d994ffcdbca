package engine

import (
	"testing"

	"github.com/ccski/ccski/pipeline"
)

// TestUniqueRootsKeepsPluginsSharingAFolder checks that plugins installed
// in one marketplace folder are all scanned, each with its own skill list,
// while a walked folder planned twice is scanned once.
func TestUniqueRootsKeepsPluginsSharingAFolder(t *testing.T) {
	dir := t.TempDir()
	roots := []pipeline.Root{
		{Path: dir, Provider: "claude", Prefix: "doc-tools", Skills: []string{"pdf"}},
		{Path: dir, Provider: "claude", Prefix: "examples", Skills: []string{"demo"}},
		{Path: dir, Provider: "claude", Location: pipeline.LocationProject},
		{Path: dir + "/", Provider: "claude", Location: pipeline.LocationUser},
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
