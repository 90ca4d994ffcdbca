package manifest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMode is the one mode rule of fetched files: executable when the
// source marks it or below a scripts/ folder, else 0o644.
func TestMode(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		exec bool
		want fs.FileMode
	}{
		{"SKILL.md", false, 0o644},
		{"scripts/run.sh", false, 0o755},
		{"pdf/scripts/tools/run.py", false, 0o755},
		{"scripts", false, 0o644},
		{"notes/scripts.md", false, 0o644},
		{"bin/tool", true, 0o755},
	} {
		if got := Mode(tc.rel, tc.exec); got != tc.want {
			t.Errorf("Mode(%q, %v) = %v, want %v", tc.rel, tc.exec, got, tc.want)
		}
	}
}

// TestWriteNew writes a new file with its folders and refuses one that
// exists, leaving it as it was.
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "a", "scripts", "run.sh")
	if n, err := WriteNew(dst, "a/scripts/run.sh", false, strings.NewReader("echo\n")); err != nil || n != 5 {
		t.Fatalf("WriteNew = %d, %v", n, err)
	}
	if st, err := os.Stat(dst); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, %v; want 0o755", st.Mode(), err)
	}
	if _, err := WriteNew(dst, "a/scripts/run.sh", false, strings.NewReader("x")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("writing over a file: %v, want ErrExist", err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "echo\n" {
		t.Errorf("the file became %q", got)
	}
}
