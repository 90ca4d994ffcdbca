package action

import (
	"testing"

	"github.com/ccski/ccski/internal/install"
)

// TestPluginExtrasInstall says how to get a plugin from each kind of
// source, as Claude Code 2.1.332 takes it: a marketplace it knows by
// name, a folder by its path (never the marketplace.json), a git URL as
// is, a file:// URL as its path (Claude refuses file://).
func TestPluginExtrasInstall(t *testing.T) {
	const install_ = "`claude plugin install sp@mk`"
	tests := []struct {
		name string
		src  install.Source
		want string
	}{
		{"known marketplace", install.Source{Kind: install.KindMarketplace, Name: "mk"}, install_},
		{"folder", install.Source{Kind: install.KindDir, Dir: "/src/mk"},
			"`claude plugin marketplace add /src/mk` then " + install_},
		{"marketplace file", install.Source{Kind: install.KindDir, Dir: "/src", Path: "mk/.claude-plugin/marketplace.json"},
			"`claude plugin marketplace add /src/mk` then " + install_},
		{"folder with a space", install.Source{Kind: install.KindDir, Dir: "/my src"},
			"`claude plugin marketplace add '/my src'` then " + install_},
		{"git", install.Source{Kind: install.KindGit, URL: "https://github.com/o/r"},
			"`claude plugin marketplace add https://github.com/o/r` then " + install_},
		{"file URL", install.Source{Kind: install.KindGit, URL: "file:///srv/r.git"},
			"`claude plugin marketplace add /srv/r.git` then " + install_},
		{"archive", install.Source{Kind: install.KindArchive, URL: "https://example.org/mk.zip"},
			"`claude plugin marketplace add <folder>` (<folder> is where https://example.org/mk.zip is unpacked) then " + install_},
		{"marketplace in an archive", install.Source{Kind: install.KindArchive, URL: "https://example.org/a.tgz", Path: "mk/.claude-plugin/marketplace.json"},
			"`claude plugin marketplace add <folder>/mk` (<folder> is where https://example.org/a.tgz is unpacked) then " + install_},
		{"index", install.Source{Kind: install.KindIndex, URL: "https://example.org"},
			install_ + " once Claude Code knows marketplace mk: https://example.org serves no marketplace Claude Code can add, " +
				"so add it from its git repository or folder with `claude plugin marketplace add`"},
		{"MCP server", install.Source{Kind: install.KindMCP, URL: "https://example.org/mcp"},
			install_ + " once Claude Code knows marketplace mk: mcp+https://example.org/mcp serves no marketplace Claude Code can add, " +
				"so add it from its git repository or folder with `claude plugin marketplace add`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pluginExtras(tt.src, []install.PluginExtras{{Plugin: "sp", Marketplace: "mk", Hooks: []string{"h"}}})
			if len(got) != 1 || got[0].Install != tt.want {
				t.Errorf("Install = %v, want %s", got, tt.want)
			}
		})
	}
}
