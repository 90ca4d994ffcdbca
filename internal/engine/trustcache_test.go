package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// TestTrustOneShotCaches: a one-shot check keeps the digests and folder
// listings in the user's cache folder, in the binary form, and removes the
// JSON digest cache of earlier versions; the next one-shot check finds the
// same integrity from them.
func TestTrustOneShotCaches(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	legacy := filepath.Join(cache, "ccski", "digests.json")
	testfs.Write(t, cache, map[string]string{"ccski/digests.json": `{"version":1,"entries":[]}`})
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"proj/SKILL.md": "project", "proj/ref.md": "ref"})
	dir := filepath.Join(base, "proj")
	// Digests and listings are cached only once the files' times are two
	// seconds old (an edit in the same clock tick would keep them).
	time.Sleep(2100 * time.Millisecond)
	rec := &pipeline.Record{ID: "claude:proj", Name: "proj", Agent: "claude", Location: pipeline.LocationProject,
		Dir: dir, RealDir: dir, File: filepath.Join(dir, "SKILL.md")}
	store := filepath.Join(base, "cfg", "trust.json")
	for i, want := range []pipeline.IntegrityState{pipeline.IntegrityNew, pipeline.IntegrityRecorded, pipeline.IntegrityRecorded} {
		g := &integrity{opts: TrustOptions{File: store}}
		found, _, diags, _ := g.apply(context.Background(), []*pipeline.Record{rec}, nil, true)
		if len(diags) != 0 || found[rec].State != want {
			t.Fatalf("check %d: %+v, %v; want %s", i+1, found[rec], diags, want)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "ccski", "manifests.bin")); err != nil {
		t.Errorf("the digest cache was not written: %v", err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("the JSON digest cache of earlier versions is still there: %v", err)
	}
}
