package filters

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
)

func TestExclude(t *testing.T) {
	tests := []struct {
		name   string
		tokens []string
		kept   []string
	}{
		{"none", nil, ids(scan())},
		{"bare name removes every copy and nothing else", []string{"pdf"},
			[]string{"claude:@document-skills:docx", "cursor:review", "agents:review", "codex:foo", "claude:foo", "gemini:codex"}},
		{"provider, not the skill of the same name", []string{"codex"},
			[]string{"claude:pdf", "claude:@example-skills:pdf", "claude:@document-skills:docx", "custom:docs:pdf",
				"cursor:review", "agents:review", "claude:foo", "gemini:codex"}},
		{"auto does not dedupe", []string{"auto"}, []string{}},
		{"record id removes one copy", []string{"claude:pdf"},
			[]string{"codex:PDF", "claude:@example-skills:pdf", "claude:@document-skills:docx", "custom:docs:pdf",
				"cursor:review", "agents:review", "codex:foo", "claude:foo", "gemini:codex"}},
		{"plugins", []string{"@plugins"},
			[]string{"claude:pdf", "codex:PDF", "custom:docs:pdf", "cursor:review", "agents:review", "codex:foo", "claude:foo", "gemini:codex"}},
		{"location", []string{"all@user,all@plugin,file"}, []string{"codex:PDF", "cursor:review", "claude:foo"}},
	}
	for _, tt := range tests {
		in := scan()
		out, dropped := Exclude(mustParse(t, tt.tokens...)).Apply(in)
		if diff := cmp.Diff(tt.kept, ids(out)); diff != "" {
			t.Errorf("%s: --exclude %q keeps (-want +got):\n%s", tt.name, tt.tokens, diff)
		}
		checkPartition(t, in, out, dropped)
	}
}

func TestExcludeReasons(t *testing.T) {
	out, dropped := Exclude(mustParse(t, "review,Foo", "all:*")).Apply(scan()[5:9])
	if len(out) != 0 {
		t.Errorf("kept %v, want nothing", ids(out))
	}
	want := []drop{
		{ID: "cursor:review", Reason: "excluded by --exclude review"},
		{ID: "agents:review", Reason: "excluded by --exclude review"},
		{ID: "codex:foo", Reason: "excluded by --exclude Foo"},
		{ID: "claude:foo", Reason: "excluded by --exclude Foo"},
	}
	if diff := cmp.Diff(want, drops(dropped)); diff != "" {
		t.Errorf("drops (-want +got):\n%s", diff)
	}
}

// TestExcludeSameFolder checks that a record in the folder (or, for a
// command, the file) of an excluded record is excluded with it: a skill
// reached through a symlinked root is the same skill, not a copy to
// promote. A copy in another folder stays.
func TestExcludeSameFolder(t *testing.T) {
	records := []*pipeline.Record{
		{ID: "claude:foo", Name: "foo", Agent: "claude", Dir: "/u/.claude/skills/foo", RealDir: "/u/.claude/skills/foo"},
		{ID: "agents:foo", Name: "foo", Agent: "agents", Dir: "/u/.agents/skills/foo", RealDir: "/u/.claude/skills/foo"},
		{ID: "codex:foo", Name: "foo", Agent: "codex", Dir: "/u/.codex/skills/foo", RealDir: "/u/.codex/skills/foo"},
		{ID: "claude:/x", Name: "x", Agent: "claude", Type: pipeline.TypeCommand, Dir: "/u/.claude/commands",
			File: "/u/.claude/commands/x.md"},
		{ID: "claude:/y", Name: "y", Agent: "claude", Type: pipeline.TypeCommand, Dir: "/u/.claude/commands",
			File: "/u/.claude/commands/y.md"},
		{ID: "codex:/x", Name: "x", Agent: "codex", Type: pipeline.TypeCommand, Dir: "/u/.codex/prompts",
			RealDir: "/u/.claude/commands", File: "/u/.codex/prompts/x.md"},
	}
	tests := []struct {
		tokens []string
		kept   []string
		drops  []drop
	}{
		{[]string{"claude"}, []string{"codex:foo"}, []drop{
			{ID: "claude:foo", Reason: "excluded by --exclude claude"},
			{ID: "agents:foo", Reason: "excluded by --exclude claude (same folder as claude:foo)"},
			{ID: "claude:/x", Reason: "excluded by --exclude claude"},
			{ID: "claude:/y", Reason: "excluded by --exclude claude"},
			{ID: "codex:/x", Reason: "excluded by --exclude claude (same file as claude:/x)"},
		}},
		{[]string{"agents:foo"}, []string{"codex:foo", "claude:/x", "claude:/y", "codex:/x"}, []drop{
			{ID: "claude:foo", Reason: "excluded by --exclude agents:foo (same folder as agents:foo)"},
			{ID: "agents:foo", Reason: "excluded by --exclude agents:foo"},
		}},
		{[]string{"codex:/x"}, []string{"claude:foo", "agents:foo", "codex:foo", "claude:/y"}, []drop{
			{ID: "claude:/x", Reason: "excluded by --exclude codex:/x (same file as codex:/x)"},
			{ID: "codex:/x", Reason: "excluded by --exclude codex:/x"},
		}},
	}
	for _, tt := range tests {
		out, dropped := Exclude(mustParse(t, tt.tokens...)).Apply(records)
		if diff := cmp.Diff(tt.kept, ids(out)); diff != "" {
			t.Errorf("--exclude %q keeps (-want +got):\n%s", tt.tokens, diff)
		}
		if diff := cmp.Diff(tt.drops, drops(dropped)); diff != "" {
			t.Errorf("--exclude %q drops (-want +got):\n%s", tt.tokens, diff)
		}
		checkPartition(t, records, out, dropped)
	}
}
