package validate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

const (
	goodSkill   = "---\nname: %s\ndescription: Does %s.\n---\nBody.\n"
	goodCommand = "---\ndescription: Runs it.\n---\nRun $ARGUMENTS.\n"
)

func skillFile(name string) string {
	return strings.ReplaceAll(goodSkill, "%s", name)
}

// collected returns the targets of Collect as "skill path" or "command
// path" lines, and the codes of its findings.
func collected(t *testing.T, kind Kind, paths ...string) ([]string, []string) {
	t.Helper()
	targets, pre, err := Collect(context.Background(), paths, kind)
	if err != nil {
		t.Fatal(err)
	}
	var got, codes []string
	for _, tg := range targets {
		got = append(got, string(tg.Type.OrSkill())+" "+filepath.ToSlash(tg.File))
	}
	for _, f := range pre {
		codes = append(codes, f.Code+" "+filepath.ToSlash(f.File))
	}
	return got, codes
}

// TestCollectHiddenFolders checks that a PATH is walked into hidden
// folders, as the openai/skills repository needs (its skills sit in
// skills/.system, .curated and .experimental), but never into .git or
// node_modules, at any depth.
func TestCollectHiddenFolders(t *testing.T) {
	t.Chdir(testfs.TempDir(t))
	testfs.Write(t, ".", map[string]string{
		"openai-skills/skills/.system/skill-creator/SKILL.md":          skillFile("skill-creator"),
		"openai-skills/skills/.curated/gh-fix-ci/SKILL.md":             skillFile("gh-fix-ci"),
		"openai-skills/skills/.experimental/create-plan/SKILL.md":      skillFile("create-plan"),
		"openai-skills/.github/workflows/ci.yml":                       "on: push\n",
		"openai-skills/.git/objects/skills/stale/SKILL.md":             skillFile("stale"),
		"openai-skills/node_modules/pkg/skills/dep/SKILL.md":           skillFile("dep"),
		"openai-skills/skills/.curated/.cache/node_modules/x/SKILL.md": skillFile("x"),
		"openai-skills/skills/.curated/.git/y/SKILL.md":                skillFile("y"),
	})
	got, codes := collected(t, KindSkill, "openai-skills")
	want := []string{
		"skill openai-skills/skills/.curated/gh-fix-ci/SKILL.md",
		"skill openai-skills/skills/.experimental/create-plan/SKILL.md",
		"skill openai-skills/skills/.system/skill-creator/SKILL.md",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("targets (-want +got):\n%s", d)
	}
	if len(codes) != 0 {
		t.Errorf("findings: %v", codes)
	}
}

