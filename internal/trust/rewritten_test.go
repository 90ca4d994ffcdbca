package trust

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/pipeline"
)

// TestRewritten: files ccski wrote replace the record of a folder the
// store knows (first sight and acceptance kept, acceptance now of the
// new files); a folder it does not know stays unrecorded.
func TestRewritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trust.json")
	v1 := []manifest.File{{Path: "SKILL.md", Size: 2, Digest: "sha256:v1"}}
	v2 := []manifest.File{{Path: "SKILL.md", Size: 2, Digest: "sha256:v2"}, {Path: "a.md", Size: 1, Digest: "sha256:a"}}
	first := at.Add(-time.Hour)
	if err := Update(path, add("/p/seen", Entry{ID: "claude:seen", Provider: "claude", FirstSeen: first, Files: v1})); err != nil {
		t.Fatal(err)
	}
	if err := Update(path, add("/p/trusted", Entry{ID: "claude:trusted", Provider: "claude", FirstSeen: first,
		Accepted: true, AcceptedAt: &first, Files: v1})); err != nil {
		t.Fatal(err)
	}
	written := map[string][]manifest.File{"/p/seen": v2, "/p/trusted": v2, "/p/new": v2}
	if err := Rewritten(path, written, at); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	seen, trusted := s.Skills["/p/seen"], s.Skills["/p/trusted"]
	if Compare(seen, v2).State != pipeline.IntegrityRecorded || !seen.FirstSeen.Equal(first) || seen.Accepted {
		t.Errorf("seen after Rewritten = %+v, want v2 recorded, first seen kept, not accepted", seen)
	}
	if Compare(trusted, v2).State != pipeline.IntegrityTrusted || !trusted.AcceptedAt.Equal(at) {
		t.Errorf("trusted after Rewritten = %+v, want v2 trusted at %v", trusted, at)
	}
	if _, ok := s.Skills["/p/new"]; ok {
		t.Errorf("Rewritten recorded a folder the store did not know")
	}
	if !slices.Equal(seen.Files, v2) {
		t.Errorf("files = %v, want %v", seen.Files, v2)
	}
}
