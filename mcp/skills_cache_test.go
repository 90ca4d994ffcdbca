package mcp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/pipeline"
)

// TestSkillsFrontmatterReadOnce checks the frontmatter cache: each
// version of a SKILL.md is read once, whether its skill is listed or left
// out (frontmatter that is not YAML, a name that is not the URI's), and an
// edit to any of them, even one that keeps the size and the modification
// time, shows in the next listing.
func TestSkillsFrontmatterReadOnce(t *testing.T) {
	const (
		good      = "---\nname: good\ndescription: Good one.\n---\n# Good\n"
		goodEdit  = "---\nname: good\ndescription: Good two.\n---\n# Good\n" // same size
		broken    = "---\nname: broken\ndescription: [unclosed\n---\n"
		fixed     = "---\nname: broken\ndescription: Fixed now.\n---\n"
		drifted   = "---\nname: other\ndescription: Drifted.\n---\n"
		undrifted = "---\nname: drift\ndescription: Drifted.\n---\n"
	)
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "good", desc: "Good one.", body: good},
		skillSpec{provider: "claude", name: "broken", desc: "Broken.", body: broken},
		skillSpec{provider: "claude", name: "drift", desc: "Drifted.", body: drifted})
	srv := New(snapOf(recs), Options{Logger: discard()})
	ctx := testCtx(t, 20*time.Second)
	cs := skillsClient(t, srv, "")
	listed := func() map[string]*extEntry {
		t.Helper()
		entries, _ := listAll(t, ctx, cs)
		out := map[string]*extEntry{}
		for _, e := range entries {
			out[e.URI] = e
		}
		return out
	}
	skillDigest := func(e *extEntry) string {
		for _, r := range e.Resources {
			if strings.HasSuffix(r.URI, "/SKILL.md") {
				return r.Digest
			}
		}
		return ""
	}

	for round := range 2 {
		got := listed()
		if len(got) != 1 || got[recs[0].SkillURI()] == nil {
			t.Fatalf("listing %d: %d entries, want only %s", round+1, len(got), recs[0].SkillURI())
		}
		if n := srv.skills.frontReads.Load(); n != 3 {
			t.Errorf("after listing %d: %d SKILL.md files read, want 3 (each version once, listed or not)", round+1, n)
		}
	}

	for i, body := range []string{goodEdit, fixed, undrifted} {
		p := recs[i].File
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, []byte(body))
		if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	got := listed()
	if len(got) != 3 {
		t.Fatalf("after the edits: %d entries, want 3", len(got))
	}
	for i, body := range []string{goodEdit, fixed, undrifted} {
		e := got[recs[i].SkillURI()]
		if e == nil {
			t.Errorf("%s not listed after its SKILL.md was fixed", recs[i].SkillURI())
			continue
		}
		if d := skillDigest(e); d != digestOf([]byte(body)) {
			t.Errorf("%s: SKILL.md digest %s, want the new bytes' %s", e.URI, d, digestOf([]byte(body)))
		}
	}
	if d := got[recs[0].SkillURI()].Frontmatter["description"]; d != "Good two." {
		t.Errorf("frontmatter description %q after a same-size edit, want %q", d, "Good two.")
	}
}

// TestSkillsFrontmatterCacheSweep checks that the frontmatter of a
// SKILL.md version no listing used since the last snapshot change is
// dropped at the next one, and the current versions are kept.
func TestSkillsFrontmatterCacheSweep(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "one", desc: "One."},
		skillSpec{provider: "claude", name: "two", desc: "Two."})
	srv := New(snapOf(recs), Options{Logger: discard()})
	ctx := testCtx(t, 20*time.Second)
	cs := skillsClient(t, srv, "")
	listAll(t, ctx, cs)
	writeFile(t, recs[0].File, []byte("---\nname: one\ndescription: One, edited.\n---\n"))
	listAll(t, ctx, cs) // both versions of one's SKILL.md are cached now
	if n := cachedFronts(srv); n != 3 {
		t.Fatalf("%d frontmatters cached, want 3", n)
	}
	srv.Update(snapOf(recs)) // a rescan: a new snapshot of the same skills
	listAll(t, ctx, cs)
	srv.Update(snapOf(recs))
	listAll(t, ctx, cs)
	if n := cachedFronts(srv); n != 2 {
		t.Errorf("%d frontmatters cached after two snapshots, want 2 (the old version of one dropped)", n)
	}
	if n := srv.skills.frontReads.Load(); n != 3 {
		t.Errorf("%d SKILL.md files read, want 3 (the current versions kept)", n)
	}
}

// cachedFronts is the number of frontmatters srv keeps.
func cachedFronts(srv *Server) int {
	srv.skills.frontMu.Lock()
	defer srv.skills.frontMu.Unlock()
	return len(srv.skills.fronts)
}

