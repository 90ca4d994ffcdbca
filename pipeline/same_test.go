package pipeline

import "testing"

// TestSame checks that Same tells apart two snapshots that differ in any
// one thing they serve or watch, and that a rebuild of the same results
// (other slices, maps and Created) is the same.
func TestSame(t *testing.T) {
	a := &Record{ID: "claude:a", Name: "a"}
	b := &Record{ID: "codex:a", Name: "a"}
	build := func() *Snapshot {
		s := NewSnapshot([]*Record{a, b}, []*Record{a}, []Drop{{Record: b, Stage: "dedupe", By: a}},
			[]RootReport{{Root: Root{Path: "/r", Agent: "claude"}, Exists: true, Skills: 2}},
			[]Diagnostic{{Code: "c", Message: "m"}})
		s.Folders, s.Manifests, s.Listings = []string{"/r"}, []string{"/s.json"}, []string{"/l"}
		s.Disabled = []DisabledPlugin{{Plugin: "p", Marketplace: "m"}}
		s.Priority = []Kind{"user"}
		s.Security = map[*Record][]Diagnostic{a: {{Code: "rule"}}}
		s.Integrity = map[*Record]Integrity{a: {State: "recorded"}}
		s.Signatures = map[*Record]Signature{a: {State: "unsigned"}}
		s.Judged = []Judgement{{Gate: GateScan, Files: map[*Record]JudgedFiles{a: {{Path: "SKILL.md", Size: 1, Digest: "d"}}}}}
		return s
	}
	base := build()
	if !base.Same(build()) {
		t.Fatal("two snapshots of the same results are not the same")
	}
	if base.Same(nil) || (*Snapshot)(nil).Same(base) {
		t.Error("a snapshot is the same as nil")
	}
	changes := map[string]func(s *Snapshot){
		"All":         func(s *Snapshot) { s.All = []*Record{b, a} },
		"a record":    func(s *Snapshot) { s.Visible = []*Record{{ID: "claude:a", Name: "a"}} },
		"Drops":       func(s *Snapshot) { s.Drops[0].Reason = "why" },
		"Roots":       func(s *Snapshot) { s.Roots[0].Skills = 3 },
		"Diagnostics": func(s *Snapshot) { s.Diagnostics = nil },
		"Folders":     func(s *Snapshot) { s.Folders = append(s.Folders, "/r/x") },
		"Manifests":   func(s *Snapshot) { s.Manifests = nil },
		"Listings":    func(s *Snapshot) { s.Listings = []string{"/m"} },
		"Disabled":    func(s *Snapshot) { s.Disabled = nil },
		"Priority":    func(s *Snapshot) { s.Priority = nil },
		"Security":    func(s *Snapshot) { s.Security = map[*Record][]Diagnostic{} },
		"a finding":   func(s *Snapshot) { s.Security[a] = []Diagnostic{{Code: "other"}} },
		"Integrity":   func(s *Snapshot) { s.Integrity[a] = Integrity{State: "changed"} },
		"Signatures":  func(s *Snapshot) { s.Signatures = nil },
		"Judged":      func(s *Snapshot) { s.Judged[0].Files[a] = JudgedFiles{{Path: "SKILL.md", Size: 1, Digest: "e"}} },
		"no gate":     func(s *Snapshot) { s.Judged = nil },
	}
	for name, change := range changes {
		s := build()
		change(s)
		if base.Same(s) || s.Same(base) {
			t.Errorf("%s changed: still the same", name)
		}
	}
}
