package marketplace

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
)

// This file credits skill and command folders to a plugin.

// skillSet collects skill folders in order without duplicates.
type skillSet struct {
	dirs []string
	seen map[string]bool
	// walk holds skills/ folders whose immediate sub-folders are the
	// plugin's skills; the scanner lists them (and caches the listing).
	walk []string
}

func newSkillSet() *skillSet { return &skillSet{dirs: []string{}, seen: map[string]bool{}} }

func (s *skillSet) add(dirs ...string) {
	for _, d := range dirs {
		d = filepath.Clean(d)
		if !s.seen[d] {
			s.seen[d] = true
			s.dirs = append(s.dirs, d)
		}
	}
}

// holdsChildOf reports whether a credited skill folder lies directly in
// dir.
func (s *skillSet) holdsChildOf(dir string) bool {
	for _, d := range s.dirs {
		if filepath.Dir(d) == dir {
			return true
		}
	}
	return false
}

// layout is where the skills and commands of a plugin's active install
// are, as its manifests declare them.
type layout struct {
	// dir is the plugin's own folder (see pluginDir).
	dir     string
	skills  *skillSet
	cmds    commandSource
	version string
	// manifest is the plugin.json read, and refused what Claude Code
	// refuses in it: a plugin it refuses gives no skill at all.
	manifest string
	refused  []string
}

// resolvePlugin works out the layout of the active install of one plugin:
// its skill folders, where its commands are and its version. It is the
// one reading of a plugin's manifests, for an enabled plugin's roots
// (planPlugin) and for a disabled plugin's names (memberNames).
func (p *planner) resolvePlugin(in install) (layout, bool) {
	if st, err := os.Stat(in.path); err != nil || !st.IsDir() {
		p.report(pipeline.SeverityWarning, "plugin-install-missing", in.path,
			"install folder of plugin %s is missing or not a folder; reinstall it with /plugin in Claude Code", in.key)
		return layout{}, false
	}
	market := p.marketplace(in.market)
	entry := market.entries[in.plugin]
	dir, bound := p.pluginDir(in, market, entry)
	skills := newSkillSet()
	version, manifest := "", ""
	var refused []string
	// Commands come from the same definition as skills: the entry of a
	// non-strict plugin, else plugin.json, else the entry; declared paths
	// replace the default commands/ folder.
	cmds := commandSource{dir: dir}
	fromEntry := func() {
		if entry.hasCommands {
			cmds = commandSource{declared: true, paths: entry.commands, manifest: market.file, dir: dir, bound: bound}
		}
	}
	switch {
	case entry != nil && !entry.strict:
		p.creditEntry(skills, in, market, entry, dir, bound)
		fromEntry()
	default:
		if man, ok := p.readPluginManifest(in.key, dir); ok {
			version = man.version
			manifest, refused = man.file, man.refused
			p.creditManifest(skills, in, man, dir)
			if man.hasCommands {
				cmds = commandSource{declared: true, paths: man.commands, manifest: man.file, dir: dir, bound: dir}
			}
		} else if entry != nil {
			p.creditEntry(skills, in, market, entry, dir, bound)
			fromEntry()
		} else {
			p.creditDefault(skills, in, dir, true)
		}
	}
	version = firstNonEmpty(version, in.version, entryVersion(entry), "unknown")
	return layout{dir: dir, skills: skills, cmds: cmds, version: version, manifest: manifest, refused: refused}, true
}

// planPlugin works out the skill folders of the active install of one
// enabled plugin and returns its skill roots: the install folder with the
// declared skills, when there are any or there is nothing else to show,
// then the skills/ folder to walk, if any.
func (p *planner) planPlugin(in install) ([]pipeline.Root, bool) {
	l, ok := p.resolvePlugin(in)
	if !ok {
		return nil, false
	}
	if len(l.refused) > 0 {
		p.refuse(in, l)
		return nil, false
	}
	skills := l.skills
	p.cmdSource[in.key] = l.cmds
	base := pipeline.Root{
		Path:     in.path,
		Agent:    providerLabel,
		Provider: sourceLabel,
		Location: pipeline.LocationPlugin,
		Kind:     pipeline.KindPlugin,
		Prefix:   in.plugin,
		Plugin:   &pipeline.PluginInfo{Plugin: in.plugin, Marketplace: in.market, Version: l.version},
		// Claude Code names a plugin's skills after their folders.
		FolderNames: true,
	}
	var roots []pipeline.Root
	if len(skills.dirs) > 0 || len(skills.walk) == 0 { // declared skills, or nothing at all to show
		r := base
		r.Skills = skills.dirs
		roots = append(roots, r)
	}
	for _, w := range skills.walk {
		r := base
		r.Path, r.Flat = w, true
		roots = append(roots, r)
	}
	return roots, true
}

