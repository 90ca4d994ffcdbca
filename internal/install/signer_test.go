package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
	"github.com/ccski/ccski/internal/testfs"
)

// signedFixture is a project whose vendor folder holds the skill pdf
// (inside the project, so that --frozen may restore it), with an
// Installer that trusts the test Sigstore.
type signedFixture struct {
	fixture
	vendor, skill string
	verifier      *provenance.Verifier
}

func newSignedFixture(t *testing.T) *signedFixture {
	t.Helper()
	f := &signedFixture{fixture: newFixture(t, nil)}
	f.vendor = filepath.Join(f.layout.Base, "vendor")
	f.skill = filepath.Join(f.vendor, "pdf")
	testfs.Write(t, f.vendor, map[string]string{"pdf/SKILL.md": skill("pdf"), "pdf/references/api.md": "the api\n"})
	root := provenancetest.Shared(t).RootFile(t)
	v, err := provenance.NewVerifier(provenance.Config{TrustedRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	f.verifier = v
	return f
}

// sign signs the skill folder as identity (alice@example.com when "").
func (f *signedFixture) sign(t *testing.T, identity string) {
	t.Helper()
	provenancetest.Sign(t, f.skill, provenancetest.Options{Identity: identity})
}

// installer is an Installer of the project, holding its lock, that
// verifies with the test root and writes the lock after each change.
func (f *signedFixture) installer(t *testing.T) *Installer {
	t.Helper()
	x := f.fixture.installer()
	x.Lock = f.lockOnDisk(t)
	x.Verifier, x.SaveLock = f.verifier, true
	return x
}

// install installs pdf from the vendor folder.
func (f *signedFixture) install(t *testing.T, x *Installer) Result {
	t.Helper()
	src := Source{Kind: KindDir, Dir: f.vendor}
	root, commit, o := offer(t, x, src)
	cands, err := Select("vendor", o, Selection{Names: []string{"pdf"}})
	if err != nil {
		t.Fatal(err)
	}
	agents, _ := ParseAgents(nil)
	rs := x.Install(src, root, commit, cands, Want{Agents: agents})
	if len(rs) != 1 {
		t.Fatalf("%d results, want 1", len(rs))
	}
	return rs[0]
}

// installed is the installed copy's path of file.
func (f *signedFixture) installed(file string) string {
	return filepath.Join(f.layout.Base, ".agents", "skills", "pdf", filepath.FromSlash(file))
}

// lockOnDisk reads the lock file as written.
func (f *signedFixture) lockOnDisk(t *testing.T) *Lock {
	t.Helper()
	l, err := ReadLock(f.layout.LockFile, f.layout.Base, true)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestInstallVerifiesSignature installs a signed skill with its signer
// recorded in the lock (version 4), and refuses, writing nothing, a skill
// whose signature does not verify: one byte changed, an extra file, a
// signature by a Sigstore the trusted root does not know; and a skill
// signed by another identity than --signer requires, or not signed.
func TestInstallVerifiesSignature(t *testing.T) {
	t.Run("signed", func(t *testing.T) {
		f := newSignedFixture(t)
		f.sign(t, "alice@example.com")
		x := f.installer(t)
		r := f.install(t, x)
		if r.Status != StatusInstalled || r.Signer == nil || r.Signer.Identity != "alice@example.com" {
			t.Fatalf("result %+v, want installed, signed by alice@example.com", r)
		}
		e := f.lockOnDisk(t).Find("pdf")
		want := provenance.Signer{Identity: "alice@example.com", Issuer: "https://issuer.example.com",
			Bundle: e.Files[indexOf(e, "skill.oms.sig")].Digest, Format: provenance.FormatOMS, File: "skill.oms.sig"}
		if e.Signer == nil || !sameRecord(e.Signer, &want) {
			t.Errorf("lock signer %+v, want %+v", e.Signer, want)
		}
		var raw struct{ Version int }
		data, _ := os.ReadFile(f.layout.LockFile)
		json.Unmarshal(data, &raw)
		if raw.Version != 4 {
			t.Errorf("a lock recording a signer is version %d, want 4 (older ccski would refuse the field as unknown)", raw.Version)
		}
	})

	refusals := []struct {
		name string
		// change signs the skill (or not) and changes it after.
		change func(t *testing.T, f *signedFixture, x *Installer)
		want   []string
	}{
		{"one byte changed", func(t *testing.T, f *signedFixture, _ *Installer) {
			f.sign(t, "")
			testfs.Write(t, f.skill, map[string]string{"references/api.md": "the apI\n"})
		}, []string{"signature skill.oms.sig of skill pdf", "references/api.md", "nothing of pdf was installed"}},
		{"an extra file", func(t *testing.T, f *signedFixture, _ *Installer) {
			f.sign(t, "")
			testfs.Write(t, f.skill, map[string]string{"scripts/extra.sh": "echo hi\n"})
		}, []string{"signature skill.oms.sig of skill pdf", "scripts/extra.sh"}},
		{"a root the verifier does not trust", func(t *testing.T, f *signedFixture, _ *Installer) {
			provenancetest.New(t).Sign(t, f.skill, provenancetest.Options{})
		}, []string{"signature skill.oms.sig of skill pdf", "does not verify"}},
		{"another identity than --signer", func(t *testing.T, f *signedFixture, x *Installer) {
			f.sign(t, "mallory@evil.example")
			x.Signer = &provenance.Identity{Identity: "*@example.com"}
		}, []string{"pdf is signed by mallory@evil.example via https://issuer.example.com, not by *@example.com as --signer requires"}},
		{"another issuer than --signer", func(t *testing.T, f *signedFixture, x *Installer) {
			f.sign(t, "alice@example.com")
			x.Signer = &provenance.Identity{Identity: "alice@example.com", Issuer: "https://accounts.example.org"}
		}, []string{"not by alice@example.com@https://accounts.example.org"}},
		{"unsigned under --signer", func(t *testing.T, f *signedFixture, x *Installer) {
			x.Signer = &provenance.Identity{Identity: "alice@example.com"}
		}, []string{"pdf carries no signature, and --signer requires one by alice@example.com"}},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			f := newSignedFixture(t)
			x := f.installer(t)
			tt.change(t, f, x)
			r := f.install(t, x)
			if r.Status != StatusFailed {
				t.Fatalf("status %s, want failed: %+v", r.Status, r)
			}
			t.Log(r.Message)
			for _, w := range tt.want {
				if !strings.Contains(r.Message, w) {
					t.Errorf("message %q lacks %q", r.Message, w)
				}
			}
			if exists(f.installed("")) || exists(f.layout.LockFile) || x.Changed {
				t.Error("a skill whose signature was refused was installed or locked")
			}
		})
	}

	t.Run("--signer glob", func(t *testing.T) {
		f := newSignedFixture(t)
		f.sign(t, "alice@example.com")
		x := f.installer(t)
		x.Signer = &provenance.Identity{Identity: "*@example.com", Issuer: "https://issuer.example.com"}
		if r := f.install(t, x); r.Status != StatusInstalled {
			t.Errorf("status %s (%s), want installed", r.Status, r.Message)
		}
	})
}

// indexOf is the index of the file path in e.Files, or -1.
func indexOf(e *Entry, path string) int {
	for i, f := range e.Files {
		if f.Path == path {
			return i
		}
	}
	return -1
}

// TestUpdateHoldsSigner refuses, without Force, a new version signed by
// someone else than the lock records, and one no longer signed, keeping
// the installed copy and the lock; Force takes it and records the new
// signer (or none). A new version signed again by the same signer
// updates, recording its new signature.
func TestUpdateHoldsSigner(t *testing.T) {
	f := newSignedFixture(t)
	f.sign(t, "alice@example.com")
	x := f.installer(t)
	if r := f.install(t, x); r.Status != StatusInstalled {
		t.Fatalf("install: %+v", r)
	}
	update := func(force bool) Result {
		t.Helper()
		x := f.installer(t)
		x.Force = force
		defer x.Close()
		return x.Update(*f.lockOnDisk(t).Find("pdf"), "")
	}
	before := textOf(t, f.installed("SKILL.md"))

	// Signed again by alice: updated, the new signature recorded.
	testfs.Write(t, f.skill, map[string]string{"SKILL.md": skill("pdf") + "v2\n"})
	f.sign(t, "alice@example.com")
	if r := update(false); r.Status != StatusUpdated || r.Signer == nil || r.Signer.Identity != "alice@example.com" {
		t.Fatalf("update signed by the same signer: %+v", r)
	}
	e := f.lockOnDisk(t).Find("pdf")
	if e.Signer.Bundle != e.Files[indexOf(e, "skill.oms.sig")].Digest {
		t.Errorf("the lock records the old signature's digest %s", e.Signer.Bundle)
	}
	before = textOf(t, f.installed("SKILL.md"))

	// Signed by bob: refused, in words, nothing changed.
	testfs.Write(t, f.skill, map[string]string{"SKILL.md": skill("pdf") + "v3\n"})
	f.sign(t, "bob@example.com")
	r := update(false)
	if r.Status != StatusFailed || !strings.Contains(r.Message,
		"the new version of pdf is signed by bob@example.com via https://issuer.example.com, but the lock records "+
			"alice@example.com via https://issuer.example.com as its signer") || !strings.Contains(r.Message, "--force") {
		t.Errorf("update signed by another signer: %+v", r)
	}
	if textOf(t, f.installed("SKILL.md")) != before || f.lockOnDisk(t).Find("pdf").Signer.Identity != "alice@example.com" {
		t.Error("a refused update changed the copy or the lock")
	}
	if r := update(true); r.Status != StatusUpdated {
		t.Fatalf("update --force signed by another signer: %+v", r)
	}
	if s := f.lockOnDisk(t).Find("pdf").Signer; s == nil || s.Identity != "bob@example.com" {
		t.Errorf("after --force the lock records %+v, want bob@example.com", s)
	}
	before = textOf(t, f.installed("SKILL.md"))

	// No longer signed: refused, then taken unsigned with --force.
	os.Remove(filepath.Join(f.skill, "skill.oms.sig"))
	testfs.Write(t, f.skill, map[string]string{"SKILL.md": skill("pdf") + "v4\n"})
	r = update(false)
	if r.Status != StatusFailed || !strings.Contains(r.Message,
		"the new version of pdf carries no signature, but the lock records it as signed by bob@example.com") {
		t.Errorf("update no longer signed: %+v", r)
	}
	if textOf(t, f.installed("SKILL.md")) != before {
		t.Error("a refused update changed the copy")
	}
	if r := update(true); r.Status != StatusUpdated || r.Signer != nil {
		t.Fatalf("update --force unsigned: %+v", r)
	}
	if e := f.lockOnDisk(t).Find("pdf"); e.Signer != nil {
		t.Errorf("the lock still records a signer: %+v", e.Signer)
	}
}

// TestFrozenHoldsSigner fails install --frozen when the source's copy is
// signed by someone else than the lock records, or no longer signed,
// saying so rather than listing the changed file; a source that matches
// the lock passes.
func TestFrozenHoldsSigner(t *testing.T) {
	f := newSignedFixture(t)
	f.sign(t, "alice@example.com")
	if r := f.install(t, f.installer(t)); r.Status != StatusInstalled {
		t.Fatalf("install: %+v", r)
	}
	frozen := func() Result {
		t.Helper()
		x := f.installer(t)
		defer x.Close()
		return x.Restore(*f.lockOnDisk(t).Find("pdf"), true)
	}
	if r := frozen(); r.Status != StatusUnchanged || r.Signer == nil {
		t.Fatalf("--frozen on the locked source: %+v", r)
	}
	sig := filepath.Join(f.skill, "skill.oms.sig")
	signed, err := os.ReadFile(sig)
	if err != nil {
		t.Fatal(err)
	}

	f.sign(t, "bob@example.com")
	if r := frozen(); r.Status != StatusFailed || !strings.Contains(r.Message,
		"the lock records pdf as signed by alice@example.com via https://issuer.example.com, but the source's copy "+
			"is signed by bob@example.com via https://issuer.example.com") {
		t.Errorf("--frozen re-signed by bob: %+v", r)
	}
	os.Remove(sig)
	if r := frozen(); r.Status != StatusFailed || !strings.Contains(r.Message,
		"the lock records pdf as signed by alice@example.com via https://issuer.example.com (its skill.oms.sig), "+
			"but the source's copy carries no signature") {
		t.Errorf("--frozen unsigned: %+v", r)
	}
	os.WriteFile(sig, signed, 0o644)
	if r := frozen(); r.Status != StatusUnchanged {
		t.Errorf("--frozen with the signature put back: %+v", r)
	}
}

// textOf reads a file or fails the test.
func textOf(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
