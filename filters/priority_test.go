package filters

import (
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
	"github.com/google/go-cmp/cmp"
)

func TestPriorityLess(t *testing.T) {
	base := pipeline.Record{Name: "pdf", Agent: "claude", Kind: pipeline.KindWorkspaceAgent, ModTime: t0, Dir: "/a"}
	mk := func(id string, f func(*pipeline.Record)) *pipeline.Record {
		r := base
		r.ID = id
		f(&r)
		return &r
	}
	tests := []struct {
		name    string
		winner  *pipeline.Record
		loser   *pipeline.Record
		explain string
	}{
		{
			// Incumbent bug B3: custom tied with workspace-agent and lost
			// on mtime.
			name: "custom beats a newer workspace-agent",
			winner: mk("custom:pdf", func(r *pipeline.Record) {
				r.Agent, r.Kind, r.ModTime = "custom", pipeline.KindCustom, t0.Add(-time.Hour)
			}),
			loser:   mk("claude:pdf", func(r *pipeline.Record) {}),
			explain: "higher priority: custom over workspace-agent",
		},
		{
			name:    "workspace-agent beats user-agent",
			winner:  mk("claude@project:pdf", func(r *pipeline.Record) {}),
			loser:   mk("claude@user:pdf", func(r *pipeline.Record) { r.Kind, r.ModTime = pipeline.KindUserAgent, t0.Add(time.Hour) }),
			explain: "higher priority: workspace-agent over user-agent",
		},
		{
			name:    "user-shared beats plugin",
			winner:  mk("agents:pdf", func(r *pipeline.Record) { r.Kind = pipeline.KindUserShared }),
			loser:   mk("claude:@x:pdf", func(r *pipeline.Record) { r.Kind = pipeline.KindPlugin }),
			explain: "higher priority: user-shared over plugin",
		},
		{
			name:    "a known kind beats an empty kind",
			winner:  mk("a", func(r *pipeline.Record) { r.Kind = pipeline.KindPlugin }),
			loser:   mk("b", func(r *pipeline.Record) { r.Kind = "" }),
			explain: "higher priority: plugin over unknown kind",
		},
		{
			name:    "nearer workspace beats a newer farther one",
			winner:  mk("near", func(r *pipeline.Record) { r.Depth = 0 }),
			loser:   mk("far", func(r *pipeline.Record) { r.Depth, r.ModTime = 2, t0.Add(time.Hour) }),
			explain: "nearer workspace: depth 0 over 2",
		},
		{
			name:    "newer file wins on equal kind and depth",
			winner:  mk("new", func(r *pipeline.Record) { r.ModTime = t0.Add(time.Second); r.Agent = "openclaw" }),
			loser:   mk("old", func(r *pipeline.Record) {}),
			explain: "newer file",
		},
		{
			name:    "provider order breaks a time tie",
			winner:  mk("agents:pdf", func(r *pipeline.Record) { r.Agent, r.Dir = "agents", "/z" }),
			loser:   mk("claude:pdf", func(r *pipeline.Record) {}),
			explain: "provider order: agents before claude",
		},
		{
			name:    "built-in provider beats a dynamic one",
			winner:  mk("openclaw:pdf", func(r *pipeline.Record) { r.Agent = "openclaw" }),
			loser:   mk("amp:pdf", func(r *pipeline.Record) { r.Agent = "amp" }),
			explain: "provider order: openclaw before amp",
		},
		{
			name:    "dynamic providers rank alphabetically",
			winner:  mk("cursor:pdf", func(r *pipeline.Record) { r.Agent = "cursor" }),
			loser:   mk("zed:pdf", func(r *pipeline.Record) { r.Agent = "zed" }),
			explain: "provider order: cursor before zed",
		},
		{
			name:    "folder path breaks a full tie",
			winner:  mk("claude@project:pdf", func(r *pipeline.Record) { r.Dir = "/a/1" }),
			loser:   mk("claude@project:pdf#2", func(r *pipeline.Record) { r.Dir = "/a/2" }),
			explain: "equal rank; earlier folder path",
		},
		{
			name:    "id breaks a tie on everything else",
			winner:  mk("a", func(r *pipeline.Record) {}),
			loser:   mk("b", func(r *pipeline.Record) {}),
			explain: "equal rank; earlier id",
		},
	}
	p, err := NewPriority(nil, registered)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if !p.Less(tt.winner, tt.loser) {
			t.Errorf("%s: Less(%s, %s) = false, want true", tt.name, tt.winner.ID, tt.loser.ID)
		}
		if p.Less(tt.loser, tt.winner) {
			t.Errorf("%s: Less(%s, %s) = true, want false", tt.name, tt.loser.ID, tt.winner.ID)
		}
		if got := p.Explain(tt.winner, tt.loser); got != tt.explain {
			t.Errorf("%s: Explain = %q, want %q", tt.name, got, tt.explain)
		}
	}
	r := mk("x", func(*pipeline.Record) {})
	if p.Less(r, r) {
		t.Error("Less(r, r) = true, want false")
	}
}