// pluginDir returns the plugin's own folder and the folder its skill paths
// must stay inside. The plugin lives in its install folder, except when
// that folder is the marketplace clone itself and the marketplace entry
// gives a relative source: then the source is resolved in the clone.
func (p *planner) pluginDir(in install, market *marketManifest, entry *marketEntry) (dir, bound string) {
	dir = in.path
	if entry != nil && entry.sourceIsPath && samePath(in.path, market.dir) {
		src := market.sourceDir(entry)
		if safefile.Within(market.dir, src) {
			dir = src
		} else {
			p.report(pipeline.SeverityWarning, "plugin-source-outside-marketplace", market.file,
				"source %q of plugin %s leaves the marketplace folder; the install folder is used instead",
				entry.source, in.key)
		}
	}
	if safefile.Within(market.dir, dir) {
		return dir, market.dir
	}
	return dir, dir
}

// planCommands returns the command roots of a planned plugin: one per
// declared path that exists (a folder of commands or one .md file), or its
// commands/ folder when it has one. A plugin without commands gets no root.
func (p *planner) planCommands(in install, skills pipeline.Root) []pipeline.Root {
	var roots []pipeline.Root
	for _, path := range p.commandPaths(in, p.cmdSource[in.key]) {
		roots = append(roots, pipeline.Root{Path: path, Agent: providerLabel, Provider: sourceLabel,
			Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin, Prefix: skills.Prefix, Plugin: skills.Plugin,
			Type: pipeline.TypeCommand, Optional: true})
	}
	return roots
}

// commandPaths returns the command paths of src without duplicates: each
// declared path that exists (a folder of commands or one .md file), or the
// commands/ folder when nothing is declared and it exists.
func (p *planner) commandPaths(in install, src commandSource) []string {
	if !src.declared {
		dir := filepath.Join(src.dir, defaultCommandsFolder)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil
		}
		return []string{dir}
	}
	var paths []string
	for _, decl := range src.paths {
		if path, ok := p.commandPath(in, src, decl); ok && !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	return paths
}

// commandPath resolves one declared command path: relative, inside the
// plugin, and an existing folder or .md file.
func (p *planner) commandPath(in install, src commandSource, decl string) (string, bool) {
	rel := filepath.FromSlash(strings.TrimSpace(decl))
	if rel == "" || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		p.report(pipeline.SeverityWarning, "command-path-invalid", src.manifest,
			"plugin %s declares command path %q; paths must be relative to the plugin folder, like \"./commands/x.md\"",
			in.key, decl)
		return "", false
	}
	path := filepath.Join(src.dir, rel)
	if !safefile.Within(src.bound, path) {
		p.report(pipeline.SeverityWarning, "command-path-outside-plugin", src.manifest,
			"plugin %s declares command path %q, which leaves %s; it is ignored", in.key, decl, src.bound)
		return "", false
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		p.report(pipeline.SeverityWarning, "plugin-command-missing", src.manifest,
			"plugin %s declares command path %q but %s does not exist; fix the manifest or reinstall the plugin",
			in.key, decl, path)
		return "", false
	case !st.IsDir() && !strings.HasSuffix(path, ".md"):
		p.report(pipeline.SeverityWarning, "plugin-command-missing", src.manifest,
			"plugin %s declares command path %q but %s is neither a folder nor a .md file",
			in.key, decl, path)
		return "", false
	}
	return path, true
}

// creditEntry credits the skills a marketplace.json entry declares, or the
// default skills when it declares none.
func (p *planner) creditEntry(s *skillSet, in install, market *marketManifest, e *marketEntry, dir, bound string) {
	if !e.hasSkills {
		p.creditDefault(s, in, dir, true)
		return
	}
	p.creditDeclared(s, in, market.file, e.skills, dir, bound)
}

