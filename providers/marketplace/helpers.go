package marketplace

import (
	"path/filepath"
)

// This file holds small path helpers.

// resolve returns path cleaned, joined to base when relative.
func resolve(base, path string) string {
	path = filepath.FromSlash(path)
	if filepath.IsAbs(path) || base == "" {
		return filepath.Clean(path)
	}
	return filepath.Join(base, path)
}

func entryVersion(e *marketEntry) string {
	if e == nil {
		return ""
	}
	return e.version
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
