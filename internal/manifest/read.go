package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
)

// ErrOutside is the error for a path that leads out of the skill folder.
var ErrOutside = errors.New("the path leads outside the skill's folder")

// TooLargeError is the error for a file over the cap of ReadIn; Size is 0
// when the file grew past the cap while it was read.
type TooLargeError struct{ Size int64 }

func (e *TooLargeError) Error() string { return fmt.Sprintf("file of %d bytes is too large", e.Size) }

// ReadIn reads the file rel ('/' separated) inside the skill folder dir,
// at most max bytes: the one confined read of a skill's files, that the
// MCP resources and the web page both serve from. It returns an error
// wrapping fs.ErrNotExist when there is no such file (or the manifest of
// dir does not list it, see Locate), ErrOutside when the path leads out of
// the folder, and a *TooLargeError when the file is over max.
func ReadIn(dir, rel string, max int64) ([]byte, error) {
	if rel == "" {
		return nil, fmt.Errorf("no file named: %w", fs.ErrNotExist)
	}
	realDir, inside, err := Locate(dir, rel)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(realDir)
	if err != nil {
		return nil, safefile.Cause(err)
	}
	defer root.Close()
	// The os.Root keeps the read inside even if a symlink changed since
	// the check above; safefile refuses a FIFO or device without waiting.
	data, err := safefile.ReadIn(root, inside, max)
	var odd *safefile.NotRegularError
	var big *safefile.TooLargeError
	switch {
	case err == nil:
		return data, nil
	case errors.As(err, &big):
		return nil, &TooLargeError{big.Size}
	case errors.As(err, &odd) && odd.Mode.IsDir():
		return nil, errors.New("the path is a folder: name a file inside it")
	case errors.As(err, &odd):
		return nil, fmt.Errorf("the path is a %s, not a regular file", safefile.Kind(odd.Mode))
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case errors.Is(err, fs.ErrPermission):
		return nil, safefile.Cause(err)
	}
	return nil, ErrOutside // os.Root refuses a path that escapes
}

// Locate checks the path rel ('/' separated, "" for the folder itself)
// inside the skill folder dir and returns the folder's real path and the
// path to open in it. A path is served when a manifest of the skill lists
// it (Lookup, the rule of skills/list and of directory reads): a file, a
// symlink to a file inside the folder (opened at its target), or a folder
// on a path of folders, never one reached through a symlink. It returns an
// error wrapping fs.ErrNotExist for any other path, and ErrOutside for one
// that leads out of the folder.
func Locate(dir, rel string) (realDir, inside string, err error) {
	if strings.ContainsRune(rel, 0) {
		return "", "", errors.New("the path holds a NUL byte")
	}
	if strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) {
		return "", "", ErrOutside
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." {
			return "", "", ErrOutside
		}
		if Skip(seg) {
			return "", "", fmt.Errorf("%s is not served: %w", seg, fs.ErrNotExist) // not in any manifest
		}
	}
	local := filepath.FromSlash(rel)
	if rel == "" {
		local = "."
	}
	if !filepath.IsLocal(local) {
		return "", "", ErrOutside
	}
	realDir, err = filepath.EvalSymlinks(dir)
	if err != nil {
		return "", "", fmt.Errorf("skill folder: %w", fs.ErrNotExist)
	}
	e, err := Lookup(realDir, strings.Trim(path.Clean("/"+rel), "/"))
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return "", "", err
	case err != nil:
		return "", "", safefile.Cause(err)
	case e.Kind == KindLink && e.Outside && !intoGit(realDir, e.Path):
		return "", "", ErrOutside
	case e.Kind == KindLink && e.Outside:
		return "", "", fmt.Errorf("%s leads into a folder that is not served: %w", e.Path, fs.ErrNotExist)
	case e.Kind == KindLink:
		return "", "", fmt.Errorf("%s is a symlink the skill's manifest does not follow (to a folder, broken, or a loop): %w", e.Path, fs.ErrNotExist)
	case e.Path != strings.Trim(path.Clean("/"+rel), "/"):
		return "", "", fmt.Errorf("%s is a file, not a folder: %w", e.Path, fs.ErrNotExist)
	case e.Kind == KindFile:
		// A symlink to a file inside is opened at its target.
		if inside, err = filepath.Rel(realDir, e.Real); err != nil || !filepath.IsLocal(inside) {
			return "", "", ErrOutside
		}
		return realDir, inside, nil
	}
	return realDir, filepath.Clean(local), nil
}

// intoGit reports whether the symlink rel of the folder realDir leads
// inside it, into a .git, rather than out of it.
func intoGit(realDir, rel string) bool {
	target, err := filepath.EvalSymlinks(filepath.Join(realDir, filepath.FromSlash(rel)))
	return err == nil && safefile.Within(realDir, target)
}
