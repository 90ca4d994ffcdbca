package mcp

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/pipeline"
)

// manySkills writes n skills, each with a word of its own in the body
// ("marker<i>") so that skills_search can find any one of them.
func manySkills(t *testing.T, n int) []*pipeline.Record {
	t.Helper()
	providers := []string{"claude", "codex", "agents", "gemini"}
	specs := make([]skillSpec, n)
	for i := range specs {
		name := fmt.Sprintf("skill-%04d", i)
		desc := fmt.Sprintf("Handle task number %d: a description long enough to be realistic about what it does.", i)
		specs[i] = skillSpec{provider: providers[i%len(providers)], name: name, desc: desc,
			body: fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n# %s\n\nmarker%04d lives here.\n", name, desc, name, i)}
	}
	return makeRecords(t, t.TempDir(), specs...)
}

// listedNames returns the <name> entries of a description, in order.
func listedNames(desc string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<name>([^<]*)</name>`).FindAllStringSubmatch(desc, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestCatalogueWithinBudget(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "codex", name: "a", desc: "First."},
		skillSpec{provider: "codex", name: "b", desc: "Second."})
	full := Describe(recs)
	n := utf8.RuneCountInString(full)
	for _, budget := range []int{0, -1, n, n + 1000} {
		if got, omitted := Catalogue(recs, budget); got != full || omitted != 0 {
			t.Errorf("budget %d: omitted %d, description differs from Describe: %v", budget, omitted, got != full)
		}
	}
	// One character short: the note takes more room than an entry, so
	// nothing fits and both are left out.
	if got, omitted := Catalogue(recs, n-1); omitted != 2 || len(listedNames(got)) != 0 {
		t.Errorf("budget one under: omitted %d, listed %v", omitted, listedNames(got))
	}
	if none, omitted := Catalogue(nil, 10); none != Describe(nil) || omitted != 0 {
		t.Errorf("no skills under a tiny budget: omitted %d, %q", omitted, none)
	}
}

func TestCatalogueCut(t *testing.T) {
	recs := manySkills(t, 3000)
	const budget = 16000
	desc, omitted := Catalogue(recs, budget)
	if n := utf8.RuneCountInString(desc); n > budget {
		t.Fatalf("description is %d characters, over the %d budget", n, budget)
	}
	names := listedNames(desc)
	if len(names) == 0 || omitted != len(recs)-len(names) {
		t.Fatalf("%d listed, %d omitted, of %d", len(names), omitted, len(recs))
	}
	for i, name := range names { // a prefix, in priority order
		if name != recs[i].ID {
			t.Fatalf("entry %d is %s, want %s", i, name, recs[i].ID)
		}
	}
	// As many as fit: one more entry would pass the budget.
	if next := cutDescription(recs, len(names)+1); utf8.RuneCountInString(next) <= budget {
		t.Errorf("%d entries listed, but %d fit", len(names), len(names)+1)
	}
	if !strings.Contains(desc, fmt.Sprintf("%d more skills are installed but not listed above", omitted)) ||
		!strings.Contains(desc, "call the skills_search tool") {
		t.Errorf("the description does not state the remainder and point to skills_search:\n%s", desc[len(desc)-400:])
	}
	if strings.Contains(desc, "Only use skills listed") || !strings.Contains(desc, cutListed) {
		t.Error("the preamble still tells the model to use listed skills only")
	}
	if !strings.HasSuffix(desc[:strings.Index(desc, "</available_skills>")], "</skill>\n") {
		t.Error("the block does not end on a whole entry")
	}

	// A budget too small for any entry keeps the note and no placeholder.
	tiny, omitted := Catalogue(recs, 100)
	if len(listedNames(tiny)) != 0 || omitted != len(recs) || strings.Contains(tiny, "No skills are installed") ||
		!strings.Contains(tiny, "3000 more skills are installed") {
		t.Errorf("tiny budget: omitted %d, description:\n%s", omitted, tiny)
	}
	long := strings.Repeat("Long description. ", 40)
	two := makeRecords(t, t.TempDir(), skillSpec{provider: "codex", name: "x", desc: long},
		skillSpec{provider: "codex", name: "y", desc: long})
	if one, omitted := Catalogue(two, utf8.RuneCountInString(cutDescription(two, 1))); omitted != 1 ||
		!strings.Contains(one, "1 more skill is installed") || !slices.Equal(listedNames(one), []string{"codex:x"}) {
		t.Errorf("singular note: omitted %d\n%s", omitted, one)
	}
}

func TestCatalogueServer(t *testing.T) {
	recs := manySkills(t, 3000)
	const budget = 16000
	srv := New(snapOf(recs), Options{Logger: discard(), Catalog: budget})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 60*time.Second)
			cs := connect(t, srv, pv, nil)
			tools := listToolsByName(t, ctx, cs)
			if tools[ToolSkillsSearch] == nil || len(tools) != 2 {
				t.Fatalf("tools %v, want skill and the automatic skills_search", keysOf(tools))
			}
			desc := tools[ToolName].Description
			if n := utf8.RuneCountInString(desc); n > budget {
				t.Fatalf("skill description is %d characters, over %d", n, budget)
			}
			want, omitted := Catalogue(recs, budget)
			if desc != want || omitted == 0 {
				t.Fatalf("skill description is not the budgeted catalogue (omitted %d)", omitted)
			}
			// Every skill still loads by name, listed or not.
			step := 1
			if pv != "" {
				step = 7 // the other era: a spread sample
			}
			for i := 0; i < len(recs); i += step {
				r := recs[i]
				res, err := call(ctx, cs, map[string]any{"name": r.ID})
				if err != nil || res.IsError {
					t.Fatalf("loading %s: %v %v", r.ID, err, res)
				}
				if text := resultText(t, res); !strings.HasPrefix(text, "Loading: "+r.ID+"\n") {
					t.Fatalf("loading %s gave %.60q", r.ID, text)
				}
			}
			// The last skill, far past the cut, is found by search.
			last := recs[len(recs)-1]
			res := callNamed(t, ctx, cs, ToolSkillsSearch, map[string]any{"query": "marker2999"})
			got := structured[SearchOutput](t, tools[ToolSkillsSearch], res)
			if len(got.Results) != 1 || got.Results[0].ID != last.ID {
				t.Errorf("search for the last skill's word found %v", resultIDs(got.Results))
			}
		})
	}
}

func TestCatalogueSearchFollowsTheCut(t *testing.T) {
	few := manySkills(t, 2)
	many := manySkills(t, 60)
	budget := utf8.RuneCountInString(Describe(few)) + 10
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			srv := New(snapOf(few), Options{Logger: discard(), Catalog: budget})
			ctx := testCtx(t, 10*time.Second)
			var changes atomic.Int64
			cs := connect(t, srv, pv, &sdk.ClientOptions{
				ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changes.Add(1) },
			})
			has := func() bool { return listToolsByName(t, ctx, cs)[ToolSkillsSearch] != nil }
			if has() {
				t.Fatal("skills_search served while the whole list fits")
			}
			srv.Update(snapOf(many))
			if !eventually(2*time.Second, func() bool { return changes.Load() >= 1 }) {
				t.Fatal("no tools/list_changed when the list was cut")
			}
			if !has() {
				t.Fatal("skills_search not served once the list is cut")
			}
			before := changes.Load()
			srv.Update(snapOf(few))
			if !eventually(2*time.Second, func() bool { return changes.Load() > before }) {
				t.Fatal("no tools/list_changed when the list fitted again")
			}
			if has() {
				t.Fatal("skills_search still served after the list fitted again")
			}
		})
	}

	// Configured, it stays when the cut goes away.
	srv := New(snapOf(many), Options{Logger: discard(), Catalog: budget, Tools: []string{ToolSkillsSearch}})
	srv.Update(snapOf(few))
	ctx := testCtx(t, 10*time.Second)
	if listToolsByName(t, ctx, connect(t, srv, "", nil))[ToolSkillsSearch] == nil {
		t.Error("a configured skills_search was removed when the list fitted")
	}
}
