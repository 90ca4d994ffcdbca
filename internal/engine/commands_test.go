package engine

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/commands"
	"github.com/ccski/ccski/providers/marketplace"
)

// commandTree adds slash commands to the machine: "deploy" at three
// levels, a nested command, a Codex prompt, a plugin command and a broken
// file.
var commandTree = map[string]string{
	"repo/sub/.claude/commands/deploy.md":       "---\ndescription: Deploy (nearest workspace).\n---\nDeploy $1.\n",
	"repo/.claude/commands/deploy.md":           "Deploy (repository root).\n",
	"home/.claude/commands/deploy.md":           "Deploy (user).\n",
	"repo/.claude/commands/frontend/review.md":  "# Review the frontend\n",
	"home/.codex/prompts/sp.specify.md":         "---\ndescription: Specify.\n---\n$ARGUMENTS\n",
	pluginDir + "/commands/plugin-only.md":      "Only in the plugin.\n",
	pluginDir + "/commands/frontend/review.md":  "Plugin review: the plugin's own, beside the workspace one.\n",
	"home/.claude/commands/broken.md":           "---\ndescription: [unclosed\n---\n",
	"home/.claude/commands/skills-are-apart.md": "A command named like no skill.\n",
}

func TestSnapshotCommands(t *testing.T) {
	m := newMachine(t)
	m.write(t, commandTree)
	snap, _ := snapshot(t, m.engine(t, m.config()))
	checkInvariants(t, snap)

	var ids []string
	for _, r := range snap.Commands() {
		ids = append(ids, r.ID)
	}
	sort.Strings(ids)
	// The plugin's frontend:review is tools:frontend:review, not a copy
	// of the workspace's frontend:review.
	want := []string{
		"claude:/@tools:frontend:review",
		"claude:/@tools:plugin-only",
		"claude:/frontend:review",
		"claude:/skills-are-apart",
		"claude@user:/deploy",
		"codex:/sp.specify",
	}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("visible commands (-want +got):\n%s", d)
	}
	for _, r := range snap.Skills() {
		if r.IsCommand() {
			t.Errorf("Skills() holds the command %s", r.ID)
		}
	}
	// Claude Code ranks personal over project, commands as skills.
	if r, err := snap.Resolve("deploy"); err != nil || r.Description != "Deploy (user)." {
		t.Errorf("deploy = %+v, %v; want the personal copy", r, err)
	}

	// Every hidden copy is explained.
	reasons := map[string]string{}
	for _, d := range snap.Drops {
		if d.Record.IsCommand() {
			reasons[d.Record.ID] = d.Reason
		}
	}
	wantReasons := map[string]string{
		"claude@project:/deploy":   "shadowed by claude@user:/deploy (" + personalRule + ")",
		"claude@project:/deploy#2": "shadowed by claude@user:/deploy (" + personalRule + ")",
	}
	if d := cmp.Diff(wantReasons, reasons); d != "" {
		t.Errorf("hidden commands (-want +got):\n%s", d)
	}

	// The broken file is a warning naming it; it did not stop the others.
	found := false
	for _, d := range snap.Diagnostics {
		if strings.HasSuffix(d.Path, "broken.md") {
			found = true
			if d.Severity != pipeline.SeverityWarning || !strings.Contains(d.Message, "command skipped") {
				t.Errorf("broken.md: %+v", d)
			}
		}
	}
	if !found {
		t.Error("no diagnostic for broken.md")
	}

	// The command roots are reported with their counts.
	counts := map[string]int{}
	for _, r := range snap.Roots {
		if r.Type == pipeline.TypeCommand {
			rel := strings.TrimPrefix(r.Path, m.base+"/")
			counts[rel] = r.Skills
		}
	}
	wantCounts := map[string]int{
		"repo/sub/.claude/commands": 1, "repo/.claude/commands": 2, "home/.claude/commands": 2,
		"home/.codex/prompts": 1, pluginDir + "/commands": 2,
	}
	if d := cmp.Diff(wantCounts, counts); d != "" {
		t.Errorf("command roots (-want +got):\n%s", d)
	}

	// Command folders are watched.
	watched := map[string]bool{}
	for _, f := range snap.Folders {
		watched[f] = true
	}
	for _, rel := range []string{"repo/.claude/commands/frontend", "home/.codex/prompts"} {
		if !watched[m.abs(rel)] {
			t.Errorf("%s is not in Folders", rel)
		}
	}
}

