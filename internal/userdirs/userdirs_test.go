//go:build linux

package userdirs

import (
	"path/filepath"
	"testing"
)

// TestCache names files in ccski's folder of the user cache folder, and
// nothing when there is none.
func TestCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	if got, want := Cache("scan.bin"), filepath.Join(dir, "ccski", "scan.bin"); got != want {
		t.Errorf("Cache = %q, want %q", got, want)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if got := Cache("scan.bin"); got != "" {
		t.Errorf("with no home and no XDG_CACHE_HOME, Cache = %q, want \"\"", got)
	}
}
