package claude

// This file git-ignores a .claude/settings.local.json that ccski made, the
// way Claude Code 2.1 does when it makes that file: the rule
// "**/.claude/settings.local.json" goes into the user's global git ignore
// file (never the repository's .gitignore), unless git already ignores the
// file.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
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
//
// The ignore file is the user's, not ccski's: its folder is locked while
// it is read and written, every byte of it is kept, and the rule is
// written only if the file is still as read. A symbolic link to it is
// followed while it stays in the folder the file belongs to (the home
// folder for a file there, as a dotfiles link is; see Env.WriteRoot);
// one that leads elsewhere is left alone, with a note saying so.
func ignoreLocalSettings(env providers.Env, path string) (string, error) {
	if filepath.Base(path) != filepath.Base(localSettingsRel) || filepath.Base(filepath.Dir(path)) != ".claude" {
		return "", nil
	}
	project := filepath.Dir(filepath.Dir(path))
	if gitIgnores(env, project, localSettingsRel) {
		return "", nil
	}
	file := GlobalIgnoreFile(env, project)
	if err := safefile.CheckLinks(env.WriteRoot(file), file); err != nil {
		var le *safefile.LinkError
		if errors.As(err, &le) {
			return fmt.Sprintf("%s not git-ignored (the rule is %q): %v", path, IgnoreRule, le), nil
		}
		return "", fmt.Errorf("cannot git-ignore %s in %s: %w", path, file, err)
	}
	real, err := safefile.Resolve(file)
	if err != nil {
		return "", fmt.Errorf("cannot git-ignore %s in %s: %w", path, file, err)
	}
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		return "", fmt.Errorf("cannot git-ignore %s in %s: %w", path, file, err)
	}
	release, err := safefile.LockDirs([]string{filepath.Dir(real)}, nil)
	if err != nil {
		return "", fmt.Errorf("cannot git-ignore %s in %s: %w", path, file, err)
	}
	defer release()
	before, err := os.ReadFile(file)
	var data []byte
	switch {
	case err == nil:
		for _, line := range strings.Split(string(before), "\n") {
			if strings.TrimSpace(line) == IgnoreRule {
				return "", nil
			}
		}
		// Claude Code appends the rule on a line of its own after a blank
		// line's worth of newline.
		data = append(bytes.Clone(before), "\n"+IgnoreRule+"\n"...)
	case errors.Is(err, fs.ErrNotExist):
		before, data = nil, []byte(IgnoreRule+"\n")
	default:
		return "", fmt.Errorf("cannot git-ignore %s: %w", path, safefile.Cause(err))
	}
	unchanged := func() error {
		now, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			now, err = nil, nil
		}
		if err != nil {
			return err
		}
		if !bytes.Equal(now, before) {
			return fmt.Errorf("%s changed while ccski was adding to it; nothing was written: run again", file)
		}
		return nil
	}
	if err := safefile.Write(file, data, safefile.WriteOptions{Perm: 0o644, Check: unchanged, Root: env.WriteRoot(file)}); err != nil {
		return "", fmt.Errorf("cannot git-ignore %s in %s: %w", path, file, safefile.Cause(err))
	}
	return fmt.Sprintf("git-ignored with %q in %s, as Claude Code does", IgnoreRule, file), nil
}

// gitEnv is the environment git runs with for env: the user's folders
// and git's global configuration as env has them (not this process's, so
// that a fake home stays the one git reads), and no system configuration.
func gitEnv(env providers.Env) []string {
	out := []string{"HOME=" + env.UserDir, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	if env.Getenv != nil {
		for _, k := range []string{"XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"} {
			if v := env.Getenv(k); v != "" {
				out = append(out, k+"="+v)
			}
		}
	}
	return out
}

// gitIgnores reports whether git, run in dir, ignores rel. Without git,
// or outside a repository, nothing is ignored. The repository may be
// anyone's: git check-ignore reads its index, which runs the command of
// its core.fsmonitor setting, so that setting is turned off (check-ignore
// runs no hooks, pager or other command of the repository's).
func gitIgnores(env providers.Env, dir, rel string) bool {
	cmd := exec.Command("git", "-c", "core.fsmonitor=false", "check-ignore", "-q", "--", rel)
	cmd.Dir, cmd.Env = dir, gitEnv(env)
	return cmd.Run() == nil
}

// GlobalIgnoreFile is the user's global git ignore file, found as Claude
// Code finds it: git's core.excludesFile (global configuration only, a
// leading "~/" being the user folder), else $XDG_CONFIG_HOME/git/ignore,
// else ~/.config/git/ignore. git reads the configuration of env's user
// (gitEnv).
func GlobalIgnoreFile(env providers.Env, dir string) string {
	cmd := exec.Command("git", "--git-dir=/dev/null", "config", "--no-includes", "core.excludesfile")
	cmd.Dir, cmd.Env = dir, gitEnv(env)
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
