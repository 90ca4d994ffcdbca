package provenance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/manifest"
)

// The in-toto and OpenSSF Model Signing (v1.0) names an OMS statement
// carries.
const (
	StatementType    = "https://in-toto.io/Statement/v1"
	OMSPredicateType = "https://model_signing/signature/v1.0"
)

// omsGitIgnored are the paths `model_signing sign` leaves out by default
// besides the signature (and .git, which no manifest lists): a signature
// that lists them in ignore_paths verifies without them, strict or not.
// Any other ignore_paths entry is not honoured: a file a skill serves is
// signed or, in strict mode, fails.
var omsGitIgnored = []string{".gitattributes", ".github", ".gitignore"}

// statement is an in-toto statement as OMS writes it.
type statement struct {
	Type          string       `json:"_type"`
	Subject       []subject    `json:"subject"`
	PredicateType string       `json:"predicateType"`
	Predicate     omsPredicate `json:"predicate"`
}

type subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

type omsPredicate struct {
	Serialization serialization `json:"serialization"`
	Resources     []resource    `json:"resources"`
}

type serialization struct {
	Method        string   `json:"method"`
	HashType      string   `json:"hash_type"`
	AllowSymlinks bool     `json:"allow_symlinks"`
	IgnorePaths   []string `json:"ignore_paths,omitempty"`
}

type resource struct {
	Algorithm string `json:"algorithm"`
	Digest    string `json:"digest"`
	Name      string `json:"name"`
}

// OMSStatement is the in-toto statement an OMS signature of a skill
// signs (OpenSSF Model Signing v1.0, "files" serialization, SHA-256):
// every file of files but the signature file sig, in path order, and the
// subject name (the skill's folder name, as `model_signing` uses the
// model's). A skill holding a link leading out of it cannot be signed.
func OMSStatement(name string, files []manifest.File, sig string) ([]byte, error) {
	st := statement{
		Type:          StatementType,
		PredicateType: OMSPredicateType,
		Predicate: omsPredicate{Serialization: serialization{
			Method: "files", HashType: "sha256", AllowSymlinks: true, IgnorePaths: []string{sig},
		}},
	}
	h := sha256.New()
	for _, f := range files {
		if f.Path == sig {
			continue
		}
		if f.IsLink() {
			return nil, fmt.Errorf("%s is a link leading out of the skill: a signature cannot cover it", f.Path)
		}
		hexd, ok := strings.CutPrefix(f.Digest, "sha256:")
		raw, err := hex.DecodeString(hexd)
		if !ok || err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("%s has digest %q, not sha256:<64 hex digits>", f.Path, f.Digest)
		}
		h.Write(raw)
		st.Predicate.Resources = append(st.Predicate.Resources, resource{Algorithm: "sha256", Digest: hexd, Name: f.Path})
	}
	st.Subject = []subject{{Name: name, Digest: map[string]string{"sha256": hex.EncodeToString(h.Sum(nil))}}}
	return json.Marshal(st)
}

