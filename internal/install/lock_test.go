package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/testfs"
)

// TestLockRoundTrip writes paths below the base relative (so that a
// project's lock holds in every clone) and reads them back absolute; a
// marketplace source is kept by name only.
func TestLockRoundTrip(t *testing.T) {
	base := testfs.TempDir(t)
	file := filepath.Join(base, LockName)
	l := &Lock{Skills: []Entry{
		{Name: "zeta", Source: Source{Kind: KindMarketplace, Name: "m", Dir: "/somewhere/m"}, Path: "plugins/z/skills/zeta",
			Targets: []Target{{Agent: "agents", Dir: filepath.Join(base, ".agents", "skills")}},
			Files:   []manifest.File{{Path: "SKILL.md", Size: 3, Digest: "sha256:00"}}},
		{Name: "alpha", Source: Source{Kind: KindDir, Dir: filepath.Join(base, "vendor", "skills")}, Path: "alpha",
			Targets: []Target{{Agent: "agents", Dir: filepath.Join(base, ".agents", "skills")},
				{Agent: "claude", Dir: filepath.Join(base, ".claude", "skills"), Link: true}},
			Files: []manifest.File{{Path: "SKILL.md", Size: 3, Digest: "sha256:01"}}},
	}}
	if err := l.Write(file, base); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	for _, s := range []string{`"dir": ".agents/skills"`, `"dir": "vendor/skills"`, `"name": "m"`} {
		if !strings.Contains(string(data), s) {
			t.Errorf("lock lacks %s:\n%s", s, data)
		}
	}
	if strings.Contains(string(data), base) || strings.Contains(string(data), "/somewhere") {
		t.Errorf("lock holds absolute paths:\n%s", data)
	}
	if strings.Index(string(data), `"alpha"`) > strings.Index(string(data), `"zeta"`) {
		t.Errorf("entries are not sorted by name:\n%s", data)
	}
	got, err := ReadLock(file, base, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{l.Skills[1], l.Skills[0]}
	want[1].Source.Dir = ""
	if diff := cmp.Diff(want, got.Skills); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

// TestReadLockErrors refuses locks that are not ccski's, from a newer
// ccski, with a bad name, or with a target outside the project.
func TestReadLockErrors(t *testing.T) {
	tests := []struct {
		name, data string
		confine    bool
		err        string
	}{
		{"not JSON", "{", true, "is not a valid ccski lock"},
		{"unknown field", `{"version":1,"skills":[],"extra":1}`, true, "is not a valid ccski lock"},
		{"newer", `{"version":9,"skills":[]}`, true, "upgrade ccski"},
		{"no version", `{"skills":[]}`, true, "has no version"},
		{"a name twice", `{"version":1,"skills":[{"name":"x","source":{"kind":"dir"},"path":".","targets":[{"dir":"s"}],"files":[]},` +
			`{"name":"x","source":{"kind":"dir"},"path":".","targets":[{"dir":"s"}],"files":[]}]}`, true, "names skill x twice"},
		{"bad name", `{"version":1,"skills":[{"name":"../x","source":{"kind":"dir"},"path":".","targets":[{"dir":"s"}],"files":[]}]}`, true, "cannot be a folder name"},
		{"escaping target", `{"version":1,"skills":[{"name":"x","source":{"kind":"dir"},"path":".","targets":[{"dir":"../../etc"}],"files":[]}]}`, true, "outside the project"},
		{"absolute target", `{"version":1,"skills":[{"name":"x","source":{"kind":"dir"},"path":".","targets":[{"dir":"/etc"}],"files":[]}]}`, true, "outside the project"},
		{"escaping source path", `{"version":1,"skills":[{"name":"x","source":{"kind":"dir","path":"../up"},"path":".","targets":[{"dir":"s"}],"files":[]}]}`, true, "clean path inside its source"},
		{"no target", `{"version":1,"skills":[{"name":"x","source":{"kind":"dir"},"path":".","targets":[],"files":[]}]}`, false, "has no targets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			file := filepath.Join(base, LockName)
			os.WriteFile(file, []byte(tt.data), 0o644)
			_, err := ReadLock(file, base, tt.confine)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("ReadLock = %v, want an error holding %q", err, tt.err)
			}
		})
	}
	// The user's own lock may name any folder.
	base := testfs.TempDir(t)
	file := filepath.Join(base, LockName)
	os.WriteFile(file, []byte(`{"version":1,"skills":[{"name":"x","source":{"kind":"dir"},"path":".","targets":[{"dir":"/elsewhere/skills"}],"files":[]}]}`), 0o644)
	if _, err := ReadLock(file, base, false); err != nil {
		t.Errorf("user lock: %v", err)
	}
	// A missing lock is empty.
	if l, err := ReadLock(filepath.Join(base, "none.lock"), base, true); err != nil || len(l.Skills) != 0 {
		t.Errorf("missing lock = %+v, %v", l, err)
	}
}

