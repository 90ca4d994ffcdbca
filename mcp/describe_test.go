package mcp

import (
	"strings"
	"testing"
)

// TestNoSkillsCatalogue serves no skill: the skill tool's description
// says in prose that none is installed and how to add one, and lists no
// made-up skill.
func TestNoSkillsCatalogue(t *testing.T) {
	desc := Describe(nil)
	if strings.Contains(desc, "<skill>") || strings.Contains(desc, "<name>none") {
		t.Errorf("the catalogue of no skills holds an entry:\n%s", desc)
	}
	for _, want := range []string{"No skills are installed", "SKILL.md", "ccski new", "ccski install"} {
		if !strings.Contains(desc, want) {
			t.Errorf("the catalogue of no skills does not say %q:\n%s", want, desc)
		}
	}
}