// checkOMS compares the OMS statement payload with the skill's files, and
// returns the paths of those the signature covers (Signer.Covered): the
// files it lists, and the signature file itself.
func (v *Verifier) checkOMS(payload []byte, files []manifest.File, sig string, fail func(path, reason string, err error) error) ([]string, error) {
	var st statement
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&st); err != nil {
		return nil, fail("", "signs a statement that is not valid JSON", err)
	}
	switch {
	case st.Type != StatementType:
		return nil, fail("", fmt.Sprintf("signs a statement of type %q, not %s", st.Type, StatementType), nil)
	case st.PredicateType != OMSPredicateType:
		return nil, fail("", fmt.Sprintf("signs a %q predicate, not an OpenSSF model signature (%s)", st.PredicateType, OMSPredicateType), nil)
	case st.Predicate.Serialization.Method != "files":
		return nil, fail("", fmt.Sprintf("uses serialization %q; only \"files\" (one digest per file) is read", st.Predicate.Serialization.Method), nil)
	case st.Predicate.Serialization.HashType != "sha256":
		return nil, fail("", fmt.Sprintf("hashes files with %q; only sha256 is read", st.Predicate.Serialization.HashType), nil)
	case len(st.Subject) != 1:
		return nil, fail("", fmt.Sprintf("names %d subjects, not 1", len(st.Subject)), nil)
	}
	// The subject digest is the SHA-256 of the resources' digests in
	// order: a statement whose resources were edited is inconsistent.
	h := sha256.New()
	signed := make(map[string]string, len(st.Predicate.Resources))
	for _, r := range st.Predicate.Resources {
		raw, err := hex.DecodeString(r.Digest)
		switch {
		case r.Algorithm != "sha256":
			return nil, fail(r.Name, fmt.Sprintf("is signed with algorithm %q; only sha256 is read", r.Algorithm), nil)
		case err != nil || len(raw) != sha256.Size:
			return nil, fail(r.Name, fmt.Sprintf("is signed with digest %q, not 64 hex digits", r.Digest), nil)
		case r.Name == "" || isControl(r.Name):
			return nil, fail("", fmt.Sprintf("signs a resource named %q", r.Name), nil)
		}
		if _, dup := signed[r.Name]; dup {
			return nil, fail(r.Name, "is signed twice", nil)
		}
		h.Write(raw)
		signed[r.Name] = "sha256:" + strings.ToLower(r.Digest)
	}
	if got, want := hex.EncodeToString(h.Sum(nil)), strings.ToLower(st.Subject[0].Digest["sha256"]); got != want {
		return nil, fail("", fmt.Sprintf("is inconsistent: its subject digest is %q, its resources hash to %s", want, got), nil)
	}
	ignored := func(p string) bool {
		if p == sig {
			return true
		}
		for _, ig := range st.Predicate.Serialization.IgnorePaths {
			ig = strings.TrimSuffix(strings.TrimPrefix(ig, "./"), "/")
			if slices.Contains(omsGitIgnored, ig) && (p == ig || strings.HasPrefix(p, ig+"/")) {
				return true
			}
		}
		return false
	}
	var errs []error
	var covered []string
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.Path] = true
		want, ok := signed[f.Path]
		switch {
		case ignored(f.Path):
		case f.IsLink():
			if !v.lax || ok {
				errs = append(errs, fail(f.Path, "is a symbolic link leading out of the skill (to "+f.Link+"), which the signature does not cover", nil))
			}
		case !ok:
			if !v.lax {
				errs = append(errs, fail(f.Path, "is not signed: an extra file (strict mode refuses files the signature does not list)", nil))
			}
		case want != f.Digest:
			errs = append(errs, fail(f.Path, fmt.Sprintf("changed: signed %s, found %s", want, f.Digest), nil))
		default:
			covered = append(covered, f.Path)
		}
		if f.Path == sig && !f.IsLink() {
			covered = append(covered, f.Path)
		}
	}
	var missing []string
	for name := range signed {
		if !seen[name] && !ignored(name) {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	for _, name := range missing {
		errs = append(errs, fail(name, "is signed but missing from the skill", nil))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.Sort(covered)
	return covered, nil
}

// ManifestText is the text a "sigstore" format signature signs (its
// digest is ManifestDigest): one line per file of files but the
// signature file sig, in path order, "<digest>  <path>\n" where digest is
// "sha256:" and 64 hex digits, as in a manifest. A skill holding a link
// leading out of it, or a file whose name holds a control character,
// has no manifest text.
func ManifestText(files []manifest.File, sig string) ([]byte, error) {
	var b bytes.Buffer
	for _, f := range files {
		if f.Path == sig {
			continue
		}
		if f.IsLink() {
			return nil, fmt.Errorf("%s is a link leading out of the skill: a signature cannot cover it", f.Path)
		}
		if isControl(f.Path) {
			return nil, fmt.Errorf("%q has a control character in its name", f.Path)
		}
		if !manifest.DigestForm.MatchString(f.Digest) {
			return nil, fmt.Errorf("%s has digest %q, not sha256:<64 hex digits>", f.Path, f.Digest)
		}
		b.WriteString(f.Digest)
		b.WriteString("  ")
		b.WriteString(f.Path)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// ManifestDigest is the manifest digest of a skill: "sha256:" and the hex
// SHA-256 of its ManifestText. It is what a "sigstore" format signature
// is over.
func ManifestDigest(files []manifest.File, sig string) (string, error) {
	text, err := ManifestText(files, sig)
	if err != nil {
		return "", err
	}
	return manifest.Digest(text), nil
}

// checkSubject checks that a "sigstore" format DSSE statement names the
// skill's manifest digest as its subject.
func checkSubject(payload []byte, files []manifest.File, sig string, fail func(path, reason string, err error) error) error {
	var st struct {
		Type    string    `json:"_type"`
		Subject []subject `json:"subject"`
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		return fail("", "signs a statement that is not valid JSON", err)
	}
	want, err := ManifestDigest(files, sig)
	if err != nil {
		return fail("", "cannot be checked", err)
	}
	hexWant := strings.TrimPrefix(want, "sha256:")
	var got []string
	for _, s := range st.Subject {
		if strings.EqualFold(s.Digest["sha256"], hexWant) {
			return nil
		}
		got = append(got, "sha256:"+s.Digest["sha256"])
	}
	return fail("", fmt.Sprintf("signs %s, but the skill's files make manifest digest %s: a file was added, removed or changed",
		strings.Join(got, ", "), want), nil)
}
