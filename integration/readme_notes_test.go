package integration

import (
	"regexp"
	"strings"
	"testing"
)

// TestReadmeTerminalNotes checks what the README tells a new user before
// they trip over it: the race test run is long and silent per package,
// bash completion needs the bash-completion package, and every Inspector
// --verify command it gives raises the Inspector's 256-skill budget
// (without --skill-catalog-max-skills the Inspector exits 8 on a machine
// with more skills, checked against its CLI 2.12.0).
func TestReadmeTerminalNotes(t *testing.T) {
	readme := repoFile(t, "README.md")
	flat := strings.Join(strings.Fields(readme), " ")
	for _, want := range []string{
		"`go test -race ./...` takes several minutes",
		"prints nothing for a package until that package's tests end",
		"Bash completion needs the bash-completion package",
		"first 256 skills and exits 8",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("README does not say %q", want)
		}
	}
	spans := regexp.MustCompile("`[^`]*inspector[^`]*--verify[^`]*`").FindAllString(readme, -1)
	if len(spans) == 0 {
		t.Fatal("README gives no Inspector --verify command")
	}
	for _, s := range spans {
		if !strings.Contains(s, "--skill-catalog-max-skills ") {
			t.Errorf("README's Inspector command %s reads only 256 skills: add --skill-catalog-max-skills", s)
		}
	}
}
