package providers

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDepsStayLow runs `go list -deps` on this package, which configs
// imports for the declaration types: it must import no provider (each
// provider imports it) and stay small, so that configs stays low.
func TestDepsStayLow(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	const module = "github.com/ccski/ccski"
	var own []string
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, module+"/") {
			continue
		}
		own = append(own, p)
		if rel := strings.TrimPrefix(p, module+"/providers/"); rel != p && !strings.HasPrefix(rel, "internal/") {
			t.Errorf("package providers imports the provider %s", p)
		}
	}
	if len(own) > 8 {
		t.Errorf("package providers builds with %d of the module's packages, more than 8:\n%s", len(own), strings.Join(own, "\n"))
	}
}
