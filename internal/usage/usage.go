// Package usage keeps the count of skill loads on this machine: how many
// times `ccski mcp` served each skill through its skill tool. The MCP
// catalogue gives descriptions first to the skills loaded most (after the
// project's own), so the count decides which descriptions an agent sees
// when not every one fits.
//
// The count is private and local: one file in ccski's state folder
// (internal/userdirs), never sent anywhere, holding a skill id and a
// number per skill, nothing of any skill's content. Deleting the file
// clears it. Concurrent servers share it safely: each increment locks a
// file beside it, reads it again and replaces it atomically (where the
// system has no file locks, an increment made at the same instant as
// another's may be lost, never the file).
package usage

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/userdirs"
)

// FileName is the name of the count's file in ccski's state folder.
const FileName = "usage.json"

// version is the format of the file this package reads and writes.
const version = 1

// Limits: the file is read up to maxBytes, and keeps the maxSkills most
// loaded skills (the others are dropped at the next increment).
const (
	maxBytes  = 4 << 20
	maxSkills = 5000
	// maxKey is the longest skill id counted; a longer one is not.
	maxKey = 1024
)

// Path is the count's file for the user whose home folder is home, with
// getenv reading the environment (os.Getenv when nil):
// $XDG_STATE_HOME/ccski/usage.json, else ~/.local/state/ccski/usage.json.
func Path(home string, getenv func(string) string) (string, error) {
	dir, err := userdirs.StateDir(home, getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, FileName), nil
}

// document is the file's JSON form.
type document struct {
	Version int            `json:"version"`
	Loads   map[string]int `json:"loads"`
}

// Read returns the count of loads by skill id in the file at path; a
// missing file is an empty count. A file that cannot be parsed is an
// error naming it, with what to do.
func Read(path string) (map[string]int, error) {
	counts, _, err := read(path)
	return counts, err
}

func read(path string) (map[string]int, []byte, error) {
	data, err := safefile.Read(path, maxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]int{}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("skill usage count %s: %w", path, err)
	}
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil || doc.Version != version {
		if err == nil {
			err = fmt.Errorf("format version %d, this ccski reads version %d", doc.Version, version)
		}
		return nil, nil, fmt.Errorf("skill usage count %s: %w; delete the file to start the count again", path, err)
	}
	if doc.Loads == nil {
		doc.Loads = map[string]int{}
	}
	return doc.Loads, data, nil
}

// Add counts one load of the skill id in the file at path, making the
// file (mode 0600) and its folder when missing. Concurrent servers are
// serialised and checked by safefile.Update, so no load is lost.
func Add(path, id string) error {
	if id == "" || len(id) > maxKey {
		return nil
	}
	err := safefile.Update(path, 0o600, func() ([]byte, []byte, error) {
		counts, before, err := read(path)
		if err != nil {
			return nil, nil, err
		}
		counts[id]++
		trim(counts)
		data, err := json.MarshalIndent(document{Version: version, Loads: counts}, "", "  ")
		if err != nil {
			return nil, nil, fmt.Errorf("skill usage count %s: %w", path, err)
		}
		return before, append(data, '\n'), nil
	})
	return safefile.WrapUpdate("skill usage count "+path, err)
}

// trim keeps the maxSkills most loaded skills of counts (ties: the
// smaller id).
func trim(counts map[string]int) {
	if len(counts) <= maxSkills {
		return
	}
	ids := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
	})
	for _, id := range ids[maxSkills:] {
		delete(counts, id)
	}
}
