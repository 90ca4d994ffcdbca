package action

import (
	pathpkg "path"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/install"
)

// pluginExtras fills in how to get what the plugins of extras hold
// besides skills, from src: Claude Code's own plugin install, after
// adding the marketplace unless Claude Code already knows it.
func pluginExtras(src install.Source, extras []install.PluginExtras) []install.PluginExtras {
	out := make([]install.PluginExtras, 0, len(extras))
	for _, e := range extras {
		if e.Marketplace == "" && e.Install != "" {
			out = append(out, e) // an Agent Plugins package: it says what installs it
			continue
		}
		get := "`claude plugin install " + e.Plugin + "@" + e.Marketplace + "`"
		switch {
		case src.Kind == install.KindArchive:
			// The folder ccski unpacked it into is gone after the run.
			from := strings.TrimSuffix(pathpkg.Join("<folder>", marketplaceFolder("", src.Path)), "/.")
			get = "`claude plugin marketplace add " + from + "` (<folder> is where " + src.URL + " is unpacked) then " + get
		case src.Kind.Remote():
			// An index or an MCP server serves skills, not a folder
			// Claude Code could add.
			get += " once Claude Code knows marketplace " + e.Marketplace + ": " + src.String() + " serves no marketplace " +
				"Claude Code can add, so add it from its git repository or folder with `claude plugin marketplace add`"
		case src.Kind != install.KindMarketplace:
			// Claude Code 2.1.332 adds a folder by its path (absolute
			// or ./path), and refuses a file:// URL.
			from := src.URL
			if src.Kind != install.KindGit {
				from = marketplaceFolder(src.Dir, src.Path)
			} else if local, ok := strings.CutPrefix(from, "file://"); ok {
				from = local
			}
			get = "`claude plugin marketplace add " + shellWord(from) + "` then " + get
		}
		e.Install = get
		out = append(out, e)
	}
	return out
}

// marketplaceFolder is the folder of the marketplace at path (a folder,
// or its .claude-plugin/marketplace.json) in the folder dir.
func marketplaceFolder(dir, path string) string {
	if strings.HasSuffix(path, "marketplace.json") {
		path = pathpkg.Dir(pathpkg.Dir(path))
	}
	return filepath.Join(dir, filepath.FromSlash(path))
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
