package pipeline

import (
	"reflect"
	"testing"
)

// reuseRecords is a small tree with every kind of name: two copies of one
// name (located ids), a plugin skill, an alias and a command.
func reuseRecords() []*Record {
	return []*Record{
		{Name: "pdf", Agent: "claude", Location: LocationUser, Description: "one"},
		{Name: "pdf", Agent: "claude", Location: LocationProject},
		{Name: "xlsx", Agent: "codex", Location: LocationUser, Alias: "sheets", FolderNamed: true},
		{Name: "tools:docx", Agent: "claude", Location: LocationUser, Plugin: &PluginInfo{Plugin: "tools", Marketplace: "m"}},
		{Name: "deploy", Agent: "claude", Location: LocationUser, Type: TypeCommand},
	}
}

// TestAssignIDsFrom checks that taking the ids and skill paths of the last
// records gives what AssignIDs gives, whether the names are the same (a
// changed description: taken) or not (a renamed skill, one more or fewer,
// another plugin: computed again).
func TestAssignIDsFrom(t *testing.T) {
	prev := reuseRecords()
	AssignIDs(prev)
	for _, tc := range []struct {
		name   string
		change func([]*Record) []*Record
	}{
		{"description changed", func(rs []*Record) []*Record { rs[0].Description = "two"; return rs }},
		{"renamed", func(rs []*Record) []*Record { rs[1].Name = "xlsx"; rs[1].Agent = "codex"; return rs }},
		{"alias changed", func(rs []*Record) []*Record { rs[2].Alias = "grid"; return rs }},
		{"plugin changed", func(rs []*Record) []*Record { rs[3].Plugin = &PluginInfo{Plugin: "tools", Marketplace: "n"}; return rs }},
		{"one removed", func(rs []*Record) []*Record { return rs[1:] }},
		{"one added", func(rs []*Record) []*Record {
			return append(rs, &Record{Name: "pdf", Agent: "claude", Location: LocationUser})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := tc.change(reuseRecords()), tc.change(reuseRecords())
			AssignIDsFrom(got, prev)
			AssignIDs(want)
			for i := range want {
				if got[i].ID != want[i].ID || got[i].SkillPath != want[i].SkillPath {
					t.Errorf("record %d: id %q path %q, AssignIDs gives %q %q", i, got[i].ID, got[i].SkillPath, want[i].ID, want[i].SkillPath)
				}
			}
		})
	}
}

// TestInherit checks that a snapshot whose skills have the names of the
// previous one's, each at its place, shares its name index (and resolves
// to its own records), and that one where a name moved builds its own.
func TestInherit(t *testing.T) {
	prevRecs := reuseRecords()
	AssignIDs(prevRecs)
	prev := NewSnapshot(prevRecs, prevRecs, nil, nil, nil)
	prev.Warm()

	same := reuseRecords()
	same[0].Description = "edited"
	AssignIDs(same)
	s := NewSnapshot(same, same, nil, nil, nil)
	s.Inherit(prev)
	s.Warm()
	if reflect.ValueOf(s.skillsIndex().tiers[1]).UnsafePointer() != reflect.ValueOf(prev.skillsIndex().tiers[1]).UnsafePointer() {
		t.Error("a snapshot with the same names built its own index")
	}
	if r, err := s.ResolveSkill("claude@user:pdf"); err != nil || r != same[0] {
		t.Errorf("ResolveSkill(claude@user:pdf) = %v, %v; want the new snapshot's record", r, err)
	}

	moved := reuseRecords()
	moved[0], moved[2] = moved[2], moved[0]
	AssignIDs(moved)
	m := NewSnapshot(moved, moved, nil, nil, nil)
	m.Inherit(prev)
	m.Warm()
	if reflect.ValueOf(m.skillsIndex().tiers[1]).UnsafePointer() == reflect.ValueOf(prev.skillsIndex().tiers[1]).UnsafePointer() {
		t.Error("a snapshot whose names moved shares the previous index")
	}
	if r, err := m.ResolveSkill("xlsx"); err != nil || r != moved[0] {
		t.Errorf("ResolveSkill(xlsx) = %v, %v; want %v", r, err, moved[0])
	}
}
