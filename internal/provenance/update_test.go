package provenance_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
)

// TestUpdateRootTUF refreshes the trusted root from a TUF repository
// served on loopback: the new root is written and then in force (a skill
// signed by the test Sigstore verifies with no signing.trusted_root); a
// second run changes nothing; a target whose bytes the metadata does not
// vouch for, and a target that is no trusted root, are refused and the
// root in force is kept.
func TestUpdateRootTUF(t *testing.T) {
	ctx := context.Background()
	state := t.TempDir()
	rootJSON := provenancetest.Shared(t).RootJSON()
	repo := provenancetest.ServeTUF(t, rootJSON, nil)

	// Before: a signed skill does not verify with the shipped root.
	dir := writeSkill(t, "pdf")
	provenancetest.Shared(t).Sign(t, dir, provenancetest.Options{Identity: "alice@example.com"})
	if _, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{StateDir: state})); !errors.Is(err, provenance.ErrInvalid) {
		t.Fatalf("with the shipped root: err = %v, want ErrInvalid", err)
	}

	u, err := provenance.UpdateRoot(ctx, provenance.UpdateRequest{StateDir: state, URL: repo.URL, TUFRoot: repo.Root})
	if err != nil {
		t.Fatal(err)
	}
	if !u.Changed || u.Previous != "the trusted root ccski ships" || u.Source != repo.URL || u.Path != filepath.Join(state, provenance.RootFile) {
		t.Fatalf("update = %+v", u)
	}
	if len(u.Added) == 0 || len(u.Removed) == 0 {
		t.Errorf("added %q, removed %q: want both (the test root shares nothing with the shipped one)", u.Added, u.Removed)
	}
	got, err := os.ReadFile(u.Path)
	if err != nil || string(got) != string(rootJSON) {
		t.Fatalf("written root differs from the target (err %v)", err)
	}
	s, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{StateDir: state}))
	if err != nil || s.Identity != "alice@example.com" {
		t.Fatalf("with the updated root: signer %v, err %v", s, err)
	}

	again, err := provenance.UpdateRoot(ctx, provenance.UpdateRequest{StateDir: state, URL: repo.URL, TUFRoot: repo.Root})
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed || len(again.Added)+len(again.Removed) != 0 {
		t.Errorf("second update = %+v, want no change", again)
	}

	for _, tc := range []struct {
		name string
		repo provenancetest.TUFRepo
		want string
	}{
		{"tampered target", provenancetest.ServeTUF(t, provenance.EmbeddedRoot(), []byte(strings.Replace(string(provenance.EmbeddedRoot()), "rekor", "r3kor", 1))), "trusted_root.json"},
		{"not a trusted root", provenancetest.ServeTUF(t, []byte(`{"mediaType": "text/plain"}`), nil), "not a Sigstore trusted root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := provenance.UpdateRoot(ctx, provenance.UpdateRequest{StateDir: state, URL: tc.repo.URL, TUFRoot: tc.repo.Root})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
			if b, _ := os.ReadFile(u.Path); string(b) != string(rootJSON) {
				t.Error("the root in force was replaced")
			}
		})
	}
}

// TestUpdateRootFrom installs a trusted root from a file (a machine
// without the network): garbage, an empty root and a missing file are
// refused with an error naming what is wrong, and the root in force is
// kept; a good file is written.
func TestUpdateRootFrom(t *testing.T) {
	ctx := context.Background()
	state := t.TempDir()
	files := t.TempDir()
	put := func(name, body string) string {
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := put("good.json", string(provenancetest.Shared(t).RootJSON()))
	u, err := provenance.UpdateRoot(ctx, provenance.UpdateRequest{StateDir: state, From: good})
	if err != nil || !u.Changed || u.Source != good {
		t.Fatalf("update from %s: %+v, %v", good, u, err)
	}
	for _, tc := range []struct {
		name, from, want string
	}{
		{"garbage", put("garbage.json", "\x00\x01not json"), "not a Sigstore trusted root"},
		{"truncated", put("truncated.json", string(provenance.EmbeddedRoot()[:400])), "not a Sigstore trusted root"},
		{"no authority", put("empty.json", `{"mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`), "no certificate authority"},
		{"missing", filepath.Join(files, "nope.json"), "nope.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := provenance.UpdateRoot(ctx, provenance.UpdateRequest{StateDir: state, From: tc.from})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
			if b, _ := os.ReadFile(u.Path); string(b) != string(provenancetest.Shared(t).RootJSON()) {
				t.Error("the root in force was replaced")
			}
		})
	}
}
