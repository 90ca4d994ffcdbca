package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func skillPaths(records []*Record) []string {
	out := make([]string, len(records))
	for i, rec := range records {
		out[i] = rec.SkillPath
	}
	return out
}

func TestAssignSkillPaths(t *testing.T) {
	other := func(rec *Record, market string) *Record { rec.Plugin.Marketplace = market; return rec }
	cmd := r("claude", LocationUser, "deploy")
	cmd.Type = TypeCommand
	tests := []struct {
		name    string
		records []*Record
		want    []string
	}{
		{"unique names are short",
			[]*Record{r("codex", LocationUser, "pdf"), r("claude", LocationUser, "pdf")},
			[]string{"codex/pdf", "claude/pdf"}},
		{"plugin skills sit under plugins/<plugin>",
			[]*Record{r("claude", LocationPlugin, "document-skills:docx")},
			[]string{"claude/plugins/document-skills/docx"}},
		{"a shared name gets the location",
			[]*Record{r("claude", LocationUser, "docx"), r("claude", LocationProject, "docx"), r("claude", LocationPlugin, "document-skills:docx")},
			[]string{"claude/user/docx", "claude/project/docx", "claude/plugins/document-skills/docx"}},
		{"one plugin from two marketplaces gets the marketplace",
			[]*Record{other(r("claude", LocationPlugin, "tools:lint"), "a"), other(r("claude", LocationPlugin, "tools:lint"), "b")},
			[]string{"claude/plugins/a/tools/lint", "claude/plugins/b/tools/lint"}},
		{"a shared location gets an ordinal",
			[]*Record{r("claude", LocationProject, "pdf"), r("claude", LocationProject, "pdf"), r("claude", LocationProject, "pdf")},
			[]string{"claude/project/pdf", "claude/project/2/pdf", "claude/project/3/pdf"}},
		{"a scope is a segment",
			[]*Record{r("custom", LocationCustom, "docs:pdf")},
			[]string{"custom/docs/pdf"}},
		{"a qualified path never takes a short one",
			// custom:pdf at custom would qualify to custom/custom/pdf, the
			// short path of the scoped skill custom:pdf.
			[]*Record{r("custom", LocationCustom, "pdf"), r("custom", LocationCustom, "pdf"), r("custom", LocationCustom, "custom:pdf")},
			[]string{"custom/custom/2/pdf", "custom/custom/3/pdf", "custom/custom/pdf"}},
		{"commands have none", []*Record{cmd}, []string{""}},
		{"a path never starts another",
			// A skill named user would hold the personal copy of docx.
			[]*Record{r("claude", LocationUser, "user"), r("claude", LocationUser, "docx"), r("claude", LocationProject, "docx"),
				r("claude", LocationUser, "plugins"), r("claude", LocationPlugin, "document-skills:xlsx")},
			[]string{"claude/~1/user", "claude/user/docx", "claude/project/docx", "claude/~1/plugins", "claude/plugins/document-skills/xlsx"}},
		{"odd characters are escaped",
			[]*Record{r("My Agent", LocationUser, "a b")},
			[]string{"my~20agent/a%20b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			AssignIDs(tc.records)
			if diff := cmp.Diff(tc.want, skillPaths(tc.records)); diff != "" {
				t.Errorf("skill paths (-want +got):\n%s", diff)
			}
			seen := map[string]bool{}
			for _, rec := range tc.records {
				if rec.SkillPath == "" {
					continue
				}
				if seen[strings.ToLower(rec.SkillPath)] {
					t.Errorf("skill path %q assigned twice", rec.SkillPath)
				}
				seen[strings.ToLower(rec.SkillPath)] = true
				for _, o := range tc.records {
					if o != rec && o.SkillPath != "" && strings.HasPrefix(o.SkillPath, rec.SkillPath+"/") {
						t.Errorf("skill path %q starts %q", rec.SkillPath, o.SkillPath)
					}
				}
				if !strings.HasSuffix(rec.SkillURI(), "/"+strings.ReplaceAll(rec.ShortName(), " ", "%20")+"/SKILL.md") {
					t.Errorf("%s: URI %s does not end with the name", rec.Name, rec.SkillURI())
				}
			}
		})
	}
}

