package filters

import (
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
	"github.com/google/go-cmp/cmp"
)

// autoWinners is what auto keeps from scan(): one copy per fully qualified
// name, each at the position of its first copy. The plugin skill
// example-skills:pdf and the scoped docs:pdf are not copies of pdf.
var autoWinners = []string{"codex:PDF", "claude:@example-skills:pdf", "claude:@document-skills:docx", "custom:docs:pdf",
	"cursor:review", "claude:foo", "gemini:codex"}

func TestIncludeSelection(t *testing.T) {
	tests := []struct {
		name   string
		tokens []string
		want   []string
	}{
		{"no tokens means auto", nil, autoWinners},
		{"auto", []string{"auto"}, autoWinners},
		{"all keeps every copy", []string{"all"}, ids(scan())},
		{"provider", []string{"claude"}, []string{"claude:pdf", "claude:@example-skills:pdf", "claude:@document-skills:docx", "claude:foo"}},
		{"bare name keeps one winner per qualified name", []string{"pdf"},
			[]string{"codex:PDF", "claude:@example-skills:pdf", "custom:docs:pdf"}},
		{"bare name is case-insensitive", []string{"PDF"}, []string{"codex:PDF", "claude:@example-skills:pdf", "custom:docs:pdf"}},
		{"auto glob dedupes", []string{"auto:*o*"}, []string{"claude:@document-skills:docx", "custom:docs:pdf", "claude:foo", "gemini:codex"}},
		{"all glob does not dedupe", []string{"all:foo"}, []string{"codex:foo", "claude:foo"}},
		{"auto dedupes only within its token", []string{"auto,codex:foo"}, append(append([]string{}, autoWinners...), "codex:foo")},
		{"an earlier token keeps a record auto would shadow", []string{"codex:foo", "auto"},
			[]string{"codex:foo", "codex:PDF", "claude:@example-skills:pdf", "claude:@document-skills:docx", "custom:docs:pdf",
				"cursor:review", "claude:foo", "gemini:codex"}},
		{"union in order of first selection", []string{"review,claude,all:review"},
			[]string{"cursor:review", "claude:pdf", "claude:@example-skills:pdf", "claude:@document-skills:docx", "claude:foo", "agents:review"}},
		{"auto within a location", []string{"auto@project"}, []string{"codex:PDF", "cursor:review", "claude:foo"}},
		{"plugins", []string{"@plugins"}, []string{"claude:@example-skills:pdf", "claude:@document-skills:docx"}},
		{"full plugin name", []string{"example-skills:pdf"}, []string{"claude:@example-skills:pdf"}},
		{"record id", []string{"claude:pdf"}, []string{"claude:pdf"}},
	}
	for _, tt := range tests {
		in := scan()
		out, dropped := Include(mustParse(t, tt.tokens...), nil).Apply(in)
		if diff := cmp.Diff(tt.want, ids(out)); diff != "" {
			t.Errorf("%s: --include %q keeps (-want +got):\n%s", tt.name, tt.tokens, diff)
		}
		checkPartition(t, in, out, dropped)
	}
}

