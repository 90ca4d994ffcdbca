package safefile

import "path/filepath"

// Within reports whether path is root or lies below it, comparing the two
// lexically after cleaning them: no symlink is resolved, so a caller that
// must not be led out by a link resolves both first. An empty root or path
// is within nothing.
func Within(root, path string) bool {
	if root == "" || path == "" {
		return false
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}
