package marketplace

// The names of a disabled plugin's skills and commands. A disabled plugin
// gives no roots, so nothing of it is scanned; but a user who asks for one
// of its skills by its bare name ("claude-api") should hear that the plugin
// is disabled, not get unrelated suggestions. Its names are therefore
// worked out here from the same manifests and folder listings an enabled
// plugin's roots come from, without opening a SKILL.md or a command file,
// and carried in pipeline.DisabledPlugin for pipeline.Snapshot.Lookup.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// maxCommandDepth bounds how many folder levels below a command folder
// memberNames lists; the scanner's own bound (limits.max_depth) only
// applies to roots it walks.
const maxCommandDepth = 3

// memberNames returns the names of the skills and commands the active
// install of a disabled plugin would give if it were enabled, sorted and
// without duplicates. Skill names are folder names, except that a plugin
// whose own folder is its one skill has the plugin's name (its folder is
// often a version); command names are file names without ".md", joined
// with ":" below sub-folders, as the scanner names them. Problems found on
// the way are not reported: the plugin is not loaded, so its manifests'
// problems are not the user's concern until they enable it.
func (p *planner) memberNames(in install) (skills, commands []string) {
	mark := len(p.diags)
	defer func() { p.diags = p.diags[:mark] }()
	l, ok := p.resolvePlugin(in)
	if !ok {
		return nil, nil
	}
	return p.namesOf(in, l)
}

// namesOf returns the names of the skills and commands of layout l of
// install in, as memberNames does.
func (p *planner) namesOf(in install, l layout) (skills, commands []string) {
	for _, d := range l.skills.dirs {
		name := filepath.Base(d)
		if samePath(d, l.dir) {
			name = in.plugin
		}
		skills = append(skills, name)
	}
	for _, w := range l.skills.walk {
		children, _ := p.skillChildren(in, w)
		for _, c := range children {
			skills = append(skills, filepath.Base(c))
		}
	}
	if p.commands {
		for _, path := range p.commandPaths(in, l.cmds) {
			commands = append(commands, commandNames(path, "", 0)...)
		}
	}
	slices.Sort(skills)
	slices.Sort(commands)
	return slices.Compact(skills), slices.Compact(commands)
}

// commandNames lists the command names under path: the path's own name
// when it is a .md file, else the .md files in the folder and, down to
// maxCommandDepth levels, in its sub-folders, each name prefixed with the
// sub-folder path ("frontend:review"). Hidden entries and node_modules are
// skipped, as the scanner skips them; unreadable folders give no names.
func commandNames(path, prefix string, depth int) []string {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		if isCommandName(filepath.Base(path)) {
			return []string{prefix + strings.TrimSuffix(filepath.Base(path), ".md")}
		}
		return nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		child := filepath.Join(path, name)
		st, err := os.Stat(child) // follows a symlink, as the scanner does
		switch {
		case err != nil:
		case st.Mode().IsRegular() && isCommandName(name):
			out = append(out, prefix+strings.TrimSuffix(name, ".md"))
		case st.IsDir() && depth < maxCommandDepth:
			out = append(out, commandNames(child, prefix+name+":", depth+1)...)
		}
	}
	return out
}

// isCommandName reports whether a file name is a command's, as the
// scanner decides: *.md with a name before the extension, not SKILL.md.
func isCommandName(name string) bool {
	return strings.HasSuffix(name, ".md") && len(name) > len(".md") && name != pipeline.SkillFile
}

// refuse records an enabled plugin whose manifest Claude Code refuses: it
// gives no roots, as Claude Code loads none of its skills, and is listed
// among the plugins that load nothing (pipeline.DisabledPlugin.Refused)
// with the names its skills would have, and reported as a warning naming
// the manifest and what is wrong in it.
func (p *planner) refuse(in install, l layout) {
	mark := len(p.diags)
	skills, commands := p.namesOf(in, l)
	p.diags = p.diags[:mark]
	why := fmt.Sprintf("Claude Code refuses its manifest %s (%s), so it loads none of its skills; "+
		"fix the manifest where the plugin comes from and update it", l.manifest, strings.Join(l.refused, "; "))
	p.report(pipeline.SeverityWarning, providers.CodeManifestRejected, l.manifest, "plugin %s is enabled, but %s",
		in.key, why)
	p.disabled = append(p.disabled, pipeline.DisabledPlugin{Provider: providerLabel, Plugin: in.plugin,
		Marketplace: in.market, Settings: l.manifest, Skills: skills, Commands: commands, Refused: why})
}
