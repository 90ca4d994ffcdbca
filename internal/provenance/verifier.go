package provenance

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	_ "embed"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/userdirs"
)

// embeddedRoot is the Sigstore public-good trusted root ccski ships:
// targets/trusted_root.json of github.com/sigstore/root-signing (the TUF
// repository behind tuf-repo-cdn.sigstore.dev) at commit
// 60cf2ce8b2e45d600dc17c4421e8c751e75772be (the file last changed in
// c9bda74ad2221f938f7d2e0295ca3aad2da710a8, 2025-09-22). `ccski
// trust-root update` writes a newer one to UpdatedRootPath.
//
//go:embed trusted_root.json
var embeddedRoot []byte

// EmbeddedRoot returns the trusted root ccski ships, as JSON.
func EmbeddedRoot() []byte { return embeddedRoot }

// MaxRootBytes is the most bytes a trusted root file may hold.
const MaxRootBytes = 1 << 20

// maxKeyBytes is the most bytes a PEM file of signing.keys may hold.
const maxKeyBytes = 1 << 20

// RootFile is the name of the trusted root `ccski trust-root update`
// writes, in ccski's user state folder.
const RootFile = "trusted_root.json"

// UpdatedRootPath is where `ccski trust-root update` writes the trusted
// root: RootFile in ccski's user state folder stateDir, or the process's
// (see package userdirs) when stateDir is "".
func UpdatedRootPath(stateDir string) (string, error) {
	if stateDir != "" {
		return filepath.Join(stateDir, RootFile), nil
	}
	return userdirs.State(RootFile)
}

// Config is what a Verifier is built from: the signing.* keys of the
// user or managed config.
type Config struct {
	// TrustedRoot is the path of a Sigstore trusted root (JSON). ""
	// means the one `ccski trust-root update` wrote (UpdatedRootPath),
	// else the one ccski ships.
	TrustedRoot string
	// StateDir is ccski's user state folder, where `ccski trust-root
	// update` writes; "" is the process's (userdirs.State).
	StateDir string
	// Keys are paths of PEM files, each holding public keys (a public-key
	// signature by one verifies) or certificates (a certificate-chain
	// signature ending at one verifies).
	Keys []string
	// Lax lets an OMS signature verify when the skill holds files or
	// links it does not list (signing.strict: false), as
	// `model_signing verify --ignore_unsigned_files` does. A changed or
	// a missing file fails whatever Lax says.
	Lax bool
}

// Verifier holds the trusted material a signature is checked against.
// It is built once per command or server (NewVerifier) and safe for
// concurrent use.
type Verifier struct {
	root     *root.TrustedRoot
	rootFrom string
	keys     []trustedKey
	certs    *x509.CertPool
	ncerts   int
	lax      bool

	once     sync.Once
	keyless  *verify.Verifier
	errBuild error
}

// trustedKey is one public key of signing.keys.
type trustedKey struct {
	pub  crypto.PublicKey
	id   string // "key:sha256:<hex of the DER>"
	file string
}

// NewVerifier builds a Verifier from c: it reads the trusted root and
// every key file, and fails naming the file that cannot be used.
func NewVerifier(c Config) (*Verifier, error) {
	v := &Verifier{lax: c.Lax, certs: x509.NewCertPool()}
	data, from := embeddedRoot, "the trusted root ccski ships"
	switch {
	case c.TrustedRoot != "":
		b, err := safefile.Read(c.TrustedRoot, MaxRootBytes)
		if err != nil {
			return nil, fmt.Errorf("signing.trusted_root: %w", err)
		}
		data, from = b, c.TrustedRoot
	default:
		if p, err := UpdatedRootPath(c.StateDir); err == nil {
			b, err := safefile.Read(p, MaxRootBytes)
			switch {
			case err == nil:
				data, from = b, p
			case !errors.Is(err, os.ErrNotExist):
				return nil, fmt.Errorf("trusted root written by `ccski trust-root update`: %w", err)
			}
		}
	}
	tr, err := ParseRoot(data)
	if err != nil {
		return nil, fmt.Errorf("trusted root %s: %w", from, err)
	}
	v.root, v.rootFrom = tr, from
	for _, f := range c.Keys {
		if err := v.addKeys(f); err != nil {
			return nil, fmt.Errorf("signing.keys: %w", err)
		}
	}
	return v, nil
}

var (
	defaultOnce     sync.Once
	defaultVerifier *Verifier
	defaultErr      error
)

