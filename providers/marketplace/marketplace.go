// Package marketplace plans the skill folders of installed Claude Code
// plugins, and their command folders.
//
// It reads only Claude's plugin bookkeeping (installed_plugins.json,
// known_marketplaces.json, the settings files' enabledPlugins, and the
// plugin.json and marketplace.json manifests) and lists folders; it never
// opens a SKILL.md and never filters skills. Each enabled plugin gets a
// pipeline.Root for its install folder whose Skills list names exactly the
// skill folders its manifests declare, so that plugins sharing one install
// folder (as the anthropic-agent-skills marketplace does) are each credited
// with their own skills only. A plugin's default skills/ folder is not
// listed here: it becomes a flat root of its own, whose immediate
// sub-folders the scanner finds (and whose listing it caches between
// rescans). The install-folder root is left out when it would name no skill
// and the plugin has a skills/ folder.
//
// With the commands option (on by default), each enabled plugin also gets
// a command root for its commands/ folder, or one per path that the
// plugin's "commands" field lists (which replace commands/, as in Claude
// Code). Plugin commands are named "<plugin>:<command>".
package marketplace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Labels given to every root and diagnostic of this provider.
const (
	providerLabel = "claude"
	sourceLabel   = "marketplace"
	// maxManifestSize caps how much of one bookkeeping file is read.
	maxManifestSize = 8 << 20
)

// Names of the files and folders this provider reads.
const (
	installedPluginsFile  = "installed_plugins.json"
	knownMarketplacesFile = "known_marketplaces.json"
	pluginManifestPath    = ".claude-plugin/plugin.json"
	marketManifestPath    = ".claude-plugin/marketplace.json"
	skillFile             = "SKILL.md"
	disabledSkillFile     = ".SKILL.md"
	defaultSkillsFolder   = "skills"
	defaultCommandsFolder = "commands"
)

// Options are the keys under providers.marketplace in ccski.yaml. An empty
// value means the default. A leading "~" stands for the user folder and a
// relative path is taken from the workspace.
type Options struct {
	// PluginsFile is Claude's installed_plugins.json (default
	// <plugins root>/installed_plugins.json).
	PluginsFile string `koanf:"plugins_file"`
	// PluginsRoot is Claude's plugins folder (default <Claude config
	// folder>/plugins, where the config folder is providers.Env.ClaudeHome:
	// providers.claude.home, else $CLAUDE_CONFIG_DIR, else
	// <user dir>/.claude).
	PluginsRoot string `koanf:"plugins_root"`
	// Commands also plans the command roots of each enabled plugin
	// (default true).
	Commands bool `koanf:"commands"`
}

// Marketplace is the provider for the skills of Claude Code plugins. It is
// immutable and safe for concurrent use.
type Marketplace struct{ opts Options }

var _ providers.Provider = (*Marketplace)(nil)

// New builds the provider from its options, rejecting unknown keys.
func New(options map[string]any) (providers.Provider, error) {
	m := &Marketplace{opts: Options{Commands: true}}
	// Decode's error already names providers.marketplace and the key.
	if err := providers.Decode("marketplace", options, &m.opts); err != nil {
		return nil, err
	}
	return m, nil
}

// Name returns "marketplace", the provider's key in ccski.yaml.
func (m *Marketplace) Name() string { return "marketplace" }

// Plan returns the roots of every enabled plugin that is installed for the
// user or for one of the workspace folders, sorted by plugin key: its
// install-folder root and skills/ root (see the package comment), then its
// command roots. Problems in Claude's files become diagnostics; the only
// error is a cancelled context.
func (m *Marketplace) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	if err := ctx.Err(); err != nil {
		return providers.Plan{}, fmt.Errorf("marketplace: planning plugin skills: %w", err)
	}
	p := newPlanner(m.opts, env)
	roots, err := p.run(ctx)
	if err != nil {
		return providers.Plan{}, fmt.Errorf("marketplace: planning plugin skills: %w", err)
	}
	return providers.Plan{Roots: roots, Diagnostics: p.diags, Disabled: p.disabled}, nil
}

