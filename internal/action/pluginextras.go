package action

import (
	"strings"

	"github.com/ccski/ccski/internal/install"
)

// pluginExtras fills in how to get what the plugins of extras hold
// besides skills, from src: Claude Code's own plugin install, after
// adding the marketplace unless Claude Code already knows it.
func pluginExtras(src install.Source, extras []install.PluginExtras) []install.PluginExtras {
	out := make([]install.PluginExtras, 0, len(extras))
	for _, e := range extras {
		get := "`claude plugin install " + e.Plugin + "@" + e.Marketplace + "`"
		if src.Kind != install.KindMarketplace {
			from := src.URL
			if src.Kind != install.KindGit {
				from = src.Dir
			}
			get = "`claude plugin marketplace add " + shellWord(from) + "` then " + get
		}
		e.Install = get
		out = append(out, e)
	}
	return out
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
