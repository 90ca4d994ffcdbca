package configs

import (
	"os/exec"
	"strings"
	"testing"
)

// maxModuleDeps bounds how many of the module's packages the config
// loader builds with, itself included: it stands low in the house, below
// the engine, the providers and the scanner.
const maxModuleDeps = 15

// TestDepsStayLow runs `go list -deps` on this package and fails when it
// pulls in more than maxModuleDeps of the module's packages, or any
// provider package or the security scanner: the caller passes the provider
// registry in, and the scan modes live in internal/scanmode.
func TestDepsStayLow(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	const module = "github.com/ccski/ccski"
	var own []string
	for _, p := range strings.Fields(string(out)) {
		if p != module && !strings.HasPrefix(p, module+"/") {
			continue
		}
		own = append(own, p)
		rel := strings.TrimPrefix(p, module+"/")
		if strings.HasPrefix(rel, "providers/") && !strings.HasPrefix(rel, "providers/internal/") {
			t.Errorf("configs imports the provider package %s; take the declarations from the registry the caller passes", p)
		}
		if rel == "internal/security" || rel == "internal/engine" {
			t.Errorf("configs imports %s", p)
		}
	}
	if len(own) > maxModuleDeps {
		t.Errorf("configs builds with %d of the module's packages, more than %d:\n%s",
			len(own), maxModuleDeps, strings.Join(own, "\n"))
	}
}
