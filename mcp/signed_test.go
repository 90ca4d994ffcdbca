package mcp

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
)

// TestSkillsListSigner: a skill whose signature verified carries its
// signer in the _meta of its skills/list and skills/get entries, under
// SignerMetaKey, while the files listed are exactly the files verified; a
// file added since, and the entry names no signer (it is still listed
// without a gate, and left out under mcp.require_signed). An unsigned
// skill's entry has no _meta.
func TestSkillsListSigner(t *testing.T) {
	for _, require := range []bool{false, true} {
		name := "without a gate"
		if require {
			name = "under mcp.require_signed"
		}
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			recs := makeRecords(t, base,
				skillSpec{provider: "claude", name: "signed", desc: "Signed."},
				skillSpec{provider: "claude", name: "plain", desc: "Plain."})
			signed, plain := recs[0], recs[1]
			writeFile(t, filepath.Join(signed.Dir, "skill.oms.sig"), []byte(`{"bundle":"test"}`))
			files := judgedFolder(t, signed.Dir)
			sig, _ := files.File("skill.oms.sig")
			signer := &pipeline.Signer{Identity: "alice@example.com", Issuer: "https://accounts.example.com",
				Format: "oms", Bundle: sig.Digest, File: "skill.oms.sig"}
			snap := snapOf(recs)
			snap.Signatures = map[*pipeline.Record]pipeline.Signature{
				signed: {State: pipeline.SignatureSigned, Signer: signer, File: "skill.oms.sig", Files: files},
				plain:  {State: pipeline.SignatureUnsigned},
			}
			if require {
				snap = snapOf([]*pipeline.Record{signed}) // the stage dropped the unsigned one
				snap.Signatures = map[*pipeline.Record]pipeline.Signature{
					signed: {State: pipeline.SignatureSigned, Signer: signer, File: "skill.oms.sig", Files: files}}
				snap.Judged = []pipeline.Judgement{{Gate: pipeline.GateSigned,
					Files: map[*pipeline.Record]pipeline.JudgedFiles{signed: files}}}
			}
			ctx := testCtx(t, 10*time.Second)
			cs := skillsClient(t, New(snap, Options{}), "2025-11-25")

			entries, _ := listAll(t, ctx, cs)
			metas := map[string]*entryMeta{}
			for _, e := range entries {
				metas[e.URI] = e.Meta
			}
			if d := cmp.Diff(&entryMeta{Signer: signer}, metas[signed.SkillURI()]); d != "" {
				t.Errorf("the signed skill's _meta (-want +got):\n%s", d)
			}
			if m, ok := metas[plain.SkillURI()]; !require && (!ok || m != nil) {
				t.Errorf("the unsigned skill: listed %v, _meta %+v; want listed without _meta", ok, m)
			}
			got, err := getSkill(ctx, cs, signed.SkillURI())
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(&entryMeta{Signer: signer}, got.Meta); d != "" {
				t.Errorf("skills/get's _meta (-want +got):\n%s", d)
			}

			// A file the signature does not cover.
			writeFile(t, filepath.Join(signed.Dir, "references", "added.md"), []byte("not signed\n"))
			entries, _ = listAll(t, ctx, cs)
			for _, e := range entries {
				if e.URI != signed.SkillURI() {
					continue
				}
				if require {
					t.Errorf("under mcp.require_signed, a skill with a file its signature does not cover is listed: %+v", e)
				} else if e.Meta != nil {
					t.Errorf("an entry listing a file the signature does not cover names a signer: %+v", e.Meta)
				}
			}
		})
	}
}
