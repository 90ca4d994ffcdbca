package integration

import (
	"strings"
	"testing"
)

// TestReadmeTerminalNotes checks what the README tells a new user before
// they trip over it: the race test run is long and silent per package,
// bash completion needs the bash-completion package, and its Inspector
// --verify command (there is one: TestInspectorReadmeCommand runs it)
// raises the Inspector's budgets of 256 skills and 64 MiB (without
// --skill-catalog-max-skills and --skill-catalog-max-bytes the Inspector
// exits 8 on a machine with more, checked against its CLI 2.12.0).
func TestReadmeTerminalNotes(t *testing.T) {
	readme := repoFile(t, "README.md")
	flat := strings.Join(strings.Fields(readme), " ")
	for _, want := range []string{
		"`go test -race -timeout 30m ./...` takes several minutes",
		"prints nothing for a package until that package's tests end",
		"Bash completion needs the bash-completion package",
		"first 256 skills and exits 8",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("README does not say %q", want)
		}
	}
	cmd := strings.Join(readmeVerifyCommand(t), " ")
	for _, flag := range []string{"--skill-catalog-max-skills ", "--skill-catalog-max-bytes "} {
		if !strings.Contains(cmd, flag) {
			t.Errorf("README's Inspector command %q stops at the Inspector's default budget: add %s", cmd, flag)
		}
	}
}
