// Package testfs builds file trees for tests from a map of paths, so that
// every test package writes its fixtures the same way.
package testfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Write creates files and folders under base from a map of slash-separated
// paths relative to base:
//
//   - a path ending in "/" is a folder (the value is ignored);
//   - a value starting with "-> " makes a symlink to the rest of the value,
//     a slash-separated target, relative to the link's folder or absolute;
//   - anything else is a file (mode 0o644) holding the value.
//
// Missing parent folders are created (mode 0o755). Any error fails the
// test at once.
func Write(tb testing.TB, base string, files map[string]string) {
	tb.Helper()
	for p, content := range files {
		full := filepath.Join(base, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "-> "); ok {
			if err := os.Symlink(filepath.FromSlash(target), full); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// Age sets the access and modification times of base and of every file
// and folder under it to d before now. Symlinks are not followed (their
// targets are aged only where they lie under base themselves).
//
// The scanner distrusts a time within two seconds of now (a same-size
// rewrite in the same tick would go unseen), so a test that checks what
// its cache reuses ages the tree it has just written.
func Age(tb testing.TB, base string, d time.Duration) {
	tb.Helper()
	old := time.Now().Add(-d)
	err := filepath.WalkDir(base, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.Type()&fs.ModeSymlink != 0 {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// TempDir is tb.TempDir with symlinks resolved (as on macOS, where the
// temporary folder lies behind /var -> /private/var), so that real paths
// found by the code under test compare equal to paths built from it.
func TempDir(tb testing.TB) string {
	tb.Helper()
	d, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
