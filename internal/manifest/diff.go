package manifest

import (
	"slices"
	"strings"
)

// Changes is how the files of a skill differ from a recorded state, by
// path: what a trust check and an install compare.
type Changes struct {
	Added   []string `json:"added,omitempty"`
	Changed []string `json:"changed,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// Diff compares the recorded files old with the current ones cur (each
// sorted by path, as a Manifest lists them, or sorted here). A path is
// changed when its size, digest or link differ: a file that became a
// link, or a link with a new target, is a change like an edit.
func Diff(old, cur []File) Changes {
	old, cur = sorted(old), sorted(cur)
	var c Changes
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || i < len(old) && old[i].Path < cur[j].Path:
			c.Removed = append(c.Removed, old[i].Path)
			i++
		case i == len(old) || cur[j].Path < old[i].Path:
			c.Added = append(c.Added, cur[j].Path)
			j++
		default:
			if old[i] != cur[j] {
				c.Changed = append(c.Changed, cur[j].Path)
			}
			i++
			j++
		}
	}
	return c
}

// sorted returns files sorted by path: files itself when it is.
func sorted(files []File) []File {
	byPath := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	if slices.IsSortedFunc(files, byPath) {
		return files
	}
	return slices.SortedFunc(slices.Values(files), byPath)
}

// Empty reports whether nothing changed.
func (c *Changes) Empty() bool {
	return c == nil || len(c.Added)+len(c.Changed)+len(c.Removed) == 0
}

// String lists the changes in one line: +added ~changed -removed.
func (c *Changes) String() string {
	var parts []string
	for _, p := range []struct {
		sign  string
		paths []string
	}{{"+", c.Added}, {"~", c.Changed}, {"-", c.Removed}} {
		for _, f := range p.paths {
			parts = append(parts, p.sign+f)
		}
	}
	return strings.Join(parts, " ")
}
