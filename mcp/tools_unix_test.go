//go:build unix

package mcp

import (
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestToolsSkipFIFOBodies: a FIFO standing in for SKILL.md never hangs
// skills_list includeBody or skills_search; the skill is listed without a
// body and found by its metadata.
func TestToolsSkipFIFOBodies(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "pipe", desc: "A named pipe."},
		skillSpec{provider: "codex", name: "plain", desc: "Plain pipe fitting."})
	fifo := filepath.Join(t.TempDir(), "SKILL.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	recs[0].File = fifo
	srv := New(snapOf(recs), Options{Logger: discard(), Tools: []string{ToolSkillsList, ToolSkillsSearch}})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "", nil)
	tools := listToolsByName(t, ctx, cs)

	list := structured[ListOutput](t, tools[ToolSkillsList], callNamed(t, ctx, cs, ToolSkillsList, map[string]any{"includeBody": true}))
	if len(list.Skills) != 2 || list.Skills[0].Body != nil || list.Skills[1].Body == nil || list.OmittedBodies != 0 {
		t.Errorf("skills_list includeBody: %+v (omitted %d); want the FIFO listed without a body", list.Skills, list.OmittedBodies)
	}

	found := structured[SearchOutput](t, tools[ToolSkillsSearch], callNamed(t, ctx, cs, ToolSkillsSearch, map[string]any{"query": "pipe"}))
	if ids := resultIDs(found.Results); !slices.Equal(ids, []string{"claude:pipe", "codex:plain"}) {
		t.Fatalf("skills_search pipe: %v", ids)
	}
	if ex := found.Results[0].Excerpt; !strings.Contains(ex, "named pipe") {
		t.Errorf("excerpt %q, want the description", ex)
	}
	// A word in no metadata needs the bodies: the FIFO's is skipped.
	found = structured[SearchOutput](t, tools[ToolSkillsSearch], callNamed(t, ctx, cs, ToolSkillsSearch, map[string]any{"query": "pipe small"}))
	if found.Total != 0 {
		t.Errorf("pipe small: %v, want nothing", resultIDs(found.Results))
	}
}