func TestNewPriorityOrder(t *testing.T) {
	p, err := NewPriority([]pipeline.Kind{" User-Agent ", pipeline.KindPlugin}, []string{"codex", "File"})
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.Kind{pipeline.KindUserAgent, pipeline.KindPlugin, pipeline.KindCustom, pipeline.KindProject,
		pipeline.KindWorkspaceAgent, pipeline.KindWorkspaceShared, pipeline.KindWorkspaceRoot,
		pipeline.KindUserShared, pipeline.KindSystem, pipeline.KindRemote}
	if diff := cmp.Diff(want, p.Kinds()); diff != "" {
		t.Errorf("Kinds (-want +got):\n%s", diff)
	}

	user := &pipeline.Record{ID: "claude@user:pdf", Agent: "claude", Kind: pipeline.KindUserAgent}
	plugin := &pipeline.Record{ID: "claude:@x:pdf", Agent: "claude", Kind: pipeline.KindPlugin}
	ws := &pipeline.Record{ID: "claude@project:pdf", Agent: "claude", Kind: pipeline.KindWorkspaceAgent}
	if !p.Less(user, plugin) || !p.Less(plugin, ws) {
		t.Error("listed kinds must rank first and in the given order, before the omitted ones")
	}

	codex := &pipeline.Record{ID: "codex:pdf", Agent: "codex", Kind: pipeline.KindUserAgent}
	custom := &pipeline.Record{ID: "custom:pdf", Agent: "custom", Kind: pipeline.KindUserAgent}
	claude := &pipeline.Record{ID: "claude:pdf", Agent: "claude", Kind: pipeline.KindUserAgent}
	if !p.Less(codex, custom) {
		t.Error("codex is listed first in the provider order and must win over custom")
	}
	if !p.Less(custom, claude) {
		t.Error(`"file" in the provider order must rank custom before the unlisted claude`)
	}

	p.Kinds()[0] = pipeline.KindSystem
	if p.Kinds()[0] != pipeline.KindUserAgent {
		t.Error("Kinds must return a copy")
	}
}

func TestNewPriorityErrors(t *testing.T) {
	tests := []struct {
		kinds []pipeline.Kind
		msg   string
	}{
		{[]pipeline.Kind{"workspace"}, `unknown priority kind "workspace"; valid kinds: custom, project, workspace-agent, workspace-shared, workspace-root, user-agent, user-shared, system, plugin, remote`},
		{[]pipeline.Kind{"custom", "user-agent", "Custom"}, `priority kind "custom" is listed twice`},
	}
	for _, tt := range tests {
		p, err := NewPriority(tt.kinds, nil)
		if err == nil || err.Error() != tt.msg {
			t.Errorf("NewPriority(%q) = %v, %v; want error %q", tt.kinds, p, err, tt.msg)
		}
	}
}

// TestNewPriorityProviderOrder checks that the provider order breaking
// the last ties is the one given (the engine gives the registry's), with
// the providers it leaves out after it, alphabetically, and that without
// one every provider ranks alphabetically: filters keeps no list of
// providers of its own.
func TestNewPriorityProviderOrder(t *testing.T) {
	rec := func(agent string) *pipeline.Record {
		return &pipeline.Record{ID: agent + ":pdf", Name: "pdf", Agent: agent, Kind: pipeline.KindWorkspaceAgent, Dir: "/a"}
	}
	tests := []struct {
		name          string
		order         []string
		winner, loser string
	}{
		{"listed first wins", registered, "openclaw", "amp"},
		{"listed order", registered, "agents", "claude"},
		{"unlisted alphabetically", registered, "cursor", "zed"},
		{"a new registered agent", []string{"custom", "project", "agents", "claude", "cursor"}, "cursor", "amp"},
		{"no order: alphabetical", nil, "amp", "openclaw"},
		{"no order: alphabetical among built-ins", nil, "claude", "custom"},
	}
	for _, tt := range tests {
		p, err := NewPriority(nil, tt.order)
		if err != nil {
			t.Fatal(err)
		}
		if w, l := rec(tt.winner), rec(tt.loser); !p.Less(w, l) || p.Less(l, w) {
			t.Errorf("%s: %s must win over %s with order %q", tt.name, tt.winner, tt.loser, tt.order)
		}
	}
}
