package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestInstallStaleMarketplaceFolder is issue 23's point 5: a folder of
// skills whose .claude-plugin/marketplace.json lists plugin sources that
// do not exist is installed as the folder of skills it is, with a warning
// naming the marketplace file and how many sources were missing, in text
// and JSON; before, it was "no skill found in the source" and exit 1.
func TestInstallStaleMarketplaceFolder(t *testing.T) {
	b := newInstallBox(t)
	src := filepath.Join(b.root, "src")
	files := map[string]string{}
	var plugins []string
	for i := range 7 {
		plugins = append(plugins, fmt.Sprintf(`{"name": "gone%d", "source": "./plugins/gone%d"}`, i, i))
	}
	files[".claude-plugin/marketplace.json"] = `{"name": "stale", "owner": {"name": "o"}, "plugins": [` +
		strings.Join(plugins, ", ") + `]}`
	for _, n := range []string{"alpha", "beta", "gamma"} {
		files[n+"/SKILL.md"] = "---\nname: " + n + "\ndescription: The " + n + " skill.\n---\nBody.\n"
	}
	testfs.Write(t, src, files)

	const warn = ".claude-plugin/marketplace.json lists 7 plugin sources that do not exist (gone0, gone1, gone2, gone3, gone4, … 2 more); read the folder as a folder of skills instead"
	r := b.run(t, "install", src, "--all", "--dry-run")
	mustOK(t, r)
	if !strings.Contains(r.stderr, warn) {
		t.Errorf("want the warning %q\n%s", warn, r)
	}
	var rep struct {
		installJSON
		Warnings []string `json:"warnings"`
	}
	r = b.run(t, "install", src, "--all", "--json")
	mustOK(t, r)
	decodeOnly(t, r, &rep)
	if got := strings.Join(rep.statuses(), ", "); got != "alpha installed, beta installed, gamma installed" {
		t.Errorf("install: %s\n%s", got, r)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), warn) {
		t.Errorf("JSON warnings %q lack %q", rep.Warnings, warn)
	}
}