// planner holds the state of one Plan call.
type planner struct {
	env providers.Env
	// configDir is the Claude configuration folder, env.ClaudeDir().
	configDir   string
	pluginsRoot string
	pluginsFile string
	// explicitFile is true when the user named the plugins file, so that
	// its absence is worth a warning.
	explicitFile bool
	// workspaces are the cleaned workspace folders, nearest first.
	workspaces []string
	known      map[string]string
	markets    map[string]*marketManifest
	diags      []pipeline.Diagnostic
	// disabled lists the installed plugins enabledPlugins turns off.
	disabled []pipeline.DisabledPlugin
	// commands says whether plugin command roots are planned.
	commands bool
	// cmdSource records, per plugin key, where its command paths come
	// from; planPlugin sets it and planCommands reads it.
	cmdSource map[string]commandSource
}

// commandSource says where a plugin's commands are: the paths a manifest
// declares (relative to base, inside bound), or the default commands/
// folder of dir.
type commandSource struct {
	declared bool
	paths    []string
	manifest string
	dir      string
	bound    string
}

func newPlanner(opts Options, env providers.Env) *planner {
	p := &planner{env: env, markets: map[string]*marketManifest{}, commands: opts.Commands,
		cmdSource: map[string]commandSource{}}
	p.configDir = env.ClaudeDir()
	p.pluginsRoot = filepath.Join(p.configDir, "plugins")
	if opts.PluginsRoot != "" {
		p.pluginsRoot = p.env.ResolvePath(opts.PluginsRoot)
	}
	p.pluginsFile = filepath.Join(p.pluginsRoot, installedPluginsFile)
	if opts.PluginsFile != "" {
		p.pluginsFile, p.explicitFile = p.env.ResolvePath(opts.PluginsFile), true
	}
	dirs := env.WorkspaceDirs
	if len(dirs) == 0 && env.Workspace != "" {
		dirs = []string{env.Workspace}
	}
	for _, d := range dirs {
		if d != "" {
			p.workspaces = append(p.workspaces, filepath.Clean(d))
		}
	}
	return p
}

// run plans every plugin key in sorted order.
func (p *planner) run(ctx context.Context) ([]pipeline.Root, error) {
	installs, keys := p.loadInstalls()
	if len(keys) == 0 {
		return nil, nil
	}
	enabled := p.loadEnablement()
	p.known = p.loadKnownMarketplaces()
	var roots []pipeline.Root
	var off []install // the disabled plugins, in the order of p.disabled
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		in, ok := p.activeInstall(installs[key])
		if !ok {
			p.report(pipeline.SeverityInfo, "plugin-other-project", p.pluginsFile,
				"plugin %s is installed only for other projects; it is not loaded here", key)
			continue
		}
		if e, ok := enabled[key]; ok && !e.enabled {
			p.report(pipeline.SeverityInfo, "plugin-disabled", e.file,
				"plugin %s is disabled in %s; set enabledPlugins[%q] to true there to load its skills", key, e.file, key)
			p.disabled = append(p.disabled, pipeline.DisabledPlugin{Provider: providerLabel, Plugin: in.plugin,
				Marketplace: in.market, Settings: e.file})
			off = append(off, in)
			continue
		}
		if planned, ok := p.planPlugin(in); ok {
			roots = append(roots, planned...)
			if p.commands {
				roots = append(roots, p.planCommands(in, planned[0])...)
			}
		}
	}
	// After the enabled plugins, so that the problems of a marketplace
	// they share are reported by them (memberNames drops its own).
	for i, in := range off {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.disabled[i].Skills, p.disabled[i].Commands = p.memberNames(in)
	}
	return roots, nil
}

// report adds a diagnostic.
func (p *planner) report(sev pipeline.Severity, code, path, format string, args ...any) {
	p.diags = append(p.diags, pipeline.Diagnostic{Severity: sev, Code: code, Provider: providerLabel,
		Path: path, Message: fmt.Sprintf(format, args...)})
}

// ---------------------------------------------------------------------------
// JSON helpers

// object is a decoded JSON object whose values are decoded on demand.
type object map[string]json.RawMessage

