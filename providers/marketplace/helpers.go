package marketplace

import (
	"path/filepath"
	"strings"
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

// within reports whether path is bound or lies below it, lexically.
func within(bound, path string) bool {
	rel, err := filepath.Rel(bound, path)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
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
