package hostfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/testfs"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"ok.json": "{}", "folder/": ""})
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, MaxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		path      string
		found     bool
		errTarget error
	}{
		{"a regular file", "ok.json", true, nil},
		{"a missing file is not an error", "missing.json", false, nil},
		{"a folder", "folder", true, safefile.ErrNotRegular},
		{"a file over the cap", "big.json", true, safefile.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, found, err := Read(filepath.Join(dir, tt.path))
			if found != tt.found {
				t.Errorf("found = %v, want %v", found, tt.found)
			}
			if tt.errTarget == nil {
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if found && string(data) != "{}" {
					t.Errorf("data = %q", data)
				}
				return
			}
			if !errors.Is(err, tt.errTarget) {
				t.Errorf("Read error = %v, want %v", err, tt.errTarget)
			}
			if err != nil && strings.Contains(err.Error(), dir) {
				t.Errorf("error %q names the path; the caller does", err)
			}
		})
	}
}
