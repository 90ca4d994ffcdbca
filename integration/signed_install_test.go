package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/provenance/provenancetest"
	"github.com/ccski/ccski/internal/testfs"
)

// signedResult is a result of install --json with its signer.
type signedResult struct {
	Results []struct {
		Skill, Status, Message string
		Signer                 *struct{ Identity, Issuer, Bundle, Format, File string }
	}
}

// lockSigners reads the project's lock: its version and each skill's
// signer ("" for none) as "identity via issuer (format, file, bundle)".
func lockSigners(t *testing.T, file string) (int, map[string]string) {
	t.Helper()
	var l struct {
		Version int
		Skills  []struct {
			Name  string
			Files []struct{ Path, Digest string }
			// Signer is as the lock writes it.
			Signer *struct{ Identity, Issuer, Bundle, Format, File string }
		}
	}
	if err := json.Unmarshal([]byte(textOf(t, file)), &l); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range l.Skills {
		out[e.Name] = ""
		if s := e.Signer; s != nil {
			i := slices.IndexFunc(e.Files, func(f struct{ Path, Digest string }) bool { return f.Path == s.File })
			digest := "missing"
			if i >= 0 && e.Files[i].Digest == s.Bundle {
				digest = "the file's digest"
			}
			out[e.Name] = s.Identity + " via " + s.Issuer + " (" + s.Format + ", " + s.File + ", " + digest + ")"
		}
	}
	return l.Version, out
}

