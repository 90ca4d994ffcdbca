package pipeline

import (
	"fmt"
	"testing"
)

// benchSnapshot is a snapshot of n skills in which every tenth lost a
// dedupe to the one before it.
func benchSnapshot(n int) *Snapshot {
	all := make([]*Record, n)
	for i := range all {
		all[i] = &Record{Name: fmt.Sprintf("skill-%d", i), Agent: "claude", Location: LocationUser}
		if i%10 == 9 {
			all[i].Name, all[i].Location = all[i-1].Name, LocationProject
		}
	}
	AssignIDs(all)
	var visible []*Record
	var drops []Drop
	for i, r := range all {
		if i%10 == 9 {
			drops = append(drops, Drop{Record: r, Stage: "include", Reason: "shadowed", By: all[i-1]})
		} else {
			visible = append(visible, r)
		}
	}
	return NewSnapshot(all, visible, drops, nil, nil)
}

// BenchmarkLoad measures what the skill tool pays per snapshot (Warm) and
// per call: a visible skill by name, a hidden copy by id, and a name no
// record has (the hidden index is built on the first miss, then kept).
func BenchmarkLoad(b *testing.B) {
	const n = 50000
	b.Run("warm", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			b.StopTimer()
			s := benchSnapshot(n)
			b.StartTimer()
			s.Warm()
		}
	})
	s := benchSnapshot(n)
	s.Warm()
	hidden := s.Drops[len(s.Drops)/2].Record.ID
	for _, c := range []struct{ name, query string }{
		{"visible", "skill-25000"},
		{"hidden-id", hidden},
		{"not-found", "no-such-skill-qqq"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				_, _ = s.Load(c.query, TypeSkill)
			}
		})
	}
}