// readObject reads file as a JSON object. It returns found=false, with no
// diagnostic, when the file does not exist. Any other problem is a warning
// with code "<kind>-unreadable", "<kind>-malformed" or "<kind>-invalid",
// and ok=false.
func (p *planner) readObject(file, kind string) (obj object, found, ok bool) {
	data, err := readLimited(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, false
	}
	if err != nil {
		hint := "check the file's permissions"
		if errors.Is(err, errNotPlainFile) {
			hint = "only plain files are read; replace it with one"
		}
		p.report(pipeline.SeverityWarning, kind+"-unreadable", file,
			"cannot read %s: %v; %s", filepath.Base(file), err, hint)
		return nil, true, false
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := syntaxError(data); err != nil {
		p.report(pipeline.SeverityWarning, kind+"-malformed", file,
			"%s is not valid JSON (%v); fix or delete the file", filepath.Base(file), err)
		return nil, true, false
	}
	obj, isObj := asObject(data)
	if !isObj {
		p.report(pipeline.SeverityWarning, kind+"-invalid", file,
			"%s must hold a JSON object at the top level; fix or delete the file", filepath.Base(file))
		return nil, true, false
	}
	return obj, true, true
}

// errNotPlainFile is wrapped by readLimited's error for a folder, FIFO,
// device or socket.
var errNotPlainFile = errors.New("not a regular file")

// readLimited reads file, refusing folders and files over
// maxManifestSize bytes. It never blocks: the file is opened without
// waiting (a FIFO would otherwise wait for a writer while the engine's lock
// is held) and anything but a regular file is refused, not read.
func readLimited(file string) ([]byte, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case st.IsDir():
		return nil, fmt.Errorf("it is a folder, %w", errNotPlainFile)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("it is a %s, %w", specialKind(st.Mode()), errNotPlainFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxManifestSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	if len(data) > maxManifestSize {
		return nil, fmt.Errorf("it is larger than %d bytes", maxManifestSize)
	}
	return data, nil
}

// specialKind names the type of a file that is neither a folder nor a
// regular file.
func specialKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return fmt.Sprintf("special file (%v)", m.Type())
}

// syntaxError returns nil when data is one valid JSON value, otherwise a
// description of the first syntax error with its byte offset.
func syntaxError(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s at byte %d", se.Error(), se.Offset)
	}
	return err
}

// asObject decodes raw as a JSON object; null and other types are not
// objects.
func asObject(raw json.RawMessage) (object, bool) {
	var obj object
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, false
	}
	return obj, true
}

// stringField returns the string at key. present is false when the key is
// absent or null; ok is false when it is present but not a string.
func (o object) stringField(key string) (s string, present, ok bool) {
	raw, exists := o[key]
	if !exists || string(raw) == "null" {
		return "", false, true
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, false
	}
	return s, true, true
}

// str returns the string at key, or "" when it is absent or not a string.
func (o object) str(key string) string {
	s, _, _ := o.stringField(key)
	return s
}

// stringList decodes a path list given as one string or an array of
// strings. present is false when the key is absent or null.
func (o object) stringList(key string) (list []string, present, ok bool) {
	raw, exists := o[key]
	if !exists || string(raw) == "null" {
		return nil, false, true
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, true, true
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, true, false
	}
	return list, true, true
}

// sortedKeys returns the keys of o in sorted order, for deterministic
// diagnostics.
func (o object) sortedKeys() []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ---------------------------------------------------------------------------
// installed_plugins.json

// install is one install record of a plugin.
type install struct {
	key         string // "plugin@marketplace"
	plugin      string
	market      string
	path        string // cleaned absolute install folder
	version     string
	scope       string
	projectPath string
}

// loadInstalls reads installed_plugins.json in either shape and returns the
// valid install records by plugin key, with the keys sorted.
func (p *planner) loadInstalls() (map[string][]install, []string) {
	file := p.pluginsFile
	root, found, ok := p.readObject(file, "installed-plugins")
	if !found {
		sev := pipeline.SeverityInfo
		if p.explicitFile {
			sev = pipeline.SeverityWarning
		}
		p.report(sev, "installed-plugins-missing", file,
			"no Claude plugins are installed (file not found); install plugins with /plugin in Claude Code")
		return nil, nil
	}
	if !ok {
		return nil, nil
	}
	plugins, isObj := asObject(root["plugins"])
	if !isObj {
		p.report(pipeline.SeverityWarning, "installed-plugins-invalid", file,
			`key "plugins" is missing or not an object; no plugin can be loaded: reinstall your plugins or fix the file`)
		return nil, nil
	}
	installs := map[string][]install{}
	var keys []string
	for _, key := range plugins.sortedKeys() {
		plugin, market, valid := splitKey(key)
		if !valid {
			p.report(pipeline.SeverityWarning, "plugin-key-invalid", file,
				`plugin key %q is not of the form "plugin@marketplace"; entry skipped`, key)
			continue
		}
		for _, rec := range p.installRecords(file, key, plugins[key]) {
			rec.key, rec.plugin, rec.market = key, plugin, market
			installs[key] = append(installs[key], rec)
		}
		if len(installs[key]) > 0 {
			keys = append(keys, key)
		}
	}
	return installs, keys
}