func TestSnapshotLoadURI(t *testing.T) {
	user, project := r("claude", LocationUser, "docx"), r("claude", LocationProject, "docx")
	excluded := r("codex", LocationUser, "secret")
	all := []*Record{user, project, r("codex", LocationUser, "pdf"), excluded}
	AssignIDs(all)
	snap := NewSnapshot(all, []*Record{user, all[2]}, []Drop{
		{Record: project, Stage: "dedupe", Reason: "shadowed by claude@user:docx", By: user},
		{Record: excluded, Stage: "exclude", Reason: "excluded by --exclude=secret"},
	}, nil, nil)
	tests := []struct {
		uri      string
		want     *Record
		rel      string
		ok       bool
		hiddenBy string
	}{
		{"skill://codex/pdf/SKILL.md", all[2], "SKILL.md", true, ""},
		{"skill://codex/pdf", all[2], "", true, ""},
		{"skill://CODEX/pdf/references/a%20b.md", all[2], "references/a b.md", true, ""},
		{"skill://claude/project/docx/SKILL.md", project, "SKILL.md", true, ""}, // dedupe only: loadable
		{"skill://codex/secret/SKILL.md", nil, "", true, "excluded"},
		{"skill://codex/nope/SKILL.md", nil, "", false, ""},
		{"skill://codex~3Apdf/SKILL.md", nil, "", false, ""},
		{"file:///etc/passwd", nil, "", false, ""},
	}
	for _, tc := range tests {
		got, rel, ok, err := snap.LoadURI(tc.uri)
		if ok != tc.ok || got != tc.want || rel != tc.rel {
			t.Errorf("LoadURI(%q) = %v, %q, %v; want %v, %q, %v", tc.uri, got, rel, ok, tc.want, tc.rel, tc.ok)
		}
		var hidden *HiddenError
		if tc.hiddenBy != "" && (!errors.As(err, &hidden) || !strings.Contains(hidden.Reason, tc.hiddenBy)) {
			t.Errorf("LoadURI(%q) error = %v, want a HiddenError saying %q", tc.uri, err, tc.hiddenBy)
		}
		if tc.hiddenBy == "" && err != nil {
			t.Errorf("LoadURI(%q) error = %v", tc.uri, err)
		}
	}
}

func TestUnlistable(t *testing.T) {
	long := strings.Repeat("x", 1025)
	tests := []struct {
		name, desc string
		want       string // a phrase of the reason; "" when listable
	}{
		{"pdf", "d", ""},
		{"x:docs", "d", "holds ':'"},
		{"PDF", "d", "other than a-z"},
		{"my skill", "d", "other than a-z"},
		{"-pdf", "d", "hyphen"},
		{"a--b", "d", "two hyphens"},
		{strings.Repeat("a", 65), "d", "longer than 64"},
		{"pdf", "", "description is empty"},
		{"pdf", long, "1025 characters"},
	}
	plugin := r("claude", LocationPlugin, "example-skills:pdf")
	if why := plugin.Unlistable(); why != "" {
		t.Errorf("a plugin skill is unlistable: %s", why)
	}
	for code, want := range map[string]string{"name-missing": "no name", "typed-scalar": "not a string"} {
		rec := r("claude", LocationUser, "pdf")
		rec.Diagnostics = []Diagnostic{{Code: code}}
		if got := rec.Unlistable(); !strings.Contains(got, want) {
			t.Errorf("with %s: Unlistable = %q, want %q", code, got, want)
		}
	}
	for _, tc := range tests {
		rec := r("claude", LocationUser, tc.name)
		rec.Description = tc.desc
		got := rec.Unlistable()
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("Unlistable(%q, %d-char description) = %q, want %q", tc.name, len(tc.desc), got, tc.want)
		}
	}
}

// TestSkillPathOfURILongURI: a URI far longer than any skill path, made
// of slashes or of one long segment, is resolved with a bounded number of
// lookups, however long it is (it used to take one lookup of the whole
// prefix per slash: seconds for 64 KiB, hours for the 4 MiB an HTTP body
// holds); the skill it starts with is still found, and a Kelvin sign that
// lower-cases to k still matches.
func TestSkillPathOfURILongURI(t *testing.T) {
	s := &Snapshot{All: []*Record{{Name: "pdf", Agent: "codex", SkillPath: "codex/pdf"},
		{Name: "kit", Agent: "codex", SkillPath: "codex/kit"}}}
	slashes := strings.Repeat("/", 4<<20)
	tests := []struct {
		uri      string
		wantPath string
		wantRel  string
		wantOK   bool
	}{
		{"skill://codex/" + slashes, "", "", false},
		{"skill://" + strings.Repeat("a", 4<<20), "", "", false},
		{"skill://codex/pdf/" + slashes + "x", "codex/pdf", slashes + "x", true},
		{"skill://codex/pdf/references/" + strings.Repeat("b", 1<<20), "codex/pdf", "references/" + strings.Repeat("b", 1<<20), true},
		{"skill://codex/\u212Ait/SKILL.md", "codex/kit", "SKILL.md", true},
	}
	for _, tt := range tests {
		r, rel, ok := s.SkillPathOfURI(tt.uri)
		path := ""
		if r != nil {
			path = r.SkillPath
		}
		if ok != tt.wantOK || path != tt.wantPath || rel != tt.wantRel {
			t.Errorf("SkillPathOfURI(%.40q...) = %q, %.40q, %v; want %q, %.40q, %v", tt.uri, path, rel, ok, tt.wantPath, tt.wantRel, tt.wantOK)
		}
	}
}
