//go:build unix

package scan

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// TestScanOpenAIFIFO checks that an openai.yaml that is a named pipe is
// refused at once, not waited on.
func TestScanOpenAIFIFO(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"s/SKILL.md": skill("s", "d"), "s/agents/": ""})
	if err := syscall.Mkfifo(filepath.Join(base, "s", "agents", "openai.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := Scan(context.Background(), []pipeline.Root{root(base, "")}, DefaultOptions())
	if len(res.Records) != 1 || len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != "openai-yaml-unreadable" {
		t.Errorf("records %d, diagnostics %v; want the skill and openai-yaml-unreadable", len(res.Records), res.Diagnostics)
	}
}
