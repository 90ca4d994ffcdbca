package scan

import (
	"slices"

	"github.com/ccski/ccski/internal/problems"
	"github.com/ccski/ccski/internal/safetext"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// cleanRecord replaces the control characters a record's name and plugin
// took from folder, file and plugin names (skillmd replaced those of the
// frontmatter already; see safetext.Control), so that no id, listing or
// MCP catalogue carries them, and returns a warning for each field that
// held some.
func cleanRecord(root pipeline.Root, r *pipeline.Record) []pipeline.Diagnostic {
	var diags []pipeline.Diagnostic
	warn := func(field string, found []rune) {
		diags = append(diags, diag(root, pipeline.SeverityWarning, problems.ControlCharacters, r.File,
			"the %s holds control characters (%s), which a terminal acts on or which reorder text; "+
				"ccski shows each as U+FFFD: rename it", field, safetext.Describe(found)))
	}
	if clean, found := skillmd.CleanName(r.Name); found != nil {
		r.Name = clean
		warn("name, taken from the folder, file or plugin name,", found)
	} else if _, found := skillmd.CleanName(r.Alias); found != nil {
		warn("folder's name", found)
	}
	if clean, found := skillmd.CleanName(r.Alias); found != nil {
		r.Alias = clean
	}
	if p := r.Plugin; p != nil {
		c := *p
		var all []rune
		for _, s := range []*string{&c.Plugin, &c.Marketplace, &c.Version} {
			if clean, found := safetext.Clean(*s); found != nil {
				*s = clean
				for _, r := range found {
					if !slices.Contains(all, r) {
						all = append(all, r)
					}
				}
			}
		}
		if all != nil {
			r.Plugin = &c // the root's PluginInfo is shared: change a copy
			warn("plugin's name, marketplace or version", all)
		}
	}
	return diags
}
