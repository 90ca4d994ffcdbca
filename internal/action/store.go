package action

import (
	"path/filepath"

	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/search"
	"github.com/ccski/ccski/internal/trust"
	skillusage "github.com/ccski/ccski/internal/usage"
	"github.com/ccski/ccski/internal/userdirs"
)

// This file is where the actions keep ccski's own files: the trust store
// and the profiles in ccski's user config folder, the user scope's lock,
// the git cache, and the count of skill loads in ccski's user state folder.

// UserConfigDir is ccski's user config folder ($XDG_CONFIG_HOME/ccski,
// else ~/.config/ccski), or "" when it is not known (no home folder).
func (p Process) UserConfigDir() string {
	dir, _ := userdirs.ConfigDir(p.Home, p.Getenv)
	return dir
}

// TrustFile is the trust store: trust.json in ccski's user config folder,
// or "" when that folder is not known.
func (p Process) TrustFile() string {
	dir := p.UserConfigDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, trust.FileName)
}

// UsageFile is the count of skill loads that `ccski mcp` keeps
// (usage.json in ccski's user state folder), or "" when that folder is
// not known.
func (p Process) UsageFile() string {
	path, _ := skillusage.Path(p.Home, p.Getenv)
	return path
}

// SearchIndexFile is the body index of content searches, shared by ccski
// search --content and ccski mcp (search.bin in ccski's user cache
// folder), or "" when there is none.
func (p Process) SearchIndexFile() string { return search.CachePath() }

// SkillDigestsFile is the digest cache of ccski mcp's skills/list
// (skills.bin in ccski's user cache folder: each listed file's stat and
// SHA-256, and the skill folders' listings), or "" when there is none.
func (p Process) SkillDigestsFile() string { return userdirs.Cache(skillDigestsName) }

// skillDigestsName is the file name of SkillDigestsFile.
const skillDigestsName = "skills.bin"

// ProfileDir is the folder of the saved profiles: ccski's user config
// folder (toggle keeps them in its profiles sub-folder).
func (p Process) ProfileDir() string { return p.UserConfigDir() }

// gitCache is the cache of bare repositories install fetches into: git in
// ccski's cache folder, found from userDir when the system names none.
func gitCache(userDir string) string {
	dir := userdirs.CacheDir(userDir)
	if dir == "" {
		return "" // no folder at all: install fetches without a cache
	}
	return filepath.Join(dir, "git")
}

// lockFile is the lock in dir.
func lockFile(dir string) string { return filepath.Join(dir, install.LockName) }