// TestLockSigner writes a lock recording a signer as version 4 (a lock
// without one keeps the oldest version that holds it, which older ccski
// reads), reads it back, and refuses a signer record ccski would not
// write: no identity, an unknown format, a signature file that is not
// among the skill's files with the record's digest.
func TestLockSigner(t *testing.T) {
	base := testfs.TempDir(t)
	file := filepath.Join(base, LockName)
	sig := "sha256:" + strings.Repeat("ab", 32)
	files := []manifest.File{{Path: "SKILL.md", Size: 3, Digest: "sha256:" + strings.Repeat("01", 32)},
		{Path: "skill.oms.sig", Size: 9, Digest: sig}}
	entry := Entry{Name: "pdf", Source: Source{Kind: KindDir, Dir: filepath.Join(base, "vendor")}, Path: "pdf",
		Targets: []Target{{Agent: "agents", Dir: filepath.Join(base, ".agents", "skills")}}, Files: files}
	version := func() int {
		var v struct{ Version int }
		data, _ := os.ReadFile(file)
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		return v.Version
	}
	if err := (&Lock{Skills: []Entry{entry}}).Write(file, base); err != nil {
		t.Fatal(err)
	}
	if v := version(); v != 1 {
		t.Errorf("an unsigned folder source's lock is version %d, want 1", v)
	}
	signer := &provenance.Signer{Identity: "alice@example.com", Issuer: "https://issuer.example.com", Bundle: sig,
		Format: provenance.FormatOMS, File: "skill.oms.sig"}
	entry.Signer = signer
	if err := (&Lock{Skills: []Entry{entry}}).Write(file, base); err != nil {
		t.Fatal(err)
	}
	if v := version(); v != 4 {
		t.Errorf("a lock recording a signer is version %d, want 4", v)
	}
	got, err := ReadLock(file, base, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(signer, got.Skills[0].Signer); diff != "" {
		t.Errorf("signer round trip (-want +got):\n%s", diff)
	}

	bad := []struct {
		name   string
		change func(s *provenance.Signer)
		err    string
	}{
		{"no identity", func(s *provenance.Signer) { s.Identity = "" }, "signer identity"},
		{"control character", func(s *provenance.Signer) { s.Identity = "alice\x1b[2J" }, "control character"},
		{"unknown format", func(s *provenance.Signer) { s.Format = "pgp" }, `signer format "pgp" is unknown`},
		{"bundle no digest", func(s *provenance.Signer) { s.Bundle = "abc" }, "no sha256: digest"},
		{"file not in the skill", func(s *provenance.Signer) { s.File = "other.oms.sig" }, `"other.oms.sig" is not among the skill's files`},
		{"bundle not the file's digest", func(s *provenance.Signer) { s.Bundle = "sha256:" + strings.Repeat("cd", 32) }, "is not among the skill's files with the digest"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			s := *signer
			tt.change(&s)
			e := entry
			e.Signer = &s
			data, err := encodeJSON(Lock{Version: 4, Skills: []Entry{e.toLock(base)}})
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(file, data, 0o644)
			if _, err := ReadLock(file, base, true); err == nil || !strings.Contains(err.Error(), tt.err) ||
				!strings.Contains(err.Error(), "skill pdf") {
				t.Errorf("ReadLock = %v, want an error naming skill pdf and holding %q", err, tt.err)
			}
		})
	}
}
