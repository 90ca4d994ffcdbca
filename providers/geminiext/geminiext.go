// Package geminiext plans the skill folders of Gemini CLI extensions.
//
// Gemini CLI installs extensions below ~/.gemini/extensions (the home
// folder being $GEMINI_CLI_HOME when set), one folder each. A folder
// holds gemini-extension.json, whose name and version are required, and
// the extension's files; an extension installed with `gemini extensions
// link` holds only .gemini-extension-install.json, whose source is the
// folder the extension is read from. An extension's skills are the
// folders directly below its skills/ folder that hold SKILL.md, so its
// root is flat. Gemini CLI no longer reads extensions from a workspace's
// .gemini/extensions.
//
// An extension is enabled unless ~/.gemini/extensions/extension-
// enablement.json turns it off for the workspace: its overrides are path
// rules ("/home/me/work/*" for a folder and its sub-folders, "!" before
// one to disable), of which the last that matches the workspace decides.
// A disabled extension gives no roots; it is listed in Plan.Disabled, with
// its skill names, so that asking for one of them says how to enable it.
//
// Gemini CLI gives extension skills plain names, ranked below the user's
// and the workspace's skills of the same name. ccski names them after
// their extension by default ("conductor:setup"), as it names plugin
// skills, so that they never shadow or hide a local skill; with the
// namespace option off they keep their plain names and rank, with kind
// plugin, below every user and project skill, as in Gemini CLI.
package geminiext

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// Name is the provider's key in ccski.yaml (providers.gemini_extensions).
const Name = "gemini_extensions"

// Label is the agent label of its records: they are Gemini CLI's skills.
const Label = "gemini"

// Marketplace is the marketplace name of extension records
// (pipeline.PluginInfo.Marketplace): Gemini CLI has no marketplaces, and
// names an extension by its name alone.
const Marketplace = "gemini-extensions"

// HomeVar is the variable that replaces the home folder for Gemini CLI.
const HomeVar = "GEMINI_CLI_HOME"

// Files Gemini CLI keeps in the extensions folder and in each extension.
const (
	manifestFile    = "gemini-extension.json"
	installFile     = ".gemini-extension-install.json"
	enablementFile  = "extension-enablement.json"
	skillsFolder    = "skills"
	extensionsInDir = ".gemini/extensions"
)

// Entry describes the provider to the registry (package providers/all).
// It claims no folder: .gemini is the agents provider's, and the label's
// ".gemini" is claimed through the label.
func Entry() providers.Entry {
	return providers.Entry{
		Name: Name,
		Doc: "Gemini CLI extensions: the skills of the extensions in ~/.gemini/extensions that " +
			"extension-enablement.json leaves enabled for the workspace, named <extension>:<skill>.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: Label}},
		Kinds:   []pipeline.Kind{pipeline.KindPlugin},
		New:     New,
	}
}

// Options are the keys under providers.gemini_extensions in ccski.yaml.
type Options struct {
	// ExtensionsDir is Gemini CLI's extensions folder (default
	// $GEMINI_CLI_HOME/.gemini/extensions, else
	// <user dir>/.gemini/extensions).
	ExtensionsDir string `koanf:"extensions_dir" config:"path" trust:"user" doc:"Gemini CLI's extensions folder. Empty means .gemini/extensions in $GEMINI_CLI_HOME, else in the user folder."`
	// Namespace names each skill after its extension, as plugin skills
	// are named.
	Namespace bool `koanf:"namespace" trust:"project" doc:"Name extension skills <extension>:<skill>, apart from local skills; false keeps Gemini CLI's plain names, which local skills of the same name then shadow."`
}

// defaultOptions returns the options a key left out keeps.
func defaultOptions() *Options { return &Options{Namespace: true} }

// Provider is the Gemini CLI extensions provider. It is immutable and
// safe for concurrent use.
type Provider struct{ opts Options }

var _ providers.Provider = (*Provider)(nil)

// New builds the provider from its options, a *Options (nil for the
// defaults).
var New = providers.Typed(Name, defaultOptions, func(o *Options) (providers.Provider, error) {
	return &Provider{opts: *o}, nil
})