// TestCollectKinds checks what each kind finds in a repository holding
// skills and commands in the places Claude Code and Codex read them, and
// how a file PATH is taken.
func TestCollectKinds(t *testing.T) {
	t.Chdir(testfs.TempDir(t))
	testfs.Write(t, ".", map[string]string{
		"repo/.claude/skills/notes/SKILL.md":              skillFile("notes"),
		"repo/.claude/commands/deploy.md":                 goodCommand,
		"repo/.claude/commands/frontend/review.md":        "# Review the frontend\n",
		"repo/.claude/commands/.draft.md":                 goodCommand, // hidden: not a command
		"repo/plugins/lint-kit/commands/fix.md":           goodCommand,
		"repo/plugins/lint-kit/skills/lint/SKILL.md":      skillFile("lint"),
		"repo/plugins/lint-kit/skills/lint/commands/x.md": goodCommand, // inside a skill: the skill's file
		"repo/.codex/prompts/sp.plan.md":                  goodCommand,
		"repo/.codex/prompts/old/ignored.md":              goodCommand, // Codex reads the top level only
		"repo/prompts/not-codex.md":                       goodCommand, // a prompts folder outside .codex
		"repo/docs/README.md":                             "# Docs\n",
		"repo/node_modules/pkg/commands/dep.md":           goodCommand,
		"repo/.git/commands/old.md":                       goodCommand,
		"repo/tools/loop":                                 "-> ..", // a loop: searched once
		"cmds/commands/a.md":                              goodCommand,
		"cmds/commands/sub/b.md":                          goodCommand,
		"notes.md":                                        goodCommand,
		"SKILL.md":                                        skillFile("x"),
		"deep/commands/top.md":                            goodCommand,
		"deep/1/2/3/4/5/6/commands/far.md":                goodCommand, // deeper than the walk's bound
	})
	skills := []string{"skill repo/.claude/skills/notes/SKILL.md", "skill repo/plugins/lint-kit/skills/lint/SKILL.md"}
	commands := []string{"command repo/.claude/commands/deploy.md", "command repo/.claude/commands/frontend/review.md",
		"command repo/.codex/prompts/sp.plan.md", "command repo/plugins/lint-kit/commands/fix.md"}
	for _, tt := range []struct {
		kind  Kind
		paths []string
		want  []string
		codes []string
	}{
		{KindSkill, []string{"repo"}, skills, nil},
		{KindCommand, []string{"repo"}, commands, nil},
		{KindAll, []string{"repo"}, []string{"command repo/.claude/commands/deploy.md",
			"command repo/.claude/commands/frontend/review.md", "skill repo/.claude/skills/notes/SKILL.md",
			"command repo/.codex/prompts/sp.plan.md", "command repo/plugins/lint-kit/commands/fix.md",
			"skill repo/plugins/lint-kit/skills/lint/SKILL.md"}, nil},
		{KindCommand, []string{"cmds/commands"}, []string{"command cmds/commands/a.md", "command cmds/commands/sub/b.md"}, nil},
		{KindCommand, []string{"repo/.codex/prompts"}, []string{"command repo/.codex/prompts/sp.plan.md"}, nil},
		{KindSkill, []string{"notes.md", "SKILL.md"}, []string{"skill SKILL.md", "skill notes.md"}, nil},
		{KindAll, []string{"notes.md", "SKILL.md"}, []string{"skill SKILL.md", "command notes.md"}, nil},
		{KindCommand, []string{"notes.md", "SKILL.md"}, []string{"command SKILL.md", "command notes.md"}, nil},
		{KindCommand, []string{"repo/docs"}, nil, []string{"no-command-found repo/docs"}},
		{KindAll, []string{"repo/docs"}, nil, []string{"no-skill-found repo/docs"}},
		{KindAll, []string{"cmds"}, []string{"command cmds/commands/a.md", "command cmds/commands/sub/b.md"}, nil},
		// One walk, one set of bounds: the command search reports its
		// limits as the skill search does.
		{KindCommand, []string{"deep"}, []string{"command deep/commands/top.md"},
			[]string{"depth-limit deep/1/2/3/4/5/6/commands"}},
	} {
		got, codes := collected(t, tt.kind, tt.paths...)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s %v: targets (-want +got):\n%s", tt.kind, tt.paths, d)
		}
		if d := cmp.Diff(tt.codes, codes); d != "" {
			t.Errorf("%s %v: findings (-want +got):\n%s", tt.kind, tt.paths, d)
		}
	}
}

