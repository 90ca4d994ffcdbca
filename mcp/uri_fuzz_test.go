package mcp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/pipeline"
)

// FuzzResourceURI: whatever URI a client sends, resolving it and reading
// the file it names never reads outside the skill's real folder: not the
// secret file beside the folder, not through the symlinks in it that lead
// out, and the path locate returns is always a local path whose real
// location is inside the folder.
func FuzzResourceURI(f *testing.F) {
	base := f.TempDir()
	secret := []byte("TOP-SECRET-CONTENT")
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), secret, 0o600); err != nil {
		f.Fatal(err)
	}
	var recs []*pipeline.Record
	for _, s := range []struct{ provider, name string }{{"claude", "pdf"}, {"codex", "docx"}} {
		dir := filepath.Join(base, s.provider, s.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			f.Fatal(err)
		}
		md := "---\nname: " + s.name + "\ndescription: d\n---\n# " + s.name + "\n"
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			f.Fatal(err)
		}
		recs = append(recs, &pipeline.Record{Name: s.name, Description: "d", Agent: s.provider,
			Location: pipeline.LocationUser, Root: filepath.Dir(dir), Dir: dir, File: filepath.Join(dir, "SKILL.md"), RealDir: dir})
	}
	pipeline.AssignIDs(recs)
	dir := recs[0].Dir
	for name, target := range map[string]string{"link.md": filepath.Join(base, "secret.txt"), "up": base, "loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "references", "guide.md"), []byte("# guide\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	snap := snapOf(recs)
	for _, seed := range []string{
		"skill://claude/pdf/SKILL.md", "skill://claude/pdf/references/guide.md", "skill://claude/pdf/../../secret.txt",
		"skill://claude/pdf/%2e%2e/%2e%2e/secret.txt", "skill://claude/pdf/%252e%252e/secret.txt", "skill://claude/pdf/link.md",
		"skill://claude/pdf/up/secret.txt", "skill://claude/pdf/loop", "skill://claude/pdf/references%00/x",
		"skill://claude%3Apdf/SKILL.md", "skill://claude~3Apdf/SKILL.md", "skill://pdf/SKILL.md", "skill://codex/docx//etc/passwd",
		"skill://claude/pdf/" + strings.Repeat("/", 100), "skill://claude/PDF/SKILL.md?x#y",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		r, rel, err := resolveURI(snap, uri)
		if err != nil || r == nil {
			return
		}
		if data, err := readInSkill(r, rel); err == nil && bytes.Contains(data, secret) {
			t.Fatalf("%q read the secret file", uri)
		}
		realDir, inside, err := locate(r, rel)
		if err != nil {
			return
		}
		if !filepath.IsLocal(inside) && inside != "." {
			t.Fatalf("%q: locate gave %q, not a local path", uri, inside)
		}
		real, err := filepath.EvalSymlinks(filepath.Join(realDir, inside))
		if err != nil {
			return // it changed, or is a broken link: reading it fails
		}
		if out, err := filepath.Rel(realDir, real); err != nil || !filepath.IsLocal(out) && out != "." {
			t.Fatalf("%q: %s is outside %s", uri, real, realDir)
		}
	})
}
