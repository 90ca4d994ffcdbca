package integration

// The body index of content searches (internal/search.Index): built by
// the server's first skills_search, kept in ccski's cache folder, used by
// `ccski search --content` after it, and brought up to date when a body
// changes.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/filestamp"
)

// searchContent runs `ccski search --content --json query` and returns the
// ids found, best first, and their snippets.
func searchContent(t *testing.T, m *machine.Machine, query string) (ids, snippets []string) {
	t.Helper()
	r := run(t, m, "search", "--content", "--json", query)
	mustOK(t, r)
	var hits []struct {
		ID      string `json:"id"`
		Snippet string `json:"snippet"`
	}
	decodeOnly(t, r, &hits)
	for _, h := range hits {
		ids = append(ids, h.ID)
		snippets = append(snippets, h.Snippet)
	}
	return ids, snippets
}

func TestSearchIndexSharedAndKeptUpToDate(t *testing.T) {
	m := newMachine(t)
	dir := filepath.Join(m.Home, ".agents", "skills", "zeta")
	writeSkill(t, dir, "zeta", "A skill found by its body alone.", "Use the quasarword procedure.")
	index := filepath.Join(m.Home, ".cache", "ccski", "search.bin")

	// The server's first skills_search builds the index and saves it.
	ctx := mcpContext(t)
	cs, stderr := startToolServer(t, ctx, m, "", nil, "--tools", "skills_search")
	tools := toolsByName(t, ctx, cs)
	var found struct {
		Total   int
		Results []struct{ ID, Excerpt string }
	}
	callStructured(t, ctx, cs, tools["skills_search"], map[string]any{"query": "QUASARWORD"}, &found)
	if found.Total != 1 || found.Results[0].ID != "agents:zeta" || !strings.Contains(found.Results[0].Excerpt, "quasarword procedure") {
		t.Fatalf("skills_search quasarword: %+v\nstderr:\n%s", found, stderr)
	}
	cs.Close()
	if st, err := os.Stat(index); err != nil || st.Size() == 0 {
		t.Fatalf("the server saved no search index at %s: %v", index, err)
	}

	// The CLI finds the same from the index the server saved.
	if ids, snippets := searchContent(t, m, "quasarword"); len(ids) != 1 || ids[0] != "agents:zeta" ||
		!strings.Contains(snippets[0], "quasarword procedure") {
		t.Fatalf("search --content quasarword after the server: %v %q", ids, snippets)
	}

	// A changed body is read again: the old word is gone, the new found.
	writeSkill(t, dir, "zeta", "A skill found by its body alone.", "Use the nebulaword procedure now.")
	if ids, _ := searchContent(t, m, "quasarword"); len(ids) != 0 {
		t.Errorf("search --content quasarword after the edit found %v, want nothing", ids)
	}
	if ids, _ := searchContent(t, m, "nebulaword"); len(ids) != 1 || ids[0] != "agents:zeta" {
		t.Errorf("search --content nebulaword after the edit found %v, want agents:zeta", ids)
	}

	// A corrupt index costs reading the bodies, nothing else.
	if err := os.WriteFile(index, []byte("ccski search index\n\x01garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ids, _ := searchContent(t, m, "nebulaword"); len(ids) != 1 || ids[0] != "agents:zeta" {
		t.Errorf("search --content nebulaword with a corrupt index found %v, want agents:zeta", ids)
	}

	// The server, restarted, serves the edit from the index the CLI saved.
	cs2, stderr2 := startToolServer(t, ctx, m, "", nil, "--tools", "skills_search")
	callStructured(t, ctx, cs2, toolsByName(t, ctx, cs2)["skills_search"], map[string]any{"query": "nebulaword"}, &found)
	if found.Total != 1 || found.Results[0].ID != "agents:zeta" {
		t.Errorf("skills_search nebulaword after a restart: %+v\nstderr:\n%s", found, stderr2)
	}
}

// TestSearchIndexKeptAcrossProjects runs `ccski search --content` in two
// projects, each with a skill of its own, and wants the shared index file
// to keep both: a run saves its own docs merged with the others' still
// valid, rather than replacing them. An index file that cannot be read
// is told on stderr, by the CLI and by the server, and costs nothing
// else.
func TestSearchIndexKeptAcrossProjects(t *testing.T) {
	m := newMachine(t)
	index := filepath.Join(m.Home, ".cache", "ccski", "search.bin")
	writeSkill(t, filepath.Join(m.Workspace, ".agents", "skills", "alpha-one"), "alpha-one", "Project one's.", "Use quasarone.")
	other := filepath.Join(t.TempDir(), "other")
	if err := os.MkdirAll(filepath.Join(other, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(other, ".agents", "skills", "beta-two"), "beta-two", "Project two's.", "Use quasartwo.")
	// A file changed within filestamp.Window is read again by every run
	// (its stamp has not settled), and not worth keeping: let them settle.
	time.Sleep(filestamp.Window + 100*time.Millisecond)

	if ids, _ := searchContent(t, m, "quasarone"); len(ids) != 1 || !strings.HasSuffix(ids[0], "alpha-one") {
		t.Fatalf("search --content quasarone in project one: %v", ids)
	}
	r := ccski(t, m, runOpts{dir: other}, std(m, "search", "--content", "--json", "quasartwo")...)
	mustOK(t, r)
	if !strings.Contains(r.stdout, "beta-two") || strings.Contains(r.stderr, "warning") {
		t.Fatalf("search --content quasartwo in project two:\n%s", r)
	}
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	for _, skill := range []string{"alpha-one", "beta-two"} {
		if !strings.Contains(string(data), skill+"/SKILL.md") {
			t.Errorf("the index file has no doc of %s after both projects searched: one run dropped the other's", skill)
		}
	}

	// A file that cannot be read: a warning naming it, and the bodies read.
	if err := os.WriteFile(index, []byte("ccski search index\n\x01garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = run(t, m, "search", "--content", "--json", "quasarone")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "alpha-one") || !strings.Contains(r.stderr, "warning: body index "+index+" not read") {
		t.Errorf("search --content with a corrupt index:\n%s", r)
	}
	if err := os.WriteFile(index, []byte("ccski search index\n\x01garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := mcpContext(t)
	cs, stderr := startToolServer(t, ctx, m, "", nil, "--tools", "skills_search")
	var found struct{ Total int }
	callStructured(t, ctx, cs, toolsByName(t, ctx, cs)["skills_search"], map[string]any{"query": "quasarone"}, &found)
	cs.Close()
	if found.Total != 1 || !strings.Contains(stderr.String(), "search index not read") {
		t.Errorf("skills_search with a corrupt index found %d, stderr:\n%s", found.Total, stderr)
	}
}
