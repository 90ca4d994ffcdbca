// Package provenancetest signs skill folders in tests, with ephemeral keys
// and a test Sigstore (sigstore-go's VirtualSigstore: a Fulcio CA, a
// Rekor log and a timestamp authority made in memory), never a live
// transparency log. It writes the signature file into the skill folder
// and returns what a ccski process must be given to trust it: a trusted
// root file for signing.trusted_root, or a PEM file for signing.keys.
package provenancetest

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
)

// Options say how Sign signs a skill.
type Options struct {
	// Identity is the certificate's identity (an email or a URI);
	// "signer@example.com" when empty. SignKey ignores it.
	Identity string
	// Issuer is the OIDC issuer in the certificate;
	// "https://issuer.example.com" when empty. SignKey and SignCert
	// ignore it.
	Issuer string
	// Format is provenance.FormatOMS (the default) or
	// provenance.FormatSigstore.
	Format string
	// File is the signature file's name; skill.oms.sig for OMS and
	// skill.sigstore.json for the sigstore format when empty.
	File string
	// Name is the OMS subject name; the folder's base name when empty.
	Name string
	// Files, when set, are what is signed instead of the folder's files
	// (to sign something else than the folder holds).
	Files []manifest.File
}

func (o *Options) fill(dir string) {
	if o.Identity == "" {
		o.Identity = "signer@example.com"
	}
	if o.Issuer == "" {
		o.Issuer = "https://issuer.example.com"
	}
	if o.Format == "" {
		o.Format = provenance.FormatOMS
	}
	if o.File == "" {
		o.File = "skill.oms.sig"
		if o.Format == provenance.FormatSigstore {
			o.File = "skill.sigstore.json"
		}
	}
	if o.Name == "" {
		o.Name = filepath.Base(dir)
	}
}

// Sigstore is a test Sigstore: its own CA, log and timestamp authority,
// and the trusted root file that trusts them.
type Sigstore struct {
	vs       *ca.VirtualSigstore
	rootJSON []byte
}

// New makes a test Sigstore of its own (for a "wrong root" case: a
// signature by it does not verify with the root of another).
func New(t testing.TB) *Sigstore {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	s := &Sigstore{vs: vs}
	s.rootJSON = trustedRootJSON(t, vs)
	return s
}

var (
	sharedOnce sync.Once
	shared     *Sigstore
)

// Shared is the test Sigstore of the process, which Sign uses.
func Shared(t testing.TB) *Sigstore {
	t.Helper()
	sharedOnce.Do(func() { shared = New(t) })
	if shared == nil {
		t.Fatal("the shared test Sigstore could not be made")
	}
	return shared
}

// Sign signs the skill folder dir keylessly with the process's test
// Sigstore (Shared), writes the signature file into dir, and returns the
// path of a trusted root file that trusts it (for signing.trusted_root).
func Sign(t testing.TB, dir string, o Options) string {
	t.Helper()
	s := Shared(t)
	s.Sign(t, dir, o)
	return s.RootFile(t)
}

