package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
)

// signedMachine signs the user skill claude:commit-helper as
// alice@example.com, and codex:format-code too, then changes one byte of
// format-code's SKILL.md; the user config trusts the test Sigstore
// (signing.trusted_root) and asks for mcp.require_signed, and the
// project's ccski.yaml tries to turn it off. It returns the two skills'
// folders.
func signedMachine(t *testing.T, m *machine.Machine) (signed, tampered string) {
	t.Helper()
	signed = filepath.Join(m.Home, ".claude", "skills", "commit-helper")
	tampered = filepath.Join(m.Home, ".codex", "skills", "format-code")
	root := provenancetest.Sign(t, signed, provenancetest.Options{Identity: "alice@example.com",
		Issuer: "https://accounts.example.com"})
	provenancetest.Sign(t, tampered, provenancetest.Options{Identity: "alice@example.com",
		Issuer: "https://accounts.example.com"})
	md := filepath.Join(tampered, "SKILL.md")
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	i := len(data) - 3 // the last letter of the body: the skill still parses
	data[i]++
	writeFile(t, md, string(data))
	appendFile(t, userConfig(m), "signing:\n  trusted_root: "+root+"\nmcp:\n  require_signed: true\n")
	writeFile(t, filepath.Join(m.Workspace, "ccski.yaml"), "mcp:\n  require_signed: false\n")
	return signed, tampered
}

