package safefile

import (
	"path/filepath"
	"testing"
)

func TestWithin(t *testing.T) {
	sep := string(filepath.Separator)
	root := filepath.FromSlash("/skills/pdf")
	for _, tc := range []struct {
		name, root, path string
		want             bool
	}{
		{"the root itself", root, root, true},
		{"the root with a trailing separator", root + sep, root, true},
		{"a file below", root, filepath.Join(root, "references", "a.md"), true},
		{"a name that starts with dots", root, filepath.Join(root, "..notes"), true},
		{"the parent", root, filepath.Dir(root), false},
		{"a sibling sharing the prefix", root, root + "2", false},
		{"dot-dot that climbs out", root, root + sep + ".." + sep + "docx", false},
		{"dot-dot that stays in", root, root + sep + "a" + sep + ".." + sep + "b", true},
		{"relative against absolute", root, "pdf", false},
		{"empty root", "", root, false},
		{"empty path", root, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Within(tc.root, tc.path); got != tc.want {
				t.Errorf("Within(%q, %q) = %v, want %v", tc.root, tc.path, got, tc.want)
			}
		})
	}
}
