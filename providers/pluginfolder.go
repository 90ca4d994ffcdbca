package providers

// This file reads one installed plugin folder as the hosts that load
// Agent Plugins, Copilot CLI plugins and Cursor plugins read it: which
// manifest speaks for it, its name and version, and the skill folders it
// gives, each kept inside the plugin root. The agentplugins,
// copilotplugins and cursorplugins providers share it.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// AgentPluginsSchema is the $schema of an Agent Plugins 1.0.0 manifest
// (agentplugins/agent-plugins-spec, spec/1.0.0.md §5.2).
const AgentPluginsSchema = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"

// AgentPluginsSchemas starts the $schema of every Agent Plugins version:
// a manifest whose $schema starts so claims the format (and is rejected
// when its version is not one ccski reads); any other root plugin.json is
// another format's manifest.
const AgentPluginsSchemas = "https://agent-plugins.org/schemas/"

// CodePluginPathOutside is the diagnostic code of a plugin path that
// resolves outside the plugin root, which the Agent Plugins
// specification (§4.1) requires a client to refuse.
const CodePluginPathOutside = "plugin-path-outside"

// SkillsField says what a manifest's "skills" field does.
type SkillsField int

// The meanings of a manifest's "skills" field.
const (
	// FixedSkills: the field means nothing; skills/ is the only skill
	// folder (Agent Plugins §6.1, Copilot CLI's own manifests).
	FixedSkills SkillsField = iota
	// ReplacesSkills: a "./" path or a list of them replaces skills/
	// (Cursor plugins).
	ReplacesSkills
)

// PluginFormat is one plugin manifest a host looks for, relative to the
// plugin root, and how it reads it.
type PluginFormat struct {
	// Title names the format for people ("Agent Plugins").
	Title string
	// Manifest is the manifest's path below the plugin root.
	Manifest string
	// Strict is set for Agent Plugins' closed manifest (§5): a $schema
	// the client knows and a name of the spec's form are required, and a
	// field of the wrong type rejects the plugin.
	Strict bool
	// NeedsSchema, with Strict, holds the manifest to the strict rules
	// only when it claims Agent Plugins (ClaimsAgentPlugins): Copilot CLI
	// reads any other root plugin.json as its own lenient manifest, and
	// install reads the folder as a folder of skills.
	NeedsSchema bool
	// Skills is what the manifest's "skills" field does.
	Skills SkillsField
}

// The plugin formats the hosts read.
var (
	// AgentPluginsFormat is Agent Plugins 1.0: a root plugin.json, skills
	// in skills/ only.
	AgentPluginsFormat = PluginFormat{Title: "Agent Plugins", Manifest: "plugin.json", Strict: true}
	// CursorFormat is Cursor's own .cursor-plugin/plugin.json, whose
	// "skills" field replaces skills/.
	CursorFormat = PluginFormat{Title: "Cursor plugin", Manifest: ".cursor-plugin/plugin.json", Skills: ReplacesSkills}
	// ClaimedAgentPluginsFormat is a root plugin.json that is an Agent
	// Plugins manifest only when it claims the format: so Copilot CLI
	// 1.0.102 reads it (any other is Copilot's own lenient manifest), and
	// so install tells an Agent Plugins package from a folder of skills.
	ClaimedAgentPluginsFormat = PluginFormat{Title: "Agent Plugins", Manifest: "plugin.json", Strict: true, NeedsSchema: true}
	// CopilotGitHubFormat and ClaudeManifestFormat are the manifests
	// Copilot CLI falls back to, in that order.
	CopilotGitHubFormat  = PluginFormat{Title: "Copilot plugin", Manifest: ".github/plugin/plugin.json"}
	ClaudeManifestFormat = PluginFormat{Title: "Claude plugin", Manifest: ".claude-plugin/plugin.json"}
)

// PluginFolder is a plugin folder as a host reads it.
type PluginFolder struct {
	// Dir is the plugin root, Manifest the manifest read and Format its
	// format.
	Dir      string
	Manifest string
	Format   PluginFormat
	// Name is the manifest's name (the folder's name when a lenient
	// manifest leaves it out), Version its version.
	Name, Version string
	// Extensions are the client extension namespaces of a strict
	// manifest's "extensions" (§8.1), sorted.
	Extensions []string
	// SkillDirs are the folders whose immediate sub-folders are skills,
	// each resolved inside the plugin root, sorted.
	SkillDirs []string
	// real is Dir with its links resolved.
	real string
}

