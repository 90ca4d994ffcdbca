package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/testfs"
)

// TestInstallFromEverySource is the done-when in one project:
// one skill each from a v0.2.0 well-known index, an archive and an Agent
// Plugins package (httpSources), and two from a SEP-2640 server (a
// second `ccski mcp --transport http`) under two #paths, all in one
// ccski.lock. A second clone restores all of them with --frozen in one
// run, and `update` finds each unchanged; a fresh clone refuses each
// once one byte its source serves changes, installing the others and
// writing nothing of it.
func TestInstallFromEverySource(t *testing.T) {
	ctx := mcpContext(t)
	h := newHTTPSources(t)
	upM := bareMachine(t, bridgeSkills)
	up := startHTTP(t, upM, nil, "--transport", "http", "--refresh-interval", "1s")
	mcpURL := up.base + "/mcp"
	args := map[string]string{"indexed": h.args["indexed"], "zipped": h.args["zipped"], "packaged": h.args["packaged"],
		"pdf": "mcp+" + mcpURL + "#custom/docs/pdf", "docx": "mcp+" + mcpURL + "#custom/docs/docx"}
	skills := sortedNames(args)

	b := newInstallBox(t)
	for _, skill := range skills {
		rep := b.jsonRun(t, 0, "install", args[skill], "--all")
		if got := rep.statuses(); !slices.Equal(got, []string{skill + " installed"}) {
			t.Fatalf("install %s: %v", args[skill], got)
		}
	}
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	var parsed struct {
		Version int
		Skills  []struct {
			Name   string
			Source struct{ Kind, URL, Path string }
		}
	}
	if err := json.Unmarshal([]byte(lock), &parsed); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, e := range parsed.Skills {
		kinds[e.Name] = e.Source.Kind + "#" + e.Source.Path
	}
	wantKinds := map[string]string{"indexed": "index#", "zipped": "archive#", "packaged": "archive#", "pdf": "mcp#custom/docs/pdf",
		"docx": "mcp#custom/docs/docx"}
	if parsed.Version != 3 || !maps.Equal(kinds, wantKinds) {
		t.Fatalf("lock: version %d, sources %v, want version 3 and %v\n%s", parsed.Version, kinds, wantKinds, lock)
	}

	clone := func() *installBox {
		c := newInstallBox(t)
		testfs.Write(t, c.proj, map[string]string{"ccski.lock": lock})
		return c
	}
	// A second clone: the lock alone restores every skill in one run,
	// checked, and update then finds nothing changed.
	c := clone()
	rep := c.jsonRun(t, 0, "install", "--frozen")
	if rep.Counts["installed"] != len(skills) {
		t.Fatalf("frozen restore in a clone: %v", rep.statuses())
	}
	for _, rel := range []string{"indexed/SKILL.md", "zipped/scripts/run.sh", "packaged/SKILL.md", "pdf/references/api.md",
		"pdf/assets/logo.bin", "docx/SKILL.md"} {
		want := textOf(t, filepath.Join(b.proj, ".agents/skills", rel))
		if got := textOf(t, filepath.Join(c.proj, ".agents/skills", rel)); got != want {
			t.Errorf("restored %s = %q, want %q", rel, got, want)
		}
	}
	rep = c.jsonRun(t, 0, "update")
	if rep.Counts["unchanged"] != len(skills) {
		t.Errorf("update in the clone with nothing changed: %v, want every skill unchanged", rep.statuses())
	}

	// One byte changed: refused in a fresh clone, nothing of it written.
	for _, skill := range skills {
		t.Run("changed/"+skill, func(t *testing.T) {
			undo := changeOneByte(t, ctx, h, up.base, upM.DocsDir, skill)
			defer undo()
			rep := frozenRefusesOnly(t, clone(), skill, lock)
			if len(rep.Results) != len(skills) {
				t.Errorf("%d results, want %d: %v", len(rep.Results), len(skills), rep.statuses())
			}
		})
	}
}

// changeOneByte flips one byte of what the source of skill serves (for
// the index, republished with the new digest, as a publisher would), and
// returns what puts it back. An MCP server's change is waited for until
// its listing serves it.
func changeOneByte(t *testing.T, ctx context.Context, h *httpSources, base, docs, skill string) (undo func()) {
	t.Helper()
	if s, ok := h.served[skill]; ok {
		orig := s.site.get(s.path)
		changed := bytes.Clone(orig)
		changed[len(changed)/2] ^= 0x20
		s.site.put(s.path, changed)
		if skill == "indexed" {
			h.reindex()
		}
		return func() {
			s.site.put(s.path, orig)
			if skill == "indexed" {
				h.reindex()
			}
		}
	}
	rel := skill + "/SKILL.md"
	if skill == "pdf" {
		rel = "pdf/assets/logo.bin"
	}
	file := filepath.Join(docs, filepath.FromSlash(rel))
	orig := []byte(bridgeSkills[rel])
	changed := bytes.Clone(orig)
	changed[len(changed)-2] ^= 0x20
	set := func(data []byte) {
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// The server rescans once a second: wait until it serves data.
		name, inSkill, _ := strings.Cut(rel, "/")
		if !waitUntil(60*time.Second, func() bool {
			return serveOf(t, ctx, base)[name][inSkill].Digest == digestOf(data)
		}) {
			t.Fatalf("the MCP server never served the new %s", rel)
		}
	}
	set(changed)
	return func() { set(orig) }
}
