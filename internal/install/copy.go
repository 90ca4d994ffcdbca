package install

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
)

// copySkill copies the skill folder src, inside the source whose root is
// bound, to dst, which must not exist. What it copies is what the one walk
// of a skill lists (manifest.Walk), with the source as the bound links may
// lead into and their folders followed: regular files, in their folders,
// and a symlink whose target, resolved, lies inside the source, as what it
// points at. A recorded link (one leading out of the source or into a
// .git, a broken one, a loop) is left out and reported, so that nothing
// outside the source is ever read; .git, FIFOs, sockets and devices are
// left out too. A skill over a manifest limit, which the lock could not
// record, is not copied. It returns the paths (relative to src) of the
// symlinks left out.
func copySkill(src, dst, bound string) ([]string, error) {
	realBound, err := filepath.EvalSymlinks(bound)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", bound, err)
	}
	realSrc, err := filepath.EvalSymlinks(src)
	if err != nil {
		return nil, fmt.Errorf("skill folder %s: %w", src, err)
	}
	if !safefile.Within(realBound, realSrc) {
		return nil, fmt.Errorf("skill folder %s leads outside the source %s through a symlink; it is not installed", src, bound)
	}
	l, err := manifest.Walk{Within: realBound, Folders: true}.List(realSrc)
	if err != nil {
		return nil, err
	}
	if err := l.Complete(); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return nil, err
	}
	var skipped []string
	for _, e := range l.Entries {
		if e.Kind == manifest.KindLink {
			skipped = append(skipped, e.Path)
			continue
		}
		to := filepath.Join(dst, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return nil, err
		}
		if err := copyFile(e.Real, to, e.Path); err != nil {
			return nil, err
		}
	}
	return skipped, nil
}

// copyFile copies the regular file from (rel in the skill) to the new
// file to, keeping its executable bits.
func copyFile(from, to, rel string) error {
	f, st, err := safefile.Open(from)
	if errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, fs.ErrNotExist) {
		return nil // replaced or gone since the walk
	}
	if err != nil {
		return err
	}
	defer f.Close()
	perm := fs.FileMode(0o644)
	if st.Mode().Perm()&0o111 != 0 {
		perm = 0o755
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(f, manifest.MaxFileBytes+1))
	if err == nil && n > manifest.MaxFileBytes {
		err = fmt.Errorf("it grew over the %s limit for one file of a skill", safefile.Size(manifest.MaxFileBytes))
	}
	if err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", rel, err)
	}
	return out.Close()
}