// splitKey splits "plugin@marketplace" on the last "@".
func splitKey(key string) (plugin, market string, ok bool) {
	i := strings.LastIndexByte(key, '@')
	if i <= 0 || i == len(key)-1 {
		return "", "", false
	}
	return key[:i], key[i+1:], true
}

// installRecords decodes the value of one plugin key: an object (v1) or an
// array of objects (v2).
func (p *planner) installRecords(file, key string, raw json.RawMessage) []install {
	entries := []json.RawMessage{raw}
	var list []json.RawMessage
	isArray := string(raw) != "null" && json.Unmarshal(raw, &list) == nil
	if isArray {
		entries = list
	}
	var out []install
	for i, e := range entries {
		where := fmt.Sprintf("%q", key)
		if isArray {
			where = fmt.Sprintf("%q (install %d)", key, i+1)
		}
		obj, ok := asObject(e)
		if !ok {
			p.report(pipeline.SeverityWarning, "plugin-entry-invalid", file,
				"install record of plugin %s is not an object; skipped: reinstall the plugin", where)
			continue
		}
		path := obj.str("installPath")
		if strings.TrimSpace(path) == "" {
			p.report(pipeline.SeverityWarning, "plugin-install-path-missing", file,
				"install record of plugin %s has no installPath string; skipped: reinstall the plugin", where)
			continue
		}
		out = append(out, install{
			path:        resolve(p.pluginsRoot, path),
			version:     obj.str("version"),
			scope:       obj.str("scope"),
			projectPath: obj.str("projectPath"),
		})
	}
	return out
}

// activeInstall picks the install that applies to the workspace: a project
// or local install for the nearest workspace folder (local before project
// in the same folder), else a user install. Project and local installs for
// other folders never apply. Ties keep the file order.
func (p *planner) activeInstall(installs []install) (install, bool) {
	const userRank = 1 << 30
	best, bestRank := -1, userRank+1
	for i, in := range installs {
		rank := userRank
		if in.scope == "project" || in.scope == "local" {
			d := p.workspaceIndex(in.projectPath)
			if d < 0 {
				continue
			}
			rank = 2 * d
			if in.scope == "project" {
				rank++
			}
		}
		if rank < bestRank {
			best, bestRank = i, rank
		}
	}
	if best < 0 {
		return install{}, false
	}
	return installs[best], true
}

// workspaceIndex returns the index in the workspace list of the folder
// path names, or -1.
func (p *planner) workspaceIndex(path string) int {
	if path == "" || !filepath.IsAbs(path) {
		return -1
	}
	for i, ws := range p.workspaces {
		if samePath(ws, path) {
			return i
		}
	}
	return -1
}

// samePath reports whether a and b name the same folder, lexically or
// after resolving symlinks.
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// ---------------------------------------------------------------------------
// enabledPlugins

// enablement is the last enabledPlugins value seen for a plugin.
type enablement struct {
	enabled bool
	file    string
}

// settingsFiles lists the settings files in override order: user, then
// each workspace folder from the farthest to the nearest, project file
// before local file.
func (p *planner) settingsFiles() []string {
	files := []string{filepath.Join(p.configDir, "settings.json")}
	for _, ws := range slices.Backward(p.workspaces) {
		files = append(files,
			filepath.Join(ws, ".claude", "settings.json"),
			filepath.Join(ws, ".claude", "settings.local.json"))
	}
	return files
}

// loadEnablement merges enabledPlugins from every settings file; later
// files override earlier ones.
func (p *planner) loadEnablement() map[string]enablement {
	out := map[string]enablement{}
	seen := map[string]bool{}
	for _, file := range p.settingsFiles() {
		if seen[file] {
			continue
		}
		seen[file] = true
		p.mergeEnabled(file, out)
	}
	return out
}