// Name returns "gemini_extensions".
func (p *Provider) Name() string { return Name }

// ExtensionsDir returns the extensions folder Gemini CLI reads in env:
// .gemini/extensions below $GEMINI_CLI_HOME, else below the user folder.
func ExtensionsDir(env providers.Env) string {
	home := env.UserDir
	if env.Getenv != nil {
		if v := strings.TrimSpace(env.Getenv(HomeVar)); v != "" {
			home = env.ResolvePath(v)
		}
	}
	return filepath.Join(home, filepath.FromSlash(extensionsInDir))
}

// Plan returns a flat root for the skills/ folder of every extension that
// is enabled for the workspace, sorted by extension folder, and lists the
// disabled ones. Problems are diagnostics; the only error is a cancelled
// context.
func (p *Provider) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	if err := ctx.Err(); err != nil {
		return providers.Plan{}, fmt.Errorf("%s: %w", Name, err)
	}
	dir := ExtensionsDir(env)
	if p.opts.ExtensionsDir != "" {
		dir = env.ResolvePath(p.opts.ExtensionsDir)
	}
	pl := &planner{opts: p.opts, env: env, dir: dir}
	if err := pl.run(ctx); err != nil {
		return providers.Plan{}, fmt.Errorf("%s: %w", Name, err)
	}
	// The extensions folder is the install state: a new extension is a new
	// folder in it, with no index file to watch.
	return providers.Plan{Roots: pl.roots, Diagnostics: pl.diags, Disabled: pl.disabled,
		Manifests: pl.manifests, Listings: []string{dir}}, nil
}

// planner holds the state of one Plan call.
type planner struct {
	opts      Options
	env       providers.Env
	dir       string
	roots     []pipeline.Root
	diags     []pipeline.Diagnostic
	disabled  []pipeline.DisabledPlugin
	manifests []string
}

// extension is one extension Gemini CLI would load.
type extension struct {
	name, version string
	// dir is the folder its files are read from: its own folder, or a
	// linked extension's source.
	dir      string
	manifest string
}

// nameRE is an extension name Gemini CLI accepts: letters, digits and
// dashes.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9-]+$`)

// run plans every extension folder in name order.
func (p *planner) run(ctx context.Context) error {
	ents, err := os.ReadDir(p.dir)
	if err != nil {
		if !os.IsNotExist(err) {
			p.report(pipeline.SeverityWarning, "extensions-unreadable", p.dir,
				"cannot list Gemini CLI's extensions folder: %v", err)
		}
		return nil
	}
	enablement := p.readEnablement()
	seen := map[string]string{}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		folder := filepath.Join(p.dir, e.Name())
		if st, err := os.Stat(folder); err != nil || !st.IsDir() {
			continue // extension-enablement.json and other files
		}
		ext, ok := p.load(folder)
		if !ok {
			continue
		}
		if first, dup := seen[ext.name]; dup {
			p.report(pipeline.SeverityWarning, "extension-duplicate", ext.manifest,
				"extension %s is also installed in %s; Gemini CLI loads only the first, so this one is skipped",
				ext.name, first)
			continue
		}
		seen[ext.name] = folder
		skills := filepath.Join(ext.dir, skillsFolder)
		if !enablement.enabled(ext.name, p.env.Workspace) {
			p.report(pipeline.SeverityInfo, "extension-disabled", enablement.file,
				"extension %s is disabled for %s in %s; run `gemini extensions enable %s` to load its skills",
				ext.name, p.env.Workspace, enablement.file, ext.name)
			p.disabled = append(p.disabled, pipeline.DisabledPlugin{Provider: Label, Plugin: ext.name,
				Marketplace: Marketplace, Settings: enablement.file,
				Enable: fmt.Sprintf("`gemini extensions enable %s` (%s)", ext.name, enablement.file),
				Skills: providers.SkillNames(skills)})
			continue
		}
		if st, err := os.Stat(skills); err != nil || !st.IsDir() {
			continue
		}
		r := pipeline.Root{Path: skills, Agent: Label, Provider: Name, Location: pipeline.LocationPlugin,
			Kind: pipeline.KindPlugin, Optional: true, Flat: true}
		if p.opts.Namespace {
			r.Prefix = ext.name
			r.Plugin = &pipeline.PluginInfo{Plugin: ext.name, Marketplace: Marketplace, Version: ext.version}
		}
		p.roots = append(p.roots, r)
	}
	return nil
}

