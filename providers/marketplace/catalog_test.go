package marketplace

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// TestKnownMarketplace finds a marketplace by its installLocation in
// known_marketplaces.json, else in marketplaces/<name>, and lists the
// known ones when the name is none of them.
func TestKnownMarketplace(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"plugins/known_marketplaces.json": `{"moved": {"installLocation": "` + filepath.ToSlash(filepath.Join(base, "elsewhere")) + `"},
			"gone": {"installLocation": "/nowhere/at/all"}}`,
		"elsewhere/":                "",
		"plugins/marketplaces/std/": "",
	})
	root := filepath.Join(base, "plugins")
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"moved", filepath.Join(base, "elsewhere"), true},
		{"std", filepath.Join(root, "marketplaces", "std"), true},
		{"gone", "", false},
		{"../std", "", false},
	}
	for _, tt := range tests {
		dir, ok, known := KnownMarketplace(root, tt.name)
		if dir != tt.want || ok != tt.ok {
			t.Errorf("KnownMarketplace(%q) = %q, %v; want %q, %v", tt.name, dir, ok, tt.want, tt.ok)
		}
		if !ok && !cmp.Equal(known, []string{"moved", "std"}) {
			t.Errorf("KnownMarketplace(%q) lists %v, want [moved std]", tt.name, known)
		}
	}
}

// TestReadCatalog reads a marketplace to install from: relative plugins
// with their declared skills, in the file's order, remote ones marked,
// and a malformed file refused.
func TestReadCatalog(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"m/.claude-plugin/marketplace.json": `{"name": "mk", "metadata": {"pluginRoot": "./plugins"}, "plugins": [
			{"name": "z", "source": "z"},
			{"name": "r", "source": {"source": "github", "repo": "o/r"}},
			{"name": "a", "source": "./plugins/a", "skills": ["./one", "../../../outside"], "strict": false},
			{"name": "up", "source": "../secret"}]}`,
		"secret/skills/key/SKILL.md":          "x",
		"m/plugins/z/skills/s1/SKILL.md":      "x",
		"m/plugins/z/skills/s2/SKILL.md":      "x",
		"m/plugins/a/one/SKILL.md":            "x",
		"bad/.claude-plugin/marketplace.json": "{",
	})
	c, err := ReadCatalog(filepath.Join(base, "m/.claude-plugin/marketplace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.Plugins {
		line := p.Name
		if p.Remote {
			line += " remote"
		}
		for _, s := range p.Skills {
			rel, _ := filepath.Rel(filepath.Join(base, "m"), s)
			line += " " + filepath.ToSlash(rel)
		}
		got = append(got, line)
	}
	want := []string{"z plugins/z/skills/s1 plugins/z/skills/s2", "r remote", "a plugins/a/one"}
	if c.Name != "mk" || !cmp.Equal(got, want) {
		t.Errorf("catalog %s: %v, want mk: %v", c.Name, got, want)
	}
	if len(c.Diagnostics) != 2 || !strings.Contains(c.Diagnostics[0].Message, "outside") ||
		!strings.Contains(c.Diagnostics[1].Message, `plugin "up" has source "../secret"`) {
		t.Errorf("diagnostics %v, want the path that leaves the plugin and the plugin that leaves the marketplace", c.Diagnostics)
	}
	if _, err := ReadCatalog(filepath.Join(base, "bad/.claude-plugin/marketplace.json")); err == nil {
		t.Error("a malformed marketplace.json was read")
	}
}