func (p *planner) mergeEnabled(file string, out map[string]enablement) {
	settings, _, ok := p.readObject(file, "settings")
	if !ok {
		return
	}
	raw, present := settings["enabledPlugins"]
	if !present || string(raw) == "null" {
		return
	}
	plugins, isObj := asObject(raw)
	if !isObj {
		p.report(pipeline.SeverityWarning, "settings-invalid", file,
			`"enabledPlugins" must be an object of "plugin@marketplace": true|false; ignored`)
		return
	}
	for _, key := range plugins.sortedKeys() {
		var on bool
		if err := json.Unmarshal(plugins[key], &on); err != nil {
			p.report(pipeline.SeverityWarning, "settings-invalid", file,
				"enabledPlugins[%q] must be true or false; ignored", key)
			continue
		}
		out[key] = enablement{enabled: on, file: file}
	}
}

// ---------------------------------------------------------------------------
// known_marketplaces.json and marketplace.json

// loadKnownMarketplaces maps marketplace names to their folders as given
// by installLocation.
func (p *planner) loadKnownMarketplaces() map[string]string {
	file := filepath.Join(p.pluginsRoot, knownMarketplacesFile)
	root, _, ok := p.readObject(file, "known-marketplaces")
	if !ok {
		return nil
	}
	out := map[string]string{}
	for _, name := range root.sortedKeys() {
		entry, isObj := asObject(root[name])
		if !isObj {
			p.report(pipeline.SeverityWarning, "known-marketplaces-invalid", file,
				"marketplace %q is not an object; its default folder is used", name)
			continue
		}
		loc, present, isStr := entry.stringField("installLocation")
		if present && !isStr {
			p.report(pipeline.SeverityWarning, "known-marketplaces-invalid", file,
				"installLocation of marketplace %q is not a string; its default folder is used", name)
			continue
		}
		if loc != "" {
			out[name] = resolve(p.pluginsRoot, loc)
		}
	}
	return out
}

// marketFolder returns the folder a marketplace is cloned into.
func (p *planner) marketFolder(name string) string {
	if dir, ok := p.known[name]; ok {
		return dir
	}
	return filepath.Join(p.pluginsRoot, "marketplaces", name)
}

// marketManifest is a parsed .claude-plugin/marketplace.json.
type marketManifest struct {
	dir        string
	file       string
	pluginRoot string
	entries    map[string]*marketEntry
}

// marketEntry is one plugin entry of a marketplace.json.
type marketEntry struct {
	// source is the entry's relative source path; sourceIsPath is false
	// for object (remote) sources, whose plugin lives in the install path.
	source       string
	sourceIsPath bool
	skills       []string
	hasSkills    bool
	commands     []string
	hasCommands  bool
	strict       bool
	version      string
}

