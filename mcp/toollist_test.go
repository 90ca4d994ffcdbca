package mcp

import (
	"maps"
	"slices"
	"testing"
	"time"

	toollist "github.com/ccski/ccski/mcp/tools"
)

// TestToolListIsServed checks that the tool list (package mcp/tools) is
// what the server serves: with every opt-in tool asked for, each tool of
// the list and no other is served, under the list's title, and the server
// has a way to register every opt-in tool.
func TestToolListIsServed(t *testing.T) {
	srv := New(snapOf(toolSkills(t)), Options{Logger: discard(), Tools: toollist.OptIn()})
	if got := slices.Sorted(maps.Keys(srv.optInTools())); !slices.Equal(got, slices.Sorted(slices.Values(toollist.OptIn()))) {
		t.Errorf("the server registers opt-in tools %q, the list has %q", got, toollist.OptIn())
	}
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, protocolVersions[0], nil)
	served := listToolsByName(t, ctx, cs)
	var want []string
	for _, tool := range toollist.All() {
		want = append(want, tool.Name)
		got, ok := served[tool.Name]
		if !ok {
			t.Errorf("tool %s of the list is not served", tool.Name)
			continue
		}
		if got.Title != tool.Title || tool.Title == "" {
			t.Errorf("tool %s is served with title %q, the list says %q", tool.Name, got.Title, tool.Title)
		}
		if tool.Doc == "" {
			t.Errorf("tool %s has no Doc in the list", tool.Name)
		}
	}
	if got := slices.Sorted(maps.Keys(served)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("served tools %q, the list has %q", got, want)
	}
}

// TestToolAnnotations checks the behaviour hints every tool is listed
// with: all read-only and closed-world; all idempotent but ask, whose
// every call samples the client's model again.
func TestToolAnnotations(t *testing.T) {
	want := map[string]struct{ readOnly, idempotent bool }{
		toollist.Skill:        {true, true},
		toollist.SkillsList:   {true, true},
		toollist.SkillsSearch: {true, true},
		toollist.Sources:      {true, true},
		toollist.Ask:          {true, false},
	}
	srv := New(snapOf(toolSkills(t)), Options{Logger: discard(), Tools: toollist.OptIn()})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			served := listToolsByName(t, ctx, connect(t, srv, pv, nil))
			if len(served) != len(want) {
				t.Errorf("%d tools served, want %d", len(served), len(want))
			}
			for name, w := range want {
				tool, ok := served[name]
				if !ok {
					t.Errorf("tool %s is not served", name)
					continue
				}
				a := tool.Annotations
				if a == nil {
					t.Errorf("tool %s has no annotations", name)
					continue
				}
				if a.ReadOnlyHint != w.readOnly || a.IdempotentHint != w.idempotent {
					t.Errorf("tool %s: readOnlyHint %v idempotentHint %v, want %v %v", name, a.ReadOnlyHint, a.IdempotentHint, w.readOnly, w.idempotent)
				}
				if a.OpenWorldHint == nil || *a.OpenWorldHint {
					t.Errorf("tool %s: openWorldHint %v, want false", name, a.OpenWorldHint)
				}
				if a.DestructiveHint != nil && *a.DestructiveHint {
					t.Errorf("tool %s is marked destructive", name)
				}
				if tool.Title == "" {
					t.Errorf("tool %s has no title", name)
				}
			}
		})
	}
}
