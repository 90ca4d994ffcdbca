package validate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/testfs"
)

// TestFixRefusesManagedTrees builds a home with a fixable problem in every
// managed tree (the Claude plugin cache, a marketplace clone, Codex's
// .system skills) and in the user's own skills, one of which is a symlink
// into the cache. It reaches the Claude home through a symlink, as a
// relocated CLAUDE_CONFIG_DIR may be. --fix must leave every managed file
// byte for byte as it was, say why in a managed-tree finding, keep the
// file's own findings, and still fix the user's own skill.
func TestFixRefusesManagedTrees(t *testing.T) {
	base := testfs.TempDir(t)
	bomSkill := "\ufeff" + skillFile("%s")
	testfs.Write(t, base, map[string]string{
		"home/.claude/plugins/cache/market/lint-kit/1.0/skills/lint-fix/SKILL.md": strings.ReplaceAll(bomSkill, "%s", "lint-fix"),
		"home/.claude/plugins/marketplaces/market/skills/style/SKILL.md":          "\n" + skillFile("style"),
		"home/.codex/skills/.system/skill-creator/SKILL.md":                       strings.ReplaceAll(bomSkill, "%s", "skill-creator"),
		"home/.claude/skills/own/SKILL.md":                                        strings.ReplaceAll(bomSkill, "%s", "own"),
		"home/.claude/skills/linked":                                              "-> ../plugins/cache/market/lint-kit/1.0/skills/lint-fix",
		"claude-link":                                                             "-> home/.claude",
	})
	home := filepath.Join(base, "home")
	managed := []string{
		".claude/plugins/cache/market/lint-kit/1.0/skills/lint-fix/SKILL.md",
		".claude/plugins/marketplaces/market/skills/style/SKILL.md",
		".codex/skills/.system/skill-creator/SKILL.md",
		".claude/skills/linked/SKILL.md",
	}
	before := map[string][]byte{}
	for _, rel := range managed {
		before[rel], _ = os.ReadFile(filepath.Join(home, rel))
	}
	var targets []Target
	for _, rel := range append(managed, ".claude/skills/own/SKILL.md") {
		targets = append(targets, Target{File: filepath.Join(home, rel)})
	}
	trees := ManagedTrees(filepath.Join(base, "claude-link"), filepath.Join(home, ".codex"))
	if len(trees) != 3 {
		t.Fatalf("managed trees: %+v", trees)
	}

	for _, dryRun := range []bool{true, false} {
		rep, fixes := Run(context.Background(), targets, nil, Options{Fix: true, DryRun: dryRun, Managed: trees})
		for _, rel := range managed {
			if after, _ := os.ReadFile(filepath.Join(home, rel)); !bytes.Equal(before[rel], after) {
				t.Errorf("dry run %v: %s was changed", dryRun, rel)
			}
		}
		got := map[string][]string{} // the findings --fix is about; the link adds others
		for _, f := range rep.Findings {
			if f.Code != CodeManagedTree && f.Code != CodeByteOrderMark && f.Code != CodeLeadingBlankLine {
				continue
			}
			rel, _ := filepath.Rel(home, f.File)
			got[filepath.ToSlash(rel)] = append(got[filepath.ToSlash(rel)], f.Code)
			if f.Code == CodeManagedTree && f.Severity != report.SeverityInfo {
				t.Errorf("managed-tree is %s", f.Severity)
			}
		}
		want := map[string][]string{
			managed[0]: {CodeManagedTree, CodeByteOrderMark},
			managed[1]: {CodeManagedTree, CodeLeadingBlankLine},
			managed[2]: {CodeManagedTree, CodeByteOrderMark},
			managed[3]: {CodeManagedTree, CodeByteOrderMark},
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("dry run %v: findings (-want +got):\n%s", dryRun, d)
		}
		refused := map[string]string{}
		for _, f := range fixes {
			rel, _ := filepath.Rel(home, f.File)
			if f.Refused != nil {
				refused[filepath.ToSlash(rel)] = f.Refused.What
			} else if rel != filepath.Join(".claude", "skills", "own", "SKILL.md") || f.Err != nil {
				t.Errorf("dry run %v: %s fixed (%v)", dryRun, rel, f.Err)
			}
		}
		wantRefused := map[string]string{
			managed[0]: "the Claude Code plugin cache",
			managed[1]: "a Claude Code marketplace clone",
			managed[2]: "Codex's bundled system skills",
			managed[3]: "the Claude Code plugin cache",
		}
		if d := cmp.Diff(wantRefused, refused); d != "" {
			t.Errorf("dry run %v: refused (-want +got):\n%s", dryRun, d)
		}
	}
	if own, _ := os.ReadFile(filepath.Join(home, ".claude", "skills", "own", "SKILL.md")); bytes.HasPrefix(own, []byte("\ufeff")) {
		t.Error("the user's own skill was not fixed")
	}
}

// TestManagedTreesMessage checks that the finding says what --fix would
// have done, where the file lies and what to do instead.
func TestManagedTreesMessage(t *testing.T) {
	home := testfs.TempDir(t)
	testfs.Write(t, home, map[string]string{
		".claude/plugins/cache/m/p/1.0/skills/x/SKILL.md": "\ufeff" + skillFile("x"),
	})
	file := filepath.Join(home, ".claude/plugins/cache/m/p/1.0/skills/x/SKILL.md")
	rep, _ := Run(context.Background(), []Target{{File: file}}, nil,
		Options{Fix: true, Managed: ManagedTrees(filepath.Join(home, ".claude"), "")})
	for _, f := range rep.Findings {
		if f.Code != CodeManagedTree {
			continue
		}
		want := "--fix left this file unchanged, though it would have removed the byte order mark: it lies in the " +
			"Claude Code plugin cache, and Claude Code replaces these copies when the plugin is updated or " +
			"reinstalled: fix the skill in the plugin's own repository"
		if f.Message != want {
			t.Errorf("message:\n%s\nwant:\n%s", f.Message, want)
		}
		return
	}
	t.Errorf("no managed-tree finding: %+v", rep.Findings)
}

// TestManagedTreesOnlyExisting checks that homes without the managed
// folders give no trees, and that a folder merely named like one (a
// "cache" elsewhere) is not managed.
func TestManagedTreesOnlyExisting(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"home/.claude/skills/x/SKILL.md":               "\ufeff" + skillFile("x"),
		"work/plugins/cache/m/p/1.0/skills/y/SKILL.md": "\ufeff" + skillFile("y"),
	})
	trees := ManagedTrees(filepath.Join(base, "home", ".claude"), filepath.Join(base, "home", ".codex"))
	if len(trees) != 0 {
		t.Errorf("trees: %+v", trees)
	}
	file := filepath.Join(base, "work/plugins/cache/m/p/1.0/skills/y/SKILL.md")
	_, fixes := Run(context.Background(), []Target{{File: file}}, nil, Options{Fix: true, Managed: trees})
	if len(fixes) != 1 || fixes[0].Refused != nil || fixes[0].Err != nil {
		t.Errorf("fixes: %+v", fixes)
	}
}
