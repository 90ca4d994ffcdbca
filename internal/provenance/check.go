package provenance

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
)

// MaxBundleBytes is the most bytes a signature file may hold.
const MaxBundleBytes = 4 << 20

// inTotoType is the DSSE payload type of an in-toto statement.
const inTotoType = "application/vnd.in-toto+json"

// content is what a bundle signs, once its signature verified: the DSSE
// payload, or the artifact of a message signature (checked already).
type content struct {
	// message is set for a message signature, whose artifact (the
	// manifest text) the signature check covered.
	message     bool
	payloadType string
	payload     []byte // the DSSE payload
}

// verify checks the signature file name of the skill at dir.
func (v *Verifier) verify(ctx context.Context, dir string, files []manifest.File, name string) (*Signer, error) {
	fail := func(path, reason string, err error) error {
		return &Error{Dir: dir, File: name, Path: path, Reason: reason, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entry, ok := fileEntry(files, name)
	if !ok {
		return nil, fail("", "is not a file of the skill", nil)
	}
	if entry.IsLink() {
		return nil, fail("", "is a symbolic link leading out of the skill (to "+entry.Link+"); a signature must be a file of the skill", nil)
	}
	data, err := readIn(dir, name)
	if err != nil {
		return nil, fail("", "cannot be read", err)
	}
	bundleDigest := manifest.Digest(data)
	if entry.Digest != "" && bundleDigest != entry.Digest {
		return nil, fail("", fmt.Sprintf("changed since the skill's files were listed (listed %s, read %s): list the skill again", entry.Digest, bundleDigest), nil)
	}
	pb := new(protobundle.Bundle)
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, pb); err != nil {
		return nil, fail("", "is not a Sigstore bundle (JSON)", err)
	}
	format := formatOf(name)
	signer := &Signer{Bundle: bundleDigest, Format: format, File: name}

	// What the signature must be over: for a message signature (the
	// sigstore format only), the manifest text.
	var artifact []byte
	if pb.GetMessageSignature() != nil {
		if format != FormatSigstore {
			return nil, fail("", "holds a message signature; an OpenSSF model signature is a DSSE envelope", nil)
		}
		if artifact, err = ManifestText(files, name); err != nil {
			return nil, fail("", "cannot be checked", err)
		}
		// Said first, in words: the signature would not verify either.
		if d := pb.GetMessageSignature().GetMessageDigest(); d != nil {
			if d.GetAlgorithm() != protocommon.HashAlgorithm_SHA2_256 {
				return nil, fail("", fmt.Sprintf("signs a %s digest; only SHA2_256 is read", d.GetAlgorithm()), nil)
			}
			if got, want := manifest.FormatDigest(d.GetDigest()), manifest.Digest(artifact); got != want {
				return nil, fail("", fmt.Sprintf("signs manifest digest %s, but the skill's files make manifest digest %s: a file was added, removed or changed", got, want), nil)
			}
		}
	}

	c, err := v.check(pb, artifact, signer)
	if err != nil {
		return nil, fail("", "does not verify", err)
	}
	switch {
	case c.message: // a message signature over artifact: done
	case c.payloadType != inTotoType:
		return nil, fail("", fmt.Sprintf("signs a %q payload, not an in-toto statement (%s)", c.payloadType, inTotoType), nil)
	case format == FormatOMS:
		covered, err := v.checkOMS(c.payload, files, name, fail)
		if err != nil {
			return nil, err
		}
		signer.Covered = covered
		return signer, nil
	default:
		if err := checkSubject(c.payload, files, name, fail); err != nil {
			return nil, err
		}
	}
	// A signature over the manifest covers every file of it.
	for _, f := range files {
		if !f.IsLink() {
			signer.Covered = append(signer.Covered, f.Path)
		}
	}
	return signer, nil
}

// fileEntry is the manifest's entry at path, link or file.
func fileEntry(files []manifest.File, path string) (manifest.File, bool) {
	for _, f := range files {
		if f.Path == path {
			return f, true
		}
	}
	return manifest.File{}, false
}

// readIn reads the top-level file name of dir without leaving dir.
func readIn(dir, name string) ([]byte, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return safefile.ReadIn(r, name, MaxBundleBytes)
}

// check verifies the bundle's signature by the material it carries and
// fills in signer's identity. artifact is what a message signature must
// be over.
func (v *Verifier) check(pb *protobundle.Bundle, artifact []byte, signer *Signer) (content, error) {
	vm := pb.GetVerificationMaterial()
	if vm == nil {
		return content{}, errors.New("the bundle has no verification material")
	}
	switch {
	case vm.GetPublicKey() != nil:
		return v.checkKey(pb, artifact, signer)
	case len(vm.GetTlogEntries()) == 0 && len(vm.GetTimestampVerificationData().GetRfc3161Timestamps()) == 0 &&
		(vm.GetX509CertificateChain() != nil || vm.GetCertificate() != nil):
		// No log entry, no timestamp: not a keyless Sigstore signature,
		// a certificate issued outside Sigstore.
		return v.checkCertChain(pb, artifact, signer)
	case vm.GetCertificate() != nil || vm.GetX509CertificateChain() != nil:
		return v.checkKeyless(pb, artifact, signer)
	}
	return content{}, errors.New("the bundle's verification material is neither a public key nor a certificate")
}

// checkKeyless verifies a Fulcio-certified bundle with sigstore-go against
// the trusted root.
func (v *Verifier) checkKeyless(pb *protobundle.Bundle, artifact []byte, signer *Signer) (content, error) {
	b, err := bundle.NewBundle(pb)
	if err != nil {
		return content{}, fmt.Errorf("invalid Sigstore bundle: %w", err)
	}
	sv, err := v.keylessVerifier()
	if err != nil {
		return content{}, fmt.Errorf("the trusted root (%s) cannot verify keyless signatures: %w", v.rootFrom, err)
	}
	artifactOpt := verify.WithoutArtifactUnsafe() // a DSSE statement: its subject is checked after
	if artifact != nil {
		artifactOpt = verify.WithArtifact(bytes.NewReader(artifact))
	}
	res, err := sv.Verify(b, verify.NewPolicy(artifactOpt, verify.WithoutIdentitiesUnsafe()))
	if err != nil {
		return content{}, fmt.Errorf("keyless signature checked against %s: %w", v.rootFrom, err)
	}
	if res.Signature == nil || res.Signature.Certificate == nil {
		return content{}, errors.New("keyless signature without a certificate")
	}
	signer.Identity = res.Signature.Certificate.SubjectAlternativeName
	signer.Issuer = res.Signature.Certificate.Issuer
	if signer.Identity == "" {
		return content{}, errors.New("the signing certificate names no identity")
	}
	return envelopeContent(pb), nil
}

// envelopeContent is the DSSE payload of pb, or a message signature's
// content.
func envelopeContent(pb *protobundle.Bundle) content {
	env := pb.GetDsseEnvelope()
	if env == nil {
		return content{message: true}
	}
	return content{payloadType: env.GetPayloadType(), payload: env.GetPayload()}
}

// checkKey verifies a public-key bundle with the keys of signing.keys.
func (v *Verifier) checkKey(pb *protobundle.Bundle, artifact []byte, signer *Signer) (content, error) {
	if len(v.keys) == 0 {
		return content{}, errors.New("it is signed with a public key, and signing.keys names none: add the publisher's public key (PEM) to signing.keys")
	}
	var last error
	for _, k := range v.keys {
		c, err := checkRaw(pb, artifact, k.pub)
		if err == nil {
			signer.Identity = k.id
			return c, nil
		}
		last = err
	}
	return content{}, fmt.Errorf("no key of signing.keys verifies it (%d tried; last: %w)", len(v.keys), last)
}

// checkCertChain verifies a bundle signed with a certificate whose chain
// ends at a certificate of signing.keys, as `model_signing verify
// certificate` does: the chain is checked at the leaf's start of
// validity, and the leaf must be meant for signatures.
func (v *Verifier) checkCertChain(pb *protobundle.Bundle, artifact []byte, signer *Signer) (content, error) {
	if v.ncerts == 0 {
		return content{}, errors.New("it is signed with a certificate but carries no transparency log entry or timestamp, so it is no keyless Sigstore signature, " +
			"and signing.keys names no root certificate: add the publisher's root certificate (PEM) to signing.keys")
	}
	raw := pb.GetVerificationMaterial().GetX509CertificateChain().GetCertificates()
	if c := pb.GetVerificationMaterial().GetCertificate(); c != nil {
		raw = []*protocommon.X509Certificate{c}
	}
	if len(raw) == 0 {
		return content{}, errors.New("the certificate chain is empty")
	}
	chain := make([]*x509.Certificate, len(raw))
	for i, c := range raw {
		cert, err := x509.ParseCertificate(c.GetRawBytes())
		if err != nil {
			return content{}, fmt.Errorf("certificate %d of the chain: %w", i+1, err)
		}
		chain[i] = cert
	}
	leaf := chain[0]
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	// Fulcio's OtherName SAN is critical and unknown to crypto/x509.
	var unhandled []asn1.ObjectIdentifier
	for _, oid := range leaf.UnhandledCriticalExtensions {
		if !oid.Equal(cryptoutils.SANOID) {
			unhandled = append(unhandled, oid)
		}
	}
	leaf.UnhandledCriticalExtensions = unhandled
	if _, err := leaf.Verify(x509.VerifyOptions{
		Roots:         v.certs,
		Intermediates: inter,
		CurrentTime:   leaf.NotBefore,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	}); err != nil {
		return content{}, fmt.Errorf("the signing certificate (%s) does not chain to a root certificate of signing.keys: %w", leaf.Subject, err)
	}
	if leaf.KeyUsage&x509.KeyUsageDigitalSignature == 0 && !hasCodeSigning(leaf) {
		return content{}, fmt.Errorf("the signing certificate (%s) is not meant for signatures (no digitalSignature key usage, no codeSigning extended key usage)", leaf.Subject)
	}
	c, err := checkRaw(pb, artifact, leaf.PublicKey)
	if err != nil {
		return content{}, err
	}
	signer.Identity = certIdentity(leaf)
	return c, nil
}

// hasCodeSigning reports whether cert allows code signing.
func hasCodeSigning(cert *x509.Certificate) bool {
	for _, u := range cert.ExtKeyUsage {
		if u == x509.ExtKeyUsageCodeSigning {
			return true
		}
	}
	return false
}

// certIdentity is the identity a certificate names: its first subject
// alternative name (email, URI, DNS name), else its subject.
func certIdentity(cert *x509.Certificate) string {
	if sans := cryptoutils.GetSubjectAlternateNames(cert); len(sans) > 0 {
		return sans[0]
	}
	return cert.Subject.String()
}

// checkRaw verifies the bundle's signature with pub: a DSSE envelope's
// signature over its PAE, or a message signature over artifact (whose
// recorded digest verify compared already).
func checkRaw(pb *protobundle.Bundle, artifact []byte, pub any) (content, error) {
	sv, err := verifierFor(pub)
	if err != nil {
		return content{}, err
	}
	if env := pb.GetDsseEnvelope(); env != nil {
		if len(env.GetSignatures()) == 0 {
			return content{}, errors.New("the DSSE envelope holds no signature")
		}
		pae := dsse.PAE(env.GetPayloadType(), env.GetPayload())
		var last error
		for _, s := range env.GetSignatures() {
			if last = sv.VerifySignature(bytes.NewReader(s.GetSig()), bytes.NewReader(pae)); last == nil {
				return content{payloadType: env.GetPayloadType(), payload: env.GetPayload()}, nil
			}
		}
		return content{}, fmt.Errorf("the DSSE signature does not verify: %w", last)
	}
	ms := pb.GetMessageSignature()
	if ms == nil {
		return content{}, errors.New("the bundle holds neither a DSSE envelope nor a message signature")
	}
	if err := sv.VerifySignature(bytes.NewReader(ms.GetSignature()), bytes.NewReader(artifact)); err != nil {
		return content{}, fmt.Errorf("the signature over the skill's manifest does not verify: %w", err)
	}
	return content{message: true}, nil
}

// isControl reports whether a name holds a control character, which no
// signed name or manifest line may.
func isControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
