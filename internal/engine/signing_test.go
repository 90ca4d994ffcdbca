package engine

import (
	"os"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
	"github.com/ccski/ccski/pipeline"
)

// signatureOf returns the signature snap says the record of file carries.
func signatureOf(t *testing.T, snap *pipeline.Snapshot, file string) pipeline.Signature {
	t.Helper()
	for _, r := range snap.All {
		if r.File == file {
			return snap.SignatureOf(r)
		}
	}
	t.Fatalf("no record of %s", file)
	return pipeline.Signature{}
}

// TestSetSigning checks signature verification in discovery: off by
// default; with a Verifier, every skill says whether it is signed (and
// by whom), unsigned, or carries a signature that fails (one byte
// changed after signing, a file added); a rescan verifies only the skills
// whose files changed; and with Require only the signed skills are
// visible (in a workspace engine too), each dropped one with a reason
// naming mcp.require_signed, and the gate judged exactly the files
// verified.
func TestSetSigning(t *testing.T) {
	m := newMachine(t)
	signed, tampered := "home/.claude/skills/user-only", "home/.codex/skills/docx"
	root := provenancetest.Sign(t, m.abs(signed), provenancetest.Options{Identity: "alice@example.com",
		Issuer: "https://accounts.example.com"})
	provenancetest.Sign(t, m.abs(tampered), provenancetest.Options{})
	md := m.abs(tampered + "/SKILL.md")
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, []byte(strings.Replace(string(data), "Body.", "Body!", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := provenance.NewVerifier(provenance.Config{TrustedRoot: root})
	if err != nil {
		t.Fatal(err)
	}

	snap, _ := snapshot(t, m.engine(t, m.config()))
	if snap.Signatures != nil {
		t.Fatalf("Signatures = %v without SetSigning, want nil", snap.Signatures)
	}

	e := m.engine(t, m.config())
	e.SetSigning(SigningOptions{Verifier: v})
	snap, _ = snapshot(t, e)
	sig := signatureOf(t, snap, m.abs(signed+"/SKILL.md"))
	if !sig.Signed() || sig.Signer.Identity != "alice@example.com" || sig.Signer.Issuer != "https://accounts.example.com" ||
		sig.Signer.Format != provenance.FormatOMS || sig.Signer.File != "skill.oms.sig" || !strings.HasPrefix(sig.Signer.Bundle, "sha256:") {
		t.Errorf("the signed skill: %+v (signer %+v)", sig, sig.Signer)
	}
	if _, ok := sig.Files.File("skill.oms.sig"); !ok {
		t.Errorf("the files verified leave out the signature file: %v", sig.Files)
	}
	bad := signatureOf(t, snap, md)
	if bad.State != pipeline.SignatureInvalid || !strings.Contains(bad.Error, "SKILL.md") || bad.File != "skill.oms.sig" {
		t.Errorf("the tampered skill: %+v, want invalid naming SKILL.md", bad)
	}
	if got := signatureOf(t, snap, m.abs("home/.claude/skills/pdf/SKILL.md")); got.State != pipeline.SignatureUnsigned {
		t.Errorf("an unsigned skill: %+v", got)
	}
	if _, err := snap.Load("pdf", pipeline.TypeSkill); err != nil {
		t.Errorf("an unsigned skill is hidden without Require: %v", err)
	}
	if snap.Judged != nil {
		t.Errorf("a gate judged without Require: %v", snap.Judged)
	}

	// A rescan verifies nothing again, unless a signed skill's files
	// changed.
	if e.signing.verified != 2 {
		t.Fatalf("verified %d signatures, want 2", e.signing.verified)
	}
	snapshot(t, e)
	m.write(t, map[string]string{"home/.claude/skills/pdf/references/new.md": "x\n"})
	snapshot(t, e)
	if e.signing.verified != 2 {
		t.Errorf("a rescan verified again: %d verifications, want 2", e.signing.verified)
	}
	m.write(t, map[string]string{signed + "/references/extra.md": "not signed\n"})
	snap, _ = snapshot(t, e)
	if e.signing.verified != 3 {
		t.Errorf("%d verifications after a signed skill changed, want 3", e.signing.verified)
	}
	if got := signatureOf(t, snap, m.abs(signed+"/SKILL.md")); got.State != pipeline.SignatureInvalid ||
		!strings.Contains(got.Error, "references/extra.md") {
		t.Errorf("a signed skill with a file added: %+v, want invalid naming the file", got)
	}
	if err := os.Remove(m.abs(signed + "/references/extra.md")); err != nil {
		t.Fatal(err)
	}

	e.SetSigning(SigningOptions{Verifier: v, Require: true})
	for _, eng := range []*Engine{e, forWorkspace(t, e, m.ws)} {
		snap, _ = snapshot(t, eng)
		var visible []string
		for _, r := range snap.Visible {
			visible = append(visible, r.File)
		}
		if len(visible) != 1 || visible[0] != m.abs(signed+"/SKILL.md") {
			t.Errorf("visible under Require: %v, want the signed skill only", visible)
		}
		reasons := map[string]string{}
		for _, d := range snap.Drops {
			if d.Stage == SignedStageName {
				reasons[d.Record.File] = d.Reason
			}
		}
		for file, want := range map[string]string{md: "its signature does not verify", m.abs("home/.claude/skills/pdf/SKILL.md"): "carries no signature"} {
			if r := reasons[file]; !strings.Contains(r, want) || !strings.Contains(r, "mcp.require_signed") {
				t.Errorf("drop of %s: %q, want it to say %q and name mcp.require_signed", file, r, want)
			}
		}
		var gate *pipeline.Judgement
		for i := range snap.Judged {
			if snap.Judged[i].Gate == pipeline.GateSigned {
				gate = &snap.Judged[i]
			}
		}
		if gate == nil {
			t.Fatal("no judgement of mcp.require_signed")
		}
		r := snap.Visible[0]
		if files, _ := gate.Of(r); !snap.SignatureOf(r).Covers(files) {
			t.Errorf("the gate judged %v, not the files verified", files)
		}
		checkInvariants(t, snap)
	}

	// Another trusted root: what the last one verified is not kept.
	other, err := provenance.NewVerifier(provenance.Config{TrustedRoot: provenancetest.New(t).RootFile(t)})
	if err != nil {
		t.Fatal(err)
	}
	e.SetSigning(SigningOptions{Verifier: other, Require: true})
	snap, _ = snapshot(t, e)
	if len(snap.Visible) != 0 {
		t.Errorf("visible under a root that trusts no signer: %v", snap.Visible)
	}
}

// TestSignedJudgesCoveredOnly: the gate of mcp.require_signed judges only
// the files the signature covers. Under signing.strict: false an extra
// file added after signing lets the signature verify, but the extra file
// is not among the files judged, so it is not served as signed; the
// signed files and the signature file are.
func TestSignedJudgesCoveredOnly(t *testing.T) {
	m := newMachine(t)
	signed := "home/.claude/skills/user-only"
	root := provenancetest.Sign(t, m.abs(signed), provenancetest.Options{})
	m.write(t, map[string]string{signed + "/references/extra.md": "not signed\n"})
	v, err := provenance.NewVerifier(provenance.Config{TrustedRoot: root, Lax: true})
	if err != nil {
		t.Fatal(err)
	}
	e := m.engine(t, m.config())
	e.SetSigning(SigningOptions{Verifier: v, Require: true})
	snap, _ := snapshot(t, e)
	var r *pipeline.Record
	for _, v := range snap.Visible {
		if v.File == m.abs(signed+"/SKILL.md") {
			r = v
		}
	}
	if r == nil {
		t.Fatalf("the signed skill with an extra file is not visible under signing.strict: false")
	}
	var files pipeline.JudgedFiles
	for _, j := range snap.Judged {
		if j.Gate == pipeline.GateSigned {
			files, _ = j.Of(r)
		}
	}
	if _, ok := files.File("references/extra.md"); ok {
		t.Errorf("the extra file the signature does not cover is judged as signed: %v", files)
	}
	for _, p := range []string{"SKILL.md", "skill.oms.sig"} {
		if _, ok := files.File(p); !ok {
			t.Errorf("%s is not among the files judged: %v", p, files)
		}
	}
}
