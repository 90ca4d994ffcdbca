package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/provenance/provenancetest"
	"github.com/ccski/ccski/internal/testfs"
)

// This file drives the policy's signature rules where skills are served:
// the policy decides on the signature the server verified, and serves the
// bytes verified only.

// TestPolicySignerHoldsServedBytes: under policy.required_signers alone
// (no mcp.require_signed), ccski mcp serves a skill installed from the
// source the rule names and signed by the signer it requires, and a file
// of that skill changed after the server verified it is not served: the
// signer the policy accepted is bound to the bytes served.
func TestPolicySignerHoldsServedBytes(t *testing.T) {
	t.Parallel()
	b := newInstallBox(t)
	src := filepath.Join(b.root, "src")
	testfs.Write(t, b.root, map[string]string{
		"src/signed/SKILL.md":           skillText("signed", "Signed by alice."),
		"src/signed/references/note.md": "# A note\n\nSigned too.\n",
	})
	root := provenancetest.Sign(t, filepath.Join(src, "signed"), provenancetest.Options{Identity: "alice@acme.com",
		Issuer: "https://accounts.acme.com"})
	// Under a managed signature rule the trusted root comes from the
	// managed config alone (a user config's is ignored).
	managed := managedPolicy(t, b.root, "policy:\n  required_signers: [\""+src+"=*@acme.com@https://accounts.acme.com\"]\n"+
		"signing:\n  trusted_root: "+root+"\n")
	b.vars = append(b.vars, "CCSKITEST_MANAGED_CONFIG="+managed)
	b.jsonRun(t, 0, "install", src, "--all", "--agent", "claude")

	ctx := mcpContext(t)
	cmd := exec.Command(binary, "mcp")
	cmd.Dir, cmd.Env = b.proj, b.vars
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cs, err := extClient(t).Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	res, err := sdk.CallCustomMethod[*extListParams, *extListResult](ctx, cs, "skills/list", &extListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var uri string
	for _, s := range res.Skills {
		if strings.HasSuffix(s.URI, "/signed/SKILL.md") {
			uri = s.URI
		}
	}
	if uri == "" {
		t.Fatalf("the skill signed by the required signer is not served\nstderr:\n%s", stderr)
	}
	ref := strings.TrimSuffix(uri, "SKILL.md") + "references/note.md"
	path := filepath.Join(b.proj, ".claude", "skills", "signed", "references", "note.md") // install writes to the project
	if err := os.WriteFile(path, []byte("# A note\n\nChanged after it was verified.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: ref}); err == nil {
		t.Errorf("a file changed after its signature was verified is served under policy.required_signers: %q", r.Contents[0].Text)
	}
}

// TestPolicyAllowUnsignedFalseRequiresSigned: policy.allow_unsigned false
// in the managed config, with no mcp.require_signed anywhere, is
// "signatures required" for list and doctor as for ccski mcp.
func TestPolicyAllowUnsignedFalseRequiresSigned(t *testing.T) {
	t.Parallel()
	b := newInstallBox(t)
	testfs.Write(t, b.home, map[string]string{".claude/commands/tidy.md": "---\ndescription: Tidy up.\n---\nTidy.\n"})
	managed := managedPolicy(t, b.root, "policy:\n  allow_unsigned: false\n")
	b.vars = append(b.vars, "CCSKITEST_MANAGED_CONFIG="+managed)
	r := b.run(t, "list")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "[unsigned: not served by ccski mcp]") || !strings.Contains(r.stdout, "mcp.require_signed is on") {
		t.Errorf("list does not say what ccski mcp does not serve under policy.allow_unsigned: false\n%s", r)
	}
	var doc struct {
		Signatures struct {
			RequireSigned bool `json:"requireSigned"`
		}
	}
	decodeOnly(t, b.run(t, "doctor", "--json"), &doc)
	if !doc.Signatures.RequireSigned {
		t.Error("doctor --json: requireSigned is false under policy.allow_unsigned: false")
	}
}

// TestPolicyUnrecordedSourceNotJudged pins what docs/security.md says of
// "fails closed": allowed_sources and required_signers judge the source
// ccski.lock records, so a skill copied into a skills folder by hand (no
// recorded source) is not refused by them, while blocked_skills is.
func TestPolicyUnrecordedSourceNotJudged(t *testing.T) {
	t.Parallel()
	b := newInstallBox(t)
	testfs.Write(t, b.home, map[string]string{
		".claude/skills/by-hand/SKILL.md": skillText("by-hand", "Copied by hand."),
		".claude/skills/blocked/SKILL.md": skillText("blocked", "Copied by hand, blocked."),
	})
	managed := managedPolicy(t, b.root, "policy:\n  allowed_sources: [github.com/acme]\n"+
		"  required_signers: [\"github.com/acme=*@acme.com@https://accounts.acme.com\"]\n  blocked_skills: [blocked]\n")
	b.vars = append(b.vars, "CCSKITEST_MANAGED_CONFIG="+managed)
	var recs []struct{ ID string }
	decodeOnly(t, b.run(t, "list", "--json"), &recs)
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if !slices.Contains(ids, "claude:by-hand") || slices.Contains(ids, "claude:blocked") {
		t.Errorf("list shows %v: want the hand-copied skill (no recorded source) and not the blocked one", ids)
	}
}
