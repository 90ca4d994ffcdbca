package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
	"github.com/ccski/ccski/internal/testfs"
)

// TestVerifierFromConfig builds the Verifier of signing.* as commands do:
// the user config's trusted root and strictness are in force, a
// project's ccski.yaml naming a key is not, and the root ccski
// trust-root update wrote is used when signing.trusted_root is empty.
func TestVerifierFromConfig(t *testing.T) {
	ctx := context.Background()
	b := newBox(t)
	skill := filepath.Join(b.root, "skill")
	testfs.Write(t, skill, map[string]string{"SKILL.md": skillText("pdf", "Fill forms."), "scripts/run.py": "print(1)\n"})
	root := provenancetest.Sign(t, skill, provenancetest.Options{Identity: "alice@example.com"})
	keySkill := filepath.Join(b.root, "keyed")
	testfs.Write(t, keySkill, map[string]string{"SKILL.md": skillText("keyed", "Keyed.")})
	key := provenancetest.SignKey(t, keySkill, provenancetest.Options{})
	testfs.Write(t, skill, map[string]string{"extra.md": "unsigned\n"})
	files := func(dir string) []manifest.File {
		m, err := manifest.NewCache().Build(dir)
		if err != nil {
			t.Fatal(err)
		}
		return m.Files
	}
	testfs.Write(t, b.home, map[string]string{".config/ccski/config.yaml": "signing: {trusted_root: " + root + ", strict: false}\n"})
	testfs.Write(t, b.proj, map[string]string{"ccski.yaml": "signing: {keys: [" + key + "], strict: true}\n"})

	v, err := b.config(t).Verifier()
	if err != nil {
		t.Fatal(err)
	}
	if v.Strict() || v.RootSource() != root {
		t.Errorf("strict %t, root %s: want the user config's (not strict, %s)", v.Strict(), v.RootSource(), root)
	}
	if s, err := provenance.Verify(ctx, skill, files(skill), v); err != nil || s.Identity != "alice@example.com" {
		t.Errorf("signer %v, err %v: want alice, the extra file allowed", s, err)
	}
	if _, err := provenance.Verify(ctx, keySkill, files(keySkill), v); !errors.Is(err, provenance.ErrInvalid) {
		t.Errorf("a key only the project names: err = %v, want ErrInvalid", err)
	}

	// signing.trusted_root unset: the root trust-root update wrote.
	if err := os.Remove(filepath.Join(b.home, ".config/ccski/config.yaml")); err != nil {
		t.Fatal(err)
	}
	c := b.config(t)
	if _, err := TrustRootUpdate(ctx, c, TrustRootUpdateRequest{From: root}); err != nil {
		t.Fatal(err)
	}
	if v, err = c.Verifier(); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(b.home, ".local", "state", "ccski", provenance.RootFile)
	if !v.Strict() || v.RootSource() != want {
		t.Errorf("strict %t, root %s: want strict, %s", v.Strict(), v.RootSource(), want)
	}
	if err := os.Remove(filepath.Join(skill, "extra.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := provenance.Verify(ctx, skill, files(skill), v); err != nil {
		t.Errorf("with the updated root: %v", err)
	}
}
