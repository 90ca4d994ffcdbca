package configs

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDepsStayLow runs `go list -deps` and fails when the config loader,
// or package providers whose declaration types it imports, builds with
// more of the module's packages than its bound, or with any provider
// package or the scanner: the caller passes the provider registry in, and
// the scan modes live in internal/scanmode. On the commit before this
// test configs built with 31 of the module's packages.
func TestDepsStayLow(t *testing.T) {
	const module = "github.com/ccski/ccski"
	for _, tt := range []struct {
		pkg       string
		max       int
		forbidden []string // prefixes below the module, besides the providers
	}{
		{pkg: module + "/configs", max: 15, forbidden: []string{"internal/security", "internal/engine"}},
		{pkg: module + "/providers", max: 8},
	} {
		out, err := exec.Command("go", "list", "-deps", tt.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", tt.pkg, err, out)
		}
		var own []string
		for _, p := range strings.Fields(string(out)) {
			rel, ok := strings.CutPrefix(p, module+"/")
			if !ok {
				continue
			}
			own = append(own, p)
			if strings.HasPrefix(rel, "providers/") && !strings.HasPrefix(rel, "providers/internal/") {
				t.Errorf("%s imports the provider package %s; take the declarations from the registry the caller passes", tt.pkg, p)
			}
			for _, f := range tt.forbidden {
				if strings.HasPrefix(rel, f) {
					t.Errorf("%s imports %s", tt.pkg, p)
				}
			}
		}
		if len(own) > tt.max {
			t.Errorf("%s builds with %d of the module's packages, more than %d:\n%s",
				tt.pkg, len(own), tt.max, strings.Join(own, "\n"))
		}
	}
}
