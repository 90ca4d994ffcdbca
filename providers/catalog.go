package providers

import "github.com/ccski/ccski/pipeline"

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