func TestIncludeDrops(t *testing.T) {
	in := scan()
	out, dropped := Include(nil, nil).Apply(in)
	want := []drop{
		{ID: "claude:pdf", By: "codex:PDF", Reason: "shadowed by codex:PDF (higher priority: workspace-agent over user-agent)"},
		{ID: "agents:review", By: "cursor:review", Reason: "shadowed by cursor:review (higher priority: workspace-agent over user-shared)"},
		{ID: "codex:foo", By: "claude:foo", Reason: "shadowed by claude:foo (higher priority: workspace-agent over user-agent)"},
	}
	if diff := cmp.Diff(want, drops(dropped)); diff != "" {
		t.Errorf("auto drops (-want +got):\n%s", diff)
	}
	checkPartition(t, in, out, dropped)

	// A record no token selects is not shadowed, and the reason quotes
	// the tokens as one flag value.
	out, dropped = Include(mustParse(t, "codex", "pdf"), nil).Apply(in)
	if diff := cmp.Diff([]string{"codex:PDF", "codex:foo", "claude:@example-skills:pdf", "custom:docs:pdf"}, ids(out)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	want = []drop{
		{ID: "claude:pdf", By: "codex:PDF", Reason: "shadowed by codex:PDF (higher priority: workspace-agent over user-agent)"},
		{ID: "claude:@document-skills:docx", Reason: "not selected by --include codex,pdf"},
		{ID: "cursor:review", Reason: "not selected by --include codex,pdf"},
		{ID: "agents:review", Reason: "not selected by --include codex,pdf"},
		{ID: "claude:foo", Reason: "not selected by --include codex,pdf"},
		{ID: "gemini:codex", Reason: "not selected by --include codex,pdf"},
	}
	if diff := cmp.Diff(want, drops(dropped)); diff != "" {
		t.Errorf("drops (-want +got):\n%s", diff)
	}
}

func TestIncludeTieBreaks(t *testing.T) {
	rec := func(id, provider string, kind pipeline.Kind, depth int, mod time.Time, dir string) *pipeline.Record {
		return &pipeline.Record{ID: id, Name: "pdf", Agent: provider, Kind: kind, Depth: depth, ModTime: mod, Dir: dir}
	}
	tests := []struct {
		name    string
		records []*pipeline.Record
		winner  string
		reason  string // of the first loser's drop
	}{
		{
			name: "custom over workspace-agent (incumbent B3)",
			records: []*pipeline.Record{
				rec("claude:pdf", "claude", pipeline.KindWorkspaceAgent, 0, t0.Add(time.Hour), "/ws/.claude/skills/pdf"),
				rec("custom:pdf", "custom", pipeline.KindCustom, 0, t0, "/opt/pdf"),
			},
			winner: "custom:pdf",
			reason: "shadowed by custom:pdf (higher priority: custom over workspace-agent)",
		},
		{
			name: "nearer workspace",
			records: []*pipeline.Record{
				rec("claude@project:pdf#2", "claude", pipeline.KindWorkspaceAgent, 1, t0.Add(time.Hour), "/repo/.claude/skills/pdf"),
				rec("claude@project:pdf", "claude", pipeline.KindWorkspaceAgent, 0, t0, "/repo/sub/.claude/skills/pdf"),
			},
			winner: "claude@project:pdf",
			reason: "shadowed by claude@project:pdf (nearer workspace: depth 0 over 1)",
		},
		{
			name: "newer file",
			records: []*pipeline.Record{
				rec("claude:pdf", "claude", pipeline.KindUserAgent, 0, t0, "/home/u/.claude/skills/pdf"),
				rec("codex:pdf", "codex", pipeline.KindUserAgent, 0, t0.Add(time.Minute), "/home/u/.codex/skills/pdf"),
			},
			winner: "codex:pdf",
			reason: "shadowed by codex:pdf (newer file)",
		},
		{
			name: "provider order",
			records: []*pipeline.Record{
				rec("codex:pdf", "codex", pipeline.KindUserAgent, 0, t0, "/home/u/.codex/skills/pdf"),
				rec("claude:pdf", "claude", pipeline.KindUserAgent, 0, t0, "/home/u/.claude/skills/pdf"),
			},
			winner: "claude:pdf",
			reason: "shadowed by claude:pdf (provider order: claude before codex)",
		},
		{
			name: "case-insensitive key",
			records: []*pipeline.Record{
				{ID: "claude:PDF", Name: "PDF", Agent: "claude", Kind: pipeline.KindUserAgent, ModTime: t0},
				{ID: "codex:pdf", Name: "pdf", Agent: "codex", Kind: pipeline.KindWorkspaceAgent, ModTime: t0},
			},
			winner: "codex:pdf",
			reason: "shadowed by codex:pdf (higher priority: workspace-agent over user-agent)",
		},
	}
	for _, tt := range tests {
		out, dropped := Include(nil, nil).Apply(tt.records)
		if diff := cmp.Diff([]string{tt.winner}, ids(out)); diff != "" {
			t.Errorf("%s: kept (-want +got):\n%s", tt.name, diff)
			continue
		}
		if len(dropped) != 1 || dropped[0].By != out[0] || dropped[0].Reason != tt.reason {
			t.Errorf("%s: drops = %+v, want one by %s with reason %q", tt.name, drops(dropped), tt.winner, tt.reason)
		}
	}
}

func TestIncludeCustomPriority(t *testing.T) {
	p, err := NewPriority([]pipeline.Kind{pipeline.KindUserAgent}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := Include(mustParse(t, "pdf"), p).Apply(scan())
	if diff := cmp.Diff([]string{"claude:pdf", "claude:@example-skills:pdf", "custom:docs:pdf"}, ids(out)); diff != "" {
		t.Errorf("with user-agent first (-want +got):\n%s", diff)
	}
}

// TestIncludeFirstWinner checks that a record shadowed in several tokens
// names the winner of the first one, and that a record a later token
// shadows is kept when an earlier one selected it.
func TestIncludeFirstWinner(t *testing.T) {
	in := []*pipeline.Record{
		{ID: "codex:pdf", Name: "pdf", Agent: "codex", Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, ModTime: t0},
		{ID: "claude@user:pdf", Name: "pdf", Agent: "claude", Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, ModTime: t0},
		{ID: "claude@project:pdf", Name: "pdf", Agent: "claude", Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceAgent, ModTime: t0},
	}
	out, dropped := Include(mustParse(t, "auto@user,auto"), nil).Apply(in)
	if diff := cmp.Diff([]string{"claude@user:pdf", "claude@project:pdf"}, ids(out)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	want := []drop{{ID: "codex:pdf", By: "claude@user:pdf",
		Reason: "shadowed by claude@user:pdf (provider order: claude before codex)"}}
	if diff := cmp.Diff(want, drops(dropped)); diff != "" {
		t.Errorf("drops (-want +got):\n%s", diff)
	}
}
