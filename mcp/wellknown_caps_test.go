package mcp

import (
	"testing"

	"github.com/ccski/ccski/internal/install"
)

// TestWellKnownCapsAreTheInstallers holds the caps the index applies to
// the installer's defaults: a skill published is one `ccski install`
// takes.
func TestWellKnownCapsAreTheInstallers(t *testing.T) {
	l := install.DefaultLimits
	if l.MaxDownload != int64(maxArtifactBytes) || l.MaxUnpacked != maxUnpackedBytes || l.MaxFiles != maxArtifactFiles {
		t.Errorf("install.DefaultLimits %+v; the index caps %d, %d, %d", l, maxArtifactBytes, maxUnpackedBytes, maxArtifactFiles)
	}
}
