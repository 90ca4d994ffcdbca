package providers

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// NewEnv builds the environment for a workspace: the workspace folder and
// its ancestors up to the repository root (the nearest folder holding a
// .git entry). Outside a repository only the workspace itself is used, so
// that ccski never collects skills from unrelated parent folders. The
// Claude and Codex folders get their defaults from $CLAUDE_CONFIG_DIR and
// $CODEX_HOME (read through getenv); engine.New then applies the
// providers.claude.home and providers.codex.home options.
func NewEnv(userDir, workspace string, getenv func(string) string) Env {
	if getenv == nil {
		getenv = os.Getenv
	}
	env := Env{UserDir: userDir, Workspace: workspace, WorkspaceDirs: WorkspaceDirs(workspace, userDir), Getenv: getenv}
	return ResolveHomes(env, "", "")
}

// Variables that move the Claude and Codex folders.
const (
	ClaudeHomeVar = "CLAUDE_CONFIG_DIR"
	CodexHomeVar  = "CODEX_HOME"
)

// ResolveHomes returns env with ClaudeHome and CodexHome set. Each is its
// override (the providers.claude.home or providers.codex.home option) when
// that is not empty; else the value env already holds; else
// $CLAUDE_CONFIG_DIR or $CODEX_HOME, read through env.Getenv; else
// <user dir>/.claude or <user dir>/.codex. A relative override or variable
// is resolved against env.Workspace, and a leading "~/" stands for
// env.UserDir.
//
// This is the only place where the two folders are worked out: providers
// read them from Env (through ClaudeDir and CodexDir), never from the
// variables or their own options.
func ResolveHomes(env Env, claudeOverride, codexOverride string) Env {
	env.ClaudeHome = resolveHome(env, claudeOverride, env.ClaudeHome, ClaudeHomeVar, ".claude")
	env.CodexHome = resolveHome(env, codexOverride, env.CodexHome, CodexHomeVar, ".codex")
	return env
}

// ClaudeDir returns ClaudeHome, or, for an Env that was built by hand and
// leaves it empty, the folder ResolveHomes would set.
func (e Env) ClaudeDir() string {
	if e.ClaudeHome != "" {
		return e.ClaudeHome
	}
	return resolveHome(e, "", "", ClaudeHomeVar, ".claude")
}

// CodexDir returns CodexHome, or, for an Env that was built by hand and
// leaves it empty, the folder ResolveHomes would set.
func (e Env) CodexDir() string {
	if e.CodexHome != "" {
		return e.CodexHome
	}
	return resolveHome(e, "", "", CodexHomeVar, ".codex")
}

// resolveHome picks override, else current, else the variable name, else
// <user dir>/<dflt>.
func resolveHome(env Env, override, current, name, dflt string) string {
	if override != "" {
		return env.ResolvePath(override)
	}
	if current != "" {
		return current
	}
	if env.Getenv != nil {
		if v := env.Getenv(name); v != "" {
			return env.ResolvePath(v)
		}
	}
	return filepath.Join(env.UserDir, dflt)
}

// ResolvePath expands a leading "~" to UserDir and resolves a relative
// path against Workspace (it stays relative when Workspace is empty). The
// result is cleaned.
func (e Env) ResolvePath(path string) string {
	if path == "~" || strings.HasPrefix(path, "~/") || strings.HasPrefix(path, `~\`) {
		return filepath.Join(e.UserDir, path[1:])
	}
	path = filepath.FromSlash(path)
	if filepath.IsAbs(path) || e.Workspace == "" {
		return filepath.Clean(path)
	}
	return filepath.Join(e.Workspace, path)
}

// WorkspaceDirs returns ws and its ancestors up to the repository root,
// nearest first. The user folder itself is never included as an ancestor:
// a repository rooted at the home folder would otherwise make every user
// root a workspace root.
func WorkspaceDirs(ws, userDir string) []string {
	// Climbing needs absolute paths: the parent of "." is ".", and a
	// relative user folder never equals an absolute ancestor.
	ws = absClean(ws)
	home := ""
	if userDir != "" {
		home = absClean(userDir)
	}
	dirs := []string{ws}
	for d := ws; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return dirs
		}
		parent := filepath.Dir(d)
		// Never climb to or past the user folder: when the workspace is
		// the user folder itself, its parents are unrelated folders.
		if parent == d || d == home || parent == home {
			return dirs[:1]
		}
		d = parent
		dirs = append(dirs, d)
	}
}

// absClean makes p absolute (when the current folder is known) and clean.
func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// WorkspaceRoots returns a copy of tmpl for each workspace folder, with
// Path set to the folder joined with sub (such as ".claude/skills") and
// Depth to the folder's distance from the workspace, nearest first.
func WorkspaceRoots(env Env, sub string, tmpl pipeline.Root) []pipeline.Root {
	out := make([]pipeline.Root, 0, len(env.WorkspaceDirs))
	for i, d := range env.WorkspaceDirs {
		r := tmpl
		r.Path, r.Depth = filepath.Join(d, sub), i
		out = append(out, r)
	}
	return out
}

// ResolvePrecedence returns env with ClaudePrecedence and CodexPrecedence
// set from the values of providers.claude.precedence and
// providers.codex.precedence ("" keeps the host's order). A value other
// than user or project is an error naming the key.
func ResolvePrecedence(env Env, claude, codex string) (Env, error) {
	var err error
	if env.ClaudePrecedence, err = ClaudeOrder.Precedence(claude); err != nil {
		return env, err
	}
	if env.CodexPrecedence, err = CodexOrder.Precedence(codex); err != nil {
		return env, err
	}
	return env, nil
}

// ClaudeRule returns ClaudePrecedence, or Claude Code's own order for an
// Env that leaves it nil.
func (e Env) ClaudeRule() *pipeline.Precedence {
	if e.ClaudePrecedence != nil {
		return e.ClaudePrecedence
	}
	return ClaudeOrder.Default()
}

// CodexRule returns CodexPrecedence, or Codex's own order for an Env that
// leaves it nil.
func (e Env) CodexRule() *pipeline.Precedence {
	if e.CodexPrecedence != nil {
		return e.CodexPrecedence
	}
	return CodexOrder.Default()
}
