package userdirs

import (
	"errors"
	"path/filepath"
	"runtime"
	"testing"
)

// TestConfigDir finds the config folder from $XDG_CONFIG_HOME, else the
// home folder, and says ErrNoConfig without either; StateDir does the
// same with $XDG_STATE_HOME and ~/.local/state, saying ErrNoState.
func TestConfigDir(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	for _, kind := range []struct {
		variable string
		dir      func(string, func(string) string) (string, error)
		fallback string
		unknown  error
	}{
		{"XDG_CONFIG_HOME", ConfigDir, filepath.Join(home, ".config", "ccski"), ErrNoConfig},
		{"XDG_STATE_HOME", StateDir, filepath.Join(home, ".local", "state", "ccski"), ErrNoState},
	} {
		tests := []struct {
			name, home, xdg string
			want            string
			err             error
		}{
			{"the variable wins over home", home, xdg, filepath.Join(xdg, "ccski"), nil},
			{"home without the variable", home, "", kind.fallback, nil},
			{"a relative variable is ignored", home, "relative", kind.fallback, nil},
			{"the variable without home", "", xdg, filepath.Join(xdg, "ccski"), nil},
			{"neither", "", "", "", kind.unknown},
			{"only a relative variable", "", "relative", "", kind.unknown},
		}
		for _, tt := range tests {
			t.Run(kind.variable+"/"+tt.name, func(t *testing.T) {
				got, err := kind.dir(tt.home, func(k string) string {
					if k == kind.variable {
						return tt.xdg
					}
					return ""
				})
				if got != tt.want || !errors.Is(err, tt.err) {
					t.Errorf("got %q, %v; want %q, %v", got, err, tt.want, tt.err)
				}
			})
		}
	}
}

func TestCacheDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the table states Linux's cache folder rules (os.UserCacheDir)")
	}
	for _, tc := range []struct {
		name, xdg, home, fallback, want string
	}{
		{"the system's cache folder", "/xdg/cache", "/home/me", "/users/x", "/xdg/cache/ccski"},
		{"HOME's .cache without XDG_CACHE_HOME", "", "/home/me", "/users/x", "/home/me/.cache/ccski"},
		{"the fallback when the system names none", "", "", "/users/x", "/users/x/.cache/ccski"},
		{"nothing at all", "", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", tc.xdg)
			t.Setenv("HOME", tc.home)
			if got := CacheDir(tc.fallback); got != filepath.FromSlash(tc.want) {
				t.Errorf("CacheDir(%q) = %q, want %q", tc.fallback, got, tc.want)
			}
			wantFile := ""
			if tc.home != "" || tc.xdg != "" {
				wantFile = filepath.Join(filepath.FromSlash(tc.want), "scan.bin")
			}
			if got := Cache("scan.bin"); got != wantFile {
				t.Errorf("Cache(scan.bin) = %q, want %q", got, wantFile)
			}
		})
	}
}