// TestEntryWireMatchesEncodingJSON checks that an entry's JSON, written
// once by appendEntry, is byte for byte what encoding/json writes for the
// same entry with HTML escaping off (as the SDK encodes messages),
// strings that need escaping included.
func TestEntryWireMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name      string
		skillPath string
		front     map[string]any
		files     []manifest.File
		signer    *pipeline.Signer
	}{
		{name: "plain", skillPath: "claude/lint",
			front: map[string]any{"name": "lint", "description": "Lint code.", "license": "MIT"},
			files: []manifest.File{{Path: "SKILL.md", Size: 42, Digest: "sha256:00ff"}, {Path: "references/guide.md", Size: 0, Digest: "sha256:ab"}}},
		{name: "escapes", skillPath: `codex/q"uote\back`,
			front: map[string]any{"name": "x", "description": "a <b> & \"c\"\n\t\u2028\u2029 é 日本 \x01\x7f",
				"metadata": map[string]any{"tags": []any{"a", 1.5, true, nil}, "n": 3.0}},
			files: []manifest.File{{Path: "SKILL.md", Size: 1 << 40, Digest: "sha256:1"}, {Path: "a b/c%d/é.txt", Size: 7, Digest: "sha256:2"},
				{Path: "odd\"name\\x<y>&.md", Size: 1, Digest: "sha256:3"}, {Path: "ctl\x1f\u2028.txt", Size: 2, Digest: "sha256:4"}}},
		{name: "invalid UTF-8", skillPath: "claude/bad\xff",
			front: map[string]any{"name": "bad\xfe"},
			files: []manifest.File{{Path: "SKILL.md\xc3", Size: 3, Digest: "sha256:5"}}},
		{name: "no frontmatter map", skillPath: "claude/none", front: nil,
			files: []manifest.File{{Path: "SKILL.md", Size: 1, Digest: "sha256:6"}}},
		{name: "signed", skillPath: "claude/signed", front: map[string]any{"name": "signed"},
			files: []manifest.File{{Path: "SKILL.md", Size: 1, Digest: "sha256:7"}, {Path: "skill.oms.sig", Size: 9, Digest: "sha256:8"}},
			signer: &pipeline.Signer{Identity: "a<b>@example.com", Issuer: "https://accounts.example.com", Format: "oms",
				Bundle: "sha256:8", File: "skill.oms.sig"}},
		{name: "signed by a key", skillPath: "claude/key", front: map[string]any{"name": "key"},
			files:  []manifest.File{{Path: "SKILL.md", Size: 1, Digest: "sha256:7"}},
			signer: &pipeline.Signer{Identity: "key:sha256:ab", Format: "sigstore", Bundle: "sha256:9", File: "skill.sigstore.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &pipeline.Record{SkillPath: tt.skillPath}
			front, err := marshalJSON(tt.front)
			if err != nil {
				t.Fatal(err)
			}
			type plain extEntry // encoded by reflection, without MarshalJSON
			e := &plain{URI: r.SkillURI(), Frontmatter: tt.front, Resources: []extResource{}}
			if tt.signer != nil {
				e.Meta = &entryMeta{Signer: tt.signer}
			}
			for _, f := range tt.files {
				e.Resources = append(e.Resources, extResource{URI: skillFileURI(r, f.Path), Digest: f.Digest, Size: f.Size})
			}
			want, err := marshalJSON(&listSkillsResult{Skills: []*extEntry{(*extEntry)(e)}})
			if err != nil {
				t.Fatal(err)
			}
			wire := appendEntry(nil, r, front, tt.files, tt.signer)
			got, err := marshalJSON(&listSkillsResult{Skills: []*extEntry{{Wire: wire}}})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("wire JSON\n%s\nwant (encoding/json)\n%s", got, want)
			}
		})
	}
}

// TestReadSkillFileFallsBack checks that the frontmatter is read as
// resources/read reads SKILL.md when the quick read does not give the
// bytes the manifest hashed: a SKILL.md that became a symlink into .git
// since the walk is refused, as resources/read refuses it.
func TestReadSkillFileFallsBack(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "linked", desc: "Linked."})
	r := recs[0]
	body := []byte("---\nname: linked\ndescription: Linked.\n---\n")
	writeFile(t, filepath.Join(r.Dir, ".git", "SKILL.md"), body)
	if err := os.Remove(r.File); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(".git", "SKILL.md"), r.File); err != nil { // relative: os.Root follows it
		t.Fatal(err)
	}
	srv := New(snapOf(recs), Options{Logger: discard()})
	if _, _, err := srv.readSkillFile(r, "sha256:not-the-digest"); err == nil {
		t.Error("read a SKILL.md that leads into .git, want it refused")
	}
}
