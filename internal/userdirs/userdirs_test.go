package userdirs

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestConfigDir finds the config folder from $XDG_CONFIG_HOME, else the
// home folder, and says ErrNoConfig without either.
func TestConfigDir(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	tests := []struct {
		name, home, xdg string
		want            string
		err             error
	}{
		{"XDG_CONFIG_HOME wins over home", home, xdg, filepath.Join(xdg, "ccski"), nil},
		{"home without XDG_CONFIG_HOME", home, "", filepath.Join(home, ".config", "ccski"), nil},
		{"a relative XDG_CONFIG_HOME is ignored", home, "relative", filepath.Join(home, ".config", "ccski"), nil},
		{"XDG_CONFIG_HOME without home", "", xdg, filepath.Join(xdg, "ccski"), nil},
		{"neither", "", "", "", ErrNoConfig},
		{"only a relative XDG_CONFIG_HOME", "", "relative", "", ErrNoConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigDir(tt.home, func(k string) string {
				if k == "XDG_CONFIG_HOME" {
					return tt.xdg
				}
				return ""
			})
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("ConfigDir = %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}