// TestInstallSignedSkills is issue 26's install side end to end, from a
// git repository whose skills are signed in the test (OpenSSF model
// signing, keyless, with a test Sigstore the user config's
// signing.trusted_root trusts): a signed skill installs, verified, its
// signer in ccski.lock and in ccski installed; a skill with one byte
// changed after signing, one with an extra file, and one signed by
// another identity than --signer asks for are refused, naming the skill,
// the file and what failed, and nothing of them is installed; update
// refuses a new version by another signer unless --force; a second clone
// restores the skill with --frozen, verified again; and --frozen fails on
// a folder source whose signature changed hands or went away.
func TestInstallSignedSkills(t *testing.T) {
	b := newInstallBox(t)
	work := filepath.Join(b.root, "git", "work")
	files := map[string]string{}
	for _, name := range []string{"pdf", "tampered", "extra", "forged"} {
		files["skills/"+name+"/SKILL.md"] = skillText(name, "the "+name+" skill")
		files["skills/"+name+"/references/notes.md"] = "notes of " + name + "\n"
	}
	testfs.Write(t, work, files)
	var root string
	for name, who := range map[string]string{"pdf": "alice@example.com", "tampered": "alice@example.com",
		"extra": "alice@example.com", "forged": "mallory@evil.example"} {
		root = provenancetest.Sign(t, filepath.Join(work, "skills", name), provenancetest.Options{Identity: who})
	}
	// After signing: one byte of tampered changed, a file added to extra.
	testfs.Write(t, work, map[string]string{"skills/tampered/references/notes.md": "notes of Tampered\n",
		"skills/extra/scripts/run.sh": "echo unsigned\n"})
	g, _ := newGitSource(t, filepath.Join(b.root, "git"), map[string]string{})
	userConfig := map[string]string{".config/ccski/config.yaml": "signing:\n  trusted_root: " + root + "\n"}
	testfs.Write(t, b.home, userConfig)
	lockFile := filepath.Join(b.proj, "ccski.lock")
	skills := filepath.Join(b.proj, ".agents", "skills")

	// --signer asks for a SOURCE and a valid pattern.
	if r := b.run(t, "install", "--signer", "alice@example.com"); r.code != 2 || !strings.Contains(r.stderr, "--signer needs a SOURCE") {
		t.Errorf("--signer without a SOURCE:\n%s", r)
	}
	if r := b.run(t, "install", g.url, "pdf", "--signer", "[alice"); r.code != 2 || !strings.Contains(r.stderr, "--signer") {
		t.Errorf("--signer with a bad pattern:\n%s", r)
	}

	// The signed skill: verified, its signer in the report and the lock.
	r := b.run(t, "install", g.url, "pdf", "--signer", "*@example.com@https://issuer.example.com")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "signed by alice@example.com via https://issuer.example.com") {
		t.Errorf("install does not say who signed pdf:\n%s", r)
	}
	version, signers := lockSigners(t, lockFile)
	if want := "alice@example.com via https://issuer.example.com (oms, skill.oms.sig, the file's digest)"; version != 4 || signers["pdf"] != want {
		t.Fatalf("lock version %d, pdf's signer %q; want version 4 and %q", version, signers["pdf"], want)
	}
	r = b.run(t, "installed")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "signed by alice@example.com via https://issuer.example.com") {
		t.Errorf("ccski installed does not show the locked signer:\n%s", r)
	}

	// Refused, naming the skill, the file and what failed; nothing of
	// them written.
	lock := textOf(t, lockFile)
	refusals := []struct {
		skill string
		args  []string
		want  []string
	}{
		{"tampered", nil, []string{"signature skill.oms.sig of skill tampered", "file references/notes.md: changed",
			"nothing of tampered was installed"}},
		{"extra", nil, []string{"signature skill.oms.sig of skill extra", "file scripts/run.sh: is not signed"}},
		{"forged", []string{"--signer", "*@example.com@https://issuer.example.com"}, []string{"forged is signed by mallory@evil.example via " +
			"https://issuer.example.com, not by *@example.com@https://issuer.example.com as --signer requires"}},
	}
	for _, tt := range refusals {
		t.Run(tt.skill, func(t *testing.T) {
			r := b.run(t, append([]string{"install", g.url, tt.skill, "--json"}, tt.args...)...)
			var rep signedResult
			decodeOnly(t, r, &rep)
			if r.code != 1 || len(rep.Results) != 1 || rep.Results[0].Skill != tt.skill || rep.Results[0].Status != "failed" {
				t.Fatalf("want %s failed, exit 1\n%s", tt.skill, r)
			}
			for _, w := range tt.want {
				if !strings.Contains(rep.Results[0].Message, w) {
					t.Errorf("message %q lacks %q", rep.Results[0].Message, w)
				}
			}
			for _, dir := range []string{skills, filepath.Join(b.proj, ".claude", "skills")} {
				if _, err := os.Lstat(filepath.Join(dir, tt.skill)); err == nil {
					t.Errorf("%s was installed in %s", tt.skill, dir)
				}
			}
			if textOf(t, lockFile) != lock {
				t.Errorf("the lock changed")
			}
		})
	}

	// A new version signed by someone else: update refuses it, in
	// words, until --force.
	testfs.Write(t, g.work, map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "version two")})
	provenancetest.Sign(t, filepath.Join(g.work, "skills", "pdf"), provenancetest.Options{Identity: "mallory@evil.example"})
	g.commit(t, nil)
	installed := textOf(t, filepath.Join(skills, "pdf", "SKILL.md"))
	r = b.run(t, "update", "pdf")
	if r.code != 1 || !strings.Contains(r.stdout, "the new version of pdf is signed by mallory@evil.example via "+
		"https://issuer.example.com, but the lock records alice@example.com via https://issuer.example.com as its signer") {
		t.Errorf("update to a version by another signer:\n%s", r)
	}
	if textOf(t, lockFile) != lock || textOf(t, filepath.Join(skills, "pdf", "SKILL.md")) != installed {
		t.Error("a refused update changed the lock or the installed copy")
	}
	mustOK(t, b.run(t, "update", "pdf", "--force"))
	if _, signers := lockSigners(t, lockFile); !strings.HasPrefix(signers["pdf"], "mallory@evil.example via") {
		t.Errorf("after update --force the lock records %q", signers["pdf"])
	}

	// A second clone of the project: --frozen restores pdf from its
	// locked commit, verified again, signed by whom the lock says.
	c := newInstallBox(t)
	testfs.Write(t, c.home, userConfig)
	testfs.Write(t, c.proj, map[string]string{"ccski.lock": textOf(t, lockFile)})
	r = c.run(t, "install", "--frozen", "--json")
	var rep signedResult
	decodeOnly(t, r, &rep)
	if r.code != 0 || len(rep.Results) != 1 || rep.Results[0].Status != "installed" || rep.Results[0].Signer == nil ||
		rep.Results[0].Signer.Identity != "mallory@evil.example" {
		t.Errorf("--frozen in a second clone:\n%s", r)
	}

	// A folder in the project: --frozen fails when its signature
	// changes hands or goes away.
	vendor := filepath.Join(b.proj, "vendor", "docx")
	testfs.Write(t, vendor, map[string]string{"SKILL.md": skillText("docx", "d")})
	provenancetest.Sign(t, vendor, provenancetest.Options{Identity: "alice@example.com"})
	mustOK(t, b.run(t, "install", "vendor/docx"))
	mustOK(t, b.run(t, "install", "--frozen"))
	provenancetest.Sign(t, vendor, provenancetest.Options{Identity: "bob@example.com"})
	r = b.run(t, "install", "--frozen")
	if r.code != 1 || !strings.Contains(r.stdout, "the lock records docx as signed by alice@example.com via "+
		"https://issuer.example.com, but the source's copy is signed by bob@example.com") {
		t.Errorf("--frozen with the folder re-signed by bob:\n%s", r)
	}
	os.Remove(filepath.Join(vendor, "skill.oms.sig"))
	r = b.run(t, "install", "--frozen")
	if r.code != 1 || !strings.Contains(r.stdout, "the lock records docx as signed by alice@example.com via "+
		"https://issuer.example.com (its skill.oms.sig), but the source's copy carries no signature") {
		t.Errorf("--frozen with the folder's signature removed:\n%s", r)
	}
}
