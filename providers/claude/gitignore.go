package claude

// This file git-ignores a .claude/settings.local.json that ccski made, the
// way Claude Code 2.1 does when it makes that file: the rule
// "**/.claude/settings.local.json" goes into the user's global git ignore
// file (never the repository's .gitignore), unless git already ignores the
// file.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/providers"
)

// localSettingsRel is settings.local.json below a project folder.
const localSettingsRel = ".claude/settings.local.json"

// IgnoreRule is the line Claude Code adds to the global git ignore file.
const IgnoreRule = "**/" + localSettingsRel

// ignoreLocalSettings is Claude Code's Host.Created: path, a
// settings.local.json ccski just made, is git-ignored as Claude Code
// ignores the one it makes. Any other file is left alone.
func ignoreLocalSettings(env providers.Env, path string) (string, error) {
	if filepath.Base(path) != filepath.Base(localSettingsRel) || filepath.Base(filepath.Dir(path)) != ".claude" {
		return "", nil
	}
	project := filepath.Dir(filepath.Dir(path))
	if gitIgnores(project, localSettingsRel) {
		return "", nil
	}
	file := GlobalIgnoreFile(env, project)
	data, err := os.ReadFile(file)
	switch {
	case err == nil:
		for _, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) == IgnoreRule {
				return "", nil
			}
		}
		// Claude Code appends the rule on a line of its own after a blank
		// line's worth of newline.
		data = append(bytes.Clone(data), "\n"+IgnoreRule+"\n"...)
	case os.IsNotExist(err):
		data = []byte(IgnoreRule + "\n")
	default:
		return "", fmt.Errorf("cannot git-ignore %s: %w", path, safefile.Cause(err))
	}
	if err := safefile.Write(file, data, safefile.WriteOptions{Perm: 0o644}); err != nil {
		return "", fmt.Errorf("cannot git-ignore %s in %s: %w", path, file, safefile.Cause(err))
	}
	return fmt.Sprintf("git-ignored with %q in %s, as Claude Code does", IgnoreRule, file), nil
}

// gitIgnores reports whether git, run in dir, ignores rel. Without git,
// or outside a repository, nothing is ignored.
func gitIgnores(dir, rel string) bool {
	cmd := exec.Command("git", "check-ignore", "-q", "--", rel)
	cmd.Dir = dir
	return cmd.Run() == nil
}

// GlobalIgnoreFile is the user's global git ignore file, found as Claude
// Code finds it: git's core.excludesFile (global configuration only, a
// leading "~/" being the user folder), else $XDG_CONFIG_HOME/git/ignore,
// else ~/.config/git/ignore.
func GlobalIgnoreFile(env providers.Env, dir string) string {
	cmd := exec.Command("git", "--git-dir=/dev/null", "config", "--no-includes", "core.excludesfile")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.Output(); err == nil {
		v := strings.TrimSpace(string(out))
		switch {
		case v == "~" || strings.HasPrefix(v, "~/"):
			return filepath.Join(env.UserDir, strings.TrimPrefix(v, "~"))
		case filepath.IsAbs(v):
			return v
		}
	}
	if env.Getenv != nil {
		if x := env.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
			return filepath.Join(x, "git", "ignore")
		}
	}
	return filepath.Join(env.UserDir, ".config", "git", "ignore")
}
