// Package machine materialises the synthetic machine of
// integration/testdata/machine for tests: it copies the tree into a
// temporary folder, fills in its absolute path where Claude's bookkeeping
// files need one, creates what git cannot hold (the workspace's .git
// folder and the symlinks) and fixes every file's modification time, so
// that priority tie-breaks are deterministic.
//
// Both the golden tests of cmd/ccski and the tests of package integration
// use it, so that they describe one and the same machine.
package machine

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Placeholder is written in the JSON files of the tree where Claude stores
// absolute paths; Copy replaces it with the copy's root.
const Placeholder = "{{MACHINE}}"

// BaseTime is the modification time of every file of the copy, except
// those listed in Newer.
var BaseTime = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Newer lists files (relative to the root) that get a later modification
// time than BaseTime, so that they win a tie between copies of equal
// priority by "newer file".
var Newer = map[string]time.Duration{
	"home/.gemini/skills/review/SKILL.md": time.Hour,
}

// Machine is one materialised copy of the synthetic machine.
type Machine struct {
	// Root is the copy's root with symlinks resolved.
	Root string
	// Home is the user folder: use it as HOME and --user-dir.
	Home string
	// Workspace is the repository root: use it as the current folder.
	Workspace string
	// DocsDir is the folder for --skill-dir, without its ?scope= suffix.
	DocsDir string
	// PluginsV1 is the installed_plugins.json in the v1 shape, for
	// --claude-plugins-file; the default file is in the v2 shape.
	PluginsV1 string
	// TypoConfig is a config file with a misspelt key.
	TypoConfig string
}

// SkillDirFlag is the --skill-dir value of the custom folder.
func (m *Machine) SkillDirFlag() string { return m.DocsDir + "?scope=docs" }

// Symlinks created by Copy, as link (relative to the root) and target. A
// target starting with "/" is taken relative to the root and made
// absolute; any other target is written as is (relative to the link).
var Symlinks = []struct{ Link, Target string }{
	// A skill folder reached through a symlink from outside every root.
	{"home/.agents/skills/linked", "/linked-src/linked-skill"},
	// A loop: back leads to a folder the walk has already entered.
	{"home/.agents/skills/loop/back", ".."},
	// A symlink to itself, which cannot be followed at all.
	{"home/.codex/skills/cycle", "cycle"},
	// A second path to one skill folder: path dedupe with --all.
	{"work/repo/skills/team-notes-link", "../.agents/skills/team-notes"},
}

// Copy materialises the tree at src into dst, which must be an empty or
// missing folder, and returns the copy.
func Copy(src, dst string) (*Machine, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(dst)
	if err != nil {
		return nil, err
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("machine: %s: only folders and regular files belong in the tree", path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".json") {
			data = []byte(strings.ReplaceAll(string(data), Placeholder, filepath.ToSlash(root)))
		}
		mode := fs.FileMode(0o644)
		if strings.HasSuffix(path, ".sh") {
			mode = 0o755
		}
		return os.WriteFile(target, data, mode)
	})
	if err != nil {
		return nil, fmt.Errorf("machine: copy: %w", err)
	}
	m := &Machine{
		Root:       root,
		Home:       filepath.Join(root, "home"),
		Workspace:  filepath.Join(root, "work", "repo"),
		DocsDir:    filepath.Join(root, "extra", "docs"),
		PluginsV1:  filepath.Join(root, "home", ".claude", "plugins", "installed_plugins_v1.json"),
		TypoConfig: filepath.Join(root, "configs", "typo.yaml"),
	}
	// git keeps neither an empty folder nor one named .git.
	if err := os.MkdirAll(filepath.Join(m.Workspace, ".git"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(m.Workspace, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		return nil, err
	}
	for _, s := range Symlinks {
		link := filepath.Join(root, filepath.FromSlash(s.Link))
		target := filepath.FromSlash(s.Target)
		if strings.HasPrefix(s.Target, "/") {
			target = filepath.Join(root, target)
		}
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			return nil, err
		}
		if err := os.Symlink(target, link); err != nil {
			return nil, fmt.Errorf("machine: symlink: %w", err)
		}
	}
	if err := fixTimes(root); err != nil {
		return nil, fmt.Errorf("machine: times: %w", err)
	}
	return m, nil
}

// fixTimes sets every regular file and folder to BaseTime, and the files
// of Newer later.
func fixTimes(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		t := BaseTime.Add(Newer[filepath.ToSlash(rel)])
		return os.Chtimes(path, t, t)
	})
}

// Replace returns s with every occurrence of the copy's root replaced by
// "$MACHINE", so that output can be compared across runs.
func (m *Machine) Replace(s string) string {
	return strings.ReplaceAll(s, m.Root, "$MACHINE")
}
