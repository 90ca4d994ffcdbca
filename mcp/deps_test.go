package mcp

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoWatcherDependency keeps the file watcher out of the server: live
// refresh belongs to the discovery layer (package engine/live), which the
// server only consumes through Discovery.
func TestNoWatcherDependency(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/ccski/ccski/mcp").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/fsnotify/") || dep == "github.com/ccski/ccski/internal/engine/live" {
			t.Errorf("package mcp depends on %s", dep)
		}
	}
}
