package userdirs

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestProcessFolders reads the process environment as Linux names the
// folders: Config from $XDG_CONFIG_HOME or $HOME, Cache from
// $XDG_CACHE_HOME or $HOME, and nothing without them.
func TestProcessFolders(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	tests := []struct {
		name                  string
		home, config, cache   string
		wantConfig, wantCache string
		err                   error
	}{
		{"XDG variables", home, xdg, xdg,
			filepath.Join(xdg, "ccski", "trust.json"), filepath.Join(xdg, "ccski", "scan.bin"), nil},
		{"home only", home, "", "",
			filepath.Join(home, ".config", "ccski", "trust.json"), filepath.Join(home, ".cache", "ccski", "scan.bin"), nil},
		{"relative XDG variables", home, "rel", "rel",
			filepath.Join(home, ".config", "ccski", "trust.json"), "", nil},
		{"nothing", "", "", "", "", "", ErrNoConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", tt.home)
			t.Setenv("XDG_CONFIG_HOME", tt.config)
			t.Setenv("XDG_CACHE_HOME", tt.cache)
			got, err := Config("trust.json")
			if got != tt.wantConfig || !errors.Is(err, tt.err) {
				t.Errorf("Config = %q, %v; want %q, %v", got, err, tt.wantConfig, tt.err)
			}
			if got := Cache("scan.bin"); got != tt.wantCache {
				t.Errorf("Cache = %q, want %q", got, tt.wantCache)
			}
		})
	}
}
