package filters

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/agents"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
)

// precedence builds the rule of order with value ("" for the host's).
func precedence(t testing.TB, order providers.HostOrder, value string) *pipeline.Precedence {
	t.Helper()
	return order.Precedence(providers.PrecedenceOption(value))
}

// TestPrecedenceOrder checks who wins between copies of one skill when
// providers carry their host's precedence: Claude's personal copy over its
// project copy, Codex's and the shared folders' project copy over the
// user's, each reversible by its option, and the explanation naming the
// rule.
func TestPrecedenceOrder(t *testing.T) {
	claudeUser := precedence(t, claude.Order, "")
	claudeProject := precedence(t, claude.Order, "project")
	codexProject := precedence(t, codex.Order, "")
	codexUser := precedence(t, codex.Order, "user")
	sharedRule := precedence(t, agents.Order, "")
	rec := func(id, provider string, kind pipeline.Kind, depth int, pr *pipeline.Precedence) *pipeline.Record {
		return &pipeline.Record{ID: id, Name: "x", Agent: provider, Kind: kind, Depth: depth, Precedence: pr,
			ModTime: t0, Dir: "/" + id}
	}
	tests := []struct {
		name          string
		priority      []pipeline.Kind
		winner, loser *pipeline.Record
		explain       string
	}{
		{
			name:    "Claude ranks personal over project by default",
			winner:  rec("claude@user:x", "claude", pipeline.KindUserAgent, 0, claudeUser),
			loser:   rec("claude@project:x", "claude", pipeline.KindWorkspaceAgent, 0, claudeUser),
			explain: "Claude Code ranks personal over project (providers.claude.precedence: user)",
		},
		{
			name:    "a lifted personal skill beats a newer project copy of another provider",
			winner:  rec("claude@user:x", "claude", pipeline.KindUserAgent, 0, claudeUser),
			loser:   rec("agents@project:x", "agents", pipeline.KindWorkspaceShared, 0, sharedRule),
			explain: "Claude Code ranks personal over project (providers.claude.precedence: user)",
		},
		{
			name:    "precedence project puts Claude's project copy first",
			winner:  rec("claude@project:x", "claude", pipeline.KindWorkspaceAgent, 2, claudeProject),
			loser:   rec("claude@user:x", "claude", pipeline.KindUserAgent, 0, claudeProject),
			explain: "project over user (providers.claude.precedence: project; by default, Claude Code ranks personal over project)",
		},
		{
			name:    "Codex ranks repo over user by default",
			winner:  rec("codex@project:x", "codex", pipeline.KindWorkspaceAgent, 1, codexProject),
			loser:   rec("codex@user:x", "codex", pipeline.KindUserAgent, 0, codexProject),
			explain: "Codex ranks repo over user (providers.codex.precedence: project)",
		},
		{
			name:    "precedence user puts Codex's user copy first",
			winner:  rec("codex@user:x", "codex", pipeline.KindUserAgent, 0, codexUser),
			loser:   rec("codex@project:x", "codex", pipeline.KindWorkspaceAgent, 0, codexUser),
			explain: "user over project (providers.codex.precedence: user; by default, Codex ranks repo over user)",
		},
		{
			name:    "the shared folders rank project over user",
			winner:  rec("agents@project:x", "agents", pipeline.KindWorkspaceShared, 0, sharedRule),
			loser:   rec("agents@user:x", "agents", pipeline.KindUserShared, 0, sharedRule),
			explain: "Codex, Gemini CLI and OpenClaw rank project over user (providers.agents.precedence: project)",
		},
		{
			name:    "a project copy of one provider beats a user copy of another by the kind order",
			winner:  rec("codex@project:x", "codex", pipeline.KindWorkspaceAgent, 0, codexProject),
			loser:   rec("agents@user:x", "agents", pipeline.KindUserShared, 0, sharedRule),
			explain: "higher priority: workspace-agent over user-shared",
		},
		{
			name:   "a lifted personal skill beats a newer user copy of another provider",
			winner: rec("claude@user:x", "claude", pipeline.KindUserAgent, 0, claudeUser),
			loser: func() *pipeline.Record {
				r := rec("codex@user:x", "codex", pipeline.KindUserAgent, 0, codexProject)
				r.ModTime = t0.Add(time.Hour)
				return r
			}(),
			explain: "claude user copies are ranked above the project kinds, and so above this one (providers.claude.precedence: user)",
		},
		{
			name:    "a lifted skill that the kind order ranks first anyway is explained by the kind order",
			winner:  rec("claude@user:x", "claude", pipeline.KindUserAgent, 0, claudeUser),
			loser:   rec("claude:@p:x", "claude", pipeline.KindPlugin, 0, nil),
			explain: "higher priority: user-agent over plugin",
		},
		{
			name:    "skill_dirs stay above a lifted personal skill",
			winner:  rec("project:x", "project", pipeline.KindProject, 0, nil),
			loser:   rec("claude@user:x", "claude", pipeline.KindUserAgent, 0, claudeUser),
			explain: "higher priority: project over user-agent",
		},
		{
			name:    "a Codex system skill ranks below a user skill",
			winner:  rec("codex@user:x", "codex", pipeline.KindUserAgent, 0, codexProject),
			loser:   rec("codex@system:x", "codex", pipeline.KindSystem, 0, nil),
			explain: "higher priority: user-agent over system",
		},
		{
			name:    "two lifted kinds keep their order",
			winner:  rec("claude@user:x", "claude", pipeline.KindUserAgent, 0, claudeUser),
			loser:   rec("agents@user:x", "agents", pipeline.KindUserShared, 0, precedence(t, agents.Order, "user")),
			explain: "higher priority: user-agent over user-shared",
		},
		{
			// With user kinds first in priority, custom and skill_dirs
			// follow them and stand between them and the workspace kinds:
			// a rule lifts a copy only over the other level's kinds
			// directly above its own, so the explicit order wins.
			name:     "a priority that puts other kinds between the levels stops the lift",
			priority: []pipeline.Kind{pipeline.KindUserAgent, pipeline.KindUserShared},
			winner:   rec("codex@user:x", "codex", pipeline.KindUserAgent, 0, codexProject),
			loser:    rec("codex@project:x", "codex", pipeline.KindWorkspaceAgent, 0, codexProject),
			explain:  "higher priority: user-agent over workspace-agent",
		},
		{
			// The lift never crosses a kind listed between the levels:
			// the custom folder listed above the user kinds still wins.
			name:     "a lifted personal skill never jumps over a custom folder ranked above it",
			priority: []pipeline.Kind{pipeline.KindWorkspaceShared, pipeline.KindWorkspaceRoot, pipeline.KindCustom},
			winner:   rec("custom:x", "custom", pipeline.KindCustom, 0, nil),
			loser:    rec("claude@user:x", "claude", pipeline.KindUserAgent, 0, claudeUser),
			explain:  "higher priority: custom over user-agent",
		},
		{
			// ... while it still crosses the workspace kinds directly
			// above its own.
			name:     "a lifted personal skill crosses the workspace kinds directly above it",
			priority: []pipeline.Kind{pipeline.KindCustom, pipeline.KindProject, pipeline.KindWorkspaceShared},
			winner:   rec("claude@user:x", "claude", pipeline.KindUserAgent, 0, claudeUser),
			loser:    rec("claude@project:x", "claude", pipeline.KindWorkspaceAgent, 0, claudeUser),
			explain:  "Claude Code ranks personal over project (providers.claude.precedence: user)",
		},
		{
			name:     "a user-first priority alone ranks a user copy without a rule first",
			priority: []pipeline.Kind{pipeline.KindUserAgent},
			winner:   rec("cursor@user:x", "cursor", pipeline.KindUserAgent, 0, nil),
			loser:    rec("cursor@project:x", "cursor", pipeline.KindWorkspaceAgent, 0, nil),
			explain:  "higher priority: user-agent over workspace-agent",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPriority(tt.priority, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Less(tt.winner, tt.loser) || p.Less(tt.loser, tt.winner) {
				t.Fatalf("Less(%s, %s) = %v, Less(%s, %s) = %v; want %s to win", tt.winner.ID, tt.loser.ID,
					p.Less(tt.winner, tt.loser), tt.loser.ID, tt.winner.ID, p.Less(tt.loser, tt.winner), tt.winner.ID)
			}
			if got := p.best([]*pipeline.Record{tt.loser, tt.winner}); got != tt.winner {
				t.Errorf("best = %s, want %s", got.ID, tt.winner.ID)
			}
			if got := p.Explain(tt.winner, tt.loser); got != tt.explain {
				t.Errorf("Explain = %q\nwant      %q", got, tt.explain)
			}
		})
	}
}

