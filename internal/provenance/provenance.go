// Package provenance verifies the signature a skill carries: who signed
// the skill's files, checked offline against trusted material ccski holds
// (the Sigstore trusted root, public keys, certificate roots).
//
// Two formats are read, each a Sigstore bundle kept as one file in the
// skill folder:
//
//   - "oms", the OpenSSF Model Signing format v1.0 (sigstore/model-
//     transparency, the `model_signing` tool), named skill.oms.sig,
//     model.sig or <name>.oms.sig: a DSSE envelope carrying an in-toto
//     statement whose predicate (https://model_signing/signature/v1.0)
//     lists every file's SHA-256 ("resources"), and whose one subject
//     digest is the SHA-256 of those digests in order.
//   - "sigstore", a bundle over the skill's manifest digest (ManifestDigest),
//     named skill.sigstore.json: a message signature over the manifest text
//     (cosign sign-blob of that text), or a DSSE in-toto statement whose
//     subject digest is the manifest digest.
//
// Either way the signed files must equal the skill's files (the one model
// of them: package manifest) exactly, less the signature file: a changed
// byte, a missing file or, in strict mode, an extra unsigned file or link
// fails with an error naming the file.
//
// A bundle is verified one of three ways, by the verification material it
// carries: keyless (a Fulcio certificate, with a transparency log entry
// and timestamps checked against the trusted root, by sigstore-go), a
// public key (configured in signing.keys), or a certificate chain (an
// X.509 chain ending at a root certificate configured in signing.keys, as
// `model_signing verify certificate` checks it).
//
// Verify says who signed (a Signer); whether that signer is the one
// expected is the caller's to decide (Identity.Match).
package provenance

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ccski/ccski/internal/manifest"
)

// The formats of a Signer.
const (
	// FormatOMS is the OpenSSF Model Signing format: a DSSE in-toto
	// statement over every file.
	FormatOMS = "oms"
	// FormatSigstore is a Sigstore bundle over the manifest digest.
	FormatSigstore = "sigstore"
)

// Signer is who a verified signature says signed a skill.
type Signer struct {
	// Identity is the certificate's subject alternative name (an email,
	// a URI) for a keyless or certificate signature, else its subject;
	// for a public-key signature "key:sha256:<hex of the DER public
	// key>".
	Identity string `json:"identity"`
	// Issuer is the OIDC issuer of a keyless (Fulcio) certificate; ""
	// for a key or a certificate chain.
	Issuer string `json:"issuer,omitempty"`
	// Bundle is "sha256:<hex>", the digest of the signature file's bytes.
	Bundle string `json:"bundle"`
	// Format is FormatOMS or FormatSigstore.
	Format string `json:"format"`
	// File is the signature file's path inside the skill, e.g.
	// "skill.oms.sig".
	File string `json:"file"`
	// Covered are the paths of the skill's files the signature covers,
	// sorted, the signature file among them: what may be served as
	// signed. A file an OMS signature's ignore_paths leaves out
	// (.github/, .gitignore), or an extra file signing.strict: false
	// lets through, is not among them.
	Covered []string `json:"-"`
}

// String is the human form: "alice@example.com via
// https://accounts.example.com", or the identity alone when there is no
// issuer.
func (s Signer) String() string {
	if s.Issuer == "" {
		return s.Identity
	}
	return s.Identity + " via " + s.Issuer
}

// SignatureNames are the names a signature file may have at the top of a
// skill folder, in the order Find prefers them; besides them, any
// top-level "*.oms.sig".
var SignatureNames = []string{"skill.oms.sig", "model.sig", "skill.sigstore.json"}

// omsSuffix ends an OMS signature file's name.
const omsSuffix = ".oms.sig"

// Find names the signature file a skill carries (files: the skill's
// manifest), "" when none: the first of SignatureNames it holds, else the
// first top-level "*.oms.sig" in path order. A recorded link of one of
// those names counts (Verify refuses it).
func Find(files []manifest.File) string {
	for _, name := range SignatureNames {
		for _, f := range files {
			if f.Path == name {
				return name
			}
		}
	}
	for _, f := range files {
		if !strings.Contains(f.Path, "/") && strings.HasSuffix(f.Path, omsSuffix) && len(f.Path) > len(omsSuffix) {
			return f.Path
		}
	}
	return ""
}

// formatOf is the format a signature file's name says.
func formatOf(name string) string {
	if name == "skill.sigstore.json" {
		return FormatSigstore
	}
	return FormatOMS
}

// ErrInvalid matches every *Error: a signature that does not verify.
var ErrInvalid = errors.New("the skill's signature does not verify")

// Error is a signature that does not verify, and why.
type Error struct {
	// Dir is the skill folder.
	Dir string
	// File is the signature file's path inside the skill.
	File string
	// Path is the skill's file the failure is about ('/'-separated),
	// "" when it is about the signature itself.
	Path string
	// Reason says what failed.
	Reason string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "signature %s of skill %s", e.File, e.Dir)
	if e.Path != "" {
		fmt.Fprintf(&b, ": file %s", e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

func (e *Error) Unwrap() error { return e.Err }

// Verify checks the signature a skill carries against the skill's files
// exactly (strict: an extra unsigned file, a missing file or a changed
// byte fails). dir is the skill folder, files its manifest (whose digests
// are what is compared: the caller built it from the bytes it keeps). It
// returns (nil, nil) when the skill carries no signature file, and an
// *Error naming the file and what failed when the signature does not
// verify. A nil v is DefaultVerifier.
func Verify(ctx context.Context, dir string, files []manifest.File, v *Verifier) (*Signer, error) {
	name := Find(files)
	if name == "" {
		return nil, nil
	}
	if v == nil {
		var err error
		if v, err = DefaultVerifier(); err != nil {
			return nil, err
		}
	}
	return v.verify(ctx, dir, files, name)
}