// TestServeRequireSigned: under mcp.require_signed, set in the user config
// with the test trusted root in signing.trusted_root, ccski mcp serves the
// signed skill only, with its signer in the skills/list entry's _meta; a
// signed skill with one byte changed after signing, and every unsigned
// skill, are not served, and the skill tool says why; the project's
// ccski.yaml setting mcp.require_signed: false changes none of that. ccski
// list, list --json, info and doctor say who signed the skill, that the
// tampered one's signature fails (naming the file) and what ccski mcp does
// not serve. A file of the signed skill changed while the server runs is
// not served either.
func TestServeRequireSigned(t *testing.T) {
	m := newMachine(t)
	signed, _ := signedMachine(t, m)
	const signedID, tamperedID = "claude:commit-helper", "codex:format-code"

	ctx := mcpContext(t)
	cmd := exec.Command(binary, mcpArgs(m)...)
	cmd.Dir, cmd.Env = m.Workspace, env(m, nil)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cs, err := extClient(t).Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	entries, _ := mustListSkills(t, ctx, cs)
	if ids := entryIDs(entries); len(ids) != 1 || ids[0] != signedID {
		t.Errorf("the skill tool lists %v, want the signed skill only", ids)
	}
	if text, err := loadSkill(ctx, cs, signedID); err != nil || !strings.Contains(text, "commit") {
		t.Errorf("the signed skill does not load: %v\n%s", err, text)
	}
	for _, id := range []string{tamperedID, "claude:use-when"} {
		if msg := loadError(t, ctx, cs, id); !strings.Contains(msg, "mcp.require_signed") {
			t.Errorf("%s: the refusal does not name mcp.require_signed: %s", id, msg)
		}
	}
	res, err := sdk.CallCustomMethod[*extListParams, *extListResult](ctx, cs, "skills/list", &extListParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skills) != 1 || !strings.HasSuffix(res.Skills[0].URI, "/commit-helper/SKILL.md") {
		t.Fatalf("skills/list: %d entries, want the signed skill only", len(res.Skills))
	}
	if p, err := cs.ListPrompts(ctx, nil); err != nil || len(p.Prompts) != 0 {
		t.Errorf("prompts served under mcp.require_signed (commands carry no signature): %v %v", err, p)
	}
	var signer struct{ Identity, Issuer, Format, Bundle, File string }
	if err := json.Unmarshal(res.Skills[0].Meta["io.github.ccski/signer"], &signer); err != nil ||
		signer.Identity != "alice@example.com" || signer.Issuer != "https://accounts.example.com" || signer.Format != "oms" ||
		!strings.HasPrefix(signer.Bundle, "sha256:") || signer.File != "skill.oms.sig" {
		t.Errorf("the signed skill's entry does not name its signer in _meta: %v %+v (_meta %s)", err, signer, res.Skills[0].Meta)
	}

	// One byte of a signed file changed while the server runs: the bytes
	// are not served, whether from the snapshot already built or after a
	// rescan verified again.
	ref := res.Skills[0].URI
	ref = strings.TrimSuffix(ref, "SKILL.md") + "references/conventional.md"
	path := filepath.Join(signed, "references", "conventional.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[0] ^= 0x20
	writeFile(t, path, string(data))
	if r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: ref}); err == nil {
		t.Errorf("a signed skill's file changed after signing is served: %q", r.Contents[0].Text)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("the server did not exit cleanly: %v\nstderr:\n%s", err, stderr)
	}
	data[0] ^= 0x20 // as signed again
	writeFile(t, path, string(data))

	// list: the marks, and why the tampered skill fails.
	out := run(t, m, "list")
	mustOK(t, out)
	for _, want := range []string{
		signedID + " [signed by alice@example.com]",
		tamperedID + " [signature invalid: not served by ccski mcp]",
		"claude:use-when [1 warning] [unsigned: not served by ccski mcp]",
		"✗ " + tamperedID + " signature invalid:",
		"mcp.require_signed is on: ccski mcp does not serve",
	} {
		if !strings.Contains(out.stdout, want) {
			t.Errorf("list lacks %q:\n%s", want, out.stdout)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(out.stdout), " "), "SKILL.md") {
		t.Errorf("list does not name the changed file:\n%s", out.stdout)
	}

	var recs []struct {
		ID        string
		Signature *struct {
			State  string
			Signer *struct{ Identity, Issuer string }
			Error  string
		}
		NotServed string
	}
	decodeOnly(t, run(t, m, "list", "--json"), &recs)
	seen := 0
	for _, r := range recs {
		switch r.ID {
		case signedID:
			seen++
			if r.Signature == nil || r.Signature.State != "signed" || r.Signature.Signer == nil ||
				r.Signature.Signer.Identity != "alice@example.com" || r.NotServed != "" {
				t.Errorf("list --json of the signed skill: %+v", r)
			}
		case tamperedID:
			seen++
			if r.Signature == nil || r.Signature.State != "invalid" || !strings.Contains(r.Signature.Error, "SKILL.md") ||
				!strings.Contains(r.NotServed, "mcp.require_signed") {
				t.Errorf("list --json of the tampered skill: %+v", r)
			}
		case "claude:use-when":
			seen++
			if r.Signature == nil || r.Signature.State != "unsigned" || !strings.Contains(r.NotServed, "carries no signature") {
				t.Errorf("list --json of an unsigned skill: %+v", r)
			}
		}
	}
	if seen != 3 {
		t.Errorf("list --json lists %d of the 3 skills looked for", seen)
	}

	info := run(t, m, "info", signedID)
	mustOK(t, info)
	if !strings.Contains(info.stdout, "Signature:  signed by alice@example.com via https://accounts.example.com") {
		t.Errorf("info of the signed skill:\n%s", info.stdout)
	}
	info = run(t, m, "info", tamperedID)
	mustOK(t, info)
	if !strings.Contains(info.stdout, "Signature:  signature invalid:") || !strings.Contains(info.stdout, "MCP:") {
		t.Errorf("info of the tampered skill:\n%s", info.stdout)
	}

	doc := run(t, m, "doctor")
	flat := strings.Join(strings.Fields(doc.stdout), " ")
	for _, want := range []string{
		"✓ " + signedID + " signed by alice@example.com via https://accounts.example.com",
		"✗ " + tamperedID + " signature invalid:",
		"mcp.require_signed is on: ccski mcp serves only the 1 signed",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("doctor lacks %q:\n%s", want, doc.stdout)
		}
	}

	// The project's require_signed: false is ignored, and said so.
	cfg := ccski(t, m, runOpts{}, "config")
	mustOK(t, cfg)
	if !strings.Contains(cfg.stdout, "mcp.require_signed: false (project config") ||
		!strings.Contains(cfg.stdout, "a project config may not change it; true is used") {
		t.Errorf("config does not show the project's mcp.require_signed ignored:\n%s", cfg)
	}
}
