package scan

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// repositoryTree holds skills and slash commands where Claude Code and
// Codex read them, and look-alikes that are neither.
var repositoryTree = map[string]string{
	"repo/.claude/skills/notes/SKILL.md":              "---\nname: notes\ndescription: N.\n---\n",
	"repo/.claude/commands/deploy.md":                 "---\ndescription: Deploy.\n---\nDeploy $1.\n",
	"repo/.claude/commands/frontend/review.md":        "# Review the frontend\n",
	"repo/.claude/commands/.draft.md":                 "A hidden file: not a command.\n",
	"repo/.claude/commands/.old/stale.md":             "In a hidden folder: not read.\n",
	"repo/.claude/commands/kit/SKILL.md":              "---\nname: kit\ndescription: A skill in a commands folder.\n---\n",
	"repo/.claude/commands/kit/README.md":             "The skill's own file: not a command.\n",
	"repo/plugins/lint-kit/commands/fix.md":           "Fix the lint.\n",
	"repo/plugins/lint-kit/skills/lint/SKILL.md":      "---\nname: lint\ndescription: L.\n---\n",
	"repo/plugins/lint-kit/skills/lint/commands/x.md": "The skill's own file.\n",
	"repo/.codex/prompts/sp.plan.md":                  "Plan $ARGUMENTS.\n",
	"repo/.codex/prompts/old/ignored.md":              "Codex reads the top level only.\n",
	"repo/prompts/not-codex.md":                       "A prompts folder outside .codex.\n",
	"repo/docs/README.md":                             "# Docs\n",
	"repo/node_modules/pkg/commands/dep.md":           "Never read.\n",
	"repo/.venv/lib/commands/tool.md":                 "Never read.\n",
	"deep/a/b/commands/top.md":                        "Top.\n",
	"deep/a/b/commands/c/d/nested.md":                 "Too deep.\n",
}

// TestCommandsOption checks the repository walk with Options.Commands:
// one walk finds skills and the commands of every commands folder and of
// .codex/prompts, under one set of bounds whose limits are reported as
// diagnostics (the command-root search validate once ran on its own said
// nothing when it stopped). A root named commands or prompts is a command
// folder itself, "." included.
func TestCommandsOption(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, repositoryTree)
	all := []string{
		"command fix repo/plugins/lint-kit/commands/fix.md",
		"skill lint repo/plugins/lint-kit/skills/lint/SKILL.md",
		"command deploy repo/.claude/commands/deploy.md",
		"command frontend:review repo/.claude/commands/frontend/review.md",
		"skill kit repo/.claude/commands/kit/SKILL.md",
		"skill notes repo/.claude/skills/notes/SKILL.md",
		"command sp.plan repo/.codex/prompts/sp.plan.md",
	}
	for _, tt := range []struct {
		name  string
		root  string
		chdir string
		opt   Options
		want  []string
		diags []string
	}{
		{name: "skills and commands", root: "repo", opt: Options{Hidden: true, Commands: true}, want: all},
		{name: "skills only without Commands", root: "repo", opt: Options{Hidden: true}, want: []string{
			"skill lint repo/plugins/lint-kit/skills/lint/SKILL.md",
			"skill kit repo/.claude/commands/kit/SKILL.md",
			"skill notes repo/.claude/skills/notes/SKILL.md",
		}},
		{name: "a root named commands", root: "repo/.claude/commands", opt: Options{Hidden: true, Commands: true},
			want: []string{
				"command deploy repo/.claude/commands/deploy.md",
				"command frontend:review repo/.claude/commands/frontend/review.md",
				"skill kit repo/.claude/commands/kit/SKILL.md",
			}},
		{name: "a root named prompts", root: "repo/.codex/prompts", opt: Options{Hidden: true, Commands: true},
			want: []string{"command sp.plan repo/.codex/prompts/sp.plan.md"}},
		{name: "a prompts folder below a .codex root", root: "repo/.codex", opt: Options{Hidden: true, Commands: true},
			want: []string{"command sp.plan repo/.codex/prompts/sp.plan.md"}},
		{name: "a prompts folder below a .codex root given as .", root: ".", chdir: "repo/.codex",
			opt: Options{Hidden: true, Commands: true}, want: []string{"command sp.plan prompts/sp.plan.md"}},
		{name: "a commands root given as .", root: ".", chdir: "deep/a/b/commands",
			opt:  Options{Hidden: true, Commands: true},
			want: []string{"command top top.md", "command c:d:nested c/d/nested.md"}},
		{name: "the depth limit", root: "deep", opt: Options{Hidden: true, Commands: true, MaxDepth: 4},
			want:  []string{"command top deep/a/b/commands/top.md"},
			diags: []string{"depth-limit deep/a/b/commands/c/d"}},
		{name: "the folder limit", root: "deep", opt: Options{Hidden: true, Commands: true, MaxDirs: 4},
			want:  []string{"command top deep/a/b/commands/top.md"},
			diags: []string{"walk-limit deep"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := base
			if tt.chdir != "" {
				dir = filepath.Join(base, filepath.FromSlash(tt.chdir))
				t.Chdir(dir)
			}
			path := tt.root
			if tt.chdir == "" {
				path = filepath.Join(base, filepath.FromSlash(tt.root))
			}
			res := Scan(context.Background(), []pipeline.Root{{Path: path, Agent: "custom"}}, tt.opt)
			var got, diags []string
			for _, r := range res.Records {
				got = append(got, string(r.Type.OrSkill())+" "+r.Name+" "+rel(dir, r.File))
			}
			for _, d := range res.Diagnostics {
				diags = append(diags, d.Code+" "+rel(dir, d.Path))
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.diags, diags); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
		})
	}
}
