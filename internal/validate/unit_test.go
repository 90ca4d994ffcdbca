package validate

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/suggest"
	"github.com/google/go-cmp/cmp"
)

func TestClosest(t *testing.T) {
	for in, want := range map[string]string{
		"descriptoin":   "description",
		"Description":   "description",
		"allowed_tools": "allowed-tools",
		"nmae":          "name",
		"licence":       "license",
		"whenToUse":     "when_to_use",
		"meta":          "metadata",
		"author":        "",
		"tags":          "",
		"tools":         "",
		"namespace":     "",
		"":              "",
	} {
		if got := suggest.Closest(in, knownKeys); got != want {
			t.Errorf("suggest.Closest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSuggestName(t *testing.T) {
	for in, want := range map[string]string{
		"My Skill!":              "my-skill",
		"release_notes.v2":       "release-notes-v2",
		"--a--b--":               "a-b",
		"Café":                   "café",
		"!!!":                    "",
		strings.Repeat("a-", 40): strings.TrimSuffix(strings.Repeat("a-", 32), "-"),
	} {
		if got := suggestName(in); got != want {
			t.Errorf("suggestName(%q) = %q, want %q", in, got, want)
		}
		if got := suggestName(in); got != "" && !validName(got) {
			t.Errorf("suggestName(%q) = %q is not a valid name", in, got)
		}
	}
}

func TestQuoteColonValues(t *testing.T) {
	in := []string{
		"name: a",
		"description: Use when: x",
		"other: Note: \"q\" \\ # c",
		"quoted: \"a: b\"",
		"block: |",
		"  a: b",
		"multi: one: two",
		"  three",
		"commented: a: b",
		"  # inside",
		"ends: with:",
	}
	got, spots := quoteColonValues(in, nil)
	want := []string{
		"name: a",
		`description: "Use when: x"`,
		`other: "Note: \"q\" \\" # c`,
		"quoted: \"a: b\"",
		"block: |",
		"  a: b",
		`multi: "one: two`,
		`  three"`,
		"commented: a: b",
		"  # inside",
		`ends: "with:"`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var where []string
	for _, s := range spots {
		where = append(where, s.key)
	}
	if d := cmp.Diff([]string{"description", "other", "multi", "ends"}, where); d != "" {
		t.Errorf("spots (-want +got):\n%s", d)
	}
	if spots[0].line != 1 || spots[0].col != 22 {
		t.Errorf("first spot at %d:%d, want 1:22", spots[0].line, spots[0].col)
	}
	if _, s := quoteColonValues(in, map[string]bool{"name": true}); s != nil {
		t.Errorf("keys filter ignored: %v", s)
	}
}

func TestParseProfile(t *testing.T) {
	if _, err := ParseProfile("claude-code"); err == nil || !strings.Contains(err.Error(), `did you mean "claude"`) {
		t.Errorf("ParseProfile(claude-code) = %v", err)
	}
	for _, p := range Profiles {
		if got, err := ParseProfile(string(p)); got != p || err != nil {
			t.Errorf("ParseProfile(%s) = %v, %v", p, got, err)
		}
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCollect(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	skill := "---\nname: %s\ndescription: d\n---\n"
	for _, p := range []string{"repo/.claude/skills/a", "repo/.agents/skills/b", "repo/skills/c",
		"repo/.hidden/d", "repo/node_modules/e", "repo/.git/skills/f", "repo/skills/c/nested/g"} {
		writeFile(t, filepath.Join(p, "SKILL.md"), strings.ReplaceAll(skill, "%s", filepath.Base(p)))
	}
	writeFile(t, "repo/skills/off/.SKILL.md", strings.ReplaceAll(skill, "%s", "off"))
	writeFile(t, "repo/skills/low/skill.md", strings.ReplaceAll(skill, "%s", "low"))
	writeFile(t, "lone.md", strings.ReplaceAll(skill, "%s", "lone"))

	targets, pre, err := Collect(context.Background(), []string{"repo", "repo/skills/c", "lone.md", "repo/.hidden/d"}, KindSkill)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, tg := range targets {
		files = append(files, filepath.ToSlash(tg.File))
	}
	want := []string{"lone.md", "repo/.agents/skills/b/SKILL.md", "repo/.claude/skills/a/SKILL.md",
		"repo/.hidden/d/SKILL.md", "repo/skills/c/SKILL.md", "repo/skills/low/skill.md", "repo/skills/off/.SKILL.md"}
	if d := cmp.Diff(want, files); d != "" {
		t.Errorf("targets (-want +got):\n%s", d)
	}
	if len(pre) != 0 {
		t.Errorf("findings: %+v", pre)
	}

	writeFile(t, "docs/README.md", "# not a skill\n")
	_, pre, err = Collect(context.Background(), []string{"docs"}, KindSkill)
	if err != nil || len(pre) != 1 || pre[0].Code != CodeNoSkillFound || pre[0].File != "docs" {
		t.Errorf("a folder without skills: %+v %v", pre, err)
	}
	_, _, err = Collect(context.Background(), []string{"missing"}, KindSkill)
	var pe *PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing does not exist") {
		t.Errorf("missing path: %v", err)
	}
}

// TestRunAcrossFiles checks what only a run over several files shows:
// duplicate names (disabled copies left out, NFKC and case folded), the
// profile filter and the order of the findings.
func TestRunAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, name string) Target {
		p := filepath.Join(dir, rel)
		writeFile(t, p, "---\nname: "+name+"\ndescription: d\n---\n")
		return Target{File: p}
	}
	targets := []Target{
		write("a/ﬁle/SKILL.md", "ﬁle"), // U+FB01, "fi" after NFKC
		write("b/file/SKILL.md", "file"),
		write("c/file/.SKILL.md", "file"),
		write("d/FILE/SKILL.md", "FILE"),
	}
	rep, _ := Run(context.Background(), targets, nil, Options{Profile: ProfileCodex})
	var dups []string
	for _, f := range rep.Findings {
		if f.Code == CodeDuplicateName {
			rel, _ := filepath.Rel(dir, f.File)
			dups = append(dups, filepath.ToSlash(rel))
		}
		if f.Severity == report.SeverityOff || f.Code == CodeNameFolderMismatch && f.Severity != report.SeverityWarning {
			t.Errorf("wrong severity under codex: %+v", f)
		}
	}
	if d := cmp.Diff([]string{"a/ﬁle/SKILL.md", "b/file/SKILL.md", "d/FILE/SKILL.md"}, dups); d != "" {
		t.Errorf("duplicates (-want +got):\n%s", d)
	}
	if !slices.IsSortedFunc(rep.Findings, report.CompareFindings) {
		t.Error("findings are not sorted")
	}
	if rep.Skills != 4 {
		t.Errorf("skills = %d", rep.Skills)
	}
}

// TestProfilesDiffer checks one file whose findings change with the
// profile: the point of profiles.
func TestProfilesDiffer(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "deploy", "SKILL.md")
	writeFile(t, p, "---\nname: deploy\ndescription: Use when: deploying <env>\nargument-hint: env\nallowed-tools:\n  - Bash\n---\nbody\n")
	got := map[Profile][]string{}
	for _, prof := range Profiles {
		rep, _ := Run(context.Background(), []Target{{File: p}}, nil, Options{Profile: prof})
		for _, f := range rep.Findings {
			got[prof] = append(got[prof], f.Code+":"+string(f.Severity))
		}
	}
	want := map[Profile][]string{
		ProfileSpec: {"description-angle-brackets:info", "unquoted-colon:error", "claude-extension-key:error",
			"allowed-tools-list:error"},
		ProfileClaude: {"description-angle-brackets:info", "unquoted-colon:warning"},
		ProfileCodex:  {"unquoted-colon:warning", "claude-extension-key:warning", "allowed-tools-list:warning"},
		ProfileStrict: {"description-angle-brackets:warning", "unquoted-colon:error", "claude-extension-key:error",
			"allowed-tools-list:error"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
