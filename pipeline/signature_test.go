package pipeline

import (
	"strings"
	"testing"
)

// TestSignatureCovers: a verified signature covers exactly the files it
// was verified against (same paths, sizes and digests, none more, none
// fewer); an unsigned or invalid one covers nothing.
func TestSignatureCovers(t *testing.T) {
	files := JudgedFiles{{Path: "SKILL.md", Size: 3, Digest: "sha256:a"}, {Path: "skill.oms.sig", Size: 9, Digest: "sha256:b"}}
	signed := Signature{State: SignatureSigned, Signer: &Signer{Identity: "alice@example.com"}, Files: files}
	cases := []struct {
		name string
		sig  Signature
		got  []JudgedFile
		want bool
	}{
		{"the files verified", signed, files, true},
		{"a byte changed", signed, []JudgedFile{{Path: "SKILL.md", Size: 3, Digest: "sha256:c"}, files[1]}, false},
		{"another size", signed, []JudgedFile{{Path: "SKILL.md", Size: 4, Digest: "sha256:a"}, files[1]}, false},
		{"a file added", signed, append([]JudgedFile{{Path: "new.md", Size: 1, Digest: "sha256:d"}}, files...), false},
		{"a file gone", signed, files[:1], false},
		{"another file in its place", signed, []JudgedFile{files[0], {Path: "other.sig", Size: 9, Digest: "sha256:b"}}, false},
		{"invalid", Signature{State: SignatureInvalid, Files: files}, files, false},
		{"unsigned", Signature{State: SignatureUnsigned}, nil, false},
	}
	for _, c := range cases {
		if got := c.sig.Covers(c.got); got != c.want {
			t.Errorf("%s: Covers = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSignatureWords: what list, info and doctor say of a signature, and
// why a record is not served under mcp.require_signed.
func TestSignatureWords(t *testing.T) {
	keyless := Signature{State: SignatureSigned, Signer: &Signer{Identity: "alice@example.com", Issuer: "https://accounts.example.com"}}
	key := Signature{State: SignatureSigned, Signer: &Signer{Identity: "key:sha256:ab"}}
	bad := Signature{State: SignatureInvalid, Error: "file SKILL.md: changed"}
	for _, c := range []struct {
		sig  Signature
		want string
	}{
		{keyless, "signed by alice@example.com via https://accounts.example.com"},
		{key, "signed by key:sha256:ab"},
		{bad, "signature invalid: file SKILL.md: changed"},
		{Signature{State: SignatureUnsigned}, "unsigned"},
		{Signature{}, "unsigned"},
	} {
		if got := c.sig.Describe(); got != c.want {
			t.Errorf("Describe = %q, want %q", got, c.want)
		}
	}
	skill, command := &Record{ID: "claude:x"}, &Record{ID: "claude:/deploy", Type: TypeCommand}
	for _, c := range []struct {
		r    *Record
		sig  Signature
		want string
	}{
		{skill, Signature{State: SignatureUnsigned}, "it carries no signature"},
		{skill, bad, "its signature does not verify (file SKILL.md: changed)"},
		{command, Signature{State: SignatureUnsigned}, "it is a command"},
	} {
		got := UnsignedReason(c.r, c.sig)
		if !strings.Contains(got, c.want) || !strings.Contains(got, "mcp.require_signed is on") {
			t.Errorf("UnsignedReason(%s) = %q, want it to say %q and name mcp.require_signed", c.r.ID, got, c.want)
		}
	}
	snap := NewSnapshot([]*Record{skill}, nil, nil, nil, nil)
	if got := snap.SignatureOf(skill); got.State != SignatureUnsigned {
		t.Errorf("SignatureOf without verification = %+v, want unsigned", got)
	}
}