// PluginReader reads plugin folders for one provider, collecting its
// diagnostics (under Label) and the files it read (for the watcher).
type PluginReader struct {
	Label string
	Diags []pipeline.Diagnostic
	Read  []string
}

// Folder reads the plugin in dir by the first of formats whose manifest
// is there. ok is false, with a diagnostic, when the host would not load
// it: no manifest, a manifest it cannot read, or one that breaks a strict
// format or resolves outside dir. what names the plugin in messages
// ("plugin alpha@market").
func (r *PluginReader) Folder(dir, what string, formats ...PluginFormat) (PluginFolder, bool) {
	realRoot, err := safefile.Resolve(dir)
	if err != nil {
		r.report(pipeline.SeverityWarning, "plugin-unreadable", dir, "cannot resolve the folder of %s: %v", what, err)
		return PluginFolder{}, false
	}
	for _, f := range formats {
		file := filepath.Join(dir, filepath.FromSlash(f.Manifest))
		r.Read = append(r.Read, file)
		if _, err := os.Lstat(file); err != nil {
			continue
		}
		if !r.inside(realRoot, file, what, f.Manifest) {
			return PluginFolder{}, false
		}
		data, found, err := hostfile.Read(file)
		if !found {
			continue
		}
		if err != nil {
			r.report(pipeline.SeverityWarning, "plugin-manifest-unreadable", file,
				"cannot read the manifest of %s: %v; it is not loaded", what, err)
			return PluginFolder{}, false
		}
		var obj map[string]any
		if err := hostfile.DecodeJSON(data, &obj); err != nil {
			d := pipeline.Diagnostic{Severity: pipeline.SeverityWarning, Code: "plugin-manifest-malformed",
				Provider: r.Label, Path: file,
				Message: fmt.Sprintf("the manifest of %s is not a JSON object (%v); it is not loaded until it is fixed", what, err)}
			var se *hostfile.SyntaxError
			if errors.As(err, &se) {
				d.Line = se.Line
			}
			r.Diags = append(r.Diags, d)
			return PluginFolder{}, false
		}
		if f.NeedsSchema && !ClaimsAgentPlugins(obj) {
			// Another format's root plugin.json: Copilot CLI reads it as
			// its own lenient manifest.
			f = PluginFormat{Title: "Copilot plugin", Manifest: f.Manifest}
		}
		p := PluginFolder{Dir: dir, Manifest: file, Format: f, real: realRoot}
		if f.Strict {
			m, problem := CheckAgentPlugins(obj)
			if problem != "" {
				r.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
					"%s: %s; an Agent Plugins client rejects the plugin (spec §5), so none of its skills load", what, problem)
				return PluginFolder{}, false
			}
			for _, k := range m.Unknown {
				r.report(pipeline.SeverityInfo, "plugin-manifest-unknown-field", file,
					"%s: the Agent Plugins manifest has no field %q; it is ignored", what, k)
			}
			if m.ExtensionsIgnored {
				r.report(pipeline.SeverityInfo, "plugin-manifest-extensions-ignored", file,
					"%s: \"extensions\" must be an object keyed by client namespace; it is ignored (spec §8.1)", what)
			}
			p.Extensions = m.Extensions
		}
		p.Name, _ = obj["name"].(string)
		p.Version, _ = obj["version"].(string)
		if p.Name == "" {
			p.Name = filepath.Base(dir)
		}
		p.SkillDirs = r.skillDirs(realRoot, dir, file, what, f, obj)
		return p, true
	}
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.Manifest
	}
	r.report(pipeline.SeverityWarning, "plugin-manifest-missing", dir,
		"%s has no manifest (looked for %s); it is not loaded", what, strings.Join(names, ", "))
	return PluginFolder{}, false
}