// marketplace returns the parsed manifest of a marketplace, reading it
// once per Plan. A missing or unusable manifest yields no entries.
func (p *planner) marketplace(name string) *marketManifest {
	if m, ok := p.markets[name]; ok {
		return m
	}
	dir := p.marketFolder(name)
	m := &marketManifest{dir: dir, file: filepath.Join(dir, filepath.FromSlash(marketManifestPath)),
		entries: map[string]*marketEntry{}}
	p.markets[name] = m
	root, _, ok := p.readObject(m.file, "marketplace-manifest")
	if !ok {
		return m
	}
	if meta, isObj := asObject(root["metadata"]); isObj {
		m.pluginRoot = meta.str("pluginRoot")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(root["plugins"], &list); err != nil {
		p.report(pipeline.SeverityWarning, "marketplace-manifest-invalid", m.file,
			`key "plugins" is missing or not an array; its plugins are read from their install folders`)
		return m
	}
	for i, raw := range list {
		p.addMarketEntry(m, i, raw)
	}
	return m
}

// addMarketEntry decodes plugins[i] of a marketplace.json; the first entry
// with a given name wins.
func (p *planner) addMarketEntry(m *marketManifest, i int, raw json.RawMessage) {
	obj, isObj := asObject(raw)
	name := ""
	if isObj {
		name = obj.str("name")
	}
	if name == "" {
		p.report(pipeline.SeverityWarning, "marketplace-manifest-invalid", m.file,
			"plugins[%d] is not an object with a \"name\" string; entry skipped", i)
		return
	}
	if _, dup := m.entries[name]; dup {
		return
	}
	e := &marketEntry{strict: true, version: obj.str("version")}
	var strict bool
	if raw, ok := obj["strict"]; ok && json.Unmarshal(raw, &strict) == nil {
		e.strict = strict
	}
	// A string source is a path in the marketplace; an object source is
	// remote and its copy lives in the install folder.
	src, present, isStr := obj.stringField("source")
	e.source, e.sourceIsPath = src, present && isStr
	skills, present, ok := obj.stringList("skills")
	switch {
	case !ok:
		p.report(pipeline.SeverityWarning, "marketplace-manifest-invalid", m.file,
			"\"skills\" of plugin %q must be a path or an array of paths; ignored", name)
	case present:
		e.skills, e.hasSkills = skills, true
	}
	cmds, present, ok := obj.stringList("commands")
	switch {
	case !ok:
		p.report(pipeline.SeverityWarning, "marketplace-manifest-invalid", m.file,
			"\"commands\" of plugin %q must be a path or an array of paths; ignored", name)
	case present:
		e.commands, e.hasCommands = cmds, true
	}
	m.entries[name] = e
}

// sourceDir resolves a path source of an entry inside the marketplace
// folder; bare names go under metadata.pluginRoot.
func (m *marketManifest) sourceDir(e *marketEntry) string {
	src := filepath.FromSlash(e.source)
	bare := !filepath.IsAbs(src) && !strings.HasPrefix(e.source, "./") && !strings.HasPrefix(e.source, "../") &&
		e.source != "." && e.source != ".."
	if bare && m.pluginRoot != "" {
		return filepath.Join(m.dir, filepath.FromSlash(m.pluginRoot), src)
	}
	return resolve(m.dir, src)
}

// ---------------------------------------------------------------------------
// plugin.json

// pluginManifest is the part of a plugin.json this provider uses.
type pluginManifest struct {
	file        string
	name        string
	version     string
	skills      []string
	hasSkills   bool
	commands    []string
	hasCommands bool
}

// readPluginManifest reads <dir>/.claude-plugin/plugin.json. ok is false
// when the file is absent or unusable (the latter with a warning).
func (p *planner) readPluginManifest(key, dir string) (pluginManifest, bool) {
	file := filepath.Join(dir, filepath.FromSlash(pluginManifestPath))
	obj, _, ok := p.readObject(file, "plugin-manifest")
	if !ok {
		return pluginManifest{}, false
	}
	m := pluginManifest{file: file, name: obj.str("name"), version: obj.str("version")}
	skills, present, valid := obj.stringList("skills")
	if !valid {
		p.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
			"\"skills\" of plugin %s must be a path or an array of paths; only skills/ is used", key)
	} else if present {
		m.skills, m.hasSkills = skills, true
	}
	cmds, present, valid := obj.stringList("commands")
	if !valid {
		p.report(pipeline.SeverityWarning, "plugin-manifest-invalid", file,
			"\"commands\" of plugin %s must be a path or an array of paths; only commands/ is used", key)
	} else if present {
		m.commands, m.hasCommands = cmds, true
	}
	return m, true
}

// ---------------------------------------------------------------------------
// Crediting skill folders to a plugin

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
	version := ""
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
	return layout{dir: dir, skills: skills, cmds: cmds, version: version}, true
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
		if within(market.dir, src) {
			dir = src
		} else {
			p.report(pipeline.SeverityWarning, "plugin-source-outside-marketplace", market.file,
				"source %q of plugin %s leaves the marketplace folder; the install folder is used instead",
				entry.source, in.key)
		}
	}
	if within(market.dir, dir) {
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
	if !within(src.bound, path) {
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
	if base := filepath.Base(rel); base == skillFile || base == disabledSkillFile {
		rel = filepath.Dir(rel)
	}
	if rel == "" || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		p.report(pipeline.SeverityWarning, "skill-path-invalid", manifest,
			"plugin %s declares skill path %q; paths must be relative to the plugin folder, like \"./skills/x\"",
			in.key, decl)
		return "", false
	}
	dir := filepath.Join(base, rel)
	if !within(bound, dir) {
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
	for _, name := range []string{skillFile, disabledSkillFile} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// Small helpers

// resolve returns path cleaned, joined to base when relative.
func resolve(base, path string) string {
	path = filepath.FromSlash(path)
	if filepath.IsAbs(path) || base == "" {
		return filepath.Clean(path)
	}
	return filepath.Join(base, path)
}

// within reports whether path is bound or lies below it, lexically.
func within(bound, path string) bool {
	rel, err := filepath.Rel(bound, path)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func entryVersion(e *marketEntry) string {
	if e == nil {
		return ""
	}
	return e.version
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
