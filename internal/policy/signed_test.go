package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
)

// TestDecideOnRealSignatures signs skill folders with a test Sigstore,
// verifies them as ccski does (provenance.Verify), and checks what
// policy.required_signers and policy.allow_unsigned decide on the signer:
// the identity asked for is allowed, another identity, a skill changed
// after signing and an unsigned skill are refused, each naming the rule.
func TestDecideOnRealSignatures(t *testing.T) {
	t.Parallel()
	skill := func(t *testing.T, sign *provenancetest.Options) (string, string) {
		dir := filepath.Join(t.TempDir(), "s")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: s\ndescription: d\n---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		root := ""
		if sign != nil {
			root = provenancetest.Sign(t, dir, *sign)
		}
		return dir, root
	}
	verify := func(t *testing.T, dir, root string) *Signature {
		m, err := manifest.NewCache().Build(dir)
		if err != nil {
			t.Fatal(err)
		}
		if root == "" {
			root = provenancetest.Shared(t).RootFile(t)
		}
		v, err := provenance.NewVerifier(provenance.Config{TrustedRoot: root})
		if err != nil {
			t.Fatal(err)
		}
		s, err := provenance.Verify(context.Background(), dir, m.Files, v)
		return &Signature{Signer: s, Err: err}
	}
	p, err := New(Settings{AllowUnsigned: false, From: from(),
		RequiredSigners: []string{"github.com/acme=*@acme.com@https://accounts.acme.com"}})
	if err != nil {
		t.Fatal(err)
	}
	acmeOpts := &provenancetest.Options{Identity: "alice@acme.com", Issuer: "https://accounts.acme.com"}

	dir, root := skill(t, acmeOpts)
	if d := p.Decide(Subject{Name: "s", Source: acme, Signature: verify(t, dir, root)}); !d.Allow || d.Rule != RuleRequiredSigners {
		t.Errorf("signed by alice: %+v", d)
	}
	dir, root = skill(t, &provenancetest.Options{Identity: "mallet@evil.com", Issuer: "https://accounts.acme.com"})
	if d := p.Decide(Subject{Name: "s", Source: acme, Signature: verify(t, dir, root)}); d.Allow || d.Rule != RuleRequiredSigners {
		t.Errorf("signed by mallet: %+v", d)
	}
	dir, root = skill(t, acmeOpts)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: s\ndescription: d\n---\nBODY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(Subject{Name: "s", Source: acme, Signature: verify(t, dir, root)}); d.Allow || d.Rule != RuleAllowUnsigned {
		t.Errorf("changed after signing: %+v", d)
	}
	dir, _ = skill(t, nil)
	if d := p.Decide(Subject{Name: "s", Source: evil, Signature: verify(t, dir, "")}); d.Allow || d.Rule != RuleAllowUnsigned {
		t.Errorf("unsigned: %+v", d)
	}
	// A workflow of the attacker's own repository, on a branch named so
	// that its certificate's identity ends in "@acme.com", from the issuer
	// the rule names: not an acme.com address.
	dir, root = skill(t, &provenancetest.Options{Issuer: "https://accounts.acme.com",
		Identity: "https://github.com/evil/r/.github/workflows/w.yml@refs/heads/x@acme.com"})
	sig := verify(t, dir, root)
	if sig.Err != nil || sig.Signer == nil {
		t.Fatalf("the workflow's signature does not verify: %+v", sig)
	}
	if d := p.Decide(Subject{Name: "s", Source: acme, Signature: sig}); d.Allow || d.Rule != RuleRequiredSigners {
		t.Errorf("signed by a workflow whose ref ends in @acme.com: %+v", d)
	}
}

// TestRequiredSignersRefusesGlobWithoutIssuer: a pattern identity in
// policy.required_signers must name its issuer.
func TestRequiredSignersRefusesGlobWithoutIssuer(t *testing.T) {
	t.Parallel()
	for _, e := range []string{"github.com/acme=*@acme.com", "github.com/acme=https://github.com/acme/*",
		"github.com/acme=a@https://x/p@y"} {
		if _, err := New(Settings{RequiredSigners: []string{e}, From: from()}); err == nil ||
			!strings.Contains(err.Error(), RuleRequiredSigners) {
			t.Errorf("New(%q) = %v, want an error naming %s", e, err, RuleRequiredSigners)
		}
	}
}
