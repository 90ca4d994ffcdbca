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

// copier copies one skill folder out of a source into a staging folder.
// The copy holds regular files and folders only: a symlink whose target,
// resolved, lies inside the source (bound) is copied as what it points
// at, and one that leads out of the source, is broken or loops is left
// out and reported, so that nothing outside the source is ever read.
// .git folders, FIFOs, sockets and devices are left out too. The copy
// stops at the manifest limits, which the lock could not record past.
type copier struct {
	bound   string // the source's real root
	skipped []string
	files   int
	bytes   int64
	// active holds the real folders being copied, against symlink loops.
	active map[string]bool
}

// copySkill copies the skill folder src, inside the source whose root is
// bound, to dst, which must not exist. It returns the paths (relative to
// src) of the symlinks left out.
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
	c := &copier{bound: realBound, active: map[string]bool{}}
	if err := c.dir(realSrc, dst, ""); err != nil {
		return nil, err
	}
	return c.skipped, nil
}

// dir copies the real folder src to dst; rel is its path in the skill.
func (c *copier) dir(src, dst, rel string) error {
	c.active[src] = true
	defer delete(c.active, src)
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("reading %s: %w", src, err)
	}
	for _, e := range ents {
		name := e.Name()
		from, to, r := filepath.Join(src, name), filepath.Join(dst, name), join(rel, name)
		switch t := e.Type(); {
		case t.IsDir():
			if manifest.Skip(name) {
				continue
			}
			if err := c.dir(from, to, r); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			if err := c.link(from, to, r); err != nil {
				return err
			}
		case t.IsRegular():
			if err := c.file(from, to, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// link copies what the symlink from points at, when that is inside the
// source.
func (c *copier) link(from, to, rel string) error {
	target, err := filepath.EvalSymlinks(from)
	if err != nil || !safefile.Within(c.bound, target) || manifest.Skipped(target[len(c.bound):]) {
		c.skipped = append(c.skipped, rel)
		return nil
	}
	st, err := os.Stat(target)
	switch {
	case err != nil:
		c.skipped = append(c.skipped, rel)
		return nil
	case st.IsDir():
		if c.active[target] {
			c.skipped = append(c.skipped, rel) // a loop
			return nil
		}
		return c.dir(target, to, rel)
	case st.Mode().IsRegular():
		return c.file(target, to, rel)
	}
	return nil
}

// file copies the regular file from, keeping its executable bits.
func (c *copier) file(from, to, rel string) error {
	f, st, err := safefile.Open(from)
	if errors.Is(err, safefile.ErrNotRegular) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	c.files++
	c.bytes += st.Size()
	switch {
	case c.files > manifest.MaxFiles:
		return fmt.Errorf("the skill has more than %d files, the most ccski installs: keep only the skill's own files in its folder", manifest.MaxFiles)
	case st.Size() > manifest.MaxFileBytes:
		return fmt.Errorf("%s is %s, over the %s limit for one file of a skill", rel, safefile.Size(st.Size()), safefile.Size(manifest.MaxFileBytes))
	case c.bytes > manifest.MaxBytes:
		return fmt.Errorf("the skill holds more than %s, the most ccski installs: move large data out of its folder", safefile.Size(manifest.MaxBytes))
	}
	perm := fs.FileMode(0o644)
	if st.Mode().Perm()&0o111 != 0 {
		perm = 0o755
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(f, manifest.MaxFileBytes+1)); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", rel, err)
	}
	return out.Close()
}

// join joins a '/'-separated relative path and a name.
func join(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}
