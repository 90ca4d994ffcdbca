package marketplace

import (
	"os"
	"slices"
)

// placeholderVersion is the version Claude Code records for a plugin it
// could not install.
const placeholderVersion = "unknown"

// dropPlaceholders removes from installs, and from keys, the records that
// are not installs: a Claude Code session writes one for each plugin the
// settings enable but nobody installed, with version "unknown" and an
// install folder that does not exist (Claude Code 2.1.332; docs/hosts.md).
// Such a plugin is enabled but not installed, and reported so
// (notInstalled), not as an install whose folder went missing. It
// returns the keys left.
func dropPlaceholders(installs map[string][]install, keys []string) []string {
	for key, ins := range installs {
		ins = slices.DeleteFunc(ins, func(in install) bool {
			if in.version != placeholderVersion {
				return false
			}
			_, err := os.Stat(in.path)
			return os.IsNotExist(err)
		})
		if len(ins) == 0 {
			delete(installs, key)
			continue
		}
		installs[key] = ins
	}
	return slices.DeleteFunc(keys, func(k string) bool { _, ok := installs[k]; return !ok })
}