// TestParseKind checks the --kind values and the did-you-mean.
func TestParseKind(t *testing.T) {
	for _, k := range Kinds {
		if got, err := ParseKind(string(k)); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
	_, err := ParseKind("commands")
	if err == nil || !strings.Contains(err.Error(), `unknown kind "commands": use skill, command, all (did you mean "command"?)`) {
		t.Errorf("ParseKind(commands) = %v", err)
	}
}

// TestDiscoveredTargets checks the targets taken from a snapshot: the
// visible records of the kinds asked for, a skill file discovery could
// not load, and a command file it skipped; never a command file that has
// a record (such as a shadowed copy).
func TestDiscoveredTargets(t *testing.T) {
	rec := func(typ pipeline.Type, file string) *pipeline.Record {
		return &pipeline.Record{Type: typ, File: file, Name: filepath.Base(filepath.Dir(file)), Agent: "claude"}
	}
	skill := rec("", "/h/.claude/skills/a/SKILL.md")
	cmd := rec(pipeline.TypeCommand, "/w/.claude/commands/deploy.md")
	shadowed := rec(pipeline.TypeCommand, "/h/.claude/commands/deploy.md")
	snap := &pipeline.Snapshot{
		All:     []*pipeline.Record{skill, cmd, shadowed},
		Visible: []*pipeline.Record{skill, cmd},
		Diagnostics: []pipeline.Diagnostic{
			{Severity: pipeline.SeverityError, Code: "yaml-syntax", Path: "/h/.claude/skills/bad/SKILL.md"},
			{Severity: pipeline.SeverityWarning, Code: "command-yaml-syntax", Path: "/h/.claude/commands/broken.md"},
			{Severity: pipeline.SeverityWarning, Code: "command-argument-hint-unquoted", Path: "/h/.claude/commands/deploy.md"},
			{Severity: pipeline.SeverityWarning, Code: "root-missing", Path: "/h/.claude/commands"},
		},
	}
	for _, tt := range []struct {
		kind Kind
		want []string
	}{
		{KindSkill, []string{"skill /h/.claude/skills/a/SKILL.md", "skill /h/.claude/skills/bad/SKILL.md"}},
		{KindCommand, []string{"command /w/.claude/commands/deploy.md", "command /h/.claude/commands/broken.md"}},
		{KindAll, []string{"skill /h/.claude/skills/a/SKILL.md", "command /w/.claude/commands/deploy.md",
			"skill /h/.claude/skills/bad/SKILL.md", "command /h/.claude/commands/broken.md"}},
	} {
		var got []string
		for _, tg := range DiscoveredTargets(snap, tt.kind) {
			got = append(got, string(tg.Type.OrSkill())+" "+tg.File)
			if want := "claude\x00a"; tg.File == skill.File && tg.Key != want {
				t.Errorf("%s: key %q, want %q", tg.File, tg.Key, want)
			}
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.kind, d)
		}
	}
}

