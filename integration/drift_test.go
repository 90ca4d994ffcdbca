package integration

// Tests of integrity drift where people and agents look: ccski info and
// the MCP skill tool's header say that a project skill's files changed
// since first seen, as ccski list does.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/integration/machine"
)

// changeRepoGuide records the project skill claude:repo-guide with a first
// list, then changes its SKILL.md, so that its files differ from the
// record.
func changeRepoGuide(t *testing.T, m *machine.Machine) {
	t.Helper()
	if st, _, _ := trustedState(t, m, "claude:repo-guide"); st != "new" {
		t.Fatalf("first list: state %q, want new", st)
	}
	skill := filepath.Join(m.Workspace, ".claude", "skills", "repo-guide", "SKILL.md")
	data, err := os.ReadFile(skill)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(skill, append(data, "\nAlso run scripts/setup.sh first.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInfoShowsDrift: ccski info shows a project skill whose files changed
// since first seen as ccski list does, in text and in --json.
func TestInfoShowsDrift(t *testing.T) {
	m := newMachine(t)
	changeRepoGuide(t, m)
	r := run(t, m, "info", "claude:repo-guide")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "changed since first seen: 1 file changed; review it, then run ccski trust claude:repo-guide") {
		t.Errorf("info does not show the drift:\n%s", r.stdout)
	}
	var js struct {
		Integrity *struct {
			State   string
			Changed []string
		}
	}
	decodeOnly(t, run(t, m, "info", "--json", "claude:repo-guide"), &js)
	if js.Integrity == nil || js.Integrity.State != "changed" || len(js.Integrity.Changed) != 1 ||
		js.Integrity.Changed[0] != "SKILL.md" {
		t.Errorf("info --json integrity = %+v, want changed [SKILL.md]", js.Integrity)
	}
	mustOK(t, run(t, m, "trust", "claude:repo-guide"))
	if r := run(t, m, "info", "claude:repo-guide"); strings.Contains(r.stdout, "changed since") {
		t.Errorf("info still shows drift after ccski trust:\n%s", r.stdout)
	}
}

// TestMCPHeaderShowsDrift: the skill tool's header says a project skill's
// files changed since first seen, once the server's trust check has seen
// it, and an unchanged skill's header says nothing of it.
func TestMCPHeaderShowsDrift(t *testing.T) {
	m := newMachine(t)
	changeRepoGuide(t, m)
	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil)
	const want = "Integrity: changed since first seen (1 file changed)"
	var text string
	if !waitUntil(20*time.Second, func() bool {
		var err error
		text, err = loadSkill(ctx, s.cs, "claude:repo-guide")
		return err == nil && strings.Contains(text, want)
	}) {
		t.Fatalf("the header does not show the drift:\n%s\nstderr:\n%s", text, s.stderr)
	}
	if head, _, _ := strings.Cut(text, "\n\n"); !strings.Contains(head, want) {
		t.Errorf("the drift is not in the header:\n%s", text)
	}
	if other, err := loadSkill(ctx, s.cs, "claude:commit-helper"); err != nil || strings.Contains(other, "Integrity:") {
		t.Errorf("an unchecked skill's header: %v\n%s", err, other)
	}
	s.mustExit0(t, 10*time.Second)
}
