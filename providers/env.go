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
// folders and rules the providers give each other (Homes, Rules, Claimed)
// are left to Prepare.
func NewEnv(userDir, workspace string, getenv func(string) string) Env {
	if getenv == nil {
		getenv = os.Getenv
	}
	return Env{UserDir: userDir, Workspace: workspace, WorkspaceDirs: WorkspaceDirs(workspace, userDir), Getenv: getenv}
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

// AgentRoots returns the two levels of an agent's folder, whose copies of
// one skill the agent's precedence rule ranks (see HostOrder): tmpl at sub
// below each workspace folder (WorkspaceRoots), nearest first, at
// LocationProject and KindWorkspaceAgent, then tmpl at user, at
// LocationUser and KindUserAgent. Every root is optional: most machines
// lack most of them.
func AgentRoots(env Env, sub, user string, tmpl pipeline.Root) []pipeline.Root {
	tmpl.Optional = true
	tmpl.Location, tmpl.Kind = pipeline.LocationProject, pipeline.KindWorkspaceAgent
	roots := WorkspaceRoots(env, sub, tmpl)
	tmpl.Path, tmpl.Depth, tmpl.Location, tmpl.Kind = user, 0, pipeline.LocationUser, pipeline.KindUserAgent
	return append(roots, tmpl)
}
