package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestNamesAsTheHostShowsThem checks that a skill answers to the name its
// host shows and keeps answering to its other name (issue 22, point 1).
// Claude Code names a skill after its folder: the machine's plugin skill
// in doc-tools/skills/pdf-forms, whose frontmatter says pdf, is
// doc-tools:pdf-forms in Claude Code, and a personal skill in
// ~/.claude/skills/video-downloader whose frontmatter says
// youtube-downloader is video-downloader. Codex names a skill by its
// frontmatter. info and the MCP skill tool take either name, and list
// shows the host's.
func TestNamesAsTheHostShowsThem(t *testing.T) {
	m := newMachine(t)
	testfs.Write(t, m.Home, map[string]string{
		".claude/skills/video-downloader/SKILL.md": "---\nname: youtube-downloader\ndescription: Download videos.\n---\n# Videos\n",
		".codex/skills/clip-cutter/SKILL.md":       "---\nname: cut-clips\ndescription: Cut clips.\n---\n# Clips\n",
	})
	type rec struct{ ID, Name, Alias, File string }
	info := func(name string) rec {
		t.Helper()
		r := run(t, m, "info", name, "--json")
		mustOK(t, r)
		var got rec
		decodeOnly(t, r, &got)
		return got
	}
	for _, c := range []struct {
		names           []string
		id, name, alias string
	}{
		{[]string{"doc-tools:pdf-forms", "doc-tools:pdf", "claude:@doc-tools:pdf", "pdf-forms"},
			"claude:@doc-tools:pdf-forms", "doc-tools:pdf-forms", "doc-tools:pdf"},
		{[]string{"video-downloader", "youtube-downloader", "claude:youtube-downloader"},
			"claude:video-downloader", "video-downloader", "youtube-downloader"},
		{[]string{"cut-clips", "clip-cutter", "codex:clip-cutter"}, "codex:cut-clips", "cut-clips", "clip-cutter"},
	} {
		for _, n := range c.names {
			if got := info(n); got.ID != c.id || got.Name != c.name || got.Alias != c.alias {
				t.Errorf("info %s = %+v, want id %s, name %s, alias %s", n, got, c.id, c.name, c.alias)
			}
		}
	}
	list := run(t, m, "list")
	mustOK(t, list)
	for _, id := range []string{"claude:@doc-tools:pdf-forms", "claude:video-downloader", "codex:cut-clips"} {
		if !strings.Contains(list.stdout, "- "+id+" ") && !strings.Contains(list.stdout, "- "+id+"\n") {
			t.Errorf("list does not show %s:\n%s", id, list.stdout)
		}
	}

	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil)
	dir := filepath.Join(m.Home, ".claude", "skills", "video-downloader")
	for _, n := range []string{"video-downloader", "claude:youtube-downloader"} {
		text, err := loadSkill(ctx, s.cs, n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "Base directory: "+dir+"\n") {
			t.Errorf("skill %s loaded something else:\n%s", n, text)
		}
	}
	for _, n := range []string{"doc-tools:pdf-forms", "doc-tools:pdf"} {
		text, err := loadSkill(ctx, s.cs, n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "Loading: claude:@doc-tools:pdf-forms") {
			t.Errorf("skill %s loaded something else:\n%s", n, text)
		}
	}
}
