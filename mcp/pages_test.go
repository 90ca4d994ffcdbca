package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/filestamp"
)

// rawListPage is a skills/list result with its entries as the bytes the
// server sent.
type rawListPage struct {
	sdk.ResultBase
	Skills     json.RawMessage `json:"skills"`
	NextCursor string          `json:"nextCursor,omitempty"`
}

// rawPages lists every page of srv's skills/list on a new session and
// returns each page's entries as sent.
func rawPages(t *testing.T, ctx context.Context, srv *Server) []rawListPage {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "raw-pages", Version: "1"}, nil)
	if err := sdk.AddSendingCustomMethod[*listSkillsParams, *rawListPage](c, "skills/list"); err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs := connectClient(t, c, ct, "")
	defer cs.Close()
	var out []rawListPage
	p := &listSkillsParams{}
	for {
		res, err := sdk.CallCustomMethod[*listSkillsParams, *rawListPage](ctx, cs, "skills/list", p)
		if err != nil {
			t.Fatalf("skills/list: %v", err)
		}
		out = append(out, *res)
		if res.NextCursor == "" {
			return out
		}
		p = &listSkillsParams{Cursor: res.NextCursor}
	}
}

// samePages reports the pages of got that differ from want's.
func samePages(t *testing.T, what string, got, want []rawListPage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d pages, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i].Skills, want[i].Skills) || got[i].NextCursor != want[i].NextCursor {
			t.Errorf("%s: page %d differs:\n got %.300s…\nwant %.300s…", what, i+1, got[i].Skills, want[i].Skills)
		}
	}
}

// TestSkillsListPagesKept checks the pages kept per snapshot: a listing
// again is answered with the kept bytes, which are those a new server
// builds for the same tree; an edit to a skill's SKILL.md, or a file
// added to a skill, gives its page as a new server builds it, and leaves
// the other pages kept; a new snapshot drops every page.
func TestSkillsListPagesKept(t *testing.T) {
	var specs []skillSpec
	for i := range 2*skillsPageSize + 50 {
		specs = append(specs, skillSpec{provider: "codex", name: fmt.Sprintf("s%04d", i), desc: "Skill."})
	}
	recs := makeRecords(t, t.TempDir(), specs...)
	snap := snapOf(recs)
	srv := New(snap, Options{Logger: discard()})
	ctx := testCtx(t, 60*time.Second)
	hits := func() int64 { return srv.skills.pageHits.Load() }

	first := rawPages(t, ctx, srv)
	if len(first) != 3 || hits() != 0 {
		t.Fatalf("%d pages, %d kept pages served; want 3 pages built", len(first), hits())
	}
	// The result is the one the entries gave when each was encoded in
	// the result by reflection.
	for i, pg := range first {
		var items []json.RawMessage
		if err := json.Unmarshal(pg.Skills, &items); err != nil {
			t.Fatalf("page %d: %v", i+1, err)
		}
		entries := make([]*extEntry, len(items))
		for j, item := range items {
			entries[j] = &extEntry{Wire: item}
		}
		want, err := marshalJSON(&listSkillsResult{Skills: entries, NextCursor: pg.NextCursor})
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalJSON(&listSkillsPage{Skills: pg.Skills, NextCursor: pg.NextCursor})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("page %d: the kept JSON gives another result than its entries:\n got %.300s\nwant %.300s", i+1, got, want)
		}
	}
	samePages(t, "listed again", rawPages(t, ctx, srv), first)
	if hits() != 3 {
		t.Errorf("%d kept pages served listing again, want 3", hits())
	}
	samePages(t, "a new server's", rawPages(t, ctx, New(snap, Options{Logger: discard()})), first)

	// An edit on page 2 (a new description), a file added on page 3.
	writeFile(t, recs[skillsPageSize+50].File, skillMD(recs[skillsPageSize+50].Name, "Skill, edited."))
	writeFile(t, filepath.Join(recs[2*skillsPageSize+10].Dir, "references", "new.md"), []byte("# New\n"))
	edited := rawPages(t, ctx, srv)
	if hits() != 4 {
		t.Errorf("%d kept pages served after the edits, want 4 (the first page only)", hits())
	}
	samePages(t, "after the edits, beside a new server's", edited, rawPages(t, ctx, New(snap, Options{Logger: discard()})))
	for i := range 3 {
		if changed := !bytes.Equal(edited[i].Skills, first[i].Skills); changed != (i > 0) {
			t.Errorf("page %d changed by the edits: %v, want %v", i+1, changed, i > 0)
		}
	}
	samePages(t, "after the edits, again", rawPages(t, ctx, srv), edited)
	if hits() != 7 {
		t.Errorf("%d kept pages served, want 7 (the pages built again are kept)", hits())
	}

	srv.Update(snapOf(recs)) // a rescan: a new snapshot
	samePages(t, "on a new snapshot", rawPages(t, ctx, srv), edited)
	if hits() != 7 {
		t.Errorf("%d kept pages served, want 7 (a new snapshot's pages are built)", hits())
	}
}

