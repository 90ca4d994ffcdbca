package pipeline

import "fmt"

// SignatureState says what the signature a skill carries says of its
// files (package provenance verifies it; see Snapshot.Signatures).
type SignatureState string

// The signature states.
const (
	// SignatureUnsigned: the skill carries no signature file (a command
	// never does).
	SignatureUnsigned SignatureState = "unsigned"
	// SignatureSigned: the skill's signature verifies against its files
	// exactly, and Signer says who signed it.
	SignatureSigned SignatureState = "signed"
	// SignatureInvalid: the skill carries a signature file that does not
	// verify (a file changed, added or missing since it was signed, a
	// signer ccski does not trust, a broken bundle), or its files could
	// not be read; Error says why.
	SignatureInvalid SignatureState = "invalid"
)

// Signer is who a verified signature says signed a skill, as
// provenance.Signer gives it (pipeline does not import provenance, which
// brings the Sigstore libraries with it).
type Signer struct {
	// Identity is the certificate's subject (an email, a URI) for
	// keyless signing, or "key:sha256:<hex>" for a public key.
	Identity string `json:"identity"`
	// Issuer is the OIDC issuer of a keyless certificate.
	Issuer string `json:"issuer,omitempty"`
	// Format is "oms" (OpenSSF model signing) or "sigstore" (a bundle over
	// the skill's manifest digest).
	Format string `json:"format"`
	// Bundle is the "sha256:<hex>" digest of the signature file's bytes.
	Bundle string `json:"bundle"`
	// File is the signature file's path in the skill folder.
	File string `json:"file"`
}

// String is the signer in words: "alice@example.com via
// https://accounts.example.com", or the identity alone.
func (s Signer) String() string {
	if s.Issuer == "" {
		return s.Identity
	}
	return s.Identity + " via " + s.Issuer
}

// Signature is what the signature a skill carries says of it (see
// Snapshot.Signatures).
type Signature struct {
	State SignatureState `json:"state"`
	// Signer is who signed the skill, for SignatureSigned.
	Signer *Signer `json:"signer,omitempty"`
	// File is the signature file's path in the skill folder, for
	// SignatureSigned and SignatureInvalid (when one was found).
	File string `json:"file,omitempty"`
	// Error says why the signature does not verify, for SignatureInvalid.
	Error string `json:"error,omitempty"`
	// Files are the skill's files as they were verified, for
	// SignatureSigned: what may be said to be signed, and under
	// mcp.require_signed all that is served (Judgement).
	Files JudgedFiles `json:"-"`
}

// Signed reports whether the skill's signature verified.
func (s Signature) Signed() bool { return s.State == SignatureSigned && s.Signer != nil }

// Describe is the signature in words, as ccski list, info and doctor show
// it: "signed by alice@example.com via https://accounts.example.com",
// "unsigned", or "signature invalid: why".
func (s Signature) Describe() string {
	switch {
	case s.Signed():
		return "signed by " + s.Signer.String()
	case s.State == SignatureInvalid:
		return "signature invalid: " + s.Error
	}
	return string(SignatureUnsigned)
}

// Covers reports whether the files of the record, as they were verified
// (Files), are exactly files: the same paths, sizes and digests, none
// more, none fewer. Only then may what is served of the skill be said to
// be what was signed.
func (s Signature) Covers(files []JudgedFile) bool {
	if !s.Signed() || len(files) != len(s.Files) {
		return false
	}
	for _, f := range files {
		v, ok := s.Files.File(f.Path)
		if !ok || v != f {
			return false
		}
	}
	return true
}

// SignatureOf returns what the snapshot says of r's signature: unsigned
// when the engine did not check it, or r is a command.
func (s *Snapshot) SignatureOf(r *Record) Signature {
	if sig, ok := s.Signatures[r]; ok {
		return sig
	}
	return Signature{State: SignatureUnsigned}
}

// UnsignedReason is why a record without a verified signature is not
// served under mcp.require_signed (the reason of its drop), with what to
// do about it.
func UnsignedReason(r *Record, sig Signature) string {
	what, fix := "it carries no signature", "install a signed release of it"
	switch {
	case r.IsCommand():
		what, fix = "it is a command, which carries no signature", "make it a skill and sign it"
	case sig.State == SignatureInvalid:
		what, fix = "its signature does not verify ("+sig.Error+")", "restore the files its publisher signed (ccski update, or install it again)"
	}
	return fmt.Sprintf("not signed: %s, and mcp.require_signed is on, so it is not served to agents: %s, "+
		"or turn mcp.require_signed off in your user config", what, fix)
}