// DefaultVerifier is the Verifier of the zero Config (strict, the updated
// or shipped trusted root, no keys), built once per process.
func DefaultVerifier() (*Verifier, error) {
	defaultOnce.Do(func() { defaultVerifier, defaultErr = NewVerifier(Config{}) })
	return defaultVerifier, defaultErr
}

// RootSource says where the Verifier's trusted root came from: a path, or
// "the trusted root ccski ships".
func (v *Verifier) RootSource() string { return v.rootFrom }

// Strict reports whether an extra unsigned file fails an OMS signature.
func (v *Verifier) Strict() bool { return !v.lax }

// ParseRoot reads a Sigstore trusted root (JSON) and checks that it can
// verify a keyless signature: it names at least one certificate
// authority and one transparency log.
func ParseRoot(data []byte) (*root.TrustedRoot, error) {
	tr, err := root.NewTrustedRootFromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("not a Sigstore trusted root (application/vnd.dev.sigstore.trustedroot+json): %w", err)
	}
	if len(tr.FulcioCertificateAuthorities()) == 0 {
		return nil, errors.New("it names no certificate authority: no keyless signature could verify with it")
	}
	if len(tr.RekorLogs()) == 0 {
		return nil, errors.New("it names no transparency log: no keyless signature could verify with it")
	}
	return tr, nil
}

// addKeys reads one PEM file of signing.keys: public keys and
// certificates, in any order.
func (v *Verifier) addKeys(file string) error {
	data, err := safefile.Read(file, maxKeyBytes)
	if err != nil {
		return err
	}
	n := 0
	for rest := data; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		switch b.Type {
		case "PUBLIC KEY":
			pub, err := x509.ParsePKIXPublicKey(b.Bytes)
			if err != nil {
				return fmt.Errorf("%s: public key %d: %w", file, n+1, err)
			}
			if _, err := hashFor(pub); err != nil {
				return fmt.Errorf("%s: public key %d: %w", file, n+1, err)
			}
			v.keys = append(v.keys, trustedKey{pub: pub, id: KeyID(b.Bytes), file: file})
		case "CERTIFICATE":
			cert, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return fmt.Errorf("%s: certificate %d: %w", file, n+1, err)
			}
			v.certs.AddCert(cert)
			v.ncerts++
		default:
			return fmt.Errorf("%s: PEM block %q is neither a PUBLIC KEY nor a CERTIFICATE", file, b.Type)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s holds no PEM public key or certificate", filepath.Clean(file))
	}
	return nil
}

// KeyID is a public key's identity as a Signer names it:
// "key:sha256:<hex of the SHA-256 of the DER (PKIX) public key>".
func KeyID(der []byte) string {
	sum := sha256.Sum256(der)
	return "key:sha256:" + hex.EncodeToString(sum[:])
}

// hashFor is the hash a signature by pub is made with, as OMS signs:
// SHA-256, -384 or -512 by the curve of an ECDSA key; SHA-256 for RSA;
// none for Ed25519.
func hashFor(pub crypto.PublicKey) (crypto.Hash, error) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return crypto.SHA256, nil
		case elliptic.P384():
			return crypto.SHA384, nil
		case elliptic.P521():
			return crypto.SHA512, nil
		}
		return 0, fmt.Errorf("ECDSA curve %s is not supported", k.Curve.Params().Name)
	case *rsa.PublicKey:
		return crypto.SHA256, nil
	case ed25519.PublicKey:
		return crypto.Hash(0), nil
	}
	return 0, fmt.Errorf("key type %T is not supported (ECDSA, RSA or Ed25519)", pub)
}

// verifierFor loads a signature verifier of pub.
func verifierFor(pub crypto.PublicKey) (signature.Verifier, error) {
	h, err := hashFor(pub)
	if err != nil {
		return nil, err
	}
	if k, ok := pub.(ed25519.PublicKey); ok {
		return signature.LoadED25519Verifier(k)
	}
	return signature.LoadVerifier(pub, h)
}

// keylessVerifier is sigstore-go's verifier over the trusted root, built
// on first use: a transparency log entry and an observer timestamp (the
// log's integrated time or an RFC 3161 timestamp) are required, and
// signed certificate timestamps when the root names CT logs.
func (v *Verifier) keylessVerifier() (*verify.Verifier, error) {
	v.once.Do(func() {
		opts := []verify.VerifierOption{verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1)}
		if len(v.root.CTLogs()) > 0 {
			opts = append(opts, verify.WithSignedCertificateTimestamps(1))
		}
		v.keyless, v.errBuild = verify.NewVerifier(v.root, opts...)
	})
	return v.keyless, v.errBuild
}
