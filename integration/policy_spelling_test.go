package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/provenance/provenancetest"
	"github.com/ccski/ccski/internal/testfs"
)

// TestPolicySignersGovernEverySpelling: a managed policy requires skills
// of github.com/acme to be signed by an acme.com address. Git (through the
// user's url.insteadOf) fetches github.com from a local folder, so the
// binary installs from real GitHub URLs without the network. However the
// repository is spelled (the owner's case, the port, git@host:path, .git),
// the rule governs it: the unsigned skill is refused, naming the rule.
func TestPolicySignersGovernEverySpelling(t *testing.T) {
	t.Parallel()
	b := newInstallBox(t)
	gh := filepath.Join(b.root, "gh")
	testfs.Write(t, b.root, map[string]string{
		"gh/work/skills/plain/SKILL.md": skillText("plain", "Not signed."),
	})
	g, _ := newGitSource(t, filepath.Join(b.root, "gh"), map[string]string{})
	// The repository under the names git is asked for.
	for _, name := range []string{"ACME/repo", "Acme/repo.git", "acme/repo"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(gh, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(g.bare, filepath.Join(gh, name)); err != nil {
			t.Fatal(err)
		}
	}
	testfs.Write(t, b.home, map[string]string{".gitconfig": "[url \"file://" + gh + "/\"]\n" +
		"\tinsteadOf = https://github.com/\n\tinsteadOf = https://github.com:443/\n\tinsteadOf = git@github.com:\n"})
	managed := managedPolicy(t, b.root, "policy:\n  allowed_sources: [github.com]\n"+
		"  required_signers: [\"github.com/acme=*@acme.com@https://accounts.acme.com\"]\n")
	b.vars = append(b.vars, "CCSKITEST_MANAGED_CONFIG="+managed)
	want := "policy.required_signers (managed config " + managed + ") requires plain from "

	for _, url := range []string{"https://github.com/ACME/repo", "git@github.com:Acme/repo.git",
		"https://github.com:443/acme/repo", "https://github.com/acme/repo"} {
		rep := b.jsonRun(t, 1, "install", url, "plain", "--agent", "claude")
		if len(rep.Results) != 1 || rep.Results[0].Status != "failed" || !strings.HasPrefix(rep.Results[0].Message, want) {
			t.Errorf("install %s: %+v, want plain refused by %q", url, rep.Results, want)
		}
		if exists(filepath.Join(b.proj, ".claude", "skills", "plain")) {
			t.Fatalf("install %s installed the unsigned skill", url)
		}
	}
}

// TestSignerGlobNeedsIssuer: install --signer with a pattern and no
// issuer is refused before anything is fetched (any issuer of the trusted
// root could vouch for a matching name); and a skill signed by a GitHub
// Actions workflow of another repository, on a branch named so that its
// identity ends in "@example.com", is not an example.com address.
func TestSignerGlobNeedsIssuer(t *testing.T) {
	t.Parallel()
	b := newInstallBox(t)
	work := filepath.Join(b.root, "git", "work")
	testfs.Write(t, work, map[string]string{"skills/wf/SKILL.md": skillText("wf", "Signed by a workflow.")})
	const issuer = "https://issuer.example.com"
	root := provenancetest.Sign(t, filepath.Join(work, "skills", "wf"), provenancetest.Options{Issuer: issuer,
		Identity: "https://github.com/evil/repo/.github/workflows/w.yml@refs/heads/x@example.com"})
	g, _ := newGitSource(t, filepath.Join(b.root, "git"), map[string]string{})
	testfs.Write(t, b.home, map[string]string{".config/ccski/config.yaml": "signing:\n  trusted_root: " + root + "\n"})

	r := b.run(t, "install", g.url, "wf", "--signer", "*@example.com")
	if r.code != 2 || !strings.Contains(r.stderr, "--signer") || !strings.Contains(r.stderr, "no issuer") {
		t.Errorf("--signer '*@example.com' with no issuer:\n%s", r)
	}
	rep := b.jsonRun(t, 1, "install", g.url, "wf", "--signer", "*@example.com@"+issuer)
	if len(rep.Results) != 1 || rep.Results[0].Status != "failed" ||
		!strings.Contains(rep.Results[0].Message, "not by *@example.com@"+issuer+" as --signer requires") {
		t.Errorf("a workflow's signature taken for an example.com address: %+v", rep.Results)
	}
	if exists(filepath.Join(b.proj, ".agents", "skills", "wf")) || exists(filepath.Join(b.proj, ".claude", "skills", "wf")) {
		t.Error("wf was installed")
	}
}
