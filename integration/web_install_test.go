package integration

import (
	"encoding/json"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWebInstallCommandFromServer runs the command the skill page of
// `ccski mcp --transport http` gives, on another machine: not the skill's
// folder on the server's disk but `ccski install mcp+ORIGIN/mcp#PATH`,
// the server's MCP endpoint narrowed to the skill's path. On a server of
// two skills it installs that one skill, and only it, with the served
// bytes: the command works where it is read.
func TestWebInstallCommandFromServer(t *testing.T) {
	t.Parallel()
	up := bareMachine(t, bridgeSkills)
	s := startHTTP(t, up, nil, "--transport", "http", "--no-refresh")
	if !waitUntil(webWait, func() bool { res, _ := webGet(t, s.base, "/readyz", nil); return res.StatusCode == 200 }) {
		t.Fatalf("/readyz never answered 200\nstderr:\n%s", s.stderr)
	}
	_, body := webGet(t, s.base, "/ui/skills.json?q=pdf", nil)
	var list struct{ Skills []struct{ ID, Name string } }
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list.Skills) == 0 || !strings.HasSuffix(list.Skills[0].Name, "pdf") {
		t.Fatalf("skills.json?q=pdf: %v\n%s", err, body)
	}
	_, page := webGet(t, s.base, "/skill/"+url.PathEscape(list.Skills[0].ID), nil)
	m := regexp.MustCompile(`<code id="install">([^<]*)</code>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the skill page shows no install command:\n%s", page)
	}
	cmd := html.UnescapeString(m[1])
	if strings.Contains(cmd, up.DocsDir) || !strings.HasPrefix(cmd, "ccski install mcp+"+s.base+"/mcp#") || strings.ContainsAny(cmd, `'"\`) {
		t.Fatalf("install command %q: want the server's MCP source, not a path of its disk", cmd)
	}
	a := bareMachine(t, nil)
	args := append(strings.Fields(cmd)[1:], "--user-dir", a.Home)
	mustOK(t, ccski(t, a, runOpts{}, args...))
	skills := filepath.Join(a.Workspace, ".agents", "skills")
	got, err := os.ReadFile(filepath.Join(skills, "pdf", "scripts", "extract.sh"))
	if err != nil || string(got) != bridgeSkills["pdf/scripts/extract.sh"] {
		t.Errorf("pdf/scripts/extract.sh installed as %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(skills, "docx")); err == nil {
		t.Errorf("the command of pdf installed docx too")
	}
}
