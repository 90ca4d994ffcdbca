// Package userdirs is the one place that knows where ccski keeps its own
// files, outside every project:
//
//   - The user config folder, $XDG_CONFIG_HOME/ccski when that variable is
//     an absolute path, else ~/.config/ccski, on every system (as the
//     README states): config.yaml, ccski.lock of user-scope installs,
//     trust.json and profiles/.
//   - The user state folder, $XDG_STATE_HOME/ccski when that variable is
//     an absolute path, else ~/.local/state/ccski, on every system: what
//     belongs to this machine and must outlive a run, and is never synced
//     or committed: the journals of installs in progress (journal/), the
//     Sigstore trusted root `ccski trust-root update` fetched
//     (trusted_root.json) and the TUF metadata it was checked with (tuf/).
//   - The user cache folder, ccski in the system's cache folder
//     (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
//     ~/Library/Caches on macOS, %LocalAppData% on Windows): what ccski can
//     always compute again, such as digests, integrity results, the
//     scanner's memory, git checkouts and the copies of upstream MCP
//     servers' skills (remote/, providers/remote).
//
// ccski keeps no other files of its own. Every package that reads or
// writes one of them asks this package for the path, and says
// ErrNoConfig (ErrNoState) when the config (state) folder is not known.
package userdirs

import (
	"errors"
	"os"
	"path/filepath"
)

// name is the folder ccski's files are kept in, in each user folder.
const name = "ccski"

// ErrNoConfig is the error for a file of the user config folder when
// that folder is not known: no absolute $XDG_CONFIG_HOME and no home
// folder.
var ErrNoConfig = errors.New("ccski's user config folder is not known: set HOME or XDG_CONFIG_HOME")

// ErrNoState is the error for a file of the user state folder when that
// folder is not known: no absolute $XDG_STATE_HOME and no home folder.
var ErrNoState = errors.New("ccski's user state folder is not known: set HOME or XDG_STATE_HOME")

// ConfigDir returns ccski's user config folder: $XDG_CONFIG_HOME/ccski
// when getenv gives that variable as an absolute path (a relative one is
// ignored, as the XDG specification says), else <home>/.config/ccski. It
// returns ErrNoConfig when home is "" too. A nil getenv reads the
// process environment.
func ConfigDir(home string, getenv func(string) string) (string, error) {
	return xdgDir("XDG_CONFIG_HOME", home, ".config", getenv, ErrNoConfig)
}

// StateDir returns ccski's user state folder: $XDG_STATE_HOME/ccski when
// getenv gives that variable as an absolute path, else
// <home>/.local/state/ccski, as ConfigDir does for the config folder. It
// returns ErrNoState when home is "" too.
func StateDir(home string, getenv func(string) string) (string, error) {
	return xdgDir("XDG_STATE_HOME", home, filepath.Join(".local", "state"), getenv, ErrNoState)
}

// xdgDir is ccski's folder in the XDG base folder the variable names,
// when getenv gives it as an absolute path, else in home's fallback; with
// neither, it returns unknown.
func xdgDir(variable, home, fallback string, getenv func(string) string, unknown error) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if x := getenv(variable); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, name), nil
	}
	if home == "" {
		return "", unknown
	}
	return filepath.Join(home, fallback, name), nil
}

// Config returns the path of file in ccski's user config folder of the
// process: ConfigDir of the user's home folder (os.UserHomeDir) and the
// process environment. It returns ErrNoConfig when that folder is not
// known.
func Config(file string) (string, error) {
	home, _ := os.UserHomeDir()
	dir, err := ConfigDir(home, nil)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, file), nil
}

// State returns the path of file in ccski's user state folder of the
// process: StateDir of the user's home folder (os.UserHomeDir) and the
// process environment. It returns ErrNoState when that folder is not
// known.
func State(file string) (string, error) {
	home, _ := os.UserHomeDir()
	dir, err := StateDir(home, nil)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, file), nil
}

// CacheDir returns ccski's user cache folder: ccski in the system's cache
// folder (os.UserCacheDir), else <home>/.cache/ccski when the system names
// none (on Linux: no absolute $XDG_CACHE_HOME and no $HOME) and home is
// given, else "". What is kept there can be computed again, so a caller
// without the folder does without the cache.
func CacheDir(home string) string {
	if dir, err := os.UserCacheDir(); err == nil && dir != "" {
		return filepath.Join(dir, name)
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".cache", name)
}

// Cache returns the path of file in ccski's user cache folder of the
// process (CacheDir with no fallback home), or "" when there is none.
func Cache(file string) string {
	dir := CacheDir("")
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, file)
}
