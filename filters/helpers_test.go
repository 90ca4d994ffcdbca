package filters

import (
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
)

// t0 is the reference modification time; records are "older" or "newer"
// relative to it.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// scan returns a small scan with duplicates, plugin skills, a scoped
// custom name, a dynamic provider and a skill named like a provider. The
// ids are the ones pipeline.AssignIDs gives these records.
//
//	pdf:    claude:pdf (user-agent), codex:PDF (workspace-agent),
//	        claude:@example-skills:pdf (plugin), custom:docs:pdf (custom)
//	docx:   claude:@document-skills:docx (plugin)
//	review: cursor:review (workspace-agent), agents:review (user-shared)
//	foo:    codex:foo (user-agent), claude:foo (workspace-agent)
//	codex:  gemini:codex (user-agent)
func scan() []*pipeline.Record {
	plugin := func(name string) *pipeline.PluginInfo {
		return &pipeline.PluginInfo{Plugin: name, Marketplace: "anthropic-agent-skills", Version: "1.0.0"}
	}
	return []*pipeline.Record{
		{ID: "claude:pdf", Name: "pdf", Agent: "claude", Location: pipeline.LocationUser,
			Kind: pipeline.KindUserAgent, Dir: "/home/u/.claude/skills/pdf", ModTime: t0},
		{ID: "codex:PDF", Name: "PDF", Agent: "codex", Location: pipeline.LocationProject,
			Kind: pipeline.KindWorkspaceAgent, Dir: "/ws/.codex/skills/PDF", ModTime: t0},
		{ID: "claude:@example-skills:pdf", Name: "example-skills:pdf", Agent: "claude",
			Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin, Plugin: plugin("example-skills"),
			Dir: "/home/u/.claude/plugins/cache/example-skills/pdf", ModTime: t0},
		{ID: "claude:@document-skills:docx", Name: "document-skills:docx", Agent: "claude",
			Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin, Plugin: plugin("document-skills"),
			Dir: "/home/u/.claude/plugins/cache/document-skills/docx", ModTime: t0},
		{ID: "custom:docs:pdf", Name: "docs:pdf", Agent: "custom", Location: pipeline.LocationCustom,
			Kind: pipeline.KindCustom, Dir: "/opt/docs/pdf", ModTime: t0.Add(-time.Hour)},
		{ID: "cursor:review", Name: "review", Agent: "cursor", Location: pipeline.LocationProject,
			Kind: pipeline.KindWorkspaceAgent, Dir: "/ws/.cursor/skills/review", ModTime: t0},
		{ID: "agents:review", Name: "review", Agent: "agents", Location: pipeline.LocationUser,
			Kind: pipeline.KindUserShared, Dir: "/home/u/.agents/skills/review", ModTime: t0},
		{ID: "codex:foo", Name: "foo", Agent: "codex", Location: pipeline.LocationUser,
			Kind: pipeline.KindUserAgent, Dir: "/home/u/.codex/skills/foo", ModTime: t0},
		{ID: "claude:foo", Name: "foo", Agent: "claude", Location: pipeline.LocationProject,
			Kind: pipeline.KindWorkspaceAgent, Dir: "/ws/.claude/skills/foo", ModTime: t0},
		{ID: "gemini:codex", Name: "codex", Agent: "gemini", Location: pipeline.LocationUser,
			Kind: pipeline.KindUserAgent, Dir: "/home/u/.gemini/skills/codex", ModTime: t0},
	}
}

// registered are the provider names of the registered providers, as the
// engine passes them in Settings.Providers (all.ProviderNames), in the
// order that breaks the last ties.
var registered = []string{"custom", "project", "agents", "claude", "codex", "gemini", "openclaw"}

// ids returns the ids of records, in order.
func ids(records []*pipeline.Record) []string {
	out := []string{}
	for _, r := range records {
		out = append(out, r.ID)
	}
	return out
}

// drop is a Drop reduced to comparable strings.
type drop struct {
	ID, Stage, Reason, By string
}

func drops(ds []pipeline.Drop) []drop {
	out := []drop{}
	for _, d := range ds {
		x := drop{ID: d.Record.ID, Stage: d.Stage, Reason: d.Reason}
		if d.By != nil {
			x.By = d.By.ID
		}
		out = append(out, x)
	}
	return out
}

// mustParse parses comma-separated token values or fails the test.
func mustParse(t *testing.T, values ...string) []Token {
	t.Helper()
	toks, err := ParseList(values)
	if err != nil {
		t.Fatalf("ParseList(%q): %v", values, err)
	}
	return toks
}

// checkPartition fails unless every input record is either in out or in
// exactly one drop, and never both.
func checkPartition(t *testing.T, in, out []*pipeline.Record, dropped []pipeline.Drop) {
	t.Helper()
	seen := map[*pipeline.Record]int{}
	for _, r := range out {
		seen[r]++
	}
	for _, d := range dropped {
		seen[d.Record]++
		if d.Reason == "" {
			t.Errorf("drop of %s has no reason", d.Record.ID)
		}
	}
	for _, r := range in {
		if seen[r] != 1 {
			t.Errorf("%s appears %d times in output and drops, want once", r.ID, seen[r])
		}
	}
	if len(out)+len(dropped) != len(in) {
		t.Errorf("%d kept + %d dropped != %d input records", len(out), len(dropped), len(in))
	}
}
