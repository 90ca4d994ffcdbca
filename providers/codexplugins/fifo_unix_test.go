//go:build unix

package codexplugins

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/providers/codex"
)

// TestPlanFIFOConfigNeverBlocks checks that a config.toml that is a named
// pipe is refused at once, not waited on.
func TestPlanFIFOConfigNeverBlocks(t *testing.T) {
	home := testfs.TempDir(t)
	if err := syscall.Mkfifo(filepath.Join(home, "config.toml"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := providertest.Env(filepath.Join(home, "user"), nil, filepath.Join(home, "ws"))
	env = env.WithHome(codex.Name, home)
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
	if !hasCode(plan.Diagnostics, "codex-config-unreadable") {
		t.Errorf("diagnostics %v, want codex-config-unreadable", plan.Diagnostics)
	}
}
