package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Within reports whether path is root or lies below it, comparing the two
// lexically after cleaning them: no symlink is resolved, so a caller that
// must not be led out by a link resolves both first (or asks CheckLinks).
// An empty root or path is within nothing.
func Within(root, path string) bool {
	if root == "" || path == "" {
		return false
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// LinkError is a write refused because a symbolic link on the way to the
// file leads out of the folder the write belongs to: the file itself, or
// a folder above it, is a link to somewhere else.
type LinkError struct {
	// File is the file to be written, Link the link on the way to it (File
	// itself, or a folder above it), Target where Link leads, and Root the
	// folder the write belongs to.
	File, Link, Target, Root string
}

func (e *LinkError) Error() string {
	what := e.Link
	if e.Link != e.File {
		what = fmt.Sprintf("%s (on the way to %s)", e.Link, e.File)
	}
	return fmt.Sprintf("%s is a symbolic link to %s, which is outside %s; ccski does not write through a link that "+
		"leads out of the folder the file belongs to, and changed nothing: replace the link with the file itself, "+
		"or make the change in %s yourself", what, e.Target, e.Root, e.Target)
}

// CheckLinks returns a *LinkError when a symbolic link on the way from
// root down to path (path itself included) leads out of root, and nil
// when every part of path that exists resolves inside root: a write to
// path then stays in root. root itself may be a link, which is resolved
// first (the user may keep a whole folder elsewhere); a root that does not
// exist holds no link. Parts of path that do not exist yet are made as
// real folders by a write, so they lead nowhere. path must lie below root
// lexically (Within); else it is refused too.
func CheckLinks(root, path string) error {
	if !Within(root, path) {
		return fmt.Errorf("%s is not inside %s", path, root)
	}
	real, err := filepath.EvalSymlinks(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(root, path)
	if rel == "." {
		return nil
	}
	at, cur := root, real
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		at, cur = filepath.Join(at, part), filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		next, err := filepath.EvalSymlinks(cur)
		if err != nil {
			// A dangling link: where it would lead, read as written.
			target, rerr := os.Readlink(cur)
			if rerr != nil {
				return rerr
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			next = filepath.Clean(target)
		}
		if !Within(real, next) {
			return &LinkError{File: path, Link: at, Target: next, Root: root}
		}
		cur = next
	}
	return nil
}