// RootFile writes the trusted root of s to a file of a temporary folder
// and returns its path.
func (s *Sigstore) RootFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "trusted_root.json")
	if err := os.WriteFile(p, s.rootJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// RootJSON is the trusted root of s.
func (s *Sigstore) RootJSON() []byte { return s.rootJSON }

// Sign signs dir keylessly with s and writes the signature file into dir;
// it returns the signature file's path.
func (s *Sigstore) Sign(t testing.TB, dir string, o Options) string {
	t.Helper()
	o.fill(dir)
	files := o.files(t, dir)
	at := time.Now().Add(time.Minute)
	var pb *protobundle.Bundle
	if o.Format == provenance.FormatSigstore {
		text, err := provenance.ManifestText(files, o.File)
		if err != nil {
			t.Fatal(err)
		}
		ent, err := s.vs.SignAtTime(o.Identity, o.Issuer, text, at)
		if err != nil {
			t.Fatal(err)
		}
		pb = s.bundleOf(t, ent)
	} else {
		stmt, err := provenance.OMSStatement(o.Name, files, o.File)
		if err != nil {
			t.Fatal(err)
		}
		ent, err := s.vs.AttestAtTime(o.Identity, o.Issuer, stmt, at, true)
		if err != nil {
			t.Fatal(err)
		}
		pb = s.bundleOf(t, ent)
	}
	return writeBundle(t, dir, o.File, pb)
}

// files are the files Sign signs: o.Files, or the folder's manifest.
func (o *Options) files(t testing.TB, dir string) []manifest.File {
	t.Helper()
	if o.Files != nil {
		return o.Files
	}
	m, err := manifest.NewCache().Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m.Files
}

// bundleOf writes a test entity as a v0.3 bundle: the leaf certificate
// and the log entry with its inclusion promise and proof.
func (s *Sigstore) bundleOf(t testing.TB, ent *ca.TestEntity) *protobundle.Bundle {
	t.Helper()
	vc, err := ent.VerificationContent()
	if err != nil {
		t.Fatal(err)
	}
	// The entity's RFC 3161 timestamp is left out: the test timestamp
	// authority's leaf certificate is valid for five minutes after the
	// VirtualSigstore is made, and the Shared one outlives that in a long
	// run. The log entry's integrated time, under its inclusion promise,
	// is the signature's time instead.
	entries, _ := ent.TlogEntries()
	vm := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw}},
	}
	sc, err := ent.SignatureContent()
	if err != nil {
		t.Fatal(err)
	}
	pb := &protobundle.Bundle{MediaType: mediaType(t), VerificationMaterial: vm}
	kind := "hashedrekord"
	if env, ok := sc.(*bundle.Envelope); ok {
		kind = "dsse"
		pb.Content = &protobundle.Bundle_DsseEnvelope{DsseEnvelope: protoEnvelope(t, env.RawEnvelope())}
	} else {
		ms := sc.MessageSignatureContent()
		pb.Content = &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: ms.Digest()},
			Signature:     ms.Signature(),
		}}
	}
	for _, e := range entries {
		vm.TlogEntries = append(vm.TlogEntries, s.tlogEntry(t, e, kind))
	}
	return pb
}

// tlogEntry is the bundle form of a log entry, with its inclusion promise
// (signed here by the log's key) and an inclusion proof.
func (s *Sigstore) tlogEntry(t testing.TB, e *tlog.Entry, kind string) *protorekor.TransparencyLogEntry {
	t.Helper()
	tle := proto.Clone(e.TransparencyLogEntry()).(*protorekor.TransparencyLogEntry)
	tle.KindVersion = &protorekor.KindVersion{Kind: kind, Version: "0.0.1"}
	set, err := s.vs.RekorSignPayload(tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          hex.EncodeToString(tle.LogId.KeyId),
	})
	if err != nil {
		t.Fatal(err)
	}
	tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
	if tle.InclusionProof == nil {
		p, err := s.vs.GetInclusionProof(tle.CanonicalizedBody)
		if err != nil {
			t.Fatal(err)
		}
		root, _ := hex.DecodeString(*p.RootHash)
		var hashes [][]byte
		for _, h := range p.Hashes {
			b, _ := hex.DecodeString(h)
			hashes = append(hashes, b)
		}
		tle.InclusionProof = &protorekor.InclusionProof{
			LogIndex: *p.LogIndex, RootHash: root, TreeSize: *p.TreeSize, Hashes: hashes,
			Checkpoint: &protorekor.Checkpoint{Envelope: *p.Checkpoint},
		}
	}
	return tle
}

// protoEnvelope converts a DSSE envelope to its protobuf form.
func protoEnvelope(t testing.TB, env *dsse.Envelope) *protodsse.Envelope {
	t.Helper()
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	out := &protodsse.Envelope{Payload: payload, PayloadType: env.PayloadType}
	for _, sig := range env.Signatures {
		raw, err := base64.StdEncoding.DecodeString(sig.Sig)
		if err != nil {
			t.Fatal(err)
		}
		out.Signatures = append(out.Signatures, &protodsse.Signature{Sig: raw, Keyid: sig.KeyID})
	}
	return out
}

func mediaType(t testing.TB) string {
	t.Helper()
	mt, err := bundle.MediaTypeString("0.3")
	if err != nil {
		t.Fatal(err)
	}
	return mt
}