// TestPrecedenceTotalOrder checks on random records of every kind, level,
// provider and precedence that Less is a strict total order: irreflexive,
// asymmetric, total on distinct records and transitive over every triple,
// under the default kind order and a user-first one. It also checks that
// best picks the same record whatever the order of the group.
func TestPrecedenceTotalOrder(t *testing.T) {
	rules := []*pipeline.Precedence{nil,
		precedence(t, claude.Order, ""), precedence(t, claude.Order, "project"),
		precedence(t, codex.Order, ""), precedence(t, codex.Order, "user"),
		precedence(t, agents.Order, ""), precedence(t, agents.Order, "user")}
	kinds := append(pipeline.DefaultPriority(), "")
	provs := []string{"claude", "codex", "agents", "cursor", "custom"}
	rng := rand.New(rand.NewPCG(9, 3))
	var recs []*pipeline.Record
	for i := range 60 {
		recs = append(recs, &pipeline.Record{
			ID:         fmt.Sprintf("r%02d", i),
			Agent:      provs[rng.IntN(len(provs))],
			Kind:       kinds[rng.IntN(len(kinds))],
			Depth:      rng.IntN(2),
			ModTime:    t0.Add(time.Duration(rng.IntN(2)) * time.Hour),
			Dir:        fmt.Sprintf("/d%d", rng.IntN(3)),
			Precedence: rules[rng.IntN(len(rules))],
		})
	}
	orders := [][]pipeline.Kind{nil, {pipeline.KindUserAgent, pipeline.KindUserShared},
		{pipeline.KindWorkspaceAgent, pipeline.KindUserAgent, pipeline.KindWorkspaceShared, pipeline.KindUserShared}}
	for _, order := range orders {
		p, err := NewPriority(order, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range recs {
			if p.Less(a, a) {
				t.Fatalf("%v: Less(%s, %s) = true", order, a.ID, a.ID)
			}
			for _, b := range recs {
				if a != b && p.Less(a, b) == p.Less(b, a) {
					t.Fatalf("%v: Less(%s, %s) = Less(%s, %s) = %v", order, a.ID, b.ID, b.ID, a.ID, p.Less(a, b))
				}
				for _, c := range recs {
					if p.Less(a, b) && p.Less(b, c) && !p.Less(a, c) {
						t.Fatalf("%v: not transitive: %s < %s < %s but not %s < %s (%+v, %+v, %+v)",
							order, a.ID, b.ID, c.ID, a.ID, c.ID, *a, *b, *c)
					}
				}
			}
		}
		want := p.best(recs)
		for range 20 {
			shuffled := slices.Clone(recs)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if got := p.best(shuffled); got != want {
				t.Fatalf("%v: best depends on the group order: %s, then %s", order, want.ID, got.ID)
			}
		}
	}
}

// BenchmarkPriorityBest measures picking the winner of a group of copies
// of one skill, half of them carrying a precedence that lifts them.
func BenchmarkPriorityBest(b *testing.B) {
	p, err := NewPriority(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	rule := precedence(b, claude.Order, "")
	kinds := pipeline.DefaultPriority()
	group := make([]*pipeline.Record, 1000)
	for i := range group {
		group[i] = &pipeline.Record{ID: fmt.Sprintf("r%d", i), Agent: "claude", Kind: kinds[i%len(kinds)],
			ModTime: t0, Dir: fmt.Sprintf("/d%d", i)}
		if i%2 == 0 {
			group[i].Precedence = rule
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		p.best(group)
	}
}