// personalRule is how a drop names Claude's default precedence.
const personalRule = "Claude Code ranks personal over project (providers.claude.precedence: user)"

// TestCommandPrecedence checks that providers.claude.precedence ranks
// Claude's commands as it ranks its skills: with project, the nearest
// workspace copy of deploy wins, and the drops say why.
func TestCommandPrecedence(t *testing.T) {
	m := newMachine(t)
	m.write(t, commandTree)
	cfg := m.config()
	setOptions(cfg, "claude", func(o *claude.Options) { o.Precedence = "project" })
	snap, _ := snapshot(t, m.engine(t, cfg))
	checkInvariants(t, snap)
	if r, err := snap.Resolve("deploy"); err != nil || r.Description != "Deploy (nearest workspace)." || r.Depth != 0 {
		t.Fatalf("deploy = %+v, %v; want the nearest workspace copy", r, err)
	}
	reasons := map[string]string{}
	for _, d := range snap.Drops {
		if d.Record.IsCommand() && strings.Contains(d.Record.ID, "deploy") {
			reasons[d.Record.ID] = d.Reason
		}
	}
	want := map[string]string{
		"claude@project:/deploy#2": "shadowed by claude@project:/deploy (nearer workspace: depth 0 over 1)",
		"claude@user:/deploy": "shadowed by claude@project:/deploy (project over user (providers.claude.precedence: project; " +
			"by default, Claude Code ranks personal over project))",
	}
	if d := cmp.Diff(want, reasons); d != "" {
		t.Errorf("hidden deploy copies (-want +got):\n%s", d)
	}
}

// TestCommandFilters checks that the filter grammar selects commands by
// id, provider and name, and that the providers' switches work.
func TestCommandFilters(t *testing.T) {
	m := newMachine(t)
	m.write(t, commandTree)
	tests := []struct {
		name    string
		include []string
		exclude []string
		off     func(configs.Config) // provider options to set
		want    []string
	}{
		{name: "exclude by id", exclude: []string{"codex:/sp.specify"},
			want: []string{"claude:/@tools:frontend:review", "claude:/@tools:plugin-only", "claude:/frontend:review",
				"claude:/skills-are-apart", "claude@user:/deploy"}},
		{name: "include a provider", include: []string{"codex"}, want: []string{"codex:/sp.specify"}},
		{name: "exclude by name glob", exclude: []string{"claude:*review*", "claude:deploy"},
			want: []string{"claude:/@tools:plugin-only", "claude:/skills-are-apart", "codex:/sp.specify"}},
		{name: "include every copy of one command", include: []string{"all:deploy"},
			want: []string{"claude@project:/deploy", "claude@project:/deploy#2", "claude@user:/deploy"}},
		{name: "Codex prompts off", off: func(c configs.Config) { setOptions(c, "commands", func(o *commands.Options) { o.Codex = false }) },
			want: []string{"claude:/@tools:frontend:review", "claude:/@tools:plugin-only", "claude:/frontend:review",
				"claude:/skills-are-apart", "claude@user:/deploy"}},
		{name: "plugin commands off", off: func(c configs.Config) {
			setOptions(c, "marketplace", func(o *marketplace.Options) { o.Commands = false })
		},
			want: []string{"claude:/frontend:review", "claude:/skills-are-apart", "claude@user:/deploy", "codex:/sp.specify"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := m.config()
			cfg.Include, cfg.Exclude = tt.include, tt.exclude
			if tt.off != nil {
				tt.off(cfg)
			}
			snap, _ := snapshot(t, m.engine(t, cfg))
			var ids []string
			for _, r := range snap.Commands() {
				ids = append(ids, r.ID)
			}
			sort.Strings(ids)
			if d := cmp.Diff(tt.want, ids); d != "" {
				t.Errorf("visible commands (-want +got):\n%s", d)
			}
		})
	}
}
