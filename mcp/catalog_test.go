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

// machineGroups is the visible skills of a machine shaped like the one of
// issue 9 (480 visible of 500): local skills of several providers first,
// as the default priority ranks them, then plugins of very different
// sizes, the largest a scientific collection.
var machineGroups = []struct {
	provider       string
	loc            pipeline.Location
	plugin, market string
	n              int
}{
	{"claude", pipeline.LocationProject, "", "", 12},
	{"cursor", pipeline.LocationProject, "", "", 6},
	{"claude", pipeline.LocationUser, "", "", 30},
	{"agents", pipeline.LocationUser, "", "", 20},
	{"codex", pipeline.LocationUser, "", "", 45},
	{"gemini", pipeline.LocationUser, "", "", 8},
	{"claude", pipeline.LocationPlugin, "scientific-skills", "claude-scientific-skills", 150},
	{"claude", pipeline.LocationPlugin, "awesome-claude-skills", "composio-skills", 90},
	{"claude", pipeline.LocationPlugin, "marketing-skills", "marketingskills", 40},
	{"claude", pipeline.LocationPlugin, "ai-research-skills", "orchestra-research", 21},
	{"claude", pipeline.LocationPlugin, "superpowers", "superpowers-marketplace", 20},
	{"claude", pipeline.LocationPlugin, "document-skills", "anthropic-agent-skills", 16},
	{"claude", pipeline.LocationPlugin, "example-skills", "anthropic-agent-skills", 12},
	{"claude", pipeline.LocationPlugin, "ship-mate", "ship-market", 6},
	{"claude", pipeline.LocationPlugin, "conductor", "ship-market", 4},
}

var words = strings.Fields(`data analysis protein structure chemistry review test plan deploy release
	document spreadsheet slide canvas design brand market email copy research paper model train
	evaluate debug refactor commit branch security audit lint format schema query sql graph chart
	image audio video cloud docker kubernetes terraform api client server`)

// machineSkills returns records (in memory, no files) shaped like
// machineGroups, scaled to about n skills, in priority order, with ids.
// Names are kebab-case words; descriptions run from about 40 to 300
// characters, as real ones do.
func machineSkills(n int) []*pipeline.Record {
	recs := make([]*pipeline.Record, 0, n)
	for g, grp := range machineGroups {
		size := max(1, grp.n*n/480)
		for i := range size {
			name := words[(i+g)%len(words)] + "-" + words[(i/len(words)+3*g+1)%len(words)]
			if i >= len(words)*len(words) {
				name += fmt.Sprintf("-%d", i)
			}
			var b strings.Builder
			b.WriteString("Use when the user asks to " + strings.ReplaceAll(name, "-", " ") + ".")
			for k := 0; b.Len() < 40+(i*97+g*31)%260; k++ {
				b.WriteString(" " + words[(i*7+k*13+g)%len(words)])
			}
			r := &pipeline.Record{Name: name, Description: strings.TrimSuffix(b.String(), ".") + ".", Agent: grp.provider, Location: grp.loc}
			if grp.plugin != "" {
				r.Name = grp.plugin + ":" + name
				r.Plugin = &pipeline.PluginInfo{Plugin: grp.plugin, Marketplace: grp.market, Version: "1.0.0"}
			}
			recs = append(recs, r)
		}
	}
	pipeline.AssignIDs(recs)
	return recs
}

// groupOf names the group a test expects a skill to be shared out in.
func groupOf(r *pipeline.Record) string {
	if r.Plugin != nil {
		return "plugin " + r.Plugin.Plugin + "@" + r.Plugin.Marketplace
	}
	return "provider " + r.Agent
}

