// Package floorlib is the physical floor the benchmark suite compares ccski
// with: the least work any tool must do to find the skills under a set of
// roots and read their frontmatter.
//
// Walk lists each root with os.ReadDir, one goroutine, depth first. Like
// ccski it skips hidden folders and node_modules and stops at a skill
// folder (one holding SKILL.md or .SKILL.md: its contents belong to the
// skill). Of every skill file found it reads the first 4 KB, which holds
// the frontmatter of any sane skill. It follows no symlinks, parses
// nothing, allocates no records and keeps no cache: everything ccski does
// beyond that is overhead measured against it.
package floorlib

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// HeadSize is how much of each skill file the floor reads.
const HeadSize = 4096

// Skill file names: SKILL.md, or .SKILL.md for a disabled skill.
const (
	SkillFile    = "SKILL.md"
	DisabledFile = ".SKILL.md"
)

// Result is what a walk found.
type Result struct {
	Skills int   // skill files read
	Bytes  int64 // bytes read from them
	Dirs   int   // folders listed
}

// Walk walks roots and reads the head of every skill file. A root that
// does not exist is skipped; the same root given twice is walked once.
// Unreadable folders and files below a root are skipped too: the floor
// only counts work.
func Walk(roots []string) (Result, error) {
	w := walker{buf: make([]byte, HeadSize)}
	err := w.walk(roots, nil, nil)
	return w.res, err
}

// List walks roots like Walk without reading any file, and returns every
// folder listed and every skill file found: what a rescan must look at
// again to see that nothing changed.
func List(roots []string) (dirs, files []string, err error) {
	w := walker{list: true}
	err = w.walk(roots, &dirs, &files)
	return dirs, files, err
}

// Restat stats every folder and file that List returned: the floor of a
// rescan that finds nothing changed (a stat cache revalidated, no reads).
func Restat(dirs, files []string) (int, error) {
	n := 0
	for _, list := range [][]string{dirs, files} {
		for _, p := range list {
			if _, err := os.Stat(p); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

type walker struct {
	buf  []byte
	list bool // List: collect paths, read nothing
	res  Result
}

// walk walks each root once (dir); a root that does not exist is
// skipped.
func (w *walker) walk(roots []string, dirs, files *[]string) error {
	seen := map[string]bool{}
	for _, r := range roots {
		r = filepath.Clean(r)
		if seen[r] {
			continue
		}
		seen[r] = true
		if err := w.dir(r, dirs, files); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// dir walks one folder. Only a root's own error is returned: below it,
// an unreadable folder is skipped.
func (w *walker) dir(path string, dirs, files *[]string) error {
	ents, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	w.res.Dirs++
	if dirs != nil {
		*dirs = append(*dirs, path)
	}
	skill, disabled := false, false
	for _, e := range ents {
		switch e.Name() {
		case SkillFile:
			skill = true
		case DisabledFile:
			disabled = true
		}
	}
	if skill || disabled {
		name := SkillFile
		if !skill {
			name = DisabledFile
		}
		file := filepath.Join(path, name)
		if files != nil {
			*files = append(*files, file)
		}
		if !w.list {
			w.read(file)
		}
		return nil // a skill folder: its contents belong to it
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		_ = w.dir(filepath.Join(path, name), dirs, files)
	}
	return nil
}

func (w *walker) read(file string) {
	f, err := os.Open(file)
	if err != nil {
		return
	}
	n, err := io.ReadFull(f, w.buf)
	f.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return
	}
	w.res.Skills++
	w.res.Bytes += int64(n)
}
