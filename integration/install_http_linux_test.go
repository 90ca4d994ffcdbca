//go:build linux

package integration

import (
	"fmt"
	"strings"
	"testing"
)

// TestDownloadProgressOnTerminal checks that installing from a
// well-known index draws the progress of each skill's download on a
// terminal, and that a piped run prints none.
func TestDownloadProgressOnTerminal(t *testing.T) {
	s := newWebSite(t)
	var entries []string
	for i := range 3 {
		name := fmt.Sprintf("web-%d", i)
		art := []byte(skillText(name, "over HTTP"))
		s.put("/.well-known/agent-skills/"+name+"/SKILL.md", art)
		entries = append(entries, fmt.Sprintf(`{"name": %q, "type": "skill-md", "description": "d", "url": "%s/SKILL.md", "digest": %q}`,
			name, name, digestOf(art)))
	}
	s.put(v2Index, []byte(`{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": [`+
		strings.Join(entries, ", ")+`]}`))
	b := newInstallBox(t)
	onTerm, code := runStderrOnTerminal(t, b.proj, b.vars, "install", s.srv.URL, "--all")
	// Each skill's artifact is downloaded as the skill is installed.
	for i := range 3 {
		if want := fmt.Sprintf("ccski: downloading 1/1 web-%d\r", i); code != 0 || !strings.Contains(onTerm, want) {
			t.Errorf("on a terminal: exit %d, want %q, drawn with \\r:\n%q", code, want, onTerm)
		}
	}
	r := b.run(t, "install", s.srv.URL, "--all", "--force")
	if r.code != 0 || strings.Contains(r.stderr, "downloading") || strings.Contains(r.stderr+r.stdout, "\r") {
		t.Errorf("piped: exit %d, progress printed:\n%s", r.code, r)
	}
}
