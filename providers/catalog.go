package providers

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// Catalog is a marketplace read to install from (ccski install): a Claude
// marketplace.json (package marketplace) or a Codex marketplace file
// (package codexplugins), each read as the host reads it.
type Catalog struct {
	// Name is the marketplace's "name"; File its marketplace file; Dir the
	// marketplace root, which relative plugin sources are resolved in.
	Name, File, Dir string
	// Plugins are in the file's order.
	Plugins []CatalogPlugin
	// Diagnostics are the problems found in the marketplace's files.
	Diagnostics []pipeline.Diagnostic
}

// CatalogPlugin is one plugin a marketplace lists.
type CatalogPlugin struct {
	// Name is the plugin's name in the marketplace file.
	Name string
	// Dir is the plugin's folder in the marketplace; "" when Remote.
	Dir string
	// Skills are the plugin's skill folders, each once.
	Skills []string
	// Remote is true when the plugin's source is not a path in the
	// marketplace (a github, url, git-subdir, npm ... object): its files
	// are elsewhere, and it has no Skills here.
	Remote bool
}

// OpenCatalog begins the catalog of the marketplace file file, for a
// reader to fill: File is file, cleaned; Dir is the marketplace root, the
// folder that holds the manifest folder file is in when that is one of
// manifestDirs ('/'-separated: ".claude-plugin", ".agents/plugins"), else
// file's own folder; Name is Dir's base name, for the reader to replace
// with the name the file gives. A file that is missing or no regular file
// is an error naming it.
func OpenCatalog(file string, manifestDirs ...string) (Catalog, error) {
	file = filepath.Clean(file)
	dir := filepath.Dir(file)
	for _, m := range manifestDirs {
		if root, ok := above(dir, m); ok {
			dir = root
			break
		}
	}
	st, err := os.Stat(file)
	switch {
	case err != nil:
		return Catalog{}, fmt.Errorf("marketplace %s: %w", file, err)
	case !st.Mode().IsRegular():
		return Catalog{}, fmt.Errorf("marketplace %s: not a regular file", file)
	}
	return Catalog{Name: filepath.Base(dir), File: file, Dir: dir}, nil
}

// above returns the folder that holds sub ('/'-separated) when dir ends
// with it.
func above(dir, sub string) (string, bool) {
	for _, part := range slices.Backward(strings.Split(sub, "/")) {
		if filepath.Base(dir) != part {
			return "", false
		}
		dir = filepath.Dir(dir)
	}
	return dir, true
}