// TestSkillsListPagesBounded checks that the pages kept stay within
// maxPageBytes: pages beyond it are built per request, and are the same.
func TestSkillsListPagesBounded(t *testing.T) {
	var specs []skillSpec
	for i := range 2*skillsPageSize + 50 {
		specs = append(specs, skillSpec{provider: "codex", name: fmt.Sprintf("s%04d", i), desc: "Skill."})
	}
	recs := makeRecords(t, t.TempDir(), specs...)
	snap := snapOf(recs)
	ctx := testCtx(t, 60*time.Second)
	first := rawPages(t, ctx, New(snap, Options{Logger: discard()}))

	old := maxPageBytes
	t.Cleanup(func() { maxPageBytes = old })
	// Room for the first two pages (and their cursors and sums), not the
	// third.
	maxPageBytes = len(first[0].Skills) + len(first[1].Skills) + 4096
	srv := New(snap, Options{Logger: discard()})
	rawPages(t, ctx, srv)
	samePages(t, "within the bound", rawPages(t, ctx, srv), first)
	if n := srv.skills.pageHits.Load(); n != 2 {
		t.Errorf("%d kept pages served, want 2", n)
	}
	srv.skills.mu.Lock()
	kept := srv.skills.pages.bytes
	srv.skills.mu.Unlock()
	if kept > maxPageBytes {
		t.Errorf("%d bytes of pages kept, over the bound of %d", kept, maxPageBytes)
	}
}

// TestSkillsFrontmatterKeptAcrossRestarts: with Options.SkillDigests, the
// frontmatter of each SKILL.md is kept beside the digests, so that the
// first skills/list of a new server reads no SKILL.md that did not change
// and gives the same bytes; an edited SKILL.md is read again, alone;
// frontmatter another build of ccski parsed is not used (its digests
// are).
func TestSkillsFrontmatterKeptAcrossRestarts(t *testing.T) {
	recs, lint, _, _ := extensionSkills(t)
	// A SKILL.md whose frontmatter does not parse: why is kept too.
	recs = append(recs, makeRecords(t, t.TempDir(), skillSpec{provider: "codex", name: "broken", desc: "Broken.",
		body: "---\nname: broken\ndescription: [unclosed\n---\n"})...)
	time.Sleep(filestamp.Window + 100*time.Millisecond) // until a stat can vouch for the bytes (change times too)
	file := filepath.Join(t.TempDir(), "skills.bin")
	ctx := testCtx(t, 30*time.Second)
	list := func() (*Server, []rawListPage) {
		srv := New(snapOf(recs), Options{Logger: discard(), SkillDigests: file})
		pages := rawPages(t, ctx, srv)
		st := &srv.skills
		deadline := time.Now().Add(10 * time.Second)
		for st.saving.Load() || st.files.Changed() || st.frontsAdded.Load() {
			if time.Now().After(deadline) {
				t.Fatal("the digests and frontmatter were not saved")
			}
			time.Sleep(10 * time.Millisecond)
		}
		return srv, pages
	}
	first, want := list()
	read := first.skills.frontReads.Load()
	if read == 0 {
		t.Fatal("the first server read no SKILL.md")
	}

	second, got := list()
	if n := second.skills.frontReads.Load(); n != 0 {
		t.Errorf("the first listing after a restart read %d SKILL.md files, want none", n)
	}
	samePages(t, "after a restart", got, want)

	writeFile(t, lint.File, skillMD(lint.Name, "Edited after a restart."))
	time.Sleep(filestamp.Window + 100*time.Millisecond)
	third, edited := list()
	if n := third.skills.frontReads.Load(); n != 1 {
		t.Errorf("after an edit the listing read %d SKILL.md files, want 1", n)
	}
	samePages(t, "after an edit, beside a server without the file", edited, rawPages(t, ctx, New(snapOf(recs), Options{Logger: discard()})))

	old := parserBuild
	parserBuild = "another build"
	fourth, got := list()
	parserBuild = old
	if n, h := fourth.skills.frontReads.Load(), fourth.skills.files.Stats().Hashed; n != read || h != 0 {
		t.Errorf("after a restart on another build: %d SKILL.md files read, %d files hashed; want %d read, none hashed", n, h, read)
	}
	samePages(t, "after a restart on another build", got, edited)
}
