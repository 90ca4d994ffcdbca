package mcp

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/nametest"
	"github.com/ccski/ccski/pipeline"
)

// TestCatalogueNamesAreShortestThatLoad checks that the catalogue names
// each skill of the shared name table by the shortest name that loads
// exactly it through the skill tool's lookup: the bare name when it is
// the only skill's, the plugin-qualified name when two plugins share it,
// the host's name for a skill Claude Code names after its folder.
func TestCatalogueNamesAreShortestThatLoad(t *testing.T) {
	snap := nametest.Snapshot(t.TempDir())
	skills := snap.Skills()
	names := CatalogueNames(snap, skills)
	cl, cx := "claude", "codex"
	want := map[string]string{
		cl + "@project:pdf":                 "pdf",
		cx + ":changelog":                   "changelog",
		cl + ":@example-skills:xlsx":        "xlsx",
		cl + ":@example-skills:review":      "example-skills:review",
		cl + ":@tools:review":               "tools:review",
		cl + ":video-downloader":            "video-downloader",
		cx + ":youtube-downloader":          "youtube-downloader",
		cl + ":@database-design:postgresql": "postgresql",
	}
	for i, r := range skills {
		if w, ok := want[r.ID]; ok && names[i] != w {
			t.Errorf("%s is named %q, want %q", r.ID, names[i], w)
		}
		if got, err := snap.Load(names[i], pipeline.TypeSkill); err != nil || got != r {
			t.Errorf("%s is named %q, which loads %v (error %v)", r.ID, names[i], got, err)
		}
	}
	if len(skills) != len(want) {
		t.Errorf("the table has %d visible skills, the test expects %d", len(skills), len(want))
	}
}

// machineLoads is a count of loads of some skills of recs: the last six
// of the largest plugin, which the round-robin over groups reaches last.
func machineLoads(recs []*pipeline.Record) map[string]int {
	loads := map[string]int{}
	for i := len(recs) - 1; i >= 0 && len(loads) < 6; i-- {
		if r := recs[i]; r.Plugin != nil && r.Plugin.Plugin == "scientific-skills" {
			loads[r.ID] = 10 + len(loads)
		}
	}
	return loads
}

// described returns the skills of recs that desc gives a description
// (a full entry or a line with one), by index, names being the names the
// catalogue printed.
func described(t *testing.T, recs []*pipeline.Record, names []string, desc string) map[int]bool {
	t.Helper()
	at := map[string]int{}
	for i, n := range names {
		at[n] = i
	}
	s := parseCatalogue(t, desc)
	out := map[int]bool{}
	for _, n := range s.full {
		out[at[n]] = true
	}
	for _, l := range s.lines {
		if l[1] != "" {
			out[at[l[0]]] = true
		}
	}
	return out
}

// TestCatalogueFavoursProjectThenUsed checks, on a machine-sized set of
// skills (347, most of them in plugins) at the default budget, that
// descriptions go first to the project's skills, then to the skills
// loaded most here, and that short names leave room for more
// descriptions than ids did (issue 22, point 8).
func TestCatalogueFavoursProjectThenUsed(t *testing.T) {
	recs := machineSkills(358) // 347 skills
	snap := snapOf(recs)
	loads := machineLoads(recs)
	const budget = 16000

	before, bst := Catalogue(recs, budget)
	after, ast := SkillDescription(snap, budget, loads)
	t.Logf("%d skills at budget %d: before (ids, round-robin) %d named, %d described (%d full); after (shortest names, favoured) %d named, %d described (%d full)",
		len(recs), budget, bst.Named(), bst.Full+bst.Short, bst.Full, ast.Named(), ast.Full+ast.Short, ast.Full)
	if ast.Named() != len(recs) {
		t.Errorf("%d of %d skills named, want all", ast.Named(), len(recs))
	}
	if ast.Full+ast.Short <= bst.Full+bst.Short {
		t.Errorf("%d skills described, no more than the %d described with ids", ast.Full+ast.Short, bst.Full+bst.Short)
	}
	names := CatalogueNames(snap, recs)
	got := described(t, recs, names, after)
	for _, i := range Favour(recs, loads) {
		if !got[i] {
			t.Errorf("%s (%s, %d loads) has no description", recs[i].ID, recs[i].Location, loads[recs[i].ID])
		}
	}
	old := described(t, recs, ids(recs), before)
	for id := range loads {
		i := slices.IndexFunc(recs, func(r *pipeline.Record) bool { return r.ID == id })
		if old[i] {
			t.Errorf("%s was described before any favour: the test does not show the favour", id)
		}
	}

	// So tight a budget that only a few descriptions fit, each as long as
	// the others: they are the project's, then the most loaded, in that
	// order.
	same := make([]*pipeline.Record, len(recs))
	for i, r := range recs {
		c := *r
		c.Description = strings.Repeat("word ", 40)
		same[i] = &c
	}
	snap = snapOf(same)
	fav := Favour(same, loads)
	for tight := 4000; tight < budget; tight += 50 {
		desc, st := SkillDescription(snap, tight, loads)
		if st.Omitted == 0 && st.Short > 0 && st.Short < len(fav) {
			got := described(t, same, CatalogueNames(snap, same), desc)
			want := map[int]bool{}
			for _, i := range fav[:st.Short] {
				want[i] = true
			}
			if !maps.Equal(got, want) {
				t.Errorf("budget %d: %d descriptions, of %v; want the first favoured, %v", tight, st.Short, got, fav[:st.Short])
			}
			return
		}
	}
	t.Fatal("found no budget giving a few descriptions")
}

// TestFavourOrder checks the order of Favour: the project's skills in
// priority order, then the loaded ones by count, ties in priority order;
// skills never loaded are not favoured.
func TestFavourOrder(t *testing.T) {
	var recs []*pipeline.Record
	for i, loc := range []pipeline.Location{pipeline.LocationUser, pipeline.LocationProject, pipeline.LocationUser,
		pipeline.LocationUser, pipeline.LocationProject, pipeline.LocationUser} {
		recs = append(recs, &pipeline.Record{Name: fmt.Sprint("s", i), Agent: "claude", Location: loc})
	}
	pipeline.AssignIDs(recs)
	loads := map[string]int{recs[0].ID: 2, recs[2].ID: 5, recs[3].ID: 2, recs[4].ID: 9}
	if got, want := Favour(recs, loads), []int{1, 4, 2, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("Favour = %v, want %v", got, want)
	}
}

func ids(recs []*pipeline.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}
