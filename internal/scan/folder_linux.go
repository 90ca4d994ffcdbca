package scan

import (
	"errors"
	"path/filepath"

	"github.com/ccski/ccski/internal/filestamp"
	"golang.org/x/sys/unix"
)

// folder is a folder whose entries a walk stats relative to it: the kernel
// then resolves only the few components below it, not the whole absolute
// path again (a skill's path has a dozen or more components, and resolving
// them is most of what a stat of it costs). It is opened on first use, as
// an O_PATH descriptor (which needs no read permission and reads nothing);
// when it cannot be opened, its entries are stat'ed by path. A folder is
// used by one goroutine and closed by its owner.
type folder struct {
	path   string
	fd     int
	opened bool
}

// newFolder returns the folder at path, not opened yet.
func newFolder(path string) *folder { return &folder{path: path, fd: -1} }

// stat stats rel, a slash-separated path below the folder, following
// symlinks as os.Stat does.
func (f *folder) stat(rel string) (stamp, error) {
	st, err := f.fstatat(rel, 0)
	return filestamp.FromUnix(&st), err
}

// lstat stats rel, a slash-separated path below the folder, without
// following a final symlink, and reports whether it is one.
func (f *folder) lstat(rel string) (stamp, bool, error) {
	st, err := f.fstatat(rel, unix.AT_SYMLINK_NOFOLLOW)
	return filestamp.FromUnix(&st), st.Mode&unix.S_IFMT == unix.S_IFLNK, err
}

func (f *folder) fstatat(rel string, flags int) (unix.Stat_t, error) {
	if !f.opened {
		f.opened = true
		for {
			fd, err := unix.Open(f.path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if !errors.Is(err, unix.EINTR) {
				if err == nil {
					f.fd = fd
				}
				break
			}
		}
	}
	var st unix.Stat_t
	dirfd, path := f.fd, rel
	if dirfd < 0 { // not opened: by path
		dirfd, path = unix.AT_FDCWD, filepath.Join(f.path, rel)
	}
	for {
		err := unix.Fstatat(dirfd, path, &st, flags)
		if !errors.Is(err, unix.EINTR) {
			return st, err
		}
	}
}

// close closes the folder if it was opened.
func (f *folder) close() {
	if f.fd >= 0 {
		unix.Close(f.fd)
		f.fd = -1
	}
}
