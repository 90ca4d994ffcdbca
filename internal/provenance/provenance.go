// Package provenance verifies the signatures skills carry. This file is
// the signature contract of issue 26 as helper "sign" publishes it, so that
// the policy builds before sign's branch is merged; the merge replaces it
// with sign's package.
package provenance

import (
	"context"
	"path"

	"github.com/ccski/ccski/internal/manifest"
)

// Signer is who a verified signature says signed a skill.
type Signer struct {
	Identity string `json:"identity"`
	Issuer   string `json:"issuer,omitempty"`
	Bundle   string `json:"bundle"`
	Format   string `json:"format"`
	File     string `json:"file"`
}

// String is the human form: "alice@example.com via https://accounts.example.com".
func (s Signer) String() string {
	if s.Issuer == "" {
		return s.Identity
	}
	return s.Identity + " via " + s.Issuer
}

// Identity is an expected signer: Identity may be a glob, an empty Issuer
// is any issuer.
type Identity struct{ Identity, Issuer string }

// Match reports whether s is id.
func (id Identity) Match(s *Signer) bool {
	if s == nil {
		return false
	}
	ok, err := path.Match(id.Identity, s.Identity)
	return err == nil && ok && (id.Issuer == "" || id.Issuer == s.Issuer)
}

// Verifier holds the trusted material.
type Verifier struct{}

// Find names the signature file a skill carries, "" when none.
func Find(files []manifest.File) string { return "" }

// Verify checks the signature a skill carries; (nil, nil) when it carries
// none.
func Verify(ctx context.Context, dir string, files []manifest.File, v *Verifier) (*Signer, error) {
	return nil, nil
}