// pluginName is a plugin name Agent Plugins accepts (§5.5).
var pluginName = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`)

// agentPluginsFields are the only top-level fields of an Agent Plugins
// manifest (§5.2).
var agentPluginsFields = []string{"$schema", "name", "version", "description", "author", "homepage",
	"repository", "license", "keywords", "extensions"}

// ClaimsAgentPlugins reports whether a root plugin.json, obj, claims the
// Agent Plugins format: its $schema is a string naming an Agent Plugins
// schema, of any version (§5.2: the $schema selects the rules).
func ClaimsAgentPlugins(obj map[string]any) bool {
	s, ok := obj["$schema"].(string)
	return ok && strings.HasPrefix(s, AgentPluginsSchemas)
}

// AgentPluginsManifest is what ccski uses of a valid Agent Plugins
// manifest.
type AgentPluginsManifest struct {
	Name, Version string
	// Extensions are the namespaces of "extensions", sorted.
	Extensions []string
	// Unknown are the top-level fields the schema does not have, sorted,
	// and ExtensionsIgnored is set when "extensions" is not an object:
	// a client reports and ignores both (§5.2, §8.1).
	Unknown           []string
	ExtensionsIgnored bool
}

// CheckAgentPlugins checks an Agent Plugins manifest, obj, against the
// closed schema of 1.0.0 (§5). problem is what makes a client reject the
// plugin, "" when it loads.
func CheckAgentPlugins(obj map[string]any) (m AgentPluginsManifest, problem string) {
	schema, ok := obj["$schema"].(string)
	switch {
	case !ok:
		return m, "\"$schema\" is required and must be a string"
	case schema != AgentPluginsSchema:
		return m, fmt.Sprintf("\"$schema\" %q is not an Agent Plugins version ccski knows (%s)", schema, AgentPluginsSchema)
	}
	name, ok := obj["name"].(string)
	switch {
	case !ok:
		return m, "\"name\" is required and must be a string"
	case len(name) < 1 || len(name) > 64 || !pluginName.MatchString(name) ||
		strings.Contains(name, "--") || strings.Contains(name, ".."):
		return m, fmt.Sprintf("name %q must be 1-64 lowercase letters, digits, \"-\" and \".\", starting and ending "+
			"with a letter or digit, without \"--\" or \"..\"", name)
	}
	for _, k := range []string{"version", "description", "homepage", "repository", "license"} {
		if v, set := obj[k]; set {
			if _, ok := v.(string); !ok {
				return m, fmt.Sprintf("%q must be a string", k)
			}
		}
	}
	if v, set := obj["keywords"]; set {
		list, ok := v.([]any)
		if !ok || slices.ContainsFunc(list, func(e any) bool { _, s := e.(string); return !s }) {
			return m, "\"keywords\" must be a list of strings"
		}
	}
	if v, set := obj["author"]; set {
		a, ok := v.(map[string]any)
		if !ok {
			return m, "\"author\" must be an object"
		}
		for k, f := range a {
			if _, s := f.(string); !s || !slices.Contains([]string{"name", "email", "url"}, k) {
				return m, fmt.Sprintf("\"author\" may hold only the strings name, email and url, not %q", k)
			}
		}
	}
	m.Name = name
	m.Version, _ = obj["version"].(string)
	if v, set := obj["extensions"]; set {
		ext, ok := v.(map[string]any)
		// §8.1: the values of namespaces ccski does not implement are
		// not validated.
		for k := range ext {
			m.Extensions = append(m.Extensions, k)
		}
		slices.Sort(m.Extensions)
		m.ExtensionsIgnored = !ok
	}
	for k := range obj {
		if !slices.Contains(agentPluginsFields, k) {
			m.Unknown = append(m.Unknown, k)
		}
	}
	slices.Sort(m.Unknown)
	return m, ""
}

// skillDirs returns the plugin's skill folders under format f: skills/,
// or the folders a replacing "skills" field names. A folder that resolves
// outside the plugin root is refused with a diagnostic; a missing one is
// skipped (the default quietly, as the spec asks of a missing location).
func (r *PluginReader) skillDirs(realRoot, dir, file, what string, f PluginFormat, obj map[string]any) []string {
	paths := []string{"./skills"}
	declared := false
	if v := obj["skills"]; f.Skills == ReplacesSkills && v != nil {
		list, skipped, ok := PathList(v)
		for range skipped {
			r.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
				"\"skills\" of %s lists a value that is not a path; it is ignored", what)
		}
		if ok {
			paths, declared = list, true
		} else {
			r.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
				"\"skills\" of %s must be a path or a list of paths; only skills/ is read", what)
		}
	}
	var out []string
	for _, s := range paths {
		rel, problem := PluginPath(s)
		if problem != "" {
			r.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
				"\"skills\" path %q of %s %s; it is ignored", s, what, problem)
			continue
		}
		path := filepath.Join(dir, rel)
		if _, err := os.Lstat(path); err != nil {
			if declared {
				r.report(pipeline.SeverityWarning, "plugin-skills-missing", path,
					"the manifest of %s names this skill folder, but it is not there", what)
			}
			continue
		}
		if !r.inside(realRoot, path, what, s) {
			continue
		}
		if st, err := os.Stat(path); err != nil || !st.IsDir() {
			r.report(pipeline.SeverityWarning, "plugin-skills-invalid", path,
				"the skill folder %s of %s is not a folder; no skills are read from it", s, what)
			continue
		}
		if !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

// inside reports whether path, a path of the plugin whose resolved root
// is realRoot, resolves inside it; when not, it reports the refusal,
// naming the plugin and the path as the manifest or layout spells it.
func (r *PluginReader) inside(realRoot, path, what, spelled string) bool {
	real, err := safefile.Resolve(path)
	if err != nil {
		r.report(pipeline.SeverityWarning, "plugin-unreadable", path, "cannot resolve %s of %s: %v", spelled, what, err)
		return false
	}
	if safefile.Within(realRoot, real) {
		return true
	}
	r.report(pipeline.SeverityWarning, CodePluginPathOutside, path,
		"%s: %s resolves to %s, outside the plugin root %s; it is refused, as the Agent Plugins specification "+
			"requires (§4.1)", what, spelled, real, realRoot)
	return false
}

// Inside reports whether path, a path of plugin p spelled as the layout
// or manifest spells it, resolves inside the plugin root; when not, the
// refusal is reported (§4.1: access to it is denied).
func (r *PluginReader) Inside(p PluginFolder, path, what, spelled string) bool {
	return r.inside(p.real, path, what, spelled)
}

// Skills returns the names of the skill folders directly below dir, a
// skill folder of plugin p, whose SKILL.md resolves
// inside the plugin root (§7.1: one that does not is skipped, and
// reported).
func (r *PluginReader) Skills(p PluginFolder, dir, what string) []string {
	var out []string
	for _, n := range SkillNames(dir) {
		if r.inside(p.real, filepath.Join(dir, n, pipeline.SkillFile), what, "skills/"+n+"/"+pipeline.SkillFile) {
			out = append(out, n)
		}
	}
	return out
}

// PathList reads a manifest field that holds a "./" path or a list of
// them (the "skills" of a Cursor or a Codex plugin): paths are its
// strings, in order; skipped counts the values of a list that are not
// strings. ok is false when v is neither a string nor a list.
func PathList(v any) (paths []string, skipped int, ok bool) {
	switch v := v.(type) {
	case string:
		return []string{v}, 0, true
	case []any:
		for _, e := range v {
			if s, isString := e.(string); isString {
				paths = append(paths, s)
			} else {
				skipped++
			}
		}
		return paths, skipped, true
	}
	return nil, 0, false
}

// PluginPath checks a plugin-relative path as the hosts do (Agent
// Plugins §4.1, Codex, Cursor): it must start with "./", name something
// below it and hold no "..". It returns the path below the plugin root in
// the platform's form, or what is wrong.
func PluginPath(s string) (string, string) {
	rest, ok := strings.CutPrefix(s, "./")
	if !ok {
		return "", "must start with \"./\" (relative to the plugin folder)"
	}
	var parts []string
	for _, part := range strings.Split(rest, "/") {
		switch part {
		case "", ".":
		case "..":
			return "", "must not contain \"..\""
		default:
			parts = append(parts, part)
		}
	}
	if len(parts) == 0 {
		return "", "must name a folder below the plugin folder, not \"./\" itself"
	}
	return filepath.Join(parts...), ""
}

func (r *PluginReader) report(sev pipeline.Severity, code, path, format string, args ...any) {
	r.Diags = append(r.Diags, pipeline.Diagnostic{Severity: sev, Code: code, Provider: r.Label, Path: path,
		Message: fmt.Sprintf(format, args...)})
}

// Roots returns the roots of plugin p: one per skill folder, each a copy
// of tmpl with the folder as Path and, as Skills, the skill folders in it
// whose SKILL.md stays in the plugin root. A skill folder with none gives
// no root. what names the plugin in messages.
func (r *PluginReader) Roots(p PluginFolder, tmpl pipeline.Root, what string) []pipeline.Root {
	var out []pipeline.Root
	for _, dir := range p.SkillDirs {
		names := r.Skills(p, dir, what)
		if len(names) == 0 {
			continue
		}
		root := tmpl
		root.Path, root.Skills = dir, names
		out = append(out, root)
	}
	return out
}

// SkillNamesOf returns the names of the skills plugin p would give,
// sorted and each once, for pipeline.DisabledPlugin.Skills.
func SkillNamesOf(p PluginFolder) []string {
	var names []string
	for _, dir := range p.SkillDirs {
		names = append(names, SkillNames(dir)...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