// TestRunCommands checks a run over skills and commands: commands get
// the command rules only (no name, description or folder rules, no
// duplicate-name across commands and skills), are counted apart, and a
// command over the size limit is unreadable.
func TestRunCommands(t *testing.T) {
	dir := testfs.TempDir(t)
	testfs.Write(t, dir, map[string]string{
		"skills/deploy/SKILL.md":           skillFile("deploy"),
		"a/commands/deploy.md":             "Deploy $1.\n",
		"b/commands/deploy.md":             "Deploy $1 too.\n",
		"a/commands/huge.md":               strings.Repeat("x", 1<<20+1),
		"a/commands/Commands With Case.md": "---\nargument-hint: [x]\n---\nDo it.\n",
	})
	var targets []Target
	for _, f := range []string{"skills/deploy/SKILL.md"} {
		targets = append(targets, Target{File: filepath.Join(dir, f)})
	}
	for _, f := range []string{"a/commands/deploy.md", "b/commands/deploy.md", "a/commands/huge.md", "a/commands/Commands With Case.md"} {
		targets = append(targets, Target{File: filepath.Join(dir, f), Type: pipeline.TypeCommand})
	}
	rep, _ := Run(context.Background(), targets, nil, Options{Profile: ProfileStrict})
	var got []string
	for _, f := range rep.Findings {
		rel, _ := filepath.Rel(dir, f.File)
		got = append(got, f.Code+" "+filepath.ToSlash(rel))
	}
	want := []string{"command-name-chars a/commands/Commands With Case.md", "unreadable a/commands/huge.md"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if rep.Skills != 1 || rep.Commands != 4 || !strings.HasSuffix(rep.Summary(), "(1 skill, 4 commands checked)") {
		t.Errorf("counts %d skills, %d commands; summary %q", rep.Skills, rep.Commands, rep.Summary())
	}
}

// TestDuplicateNamesByKey checks that duplicate-name compares the keys
// discovery sets (provider and plugin-qualified name) when there are
// some: a project's docx, the document-skills plugin's docx and Codex's
// docx are three skills, not copies; two records with one key are.
func TestDuplicateNamesByKey(t *testing.T) {
	dir := testfs.TempDir(t)
	files := []string{"project/docx/SKILL.md", "plugin/skills/docx/SKILL.md", "codex/docx/SKILL.md", "other/docx/SKILL.md"}
	for _, f := range files {
		testfs.Write(t, dir, map[string]string{f: skillFile("docx")})
	}
	for _, tt := range []struct {
		keys []string
		dups int
	}{
		{[]string{"claude\x00docx", "claude\x00document-skills:docx", "codex\x00docx", "codex\x00example-skills:docx"}, 0},
		{[]string{"claude\x00docx", "claude\x00document-skills:docx", "codex\x00docx", "CODEX\x00Docx"}, 2},
		{[]string{"", "", "", ""}, 4}, // a PATH: names only
	} {
		var targets []Target
		for i, f := range files {
			targets = append(targets, Target{File: filepath.Join(dir, f), Key: tt.keys[i]})
		}
		rep, _ := Run(context.Background(), targets, nil, Options{})
		dups := 0
		for _, f := range rep.Findings {
			if f.Code == CodeDuplicateName {
				dups++
			}
		}
		if dups != tt.dups {
			t.Errorf("keys %q: %d duplicate-name findings, want %d: %+v", tt.keys, dups, tt.dups, rep.Findings)
		}
	}
}

// TestNothingFoundHint checks the no-skill-found finding of a folder that
// holds no skill: when it holds slash commands, which only --kind command
// and --kind all check, it says so and names one; otherwise it says what a
// skill is.
func TestNothingFoundHint(t *testing.T) {
	t.Chdir(testfs.TempDir(t))
	testfs.Write(t, ".", map[string]string{
		"tools/.claude/commands/deploy.md":       goodCommand,
		"tools/.claude/commands/ops/rollback.md": goodCommand,
		"tools/.codex/prompts/plan.md":           goodCommand,
		"one/commands/deploy.md":                 "---\ndescription: [never closed\n---\n", // broken: still a command
		"docs/README.md":                         "# Docs\n",
		"docs/prompts/not-codex.md":              goodCommand,
	})
	for _, tt := range []struct {
		kind Kind
		path string
		want string // the message, or "" for no finding
	}{
		{KindSkill, "tools", "no skill was found in this folder, but it holds 3 slash commands (such as " +
			".claude/commands/deploy.md), which are checked only with --kind command or --kind all: add one of " +
			"them, or check the path"},
		{KindSkill, "one", "no skill was found in this folder, but it holds 1 slash command (such as " +
			"commands/deploy.md), which are checked only with --kind command or --kind all: add one of them, or " +
			"check the path"},
		{KindSkill, "docs", "no skill was found in this folder (a skill is a folder holding SKILL.md; .git, " +
			"node_modules and tool folders such as .venv are not searched): check the path"},
		{KindAll, "tools", ""},
		{KindCommand, "tools", ""},
	} {
		_, pre, err := Collect(context.Background(), []string{tt.path}, tt.kind)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, f := range pre {
			if f.Code == CodeNoSkillFound {
				got = f.Message
			} else {
				t.Errorf("%s %s: unexpected finding %+v", tt.kind, tt.path, f)
			}
		}
		if got != tt.want {
			t.Errorf("%s %s: no-skill-found message\n got %q\nwant %q", tt.kind, tt.path, got, tt.want)
		}
	}
}
