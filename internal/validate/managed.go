package validate

import (
	"fmt"
	"path/filepath"
	"strings"
)

// ManagedTree is a folder an agent writes and overwrites: --fix never
// changes a file in it, since the change would be lost at the next update
// and would make the installed copy differ from its source.
type ManagedTree struct {
	// Path is the folder, as the agent's home gives it.
	Path string
	// What names the folder in messages ("the Claude Code plugin cache").
	What string
	// Why says what becomes of a local change and where to fix instead.
	Why string
	// real is Path with symlinks resolved.
	real string
}

// ManagedTrees returns the managed folders below the resolved Claude and
// Codex homes (see providers.Env): Claude Code's plugin cache and
// marketplace clones, and the .system folder where Codex writes its
// bundled skills. Folders that do not exist are left out; the others are
// compared by real path, so a skill reached through a symlink into one of
// them is recognised.
func ManagedTrees(claudeHome, codexHome string) []ManagedTree {
	var out []ManagedTree
	add := func(path, what, why string) {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return
		}
		if abs, err := filepath.Abs(real); err == nil {
			real = abs
		}
		out = append(out, ManagedTree{Path: path, What: what, Why: why, real: real})
	}
	if claudeHome != "" {
		add(filepath.Join(claudeHome, "plugins", "cache"), "the Claude Code plugin cache",
			"Claude Code replaces these copies when the plugin is updated or reinstalled: fix the skill in the "+
				"plugin's own repository")
		add(filepath.Join(claudeHome, "plugins", "marketplaces"), "a Claude Code marketplace clone",
			"Claude Code resets the clone when the marketplace is updated: fix the skill in the marketplace's "+
				"repository")
	}
	if codexHome != "" {
		add(filepath.Join(codexHome, "skills", ".system"), "Codex's bundled system skills",
			"Codex writes them afresh from its own copy: report the problem to Codex, or copy the skill into "+
				"your own skills folder under another name and change the copy")
	}
	return out
}

// Managing returns the tree of trees that holds file (a file or a
// folder), with symlinks resolved, or nil when the user owns it.
func Managing(trees []ManagedTree, file string) *ManagedTree { return managedBy(trees, file) }

// managedBy returns the tree of trees that holds file, with symlinks
// resolved, or nil.
func managedBy(trees []ManagedTree, file string) *ManagedTree {
	if len(trees) == 0 {
		return nil
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return nil
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	for i, t := range trees {
		if rel, err := filepath.Rel(t.real, real); err == nil && rel != ".." &&
			!strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return &trees[i]
		}
	}
	return nil
}

// refusal is the message of the managed-tree finding for a file --fix
// left alone.
func (t *ManagedTree) refusal(changes []string) string {
	return fmt.Sprintf("--fix left this file unchanged, though it would have %s: it lies in %s, and %s",
		strings.Join(changes, "; "), t.What, t.Why)
}
