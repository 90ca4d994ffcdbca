package provenance_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
)

// writeSkill writes a small skill folder and returns its path.
func writeSkill(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	files := map[string]string{
		"SKILL.md":            "---\nname: " + name + "\ndescription: Fills forms.\n---\n\nUse the guide.\n",
		"references/guide.md": "The guide.\n",
		"scripts/run.py":      "print('hi')\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// build lists dir's files as the manifest does.
func build(t *testing.T, dir string) []manifest.File {
	t.Helper()
	m, err := manifest.NewCache().Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m.Files
}

func verifier(t *testing.T, c provenance.Config) *provenance.Verifier {
	t.Helper()
	if c.StateDir == "" {
		c.StateDir = t.TempDir()
	}
	v, err := provenance.NewVerifier(c)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVerifyKeylessOMS(t *testing.T) {
	dir := writeSkill(t, "pdf")
	rootFile := provenancetest.Sign(t, dir, provenancetest.Options{Identity: "alice@example.com", Issuer: "https://accounts.example.com"})
	v := verifier(t, provenance.Config{TrustedRoot: rootFile})
	s, err := provenance.Verify(context.Background(), dir, build(t, dir), v)
	if err != nil {
		t.Fatal(err)
	}
	if s.Identity != "alice@example.com" || s.Issuer != "https://accounts.example.com" || s.Format != "oms" || s.File != "skill.oms.sig" || !strings.HasPrefix(s.Bundle, "sha256:") {
		t.Fatalf("signer = %+v", s)
	}
	if got, want := s.String(), "alice@example.com via https://accounts.example.com"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}

	// One byte changed.
	if err := os.WriteFile(filepath.Join(dir, "scripts/run.py"), []byte("print('ho')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = provenance.Verify(context.Background(), dir, build(t, dir), v)
	if !errors.Is(err, provenance.ErrInvalid) || !strings.Contains(err.Error(), "scripts/run.py") {
		t.Fatalf("after a change: err = %v", err)
	}
}