// writeBundle writes pb as JSON to dir/name and returns the path.
func writeBundle(t testing.TB, dir, name string, pb *protobundle.Bundle) string {
	t.Helper()
	data, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// trustedRootJSON is a trusted root trusting vs: its Fulcio CA, its
// timestamp authority and its Rekor log (the CA and the log open-ended,
// the log keyed by its raw key ID as a real root is), and no CT log (the
// test CA embeds no signed certificate timestamps). The test intermediate
// certificate is valid for two hours after vs is made.
func trustedRootJSON(t testing.TB, vs *ca.VirtualSigstore) []byte {
	t.Helper()
	logs := map[string]*root.TransparencyLog{}
	for id, l := range vs.RekorLogs() {
		raw, err := hex.DecodeString(id)
		if err != nil {
			t.Fatal(err)
		}
		c := *l
		c.ID = raw
		c.ValidityPeriodStart = time.Now().Add(-24 * time.Hour)
		c.ValidityPeriodEnd = time.Time{}
		logs[id] = &c
	}
	var cas []root.CertificateAuthority
	for _, ca := range vs.FulcioCertificateAuthorities() {
		if f, ok := ca.(*root.FulcioCertificateAuthority); ok {
			c := *f
			c.ValidityPeriodEnd = time.Time{} // open-ended, as the log: a long test run outlives the hour it is given
			ca = &c
		}
		cas = append(cas, ca)
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, cas, nil, vs.TimestampingAuthorities(), logs)
	if err != nil {
		t.Fatal(err)
	}
	data, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// SignKey signs the skill folder dir with a new ECDSA P-256 key as
// `model_signing sign key` does (a bundle with a public key hint and no
// log entry), writes the signature file into dir, and returns the path
// of a PEM file holding the public key (for signing.keys).
func SignKey(t testing.TB, dir string, o Options) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	hint := provenance.KeyID(der)
	vm := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{Hint: hint}},
	}
	signRaw(t, dir, o, key, vm)
	p := filepath.Join(t.TempDir(), "key.pub")
	if err := os.WriteFile(p, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// SignCert signs the skill folder dir with a certificate as
// `model_signing sign certificate` does: a new root certificate, an
// intermediate and a leaf naming o.Identity, the chain (leaf and
// intermediate) in the bundle, no log entry. It writes the signature
// file into dir and returns the path of a PEM file holding the root
// certificate (for signing.keys).
func SignCert(t testing.TB, dir string, o Options) string {
	t.Helper()
	o.fill(dir)
	rootCert, rootKey, err := ca.GenerateRootCa()
	if err != nil {
		t.Fatal(err)
	}
	interCert, interKey, err := ca.GenerateFulcioIntermediate(rootCert, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.GenerateLeafCert(o.Identity, o.Issuer, time.Now().Add(-time.Minute), leafKey, interCert, interKey)
	if err != nil {
		t.Fatal(err)
	}
	vm := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_X509CertificateChain{X509CertificateChain: &protocommon.X509CertificateChain{
			Certificates: []*protocommon.X509Certificate{{RawBytes: leaf.Raw}, {RawBytes: interCert.Raw}},
		}},
	}
	signRaw(t, dir, o, leafKey, vm)
	p := filepath.Join(t.TempDir(), "root.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rootCert.Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// signRaw signs dir with key into a bundle of verification material vm,
// without a log: an OMS DSSE envelope, or a message signature over the
// manifest text.
func signRaw(t testing.TB, dir string, o Options, key *ecdsa.PrivateKey, vm *protobundle.VerificationMaterial) {
	t.Helper()
	o.fill(dir)
	files := o.files(t, dir)
	signer, err := signature.LoadECDSASigner(key, crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	pb := &protobundle.Bundle{MediaType: mediaType(t), VerificationMaterial: vm}
	if o.Format == provenance.FormatSigstore {
		text, err := provenance.ManifestText(files, o.File)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := signer.SignMessage(bytesReader(text))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256Sum(text)
		pb.Content = &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: sum},
			Signature:     sig,
		}}
	} else {
		stmt, err := provenance.OMSStatement(o.Name, files, o.File)
		if err != nil {
			t.Fatal(err)
		}
		const payloadType = "application/vnd.in-toto+json"
		sig, err := signer.SignMessage(bytesReader(dsse.PAE(payloadType, stmt)))
		if err != nil {
			t.Fatal(err)
		}
		pb.Content = &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload: stmt, PayloadType: payloadType, Signatures: []*protodsse.Signature{{Sig: sig}},
		}}
	}
	writeBundle(t, dir, o.File, pb)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func sha256Sum(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}