// listedNames returns the <name> entries of a description, in order.
func listedNames(desc string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<name>([^<]*)</name>`).FindAllStringSubmatch(desc, -1) {
		out = append(out, m[1])
	}
	return out
}

// shownSkills is what a catalogue shows, parsed back.
type shownSkills struct {
	full  []string    // ids of <skill> entries, in order
	lines [][2]string // <skill_names> lines: id and description start
	note  string      // the text after </available_skills>
}

var xmlUnescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// parseCatalogue splits a catalogue into its parts and fails t when the
// block holds anything but whole <skill> entries followed by at most one
// <skill_names> block of non-empty lines.
func parseCatalogue(t *testing.T, desc string) shownSkills {
	t.Helper()
	_, rest, ok := strings.Cut(desc, blockOpen)
	if !ok {
		t.Fatalf("no <available_skills> in:\n%s", desc)
	}
	block, note, ok := strings.Cut(rest, blockClose)
	if !ok {
		t.Fatalf("<available_skills> not closed")
	}
	var s shownSkills
	s.note = note
	entry := regexp.MustCompile(`^<skill>\n<name>([^<]*)</name>\n<description>[^<]*</description>\n<provider>[^<]*</provider>\n<location>[^<]*</location>\n</skill>\n`)
	for {
		m := entry.FindStringSubmatch(block)
		if m == nil {
			break
		}
		s.full = append(s.full, xmlUnescape.Replace(m[1]))
		block = block[len(m[0]):]
	}
	if block == "" {
		return s
	}
	body, ok := strings.CutPrefix(block, namesOpen)
	if body, ok = strings.CutSuffix(body, namesClose); !ok || body == "" {
		t.Fatalf("unexpected text in <available_skills> after %d entries: %.300q", len(s.full), block)
	}
	for line := range strings.SplitSeq(strings.TrimSuffix(body, "\n"), "\n") {
		if strings.ContainsAny(line, "<>") || line == "" {
			t.Fatalf("bad <skill_names> line %q", line)
		}
		id, d, _ := strings.Cut(line, lineSep)
		s.lines = append(s.lines, [2]string{xmlUnescape.Replace(id), xmlUnescape.Replace(d)})
	}
	return s
}

// named is every id the catalogue names, entries first.
func (s shownSkills) named() []string {
	out := slices.Clone(s.full)
	for _, l := range s.lines {
		out = append(out, l[0])
	}
	return out
}

// legacyListed is how many skills the catalogue named before issue 9: the
// longest prefix of recs in full entries that fits with the note.
func legacyListed(recs []*pipeline.Record, budget int) int {
	const legacyLine = "- <available_skills> shows the highest-priority skills only; more are installed (see the note after the list), and every installed skill loads by name with this tool, listed or not."
	fits := func(n int) bool {
		d := strings.Replace(Describe(recs[:n]), onlyListed, legacyLine, 1) + "\n\n" + moreNote(len(recs)-n)
		return utf8.RuneCountInString(d) <= budget
	}
	lo, hi := 0, len(recs)
	for lo < hi {
		if mid := (lo + hi + 1) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// checkCatalogue checks what holds for every catalogue: each skill at
// most once and only known ids, stats that count what is shown, the budget
// kept whenever anything is shown, full entries in priority order, each
// group's shown skills a prefix of it in priority order with described
// lines before bare names, descriptions only once every skill is named,
// and every name that would still fit given.
func checkCatalogue(t *testing.T, recs []*pipeline.Record, budget int, desc string, st CatalogueStats) shownSkills {
	t.Helper()
	s := parseCatalogue(t, desc)
	size := utf8.RuneCountInString(desc)
	if st.Named() > 0 && size > budget {
		t.Fatalf("budget %d: description is %d characters", budget, size)
	}
	byID := map[string]int{}
	for i, r := range recs {
		byID[r.ID] = i
	}
	seen := map[string]bool{}
	for _, id := range s.named() {
		if _, ok := byID[id]; !ok || seen[id] {
			t.Fatalf("budget %d: %q named twice or unknown", budget, id)
		}
		seen[id] = true
	}
	var short, bare int
	for _, l := range s.lines {
		if l[1] != "" {
			short++
			if want := shorten(recs[byID[l[0]]].Description, shortDescription); l[1] != want {
				t.Fatalf("budget %d: %s shows %q, want %q", budget, l[0], l[1], want)
			}
		} else {
			bare++
		}
	}
	want := CatalogueStats{Full: len(s.full), Short: short, NameOnly: bare, Omitted: len(recs) - len(seen)}
	if st != want {
		t.Fatalf("budget %d: stats %+v, the description shows %+v", budget, st, want)
	}
	if st.Complete() != (desc == Describe(recs)) {
		t.Fatalf("budget %d: complete is %v, but the description is Describe's: %v", budget, st.Complete(), !st.Complete())
	}
	if hasNote := strings.Contains(s.note, "installed but not listed above"); hasNote != (st.Omitted > 0) {
		t.Fatalf("budget %d: %d left out, note %q", budget, st.Omitted, s.note)
	}
	if (st.Short > 0 || st.Full > 0) && st.Omitted > 0 && !st.Complete() {
		t.Fatalf("budget %d: descriptions shown while %d skills are not even named", budget, st.Omitted)
	}
	if !slices.IsSortedFunc(s.full, func(a, b string) int { return byID[a] - byID[b] }) {
		t.Fatalf("budget %d: full entries out of priority order: %v", budget, s.full)
	}
	// Per group: full entries, then described lines, then bare names, then
	// the skills left out, each in priority order.
	rank := map[string]int{}
	for _, id := range s.full {
		rank[id] = 3
	}
	for _, l := range s.lines {
		rank[l[0]] = 1
		if l[1] != "" {
			rank[l[0]] = 2
		}
	}
	if st.Full > 0 {
		for _, l := range s.lines {
			if l[1] == "" && recs[byID[l[0]]].Description != "" {
				t.Fatalf("budget %d: full entries shown while %s has no description", budget, l[0])
			}
		}
	}
	groupRank := map[string]int{}
	lineAt := map[string]int{}
	for i, l := range s.lines {
		lineAt[l[0]] = i
	}
	lastLine := map[string]int{}
	for _, r := range recs {
		g := groupOf(r)
		// A skill with no description is a bare name at every stage.
		if rank[r.ID] != 1 || r.Description != "" {
			if prev, ok := groupRank[g]; ok && rank[r.ID] > prev {
				t.Fatalf("budget %d: in %s, %s is shown better than a higher-priority skill", budget, g, r.ID)
			}
			groupRank[g] = rank[r.ID]
		}
		if at, ok := lineAt[r.ID]; ok {
			if last, seenGroup := lastLine[g]; seenGroup && at != last+1 {
				t.Fatalf("budget %d: the lines of %s are not together in priority order", budget, g)
			}
			lastLine[g] = at
		}
	}
	// Nothing left out that would still fit: each group's first skill
	// left out is too long for the room left.
	if st.Omitted > 0 && st.Named() > 0 {
		firstOut := map[string]bool{}
		for _, r := range recs {
			g := groupOf(r)
			if seen[r.ID] || firstOut[g] {
				continue
			}
			firstOut[g] = true
			if size+utf8.RuneCountInString(xmlText.Replace(r.ID))+1 <= budget {
				t.Fatalf("budget %d: %s is left out, but its name fits (%d of %d used)", budget, r.ID, size, budget)
			}
		}
	}
	return s
}

func TestCatalogueMachine(t *testing.T) {
	recs := machineSkills(480)
	if len(recs) != 480 {
		t.Fatalf("the shape gives %d skills, want 480", len(recs))
	}
	const budget = 16000 // the default mcp.catalog
	desc, st := Catalogue(recs, budget)
	s := checkCatalogue(t, recs, budget, desc, st)

	legacy := legacyListed(recs, budget)
	t.Logf("named %d of %d (%d full, %d with a short description, %d names only); before: %d",
		st.Named(), len(recs), st.Full, st.Short, st.NameOnly, legacy)
	// Issue 9: at least three times as many as before (57 of 480 on the
	// real machine), with every provider and plugin represented.
	if st.Named() < 171 || st.Named() < 3*legacy {
		t.Errorf("named %d of %d skills; want at least 171 and three times the %d of before", st.Named(), len(recs), legacy)
	}
	shown := map[string]int{}
	for _, id := range s.named() {
		for _, r := range recs {
			if r.ID == id {
				shown[groupOf(r)]++
			}
		}
	}
	sizes := map[string]int{}
	for _, r := range recs {
		sizes[groupOf(r)]++
	}
	// Shared fairly: a group that is left out in part has about as many
	// names as any other such group (ids differ in length, so the last
	// rounds differ a little).
	lo, hi := len(recs), 0
	for g, n := range sizes {
		if shown[g] == 0 {
			t.Errorf("%s (%d skills) is not represented", g, n)
		}
		if shown[g] < n {
			lo, hi = min(lo, shown[g]), max(hi, shown[g])
		}
	}
	if hi-lo > 3 {
		t.Errorf("groups left out in part got between %d and %d names: %v", lo, hi, shown)
	}
	for _, w := range []string{"<skill_names>", "loads exactly like a <name>", "more skills are installed but not listed above", "skills_search"} {
		if !strings.Contains(desc, w) {
			t.Errorf("the description does not say %q", w)
		}
	}
}

func TestCatalogueDegrades(t *testing.T) {
	recs := machineSkills(480)
	full := utf8.RuneCountInString(Describe(recs))
	names, _ := Catalogue(recs, 1)
	floor := utf8.RuneCountInString(names) // the preamble and the note alone
	plan := newPlan(recs, CatalogueOptions{})
	allNames := plan.overhead(false) + plan.namesCost() // every name, nothing more
	prev := CatalogueStats{}
	seenTier := map[string]bool{}
	budgets := []int{100, floor - 1, floor, floor + 40, 2000, 8000, 16000, allNames - 1, allNames, allNames + 50,
		22000, 30000, 45000, 60000, 80000, full - 1, full}
	slices.Sort(budgets) // the checks below compare each with the one before
	for _, budget := range budgets {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			desc, st := Catalogue(recs, budget)
			checkCatalogue(t, recs, budget, desc, st)
			// More room never shows less.
			if st.Named() < prev.Named() || (st.Omitted == 0 && prev.Omitted == 0 && st.Full < prev.Full) {
				t.Errorf("budget %d shows %+v, a smaller one %+v", budget, st, prev)
			}
			prev = st
			switch {
			case st.Complete():
				seenTier["complete"] = true
			case st.Full > 0:
				seenTier["full"] = true
			case st.Short > 0:
				seenTier["short"] = true
			case st.Omitted == 0:
				seenTier["names"] = true
			case st.Named() > 0:
				seenTier["cut"] = true
			}
			if budget == full && !st.Complete() {
				t.Errorf("with room for every full entry: %+v", st)
			}
			if budget < floor && st.Named() != 0 {
				t.Errorf("budget %d under the floor %d names %d", budget, floor, st.Named())
			}
		})
	}
	for _, tier := range []string{"cut", "names", "short", "full", "complete"} {
		if !seenTier[tier] {
			t.Errorf("no budget gave the %q stage; stages seen: %v", tier, seenTier)
		}
	}
}

func TestCatalogueTiers(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("Build, edit and check spreadsheets with formulas, charts and pivot tables; use when the user works with xlsx files. ", 8))
	specs := []skillSpec{
		{provider: "codex", name: "alpha", desc: long},
		{provider: "codex", name: "beta", desc: "Short one."},
		{provider: "codex", name: "gamma", desc: ""},
		{provider: "codex", name: "delta", desc: long},
		{provider: "claude", loc: pipeline.LocationPlugin, name: "kit:a&b", desc: "Uses <tags> & more.",
			plugin: &pipeline.PluginInfo{Plugin: "kit", Marketplace: "m"}},
	}
	recs := makeRecords(t, t.TempDir(), specs...)
	cut := shorten(long, shortDescription)
	names := "<skill_names>\ncodex:alpha\ncodex:beta\ncodex:gamma\ncodex:delta\nclaude:@kit:a&amp;b\n</skill_names>\n"
	short := "<skill_names>\ncodex:alpha — " + cut + "\ncodex:beta — Short one.\ncodex:gamma\ncodex:delta — " + cut + "\n" +
		"claude:@kit:a&amp;b — Uses &lt;tags&gt; &amp; more.\n</skill_names>\n"
	fullAlpha := "<skill>\n<name>codex:alpha</name>\n<description>" + long + "</description>\n<provider>codex</provider>\n<location>user</location>\n</skill>\n"
	fullKit := "<skill>\n<name>claude:@kit:a&amp;b</name>\n<description>Uses &lt;tags&gt; &amp; more.</description>\n<provider>claude</provider>\n<location>plugin</location>\n</skill>\n"
	someFull := fullAlpha + fullKit + "<skill_names>\ncodex:beta — Short one.\ncodex:gamma\ncodex:delta — " + cut + "\n</skill_names>\n"
	withBlock := func(cut bool, block string) string {
		return header(cut) + blockOpen + block + blockClose
	}
	size := func(s string) int { return utf8.RuneCountInString(s) }
	tests := []struct {
		name   string
		budget int
		want   string
		stats  CatalogueStats
	}{
		{"every name, no room for more", size(withBlock(false, names)), withBlock(false, names),
			CatalogueStats{NameOnly: 5}},
		{"one description more, round-robin: the plugin's",
			size(withBlock(false, names)) + size(" — Uses &lt;tags&gt; &amp; more."),
			withBlock(false, "<skill_names>\ncodex:alpha\ncodex:beta\ncodex:gamma\ncodex:delta\nclaude:@kit:a&amp;b — Uses &lt;tags&gt; &amp; more.\n</skill_names>\n"),
			CatalogueStats{Short: 1, NameOnly: 4}},
		{"every description, shortened", size(withBlock(false, short)), withBlock(false, short),
			CatalogueStats{Short: 4, NameOnly: 1}},
		{"full entries, round-robin: each group's first", size(withBlock(false, someFull)), withBlock(false, someFull),
			CatalogueStats{Full: 2, Short: 2, NameOnly: 1}},
		{"room for all", size(Describe(recs)), Describe(recs), CatalogueStats{Full: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, st := Catalogue(recs, tt.budget)
			if got != tt.want || st != tt.stats {
				t.Errorf("budget %d: stats %+v, want %+v\ngot:\n%s\nwant:\n%s", tt.budget, st, tt.stats, got, tt.want)
			}
			checkCatalogue(t, recs, tt.budget, got, st)
		})
	}
}

func TestCatalogueCutSharesNames(t *testing.T) {
	var specs []skillSpec
	for i := range 30 {
		specs = append(specs, skillSpec{provider: "codex", name: fmt.Sprintf("c%02d", i), desc: "Codex skill."})
	}
	for i := range 3 {
		specs = append(specs, skillSpec{provider: "claude", loc: pipeline.LocationPlugin, name: fmt.Sprintf("p:s%d", i),
			desc: "Plugin skill.", plugin: &pipeline.PluginInfo{Plugin: "p", Marketplace: "m"}})
	}
	recs := makeRecords(t, t.TempDir(), specs...)
	// Room for the note and eight names: "codex:cNN" is 10 characters
	// with its newline, "claude:@p:sN" 13.
	budget := utf8.RuneCountInString(header(true)+blockOpen+blockClose+namesOpen+namesClose+"\n\n"+moreNote(len(recs))) +
		5*10 + 3*13
	desc, st := Catalogue(recs, budget)
	s := checkCatalogue(t, recs, budget, desc, st)
	want := []string{"codex:c00", "codex:c01", "codex:c02", "codex:c03", "codex:c04", "claude:@p:s0", "claude:@p:s1", "claude:@p:s2"}
	if !slices.Equal(s.named(), want) || st.Omitted != 25 {
		t.Errorf("named %v (%d left out), want %v", s.named(), st.Omitted, want)
	}
	if !strings.HasSuffix(desc, "\n\n"+moreNote(25)) || !strings.Contains(desc, cutListed) {
		t.Errorf("the description does not end on the note for 25:\n%s", desc)
	}

	// A budget too small for any name keeps the note and no placeholder.
	tiny, st := Catalogue(recs, 100)
	if st.Named() != 0 || st.Omitted != len(recs) || strings.Contains(tiny, "No skills are installed") ||
		!strings.HasSuffix(tiny, blockOpen+blockClose+"\n\n"+moreNote(len(recs))) {
		t.Errorf("tiny budget: %+v, description:\n%s", st, tiny)
	}
	// One skill left out: the singular note. The second name is long, so
	// that naming both does not fit where naming one and the note does.
	two := makeRecords(t, t.TempDir(),
		skillSpec{provider: "codex", name: "c00", desc: strings.Repeat("Long description. ", 200)},
		skillSpec{provider: "codex", name: strings.Repeat("x", 200), desc: "Short."})
	oneBudget := utf8.RuneCountInString(header(true) + blockOpen + namesOpen + "codex:c00\n" + namesClose + blockClose + "\n\n" + moreNote(1))
	one, st := Catalogue(two, oneBudget)
	checkCatalogue(t, two, oneBudget, one, st)
	if st.Omitted != 1 || !strings.HasSuffix(one, "\n\n1 more skill is installed but not listed above: the list is cut to fit the context. "+
		"When no listed skill covers the task, call the skills_search tool with a few words describing it, then load the skill it finds with this tool, by id.") {
		t.Errorf("singular note: %+v\n%s", st, one)
	}
}

func TestCatalogueCutPreamble(t *testing.T) {
	p := newPlan(nil, CatalogueOptions{})
	if cut, all := p.overhead(true)+noteLen(1), p.overhead(false); cut < all {
		t.Errorf("cut preamble and note: %d characters, preamble naming every skill: %d", cut, all)
	}
}

func TestCatalogueWithinBudget(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "codex", name: "a", desc: "First."},
		skillSpec{provider: "codex", name: "b", desc: "Second."})
	full := Describe(recs)
	n := utf8.RuneCountInString(full)
	for _, budget := range []int{0, -1, n, n + 1000} {
		if got, st := Catalogue(recs, budget); got != full || !st.Complete() || st.Full != 2 {
			t.Errorf("budget %d: %+v, description differs from Describe: %v", budget, st, got != full)
		}
	}
	if none, st := Catalogue(nil, 10); none != Describe(nil) || !st.Complete() {
		t.Errorf("no skills under a tiny budget: %+v, %q", st, none)
	}
	// Deterministic: the same records give the same description.
	big := machineSkills(2000)
	a, _ := Catalogue(big, 16000)
	b, _ := Catalogue(machineSkills(2000), 16000)
	if a != b {
		t.Error("two renderings of the same skills differ")
	}
}

func TestShorten(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"Fits as it is.", 14, "Fits as it is."},
		{"", 10, ""},
		{"Cut after a whole word please", 16, "Cut after a…"},
		{"Cut after a, comma here", 14, "Cut after a…"},
		{"Word ends right here and more", 20, "Word ends right…"},
		{"Averyveryverylongwordwithoutspaces", 10, "Averyvery…"},
		{"a bbbbbbbbbbbbbbbbbbbb", 10, "a bbbbbbb…"}, // the only space is too early to cut at
		{"处理文档 表格分析 データ変換 스킬검색", 12, "处理文档 表格分析…"},
	}
	for _, tt := range tests {
		got := shorten(tt.in, tt.limit)
		if got != tt.want || utf8.RuneCountInString(got) > tt.limit {
			t.Errorf("shorten(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}

func TestEscapedLen(t *testing.T) {
	for _, s := range []string{"", "plain", "a & b <c> d", "&&&<<>>", "处理文档 & データ", "bad \xff\xfe byte", "\xe5\x87"} {
		want := utf8.RuneCountInString(xmlText.Replace(s))
		if got := escapedLen(s); got != want {
			t.Errorf("escapedLen(%q) = %d, want %d", s, got, want)
		}
		r := &pipeline.Record{ID: "codex:" + s, Description: s, Agent: "codex", Location: pipeline.LocationUser}
		var b strings.Builder
		writeEntry(&b, r, r.ID)
		if got, want := entryLen(r, r.ID), utf8.RuneCountInString(b.String()); got != want {
			t.Errorf("entryLen for %q = %d, the entry has %d", s, got, want)
		}
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
			want, st := SkillDescription(srv.Snapshot(), budget, nil)
			if desc != want || st.Omitted == 0 {
				t.Fatalf("skill description is not the budgeted catalogue (%+v)", st)
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
	// The same skills again, in a new snapshot: the description is the
	// same, so the tool is not registered again (no list_changed).
	if srv.Update(snapOf(slices.Clone(recs))) {
		t.Error("an equal snapshot changed the skill tool's description")
	}
}

func TestCatalogueSearchFollowsTheCut(t *testing.T) {
	few := manySkills(t, 2)
	many := manySkills(t, 60)
	budget := utf8.RuneCountInString(describeOf(snapOf(few), 0)) + 10
	// Every one of the 60 named, some descriptions shortened or missing:
	// not complete either, so skills_search is served too.
	named := utf8.RuneCountInString(describeOf(snapOf(many), 0)) - 100
	if _, st := SkillDescription(snapOf(many), named, nil); st.Omitted != 0 || st.Complete() {
		t.Fatalf("budget %d: %+v, want every skill named and some not in full", named, st)
	}
	for _, budget := range []int{budget, named} {
		for _, pv := range protocolVersions {
			t.Run(fmt.Sprintf("%d/%s", budget, pvName(pv)), func(t *testing.T) {
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
				if !eventually(10*time.Second, func() bool { return changes.Load() >= 1 }) {
					t.Fatal("no tools/list_changed when the list was cut")
				}
				if !has() {
					t.Fatal("skills_search not served once the list is cut")
				}
				before := changes.Load()
				srv.Update(snapOf(few))
				if !eventually(10*time.Second, func() bool { return changes.Load() > before }) {
					t.Fatal("no tools/list_changed when the list fitted again")
				}
				if has() {
					t.Fatal("skills_search still served after the list fitted again")
				}
			})
		}
	}

	// Configured, it stays when the cut goes away.
	srv := New(snapOf(many), Options{Logger: discard(), Catalog: budget, Tools: []string{ToolSkillsSearch}})
	srv.Update(snapOf(few))
	ctx := testCtx(t, 10*time.Second)
	if listToolsByName(t, ctx, connect(t, srv, "", nil))[ToolSkillsSearch] == nil {
		t.Error("a configured skills_search was removed when the list fitted")
	}
}

// BenchmarkCatalogue renders the skill tool's description at the default
// budget for machines of 1k, 10k and 50k skills.
func BenchmarkCatalogue(b *testing.B) {
	for _, n := range []int{1000, 10000, 50000} {
		recs := machineSkills(n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			var st CatalogueStats
			for b.Loop() {
				_, st = Catalogue(recs, 16000)
			}
			b.ReportMetric(float64(st.Named()), "named")
		})
	}
}

// describeOf is the skill tool's description of snap's skills within
// budget, as a server with no count of loads registers it.
func describeOf(snap *pipeline.Snapshot, budget int) string {
	d, _ := SkillDescription(snap, budget, nil)
	return d
}
