package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommandsNeverCollideWithSkills checks that a command and a skill of
// the same name get distinct ids and dedupe keys, and that both resolve.
func TestCommandsNeverCollideWithSkills(t *testing.T) {
	recs := []*Record{
		{Name: "deploy", Agent: "claude", Location: LocationUser},
		{Name: "deploy", Agent: "claude", Location: LocationUser, Type: TypeCommand},
		{Name: "example:review", Agent: "claude", Location: LocationPlugin, Type: TypeCommand, Plugin: &PluginInfo{Plugin: "example"}},
	}
	AssignIDs(recs)
	got := []string{recs[0].ID, recs[1].ID, recs[2].ID}
	if d := cmp.Diff([]string{"claude:deploy", "claude:/deploy", "claude:/@example:review"}, got); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	if recs[0].DedupeKey() == recs[1].DedupeKey() {
		t.Errorf("skill and command share the dedupe key %q", recs[0].DedupeKey())
	}
	x := NewIndex(recs)
	for _, r := range recs {
		if got, err := x.Resolve(r.ID); err != nil || got != r {
			t.Errorf("Resolve(%q) = %v, %v", r.ID, got, err)
		}
	}
}

// TestDedupeKeys checks which records are copies of each other: only
// those whose fully qualified names are equal, that is the same plugin and
// name, or the same name outside any plugin.
func TestDedupeKeys(t *testing.T) {
	tools := &PluginInfo{Plugin: "tools", Marketplace: "m1"}
	toolsElsewhere := &PluginInfo{Plugin: "Tools", Marketplace: "m2", Version: "2.0.0"}
	shipMate := &PluginInfo{Plugin: "ship-mate", Marketplace: "m1"}
	conductor := &PluginInfo{Plugin: "conductor", Marketplace: "m2"}
	docs := &PluginInfo{Plugin: "document-skills", Marketplace: "anthropic-agent-skills"}
	tests := []struct {
		name string
		a, b Record
		same bool
	}{
		{"same name in two roots", Record{Name: "deploy", Type: TypeCommand},
			Record{Name: "Deploy", Type: TypeCommand}, true},
		{"same skill for the user and the project", Record{Name: "pdf"}, Record{Name: "PDF"}, true},
		{"same file name in two folders", Record{Name: "frontend:review", Type: TypeCommand},
			Record{Name: "backend:review", Type: TypeCommand}, false},
		{"nested and top-level", Record{Name: "frontend:review", Type: TypeCommand},
			Record{Name: "review", Type: TypeCommand}, false},
		{"commands of two plugins", Record{Name: "ship-mate:setup", Type: TypeCommand, Plugin: shipMate},
			Record{Name: "conductor:setup", Type: TypeCommand, Plugin: conductor}, false},
		{"skills of two plugins", Record{Name: "ship-mate:pdf", Plugin: shipMate},
			Record{Name: "conductor:pdf", Plugin: conductor}, false},
		{"one plugin from two marketplaces", Record{Name: "tools:review", Type: TypeCommand, Plugin: tools},
			Record{Name: "Tools:Review", Type: TypeCommand, Plugin: toolsElsewhere}, true},
		{"a plugin skill whose name holds a colon keeps its plugin", Record{Name: "x:y", Plugin: tools},
			Record{Name: "x:y", Plugin: shipMate}, false},
		{"a plugin command and a user command", Record{Name: "tools:review", Type: TypeCommand, Plugin: tools},
			Record{Name: "review", Type: TypeCommand}, false},
		{"a plugin command and a user command in a folder named like it",
			Record{Name: "tools:review", Type: TypeCommand, Plugin: tools},
			Record{Name: "tools:review", Type: TypeCommand}, false},
		{"a plugin skill and a local skill", Record{Name: "document-skills:docx", Plugin: docs},
			Record{Name: "docx"}, false},
		{"a scoped name and a bare one", Record{Name: "docs:pdf"}, Record{Name: "pdf"}, false},
		{"a command never shares a key with a skill", Record{Name: "review", Type: TypeCommand},
			Record{Name: "review"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.DedupeKey() == tt.b.DedupeKey(); got != tt.same {
				t.Errorf("keys %q and %q: same=%v, want %v", tt.a.DedupeKey(), tt.b.DedupeKey(), got, tt.same)
			}
		})
	}
}

// TestSnapshotSkillsAndCommands checks the split of the visible records
// and that ResolveSkill never answers with a command.
func TestSnapshotSkillsAndCommands(t *testing.T) {
	recs := []*Record{
		{Name: "deploy", Agent: "claude", Location: LocationUser, Type: TypeCommand},
		{Name: "pdf", Agent: "claude", Location: LocationUser},
		{Name: "review", Agent: "claude", Location: LocationUser, Type: TypeCommand},
		{Name: "deploy", Agent: "codex", Location: LocationUser},
	}
	AssignIDs(recs)
	snap := NewSnapshot(recs, recs, nil, nil, nil)
	snap.Warm()
	ids := func(rs []*Record) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	if d := cmp.Diff([]string{"claude:pdf", "codex:deploy"}, ids(snap.Skills())); d != "" {
		t.Errorf("Skills (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"claude:/deploy", "claude:/review"}, ids(snap.Commands())); d != "" {
		t.Errorf("Commands (-want +got):\n%s", d)
	}
	// "deploy" is a command and a skill: Resolve finds both, ResolveSkill
	// only the skill.
	if _, err := snap.Resolve("deploy"); err == nil {
		t.Error("Resolve(deploy) is not ambiguous over skills and commands")
	}
	for name, want := range map[string]string{"deploy": "codex:deploy", "codex:deploy": "codex:deploy", "pdf": "claude:pdf"} {
		if r, err := snap.ResolveSkill(name); err != nil || r.ID != want {
			t.Errorf("ResolveSkill(%q) = %v, %v; want %s", name, r, err, want)
		}
	}
	for _, name := range []string{"review", "claude:/review", "claude:/deploy", "claude:deploy"} {
		r, err := snap.ResolveSkill(name)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Errorf("ResolveSkill(%q) = %v, %v; want not found", name, r, err)
			continue
		}
		for _, s := range nf.Suggestions {
			if strings.Contains(s, "/") {
				t.Errorf("ResolveSkill(%q) suggests the command %s", name, s)
			}
		}
	}

	// Without commands, Skills is the visible slice itself.
	skillsOnly := NewSnapshot(recs[1:2], recs[1:2], nil, nil, nil)
	if got := skillsOnly.Skills(); len(got) != 1 || &got[0] != &skillsOnly.Visible[0] {
		t.Error("Skills copied a visible set without commands")
	}
	if got := skillsOnly.Commands(); len(got) != 0 {
		t.Errorf("Commands = %v, want none", got)
	}
}

// TestByID checks exact-id lookup over every discovered record.
func TestByID(t *testing.T) {
	recs := []*Record{
		{Name: "pdf", Agent: "claude", Location: LocationUser},
		{Name: "pdf", Agent: "claude", Location: LocationProject},
	}
	AssignIDs(recs)
	s := NewSnapshot(recs, recs[:1], nil, nil, nil)
	if got := s.ByID("CLAUDE@project:PDF"); got != recs[1] {
		t.Errorf("ByID of the hidden copy = %v, want %v", got, recs[1])
	}
	if got := s.ByID("claude:pdf"); got != nil {
		t.Errorf("ByID of a name that is not an id = %v, want nil", got)
	}
}