// load reads one extension folder: its install metadata, then the
// manifest of the folder the extension is read from. ok is false, with a
// diagnostic, when Gemini CLI would skip the extension.
func (p *planner) load(folder string) (extension, bool) {
	dir := folder
	if src, ok := p.linkSource(folder); ok {
		dir = src
	}
	file := filepath.Join(dir, manifestFile)
	p.manifests = append(p.manifests, file)
	data, found, err := hostfile.Read(file)
	switch {
	case !found:
		p.report(pipeline.SeverityWarning, "extension-manifest-missing", folder,
			"extension folder has no %s (looked in %s); Gemini CLI skips it", manifestFile, dir)
		return extension{}, false
	case err != nil:
		p.report(pipeline.SeverityWarning, "extension-manifest-unreadable", file,
			"cannot read %s: %v; Gemini CLI skips the extension", manifestFile, err)
		return extension{}, false
	}
	var raw struct {
		Name    any `json:"name"`
		Version any `json:"version"`
	}
	if err := hostfile.DecodeJSON(data, &raw); err != nil {
		line := 0
		if se, ok := err.(*hostfile.SyntaxError); ok {
			line = se.Line
		}
		p.diags = append(p.diags, pipeline.Diagnostic{Severity: pipeline.SeverityWarning,
			Code: "extension-manifest-malformed", Provider: Label, Path: file, Line: line,
			Message: fmt.Sprintf("%s is not valid JSON (%v); Gemini CLI skips the extension until it is fixed",
				manifestFile, err)})
		return extension{}, false
	}
	name, _ := raw.Name.(string)
	version, _ := raw.Version.(string)
	switch {
	case name == "" || version == "":
		missing := "\"name\""
		if name != "" {
			missing = "\"version\""
		}
		p.report(pipeline.SeverityWarning, "extension-manifest-invalid", file,
			"%s has no %s string; Gemini CLI skips the extension", manifestFile, missing)
		return extension{}, false
	case !nameRE.MatchString(name):
		p.report(pipeline.SeverityWarning, "extension-manifest-invalid", file,
			"extension name %q may hold only letters, digits and dashes; Gemini CLI skips the extension", name)
		return extension{}, false
	}
	return extension{name: name, version: version, dir: dir, manifest: file}, true
}

// linkSource returns the folder a linked extension is read from: the
// source of its install metadata when the type is "link". Broken
// metadata is reported, and the extension folder itself is used.
func (p *planner) linkSource(folder string) (string, bool) {
	file := filepath.Join(folder, installFile)
	data, found, err := hostfile.Read(file)
	if !found {
		return "", false
	}
	p.manifests = append(p.manifests, file)
	var meta struct {
		Source string `json:"source"`
		Type   string `json:"type"`
	}
	if err == nil {
		err = hostfile.DecodeJSON(data, &meta)
	}
	if err != nil {
		p.report(pipeline.SeverityWarning, "extension-install-malformed", file,
			"cannot read the install metadata of the extension (%v); its own folder is used", err)
		return "", false
	}
	if meta.Type != "link" || meta.Source == "" {
		return "", false
	}
	src := meta.Source
	if !filepath.IsAbs(src) {
		src = filepath.Join(folder, src)
	}
	return filepath.Clean(src), true
}

// report adds a diagnostic.
func (p *planner) report(sev pipeline.Severity, code, path, format string, args ...any) {
	p.diags = append(p.diags, pipeline.Diagnostic{Severity: sev, Code: code, Provider: Label,
		Path: path, Message: fmt.Sprintf(format, args...)})
}