// creditManifest credits the skills plugin.json declares plus the default
// skills/ folder.
func (p *planner) creditManifest(s *skillSet, in install, man pluginManifest, dir string) {
	if man.name != "" && man.name != in.plugin {
		p.report(pipeline.SeverityInfo, "plugin-name-mismatch", man.file,
			"plugin.json names the plugin %q but it is installed as %s; its skills are prefixed %q",
			man.name, in.key, in.plugin+":")
	}
	if man.hasSkills {
		p.creditDeclared(s, in, man.file, man.skills, dir, dir)
	}
	p.creditDefault(s, in, dir, !man.hasSkills)
}

// creditDefault credits the skill folders directly under <dir>/skills and,
// when allowed and there is no skills/ folder, dir itself as a
// single-skill plugin. The skills/ folder is left to the scanner, unless a
// declared skill lies directly in it: the walk would then find that skill
// a second time, so the folder is listed here and its other skills follow
// the declared ones, without duplicates.
func (p *planner) creditDefault(s *skillSet, in install, dir string, single bool) {
	skillsDir := filepath.Clean(filepath.Join(dir, defaultSkillsFolder))
	if st, err := os.Stat(skillsDir); err == nil && st.IsDir() {
		if !s.holdsChildOf(skillsDir) {
			s.walk = append(s.walk, skillsDir)
			return
		}
		children, _ := p.skillChildren(in, skillsDir)
		s.add(children...)
		return
	}
	if single && isSkillDir(dir) {
		s.add(dir)
	}
}

// creditDeclared credits declared skill paths, each relative to base and
// inside bound. A declared folder is a skill folder itself or holds skill
// folders directly.
func (p *planner) creditDeclared(s *skillSet, in install, manifest string, paths []string, base, bound string) {
	for _, decl := range paths {
		dir, ok := p.declaredPath(in, manifest, decl, base, bound)
		if !ok {
			continue
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			p.report(pipeline.SeverityWarning, "plugin-skill-missing", manifest,
				"plugin %s declares skill path %q but %s is not a folder; fix the manifest or reinstall the plugin",
				in.key, decl, dir)
			continue
		}
		if isSkillDir(dir) {
			s.add(dir)
			continue
		}
		children, _ := p.skillChildren(in, dir)
		if len(children) == 0 {
			p.report(pipeline.SeverityWarning, "plugin-skill-missing", manifest,
				"plugin %s declares skill path %q but %s holds no SKILL.md, directly or one level down",
				in.key, decl, dir)
		}
		s.add(children...)
	}
}

// declaredPath resolves one declared skill path, rejecting absolute paths
// and paths that leave bound. A path naming a SKILL.md means its folder.
func (p *planner) declaredPath(in install, manifest, decl, base, bound string) (string, bool) {
	rel := filepath.FromSlash(strings.TrimSpace(decl))
	if base := filepath.Base(rel); base == pipeline.SkillFile || base == pipeline.DisabledSkillFile {
		rel = filepath.Dir(rel)
	}
	if rel == "" || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		p.report(pipeline.SeverityWarning, "skill-path-invalid", manifest,
			"plugin %s declares skill path %q; paths must be relative to the plugin folder, like \"./skills/x\"",
			in.key, decl)
		return "", false
	}
	dir := filepath.Join(base, rel)
	if !safefile.Within(bound, dir) {
		p.report(pipeline.SeverityWarning, "skill-path-outside-plugin", manifest,
			"plugin %s declares skill path %q, which leaves %s; it is ignored", in.key, decl, bound)
		return "", false
	}
	return dir, true
}

// skillChildren lists the immediate subfolders of dir that hold SKILL.md
// or .SKILL.md, sorted by name; hidden folders are skipped. exists is
// false when dir is not a folder.
func (p *planner) skillChildren(in install, dir string) (children []string, exists bool) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, false
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		p.report(pipeline.SeverityWarning, "plugin-folder-unreadable", dir,
			"cannot list skills of plugin %s: %v; check the folder's permissions", in.key, err)
		return nil, true
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || (!e.IsDir() && e.Type()&fs.ModeSymlink == 0) {
			continue
		}
		if child := filepath.Join(dir, e.Name()); isSkillDir(child) {
			children = append(children, child)
		}
	}
	return children, true
}

// isSkillDir reports whether dir holds a SKILL.md or .SKILL.md file. Only
// the folder entry is checked; the file is not opened.
func isSkillDir(dir string) bool {
	for _, name := range []string{pipeline.SkillFile, pipeline.DisabledSkillFile} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() {
			return true
		}
	}
	return false
}
