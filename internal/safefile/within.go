package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
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

// WithinResolved reports whether path is root or lies below it both as
// written (Within) and with the links of both resolved (Resolve: as far
// as they exist, a dangling link counting where it would lead), so that a
// link inside root that leads out of it does not count as inside. It is
// the one answer to "does this path, which a file (a project's config or
// lock) names, stay in that folder". real is where path leads when it
// lies below root as written, and "" when it does not (a relative path
// does not). A link that cannot be resolved (a loop, a folder that
// cannot be examined) is an error.
func WithinResolved(root, path string) (real string, ok bool, err error) {
	if !Within(filepath.Clean(root), filepath.Clean(path)) {
		return "", false, nil
	}
	realRoot, err := Resolve(root)
	if err != nil {
		return "", false, fmt.Errorf("folder %s: %w", root, err)
	}
	if real, err = Resolve(path); err != nil {
		return "", false, err
	}
	return real, Within(realRoot, real), nil
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
// real folders by a write, so they lead nowhere; a dangling link is
// judged by where it would lead (see Resolve). path must lie below root
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
	if real, err = filepath.Abs(real); err != nil {
		return err
	}
	rel, _ := filepath.Rel(root, path)
	if rel == "." {
		return nil
	}
	// The first part of path that resolves out of root is a link: the
	// part above it resolved inside, and a part that is no link stays
	// below it.
	at := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, part)
		to, err := Resolve(at)
		if err != nil {
			return err
		}
		if !Within(real, to) {
			return &LinkError{File: path, Link: at, Target: to, Root: root}
		}
	}
	return nil
}

// maxLinks bounds the symbolic links Resolve follows for one path, as
// the system does: more mean a loop.
const maxLinks = 255

// Resolve returns the absolute path of p (made absolute from the working
// folder) with every symbolic link on it resolved, as far as p exists:
// where a write to p would reach. A link is followed to where it leads,
// and a dangling one to where it would lead (its target as written,
// resolved the same way); the parts of p that do not exist are kept as
// written, since a write makes them as real folders. It is
// filepath.EvalSymlinks for a path that need not exist. A loop of links,
// or a part that cannot be examined (no permission), is an error.
func Resolve(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	vol := filepath.VolumeName(p)
	root := vol + string(filepath.Separator)
	cur, todo, links := root, splitPath(p[len(vol):]), 0
	for len(todo) > 0 {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		st, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			cur = next
			continue
		case err != nil:
			return "", err
		case st.Mode()&fs.ModeSymlink == 0:
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: too many symbolic links (a loop)", p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			cur, target = v+string(filepath.Separator), target[len(v):]
		}
		todo = append(splitPath(target), todo...)
	}
	return cur, nil
}

// splitPath splits p into its names, leaving out empty ones.
func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r < utf8.RuneSelf && os.IsPathSeparator(uint8(r)) })
}
