package trust

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// TestJudge: what mcp.require_trusted judged of a trusted project skill
// is its accepted files; an untrusted one has none, and skills it does not
// gate (plugin, user) are not in the map.
func TestJudge(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{
		"proj/SKILL.md": "project", "proj/ref.md": "ref",
		"other/SKILL.md": "other project",
		"plug/SKILL.md":  "plugin",
		"user/SKILL.md":  "user",
	})
	path := filepath.Join(base, "cfg", "trust.json")
	proj, other := record(filepath.Join(base, "proj"), pipeline.LocationProject), record(filepath.Join(base, "other"), pipeline.LocationProject)
	plug, user := record(filepath.Join(base, "plug"), pipeline.LocationPlugin), record(filepath.Join(base, "user"), pipeline.LocationUser)
	recs := []*pipeline.Record{proj, other, plug, user}
	c := Checker{Path: path}
	if _, err := Accept(path, c.Manifests(context.Background(), []*pipeline.Record{proj, plug}), at); err != nil {
		t.Fatal(err)
	}
	found, judged, err := c.Judge(context.Background(), recs)
	if err != nil {
		t.Fatal(err)
	}
	if !found[proj].Trusted() || found[other].Trusted() {
		t.Fatalf("integrity: %+v", found)
	}
	want, err := manifest.NewCache().Build(proj.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := judged[proj]; !slices.Equal(got, judgedFiles(want.Files)) || len(got) != 2 {
		t.Errorf("the trusted project skill: %+v, want %+v", got, want.Files)
	}
	if got, ok := judged[other]; !ok || len(got) != 0 {
		t.Errorf("the untrusted project skill: %+v (present %v), want no files", got, ok)
	}
	for _, r := range []*pipeline.Record{plug, user} {
		if _, ok := judged[r]; ok {
			t.Errorf("%s is judged: mcp.require_trusted does not gate it", r.ID)
		}
	}
}
