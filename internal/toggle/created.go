package toggle

// This file remembers the settings files ccski made, so that enable,
// which undoes what disable did, also takes away a file that disable
// made and that holds nothing any more: no `{}` is left behind. A file
// the user had before ccski's first switch is never removed, even when
// enable empties it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/userdirs"
	"github.com/ccski/ccski/providers"
)

// createdFile is the name of the list, in ccski's state folder.
const createdFile = "created-settings.json"

// created is the list of settings files ccski made.
type created struct {
	// path is the list's file, "" when there is no state folder.
	path  string
	files []string
}

// createdList is the on-disk form.
type createdList struct {
	Files []string `json:"files"`
}

// loadCreated reads the list of env's user; a missing or unreadable list
// is empty.
func loadCreated(env providers.Env) *created {
	c := &created{}
	dir, err := userdirs.StateDir(env.UserDir, env.Getenv)
	if err != nil {
		return c
	}
	c.path = filepath.Join(dir, createdFile)
	data, err := os.ReadFile(c.path)
	if err != nil {
		return c
	}
	var l createdList
	if json.Unmarshal(data, &l) == nil {
		c.files = l.Files
	}
	return c
}

// has reports whether ccski made path.
func (c *created) has(path string) bool { return slices.Contains(c.files, path) }

// update adds the files the plan made and drops those it removed, and
// writes the list when it changed.
func (c *created) update(files []*providers.FileState) error {
	if c.path == "" {
		return nil
	}
	out := slices.Clone(c.files)
	for _, f := range files {
		if f.Err != nil {
			continue
		}
		switch {
		case f.Removed:
			out = slices.DeleteFunc(out, func(p string) bool { return p == f.Path })
		case !f.Existed && !slices.Contains(out, f.Path):
			out = append(out, f.Path)
		}
	}
	// A file gone from disk since is forgotten.
	out = slices.DeleteFunc(out, func(p string) bool {
		_, err := os.Lstat(p)
		return errors.Is(err, fs.ErrNotExist)
	})
	slices.Sort(out)
	if slices.Equal(out, c.files) {
		return nil
	}
	data, err := json.MarshalIndent(createdList{Files: out}, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.Write(c.path, append(data, '\n'), safefile.WriteOptions{Perm: 0o600}); err != nil {
		return err
	}
	c.files = out
	return nil
}

// emptyDocument reports whether data holds no setting: a JSON object with
// nothing in it, or a TOML file of blank lines. A comment is something.
func emptyDocument(path string, data []byte) bool {
	t := bytes.TrimSpace(data)
	if filepath.Ext(path) == ".toml" {
		return len(t) == 0
	}
	return len(t) == 0 || bytes.Equal(t, []byte("{}"))
}
