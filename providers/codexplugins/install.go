package codexplugins

// This file reads a plugin's install in the cache: the active version
// folder, its manifest, and the skill folders the manifest declares.

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// install is the active version of a plugin in the cache.
type install struct {
	dir     string
	version string
}

// versionSegment is a version folder name Codex accepts: ASCII letters,
// digits, ".", "+", "_" and "-", and not "." or "..".
var versionSegment = regexp.MustCompile(`^[A-Za-z0-9._+-]+$`)

// activeInstall finds the plugin's active version folder in the cache:
// "local" when present, else the greatest name in byte order, as Codex
// picks it. Only real folders count (not symlinks or files), with names
// Codex accepts. ok is false when there is none.
func (p *planner) activeInstall(e configEntry) (install, bool) {
	base := filepath.Join(p.cacheDir, e.market, e.plugin)
	p.listings = append(p.listings, base)
	ents, err := os.ReadDir(base)
	if err != nil {
		return install{}, false
	}
	var versions []string
	for _, d := range ents {
		n := d.Name()
		if d.IsDir() && n != "." && n != ".." && versionSegment.MatchString(n) {
			versions = append(versions, n)
		}
	}
	if len(versions) == 0 {
		return install{}, false
	}
	v := slices.Max(versions)
	if slices.Contains(versions, localVersion) {
		v = localVersion
	}
	return install{dir: filepath.Join(base, v), version: v}, true
}

// manifest is the part of a plugin.json this provider uses.
type manifest struct {
	file string
	// name namespaces the plugin's skills; "" when the manifest leaves it
	// blank.
	name string
	// skills are the skill folders the manifest adds, already checked
	// and joined to the install folder.
	skills []string
}

// rawManifest is plugin.json as decoded: skills is a path or a list of
// paths, so it is decoded on demand.
type rawManifest struct {
	Name   any `json:"name"`
	Skills any `json:"skills"`
}

// readManifest reads the install's plugin.json: .codex-plugin/plugin.json,
// else .claude-plugin/plugin.json, as Codex looks for them. A missing or
// unusable manifest means Codex does not load the plugin, which is
// reported; ok is then false.
func (p *planner) readManifest(key string, in install) (manifest, bool) {
	var file string
	var data []byte
	for _, rel := range manifestPaths {
		f := filepath.Join(in.dir, filepath.FromSlash(rel))
		p.read(f)
		d, found, err := hostfile.Read(f)
		if !found {
			continue
		}
		if err != nil {
			p.report(pipeline.SeverityWarning, "plugin-manifest-unreadable", f,
				"cannot read the manifest of plugin %s: %v; Codex does not load the plugin", key, err)
			return manifest{}, false
		}
		file, data = f, d
		break
	}
	if file == "" {
		p.report(pipeline.SeverityWarning, "plugin-manifest-missing", in.dir,
			"plugin %s has no %s in its install folder; Codex does not load it: reinstall the plugin",
			key, manifestPaths[0])
		return manifest{}, false
	}
	var raw rawManifest
	if err := hostfile.DecodeJSON(data, &raw); err != nil {
		d := pipeline.Diagnostic{Severity: pipeline.SeverityWarning, Code: "plugin-manifest-malformed",
			Provider: Label, Path: file}
		var se *hostfile.SyntaxError
		if errors.As(err, &se) {
			d.Line = se.Line
		}
		d.Message = "the manifest of plugin " + key + " is not valid JSON (" + err.Error() +
			"); Codex does not load the plugin until it is fixed"
		p.diags = append(p.diags, d)
		return manifest{}, false
	}
	m := manifest{file: file}
	switch n := raw.Name.(type) {
	case nil:
	case string:
		m.name = strings.TrimSpace(n)
	default:
		p.report(pipeline.SeverityWarning, "plugin-manifest-malformed", file,
			"\"name\" in the manifest of plugin %s must be a string; Codex does not load the plugin", key)
		return manifest{}, false
	}
	m.skills = p.manifestSkills(key, in, file, raw.Skills)
	return m, true
}

// manifestSkills checks the manifest's "skills" value: a path or a list of
// paths, each starting with "./" and staying inside the install folder.
// Codex ignores a bad value or path; each is reported, and the rest are
// kept.
func (p *planner) manifestSkills(key string, in install, file string, v any) []string {
	if v == nil {
		return nil
	}
	paths, skipped, ok := providers.PathList(v)
	for range skipped {
		p.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
			"\"skills\" of plugin %s lists a value that is not a path; Codex ignores it", key)
	}
	if !ok {
		p.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
			"\"skills\" of plugin %s must be a path or a list of paths; Codex ignores it and reads only skills/", key)
		return nil
	}
	var out []string
	for _, s := range paths {
		if s == "" {
			continue
		}
		rel, problem := providers.PluginPath(s)
		if problem != "" {
			p.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
				"\"skills\" path %q of plugin %s %s; Codex ignores it", s, key, problem)
			continue
		}
		out = append(out, filepath.Join(in.dir, rel))
	}
	return out
}

// skillRoots returns the plugin's skill folders, sorted and each once:
// skills/ when it is a folder, and every folder the manifest adds. A
// folder the manifest names that is not there is reported (Codex skips
// it quietly).
func (p *planner) skillRoots(key string, in install, m manifest) []string {
	var dirs []string
	def := filepath.Join(in.dir, defaultSkillsFolder)
	if isDir(def) {
		dirs = append(dirs, def)
	}
	for _, d := range m.skills {
		if slices.Contains(dirs, d) {
			continue
		}
		if !isDir(d) {
			p.report(pipeline.SeverityWarning, "plugin-skills-missing", d,
				"the manifest of plugin %s names this skill folder, but it is not a folder; Codex finds no skills there", key)
			continue
		}
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return dirs
}

// memberNames returns the names of the skills a disabled plugin would give
// if it were enabled: the folders holding SKILL.md directly below each of
// its skill folders, sorted and each once. They come from folder listings
// only; the manifest's problems are not reported, since the plugin is off.
func (p *planner) memberNames(in install) []string {
	mark, marks := len(p.diags), len(p.manifests)
	defer func() { p.diags, p.manifests = p.diags[:mark], p.manifests[:marks] }()
	m, ok := p.readManifest("", in)
	if !ok {
		m = manifest{}
	}
	var names []string
	for _, dir := range p.skillRoots("", in, m) {
		names = append(names, providers.SkillNames(dir)...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// isDir reports whether path is a folder or a symlink to one.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
