package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var examplePlugin = &PluginInfo{Plugin: "example-skills", Marketplace: "anthropic-agent-skills", Version: "1.0.0"}

// r builds a record: provider, location and name, plus a plugin for
// plugin-location records whose name has a "<plugin>:" prefix.
func r(provider string, loc Location, name string) *Record {
	rec := &Record{Agent: provider, Location: loc, Name: name, Description: "d"}
	if loc == LocationPlugin {
		p := *examplePlugin
		p.Plugin, _, _ = strings.Cut(name, ":")
		rec.Plugin = &p
	}
	return rec
}

func ids(records []*Record) []string {
	out := make([]string, len(records))
	for i, rec := range records {
		out[i] = rec.ID
	}
	return out
}

func TestAssignIDs(t *testing.T) {
	tests := []struct {
		name    string
		records []*Record
		want    []string
	}{
		{"empty", nil, []string{}},
		{
			"unique base ids",
			[]*Record{
				r("claude", LocationUser, "pdf"),
				r("codex", LocationUser, "pdf"),
				r("claude", LocationProject, "docx"),
				r("claude", LocationPlugin, "example-skills:pdf"),
			},
			[]string{"claude:pdf", "codex:pdf", "claude:docx", "claude:@example-skills:pdf"},
		},
		{
			"location-qualified on collision",
			[]*Record{
				r("claude", LocationUser, "pdf"),
				r("claude", LocationProject, "pdf"),
				r("codex", LocationUser, "pdf"),
			},
			[]string{"claude@user:pdf", "claude@project:pdf", "codex:pdf"},
		},
		{
			"ordinals when the location collides too",
			[]*Record{
				r("claude", LocationProject, "pdf"),
				r("claude", LocationUser, "pdf"),
				r("claude", LocationProject, "pdf"),
				r("claude", LocationProject, "pdf"),
			},
			[]string{"claude@project:pdf", "claude@user:pdf", "claude@project:pdf#2", "claude@project:pdf#3"},
		},
		{
			"case-insensitive collisions",
			[]*Record{
				r("claude", LocationUser, "PDF"),
				r("claude", LocationProject, "pdf"),
				r("claude", LocationUser, "Pdf"),
			},
			[]string{"claude@user:PDF", "claude@project:pdf", "claude@user:Pdf#2"},
		},
		{
			"plugin collisions",
			[]*Record{
				r("claude", LocationPlugin, "example-skills:pdf"),
				r("claude", LocationPlugin, "example-skills:pdf"),
				r("claude", LocationUser, "example-skills:pdf"),
			},
			[]string{"claude@plugin:@example-skills:pdf", "claude@plugin:@example-skills:pdf#2", "claude:example-skills:pdf"},
		},
		{
			"custom prefix does not collide with a provider id",
			[]*Record{
				r("custom", LocationCustom, "claude:pdf"),
				r("claude", LocationUser, "pdf"),
			},
			[]string{"custom:claude:pdf", "claude:pdf"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			AssignIDs(tc.records)
			got := ids(tc.records)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			checkUniqueIDs(t, tc.records)

			// Deterministic: fresh copies of the same records, and a second
			// call on the same records, give the same ids.
			again := make([]*Record, len(tc.records))
			for i, rec := range tc.records {
				c := *rec
				c.ID = ""
				again[i] = &c
			}
			AssignIDs(again)
			AssignIDs(tc.records)
			if diff := cmp.Diff(tc.want, ids(again)); diff != "" {
				t.Errorf("fresh copies (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, ids(tc.records)); diff != "" {
				t.Errorf("second call (-want +got):\n%s", diff)
			}
		})
	}
}

func checkUniqueIDs(t *testing.T, records []*Record) {
	t.Helper()
	seen := map[string]bool{}
	for _, rec := range records {
		k := strings.ToLower(rec.ID)
		if rec.ID == "" || seen[k] {
			t.Errorf("id %q is empty or not unique", rec.ID)
		}
		seen[k] = true
	}
}

// TestAssignIDsIgnoresEarlierIDs checks that ids depend only on the records
// in the slice, not on ids a previous call assigned to a smaller set.
func TestAssignIDsIgnoresEarlierIDs(t *testing.T) {
	user := r("claude", LocationUser, "pdf")
	AssignIDs([]*Record{user})
	if user.ID != "claude:pdf" {
		t.Fatalf("alone: %q", user.ID)
	}
	project := r("claude", LocationProject, "pdf")
	user2 := r("claude", LocationUser, "pdf")
	user2.ID = "claude@user:pdf" // stale, as if from another run
	all := []*Record{user, project, user2}
	AssignIDs(all)
	want := []string{"claude@user:pdf", "claude@project:pdf", "claude@user:pdf#2"}
	if diff := cmp.Diff(want, ids(all)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	checkUniqueIDs(t, all)
}

func TestAssignIDsMany(t *testing.T) {
	var records []*Record
	for i := range 200 {
		loc := []Location{LocationUser, LocationProject, LocationCustom}[i%3]
		name := fmt.Sprintf("skill-%d", i%23)
		if i%2 == 0 {
			name = strings.ToUpper(name)
		}
		records = append(records, r([]string{"claude", "codex"}[i%2], loc, name))
	}
	AssignIDs(records)
	checkUniqueIDs(t, records)
	x := NewIndex(records)
	for _, rec := range records {
		got, err := x.Resolve(rec.ID)
		if err != nil || got != rec {
			t.Errorf("Resolve(%q) = %v, %v; want the record itself", rec.ID, got, err)
		}
	}
}

// catalog is a realistic set of records with ids assigned.
func catalog() []*Record {
	recs := []*Record{
		r("claude", LocationUser, "pdf"),                    // claude@user:pdf
		r("claude", LocationProject, "pdf"),                 // claude@project:pdf
		r("codex", LocationUser, "pdf"),                     // codex:pdf
		r("claude", LocationPlugin, "example-skills:pdf"),   // claude:@example-skills:pdf
		r("claude", LocationPlugin, "document-skills:xlsx"), // claude:@document-skills:xlsx
		r("claude", LocationUser, "Docx"),                   // claude:Docx
		r("custom", LocationCustom, "docs:guide"),           // custom:docs:guide
		r("custom", LocationCustom, "claude:docx"),          // custom:claude:docx
		r("agents", LocationProject, "frontend-design"),     // agents:frontend-design
		r("gemini", LocationUser, "mcp-builder"),            // gemini:mcp-builder
		r("openclaw", LocationProject, "webapp-testing"),    // openclaw:webapp-testing
		r("openclaw", LocationProject, "webapp-testing"),    // openclaw@project:webapp-testing#2
		r("claude", LocationPlugin, "example-skills:guide"), // claude:@example-skills:guide
		r("codex", LocationUser, "skill-creator"),           // codex:skill-creator
		r("claude", LocationProject, "slack-gif-creator"),   // claude:slack-gif-creator
		r("claude", LocationProject, "internal-comms"),      // claude:internal-comms
		r("claude", LocationUser, "brand-guidelines"),       // claude:brand-guidelines
		r("claude", LocationUser, "theme-factory"),          // claude:theme-factory
		r("claude", LocationUser, "algorithmic-art"),        // claude:algorithmic-art
		r("claude", LocationUser, "canvas-design"),          // claude:canvas-design
	}
	AssignIDs(recs)
	return recs
}

func TestCatalogIDs(t *testing.T) {
	want := []string{
		"claude@user:pdf", "claude@project:pdf", "codex:pdf", "claude:@example-skills:pdf",
		"claude:@document-skills:xlsx", "claude:Docx", "custom:docs:guide", "custom:claude:docx",
		"agents:frontend-design", "gemini:mcp-builder", "openclaw@project:webapp-testing",
		"openclaw@project:webapp-testing#2", "claude:@example-skills:guide", "codex:skill-creator",
		"claude:slack-gif-creator", "claude:internal-comms", "claude:brand-guidelines",
		"claude:theme-factory", "claude:algorithmic-art", "claude:canvas-design",
	}
	if diff := cmp.Diff(want, ids(catalog())); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

func TestResolve(t *testing.T) {
	x := NewIndex(catalog())
	tests := []struct {
		name      string
		want      string   // id of the record found
		ambiguous []string // ids of an AmbiguousError
	}{
		// Ids, exactly and case-insensitively.
		{name: "claude@user:pdf", want: "claude@user:pdf"},
		{name: "CLAUDE@PROJECT:PDF", want: "claude@project:pdf"},
		{name: "  codex:pdf  ", want: "codex:pdf"},
		{name: "openclaw@project:webapp-testing#2", want: "openclaw@project:webapp-testing#2"},
		// Provider-qualified names.
		{name: "codex:PDF", want: "codex:pdf"},
		{name: "gemini:mcp-builder", want: "gemini:mcp-builder"},
		{name: "claude:pdf", ambiguous: []string{"claude@user:pdf", "claude@project:pdf", "claude:@example-skills:pdf"}},
		// Plugin forms.
		{name: "example-skills:pdf", want: "claude:@example-skills:pdf"},
		{name: "@example-skills:pdf", want: "claude:@example-skills:pdf"},
		{name: "claude:@example-skills:pdf", want: "claude:@example-skills:pdf"},
		{name: "claude:example-skills:pdf", want: "claude:@example-skills:pdf"},
		{name: "claude@plugin:@example-skills:pdf", want: "claude:@example-skills:pdf"},
		{name: "Example-Skills:PDF", want: "claude:@example-skills:pdf"},
		{name: "xlsx", want: "claude:@document-skills:xlsx"},
		{name: "claude:xlsx", want: "claude:@document-skills:xlsx"},
		// Full names beat short names.
		{name: "pdf", ambiguous: []string{"claude@user:pdf", "claude@project:pdf", "codex:pdf", "claude:@example-skills:pdf"}},
		{name: "docx", want: "claude:Docx"}, // full name "Docx" beats short name of "claude:docx"
		// Short names: "guide" is the short name of a custom and a plugin skill.
		{name: "guide", ambiguous: []string{"custom:docs:guide", "claude:@example-skills:guide"}},
		// Ids beat full names: "claude:docx" is the full name of a custom
		// skill and, case-insensitively, the id of claude's Docx.
		{name: "claude:docx", want: "claude:Docx"},
		{name: "custom:claude:docx", want: "custom:claude:docx"},
		{name: "docs:guide", want: "custom:docs:guide"},
		{name: "webapp-testing", ambiguous: []string{"openclaw@project:webapp-testing", "openclaw@project:webapp-testing#2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := x.Resolve(tc.name)
			if tc.ambiguous != nil {
				var ae *AmbiguousError
				if !errors.As(err, &ae) {
					t.Fatalf("Resolve = %v, %v; want an AmbiguousError", got, err)
				}
				if diff := cmp.Diff(tc.ambiguous, ae.Candidates); diff != "" {
					t.Errorf("candidates (-want +got):\n%s", diff)
				}
				if ae.Name != tc.name {
					t.Errorf("Name = %q", ae.Name)
				}
				for _, id := range tc.ambiguous {
					if !strings.Contains(err.Error(), id) {
						t.Errorf("message %q does not list %s", err, id)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if got.ID != tc.want {
				t.Errorf("Resolve = %s, want %s", got.ID, tc.want)
			}
		})
	}
}

func TestResolveTierOrder(t *testing.T) {
	// a's id equals b's full name equals c's short name.
	a := &Record{ID: "x", Agent: "p", Name: "one", Location: LocationUser}
	b := &Record{ID: "p:two", Agent: "p", Name: "x", Location: LocationUser}
	c := &Record{ID: "p:three:x", Agent: "p", Name: "three:x", Location: LocationUser}
	for _, order := range [][]*Record{{a, b, c}, {c, b, a}, {b, c, a}} {
		x := NewIndex(order)
		if got, err := x.Resolve("X"); err != nil || got != a {
			t.Errorf("id tier: Resolve(X) = %v, %v; want a", got, err)
		}
		if got, err := x.Resolve("p:x"); err != nil || got != b {
			t.Errorf("full-name tier: Resolve(p:x) = %v, %v; want b", got, err)
		}
	}
	x := NewIndex([]*Record{b, c})
	if got, err := x.Resolve("x"); err != nil || got != b {
		t.Errorf("full name beats short name: Resolve(x) = %v, %v; want b", got, err)
	}
	x = NewIndex([]*Record{c})
	if got, err := x.Resolve("x"); err != nil || got != c {
		t.Errorf("short name: Resolve(x) = %v, %v; want c", got, err)
	}
}

func TestResolveNotFound(t *testing.T) {
	x := NewIndex(catalog())
	tests := []struct {
		name string
		want []string // suggestions, in order; nil means any up to 3 non-empty
		has  string   // a suggestion that must be present
	}{
		// Every pdf is two edits away; ties are broken by id.
		{name: "pfd", want: []string{"claude:@example-skills:pdf", "claude@project:pdf", "claude@user:pdf"}},
		{name: "docz", has: "claude:Docx"},
		{name: "mcp-bilder", want: []string{"gemini:mcp-builder"}},
		{name: "frontend-desing", want: []string{"agents:frontend-design"}},
		{name: "SKILL-CREATR", want: []string{"codex:skill-creator"}},
		{name: "e"},
		{name: "zzzzzzzzzzzzzzzz", want: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := x.Resolve(tc.name)
			var nf *NotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("Resolve = %v, %v; want a NotFoundError", got, err)
			}
			if nf.Name != tc.name {
				t.Errorf("Name = %q", nf.Name)
			}
			if len(nf.Suggestions) > 3 {
				t.Errorf("%d suggestions, want at most 3: %v", len(nf.Suggestions), nf.Suggestions)
			}
			if tc.want != nil {
				if diff := cmp.Diff(tc.want, nf.Suggestions, cmp.Comparer(func(a, b []string) bool {
					return slices.Equal(a, b) || len(a) == 0 && len(b) == 0
				})); diff != "" {
					t.Errorf("suggestions (-want +got):\n%s", diff)
				}
			} else if len(nf.Suggestions) == 0 {
				t.Errorf("no suggestions")
			}
			if tc.has != "" && !slices.Contains(nf.Suggestions, tc.has) {
				t.Errorf("suggestions %v lack %s", nf.Suggestions, tc.has)
			}
			for _, s := range nf.Suggestions {
				if _, err := x.Resolve(s); err != nil {
					t.Errorf("suggestion %q does not resolve: %v", s, err)
				}
				if !strings.Contains(err.Error(), s) {
					t.Errorf("message %q lacks suggestion %s", err, s)
				}
			}
		})
	}
}

// TestSuggestTypo checks a typo against a single pdf skill: "pfd" must
// suggest its id, and only it.
func TestSuggestTypo(t *testing.T) {
	recs := []*Record{
		r("claude", LocationUser, "pdf"),
		r("claude", LocationUser, "docx"),
		r("claude", LocationUser, "xlsx"),
		r("claude", LocationUser, "pptx"),
	}
	AssignIDs(recs)
	x := NewIndex(recs)
	_, err := x.Resolve("pfd")
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("Resolve(pfd) = %v", err)
	}
	if diff := cmp.Diff([]string{"claude:pdf"}, nf.Suggestions); diff != "" {
		t.Errorf("suggestions (-want +got):\n%s", diff)
	}
	if want := `skill "pfd" not found; did you mean claude:pdf?`; err.Error() != want {
		t.Errorf("message = %q, want %q", err, want)
	}
	if got := x.Suggest("pfd", 0); len(got) != 0 {
		t.Errorf("Suggest(n=0) = %v", got)
	}
	if got := x.Suggest("   ", 3); len(got) != 0 {
		t.Errorf("Suggest(blank) = %v", got)
	}
	// A fuzzy subsequence match ranks before an edit-distance match.
	if got := x.Suggest("ptx", 3); len(got) == 0 || got[0] != "claude:pptx" {
		t.Errorf("Suggest(ptx) = %v, want claude:pptx first", got)
	}
	if got := x.Suggest("x", 2); len(got) != 2 {
		t.Errorf("Suggest(x, 2) = %v, want 2 ids", got)
	}
	_, err = NewIndex(nil).Resolve("pdf")
	if !errors.As(err, &nf) || len(nf.Suggestions) != 0 || err.Error() != `skill "pdf" not found` {
		t.Errorf("empty index: %v", err)
	}
}

func TestSnapshot(t *testing.T) {
	all := catalog()
	visible := []*Record{all[0], all[2], all[3]}
	drops := []Drop{{Record: all[1], Stage: "priority", Reason: "shadowed", By: all[0]}}
	s := NewSnapshot(all, visible, drops, nil, nil)
	if got, err := s.Resolve("pdf"); err == nil {
		t.Errorf("Resolve(pdf) = %v; want ambiguous between the visible claude and codex pdfs", got.ID)
	}
	if got, err := s.Resolve("claude:pdf"); err != nil || got != all[0] {
		t.Errorf("Resolve(claude:pdf) = %v, %v; want the only visible claude pdf", got, err)
	}
	if _, err := s.Resolve("claude@project:pdf"); err == nil {
		t.Errorf("a dropped record resolves among the visible ones")
	}
	if got, err := s.ResolveAny("claude@project:pdf"); err != nil || got != all[1] {
		t.Errorf("ResolveAny = %v, %v", got, err)
	}
	if d, ok := s.DropOf(all[1]); !ok || d.Stage != "priority" || d.By != all[0] {
		t.Errorf("DropOf = %+v, %v", d, ok)
	}
	if _, ok := s.DropOf(all[0]); ok {
		t.Errorf("DropOf(visible) found a drop")
	}
}

func TestRecordNames(t *testing.T) {
	// The key is the whole name: a name outside a plugin is not split.
	tests := []struct{ name, short, key string }{
		{"pdf", "pdf", "pdf"},
		{"example-skills:PDF", "PDF", "example-skills:pdf"},
		{"a:b:C", "C", "a:b:c"},
		{"", "", ""},
		{"trailing:", "", "trailing:"},
	}
	for _, tc := range tests {
		rec := &Record{Name: tc.name}
		if rec.ShortName() != tc.short || rec.DedupeKey() != tc.key {
			t.Errorf("%q: ShortName %q, DedupeKey %q; want %q, %q", tc.name, rec.ShortName(), rec.DedupeKey(), tc.short, tc.key)
		}
	}
	want := []Kind{KindCustom, KindProject, KindWorkspaceAgent, KindWorkspaceShared, KindWorkspaceRoot,
		KindUserAgent, KindUserShared, KindSystem, KindPlugin, KindRemote}
	p := DefaultPriority()
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("DefaultPriority (-want +got):\n%s", diff)
	}
	p[0] = "mutated"
	if DefaultPriority()[0] != KindCustom {
		t.Errorf("DefaultPriority returns shared state")
	}
}

// funcStage is a Stage built from a function.
type funcStage struct {
	name  string
	apply func(in []*Record) ([]*Record, []Drop)
}

func (s funcStage) Name() string                           { return s.name }
func (s funcStage) Apply(in []*Record) ([]*Record, []Drop) { return s.apply(in) }

// dropIf drops the records whose name satisfies f, with the given stage
// name preset on the drops (empty: left for Run to fill).
func dropIf(stage, preset string, f func(*Record) bool) funcStage {
	return funcStage{stage, func(in []*Record) ([]*Record, []Drop) {
		var out []*Record
		var d []Drop
		for _, rec := range in {
			if f(rec) {
				d = append(d, Drop{Record: rec, Stage: preset, Reason: stage + " dropped " + rec.Name})
			} else {
				out = append(out, rec)
			}
		}
		return out, d
	}}
}

func TestRun(t *testing.T) {
	recs := catalog()
	reverse := funcStage{"reverse", func(in []*Record) ([]*Record, []Drop) {
		out := slices.Clone(in)
		slices.Reverse(out)
		return out, nil
	}}
	var seenByThird []string
	stages := []Stage{
		dropIf("location", "", func(rec *Record) bool { return rec.Location == LocationPlugin }),
		reverse,
		dropIf("provider", "", func(rec *Record) bool { return rec.Agent == "claude" }),
		funcStage{"record", func(in []*Record) ([]*Record, []Drop) {
			seenByThird = ids(in)
			return in, nil
		}},
		dropIf("dedupe", "custom-stage", func(rec *Record) bool { return rec.Agent == "openclaw" }),
	}
	out, dropped := Run(stages, slices.Clone(recs))

	wantOut := []string{"codex:skill-creator", "gemini:mcp-builder", "agents:frontend-design",
		"custom:claude:docx", "custom:docs:guide", "codex:pdf"}
	if diff := cmp.Diff(wantOut, ids(out)); diff != "" {
		t.Errorf("survivors (-want +got):\n%s", diff)
	}
	if len(seenByThird) != len(wantOut)+2 {
		t.Errorf("a later stage saw %v: dropped records must not reach it", seenByThird)
	}
	type drop struct{ ID, Stage string }
	var got []drop
	for _, d := range dropped {
		got = append(got, drop{d.Record.ID, d.Stage})
		if !strings.Contains(d.Reason, d.Record.Name) {
			t.Errorf("reason %q was changed", d.Reason)
		}
	}
	want := []drop{
		{"claude:@example-skills:pdf", "location"},
		{"claude:@document-skills:xlsx", "location"},
		{"claude:@example-skills:guide", "location"},
		{"claude:canvas-design", "provider"},
		{"claude:algorithmic-art", "provider"},
		{"claude:theme-factory", "provider"},
		{"claude:brand-guidelines", "provider"},
		{"claude:internal-comms", "provider"},
		{"claude:slack-gif-creator", "provider"},
		{"claude:Docx", "provider"},
		{"claude@project:pdf", "provider"},
		{"claude@user:pdf", "provider"},
		{"openclaw@project:webapp-testing#2", "custom-stage"},
		{"openclaw@project:webapp-testing", "custom-stage"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("drops (-want +got):\n%s", diff)
	}
	// Every input record ends up in out or in exactly one drop.
	count := map[*Record]int{}
	for _, rec := range out {
		count[rec]++
	}
	for _, d := range dropped {
		count[d.Record]++
	}
	for _, rec := range recs {
		if count[rec] != 1 {
			t.Errorf("%s appears %d times in out and drops", rec.ID, count[rec])
		}
	}

	if out, dropped := Run(nil, recs[:2]); len(out) != 2 || len(dropped) != 0 {
		t.Errorf("Run(no stages) = %d, %d", len(out), len(dropped))
	}
}

// TestIndexConcurrent runs lookups in parallel; with -race it checks that
// an Index is safe for concurrent use.
func TestIndexConcurrent(t *testing.T) {
	x := NewIndex(catalog())
	names := []string{"pdf", "codex:pdf", "pfd", "example-skills:pdf", "docx", "nope"}
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				x.Resolve(names[(g+i)%len(names)])
				x.Suggest(names[(g*i)%len(names)], 3)
			}
		}()
	}
	for range 8 {
		<-done
	}
}

// TestAtLeast: the diagnostics at least as serious as asked, the most
// serious first, in their order within a severity; never nil.
func TestAtLeast(t *testing.T) {
	diags := []Diagnostic{
		{Severity: SeverityInfo, Code: "i1"}, {Severity: SeverityWarning, Code: "w1"},
		{Severity: SeverityError, Code: "e1"}, {Severity: SeverityWarning, Code: "w2"}, {Severity: SeverityError, Code: "e2"},
	}
	codes := func(ds []Diagnostic) string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Code)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		min  Severity
		want string
	}{
		{SeverityInfo, "e1 e2 w1 w2 i1"},
		{SeverityWarning, "e1 e2 w1 w2"},
		{SeverityError, "e1 e2"},
	} {
		if got := codes(AtLeast(diags, c.min)); got != c.want {
			t.Errorf("AtLeast(%s) = %q, want %q", c.min, got, c.want)
		}
	}
	if got := AtLeast(nil, SeverityWarning); got == nil || len(got) != 0 {
		t.Errorf("AtLeast(nil) = %#v, want an empty slice", got)
	}
}
