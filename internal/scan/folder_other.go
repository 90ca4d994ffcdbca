//go:build !linux

package scan

import (
	"io/fs"
	"os"
	"path/filepath"
)

// folder is a folder whose entries a walk stats. On Linux they are
// stat'ed relative to an open descriptor of it (see folder_linux.go);
// here, by path, as os.Stat and os.Lstat do.
type folder struct{ path string }

// newFolder returns the folder at path.
func newFolder(path string) *folder { return &folder{path: path} }

// stat stats rel, a slash-separated path below the folder, following
// symlinks.
func (f *folder) stat(rel string) (stamp, error) {
	st, err := os.Stat(filepath.Join(f.path, filepath.FromSlash(rel)))
	if err != nil {
		return stamp{}, err
	}
	return stampOf(st), nil
}

// lstat stats rel, a slash-separated path below the folder, without
// following a final symlink, and reports whether it is one.
func (f *folder) lstat(rel string) (stamp, bool, error) {
	st, err := os.Lstat(filepath.Join(f.path, filepath.FromSlash(rel)))
	if err != nil {
		return stamp{}, false, err
	}
	return stampOf(st), st.Mode()&fs.ModeSymlink != 0, nil
}

// close does nothing: nothing was opened.
func (f *folder) close() {}
