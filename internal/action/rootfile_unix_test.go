//go:build unix

package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckRootFile: under a managed config's signature rule, the root
// `ccski trust-root update` wrote is trusted only as a regular file the
// account owns and neither its group nor others may write; no file is
// not an error (the shipped root is then in force).
func TestCheckRootFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trusted_root.json")
	if err := checkRootFile(path); err != nil {
		t.Errorf("no file: %v", err)
	}
	if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode os.FileMode
		want string // "" for no error
	}{
		{0o644, ""},
		{0o600, ""},
		{0o664, "written by its group or others"},
		{0o646, "written by its group or others"},
	} {
		if err := os.Chmod(path, tc.mode); err != nil {
			t.Fatal(err)
		}
		err := checkRootFile(path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("mode %v: %v", tc.mode, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path)):
			t.Errorf("mode %v: got %v, want an error naming %s and saying %q", tc.mode, err, path, tc.want)
		}
	}

	// Owned by another user.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ownedPrivate(fi, os.Getuid()+1); err == nil || !strings.Contains(err.Error(), "owned by user id") {
		t.Errorf("another owner: got %v, want an error naming the owner", err)
	}

	// A link, even to a good file, is not the file.
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := checkRootFile(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a link: got %v, want an error", err)
	}
}
