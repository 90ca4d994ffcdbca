package configs

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/suggest"
	"github.com/ccski/ccski/internal/userdirs"
	"github.com/ccski/ccski/providers"
)

// ProjectFile is the name of the project config file.
const ProjectFile = "ccski.yaml"

// Options tell Load where to look. The zero value loads the real
// environment of the process for the current directory.
type Options struct {
	// ConfigFile replaces the search for the project ccski.yaml (it is
	// the --config flag). It must exist. A relative path is taken
	// relative to Workspace. When empty, a changed "config" flag in Flags
	// is used instead. It is a project config like the one it replaces:
	// its sensitive keys are held to their trust levels.
	ConfigFile string
	// ManagedFile is the managed config, which an administrator writes
	// for every user of the machine; a missing file is no layer. Empty
	// means the system's (/etc/ccski/config.yaml on Linux, see
	// managedPath).
	ManagedFile string
	// Workspace is the folder Load works from: the project ccski.yaml is
	// searched from here upward (unless a workspace key is set by a flag
	// or a CCSKI_ variable, which then takes over), and relative paths in
	// flags and variables are taken relative to it. Empty means the
	// current directory. Load does not copy it into Config.Workspace.
	Workspace string
	// Home is the home folder, used for "~/" and the user config. Empty
	// means $HOME (read through Getenv), else os.UserHomeDir.
	Home string
	// Getenv reads one variable (XDG_CONFIG_HOME, HOME). Nil means
	// os.Getenv, or a lookup in Environ when Environ is set.
	Getenv func(string) string
	// Environ lists the variables as "NAME=value" entries; the CCSKI_
	// ones form the environment layer. Nil means os.Environ when Getenv
	// is nil too. When only Getenv is set, the variable of every known
	// key is probed through it instead, so unknown CCSKI_ variables
	// cannot be detected and empty values count as unset.
	Environ func() []string
	// Flags is the parsed flag set holding the flags of AddFlags and
	// AddMCPFlags. Only flags the user changed count; flags that map to
	// no key (help, json, no-color, ...) are ignored. May be nil.
	Flags *pflag.FlagSet
	// Registry is the provider registry (providers/all.Registry() for
	// the built-in providers): the declarations each provider's section is
	// checked and decoded against. A provider it does not hold is an
	// unknown provider; nil holds none.
	Registry []providers.Entry
}

// Loaded is the result of Load.
type Loaded struct {
	// Config is the effective configuration.
	Config Config
	// Sources maps every flattened key ("mcp.port",
	// "providers.codex.home") to the label of the layer that set it last:
	// "default", "user config /path", "project config /path",
	// "env CCSKI_X" or "flag --x".
	Sources map[string]string
	// Files are the config files read, lowest layer first.
	Files []string
	// Ignored lists the values of config files that Load did not take
	// as written because the key's trust level does not let that file
	// loosen it (see Ignored), in layer and key order.
	Ignored []Ignored
	// ManagedSigning says that the managed config sets a signature rule
	// (policy.required_signers, policy.allow_unsigned: false,
	// mcp.require_signed: true, or a signing key): the signing keys then
	// come from the managed config alone (its values, else the built-in
	// ones), and the trusted root `ccski trust-root update` wrote is read
	// only from the state folder no variable moves (see
	// internal/action's Config.RootStateDir).
	ManagedSigning bool
}

// managedSigning reports whether the managed config's values m set a
// signature rule (see Loaded.ManagedSigning).
func managedSigning(m map[string]any) bool {
	if _, ok := m["signing"]; ok {
		return true
	}
	if v, _ := lookupValue(m, "mcp.require_signed"); v == true {
		return true
	}
	if v, ok := lookupValue(m, "policy.allow_unsigned"); ok && v == false {
		return true
	}
	v, _ := lookupValue(m, "policy.required_signers")
	signers, _ := plain(v).([]string)
	return len(signers) > 0
}

// heldError is the error of a variable or flag that would loosen a key
// the managed config file holds.
func heldError(ig Ignored, file string) error {
	what, undo := "a variable", "unset "+strings.TrimPrefix(ig.Layer, "env ")
	if strings.HasPrefix(ig.Layer, "flag ") {
		what, undo = "a flag", "drop "+strings.TrimPrefix(ig.Layer, "flag ")
	}
	because := "sets it"
	if strings.HasPrefix(ig.Key, "signing.") {
		because = "sets a signature rule, and the signing keys then come from it alone"
	}
	stays := fmt.Sprintf("it stays %v", ig.Used)
	if empty(ig.Used) {
		stays = "it stays unset"
	}
	return fmt.Errorf("configs: %s: %s: the managed config %s %s, and %s may not loosen it (%s): %s, "+
		"or ask an administrator to change the managed config", ig.Layer, ig.Key, file, because, what, stays, undo)
}

// Load builds the effective configuration from the built-in defaults, the
// managed config, the user config, the project config, CCSKI_ variables
// and flags, in that order (see the package documentation). Every layer is
// validated on its own: unknown keys, wrong types and invalid values are
// errors that name the layer, the key and, where one is close, the valid
// key meant. A project config's value of a sensitive key, and a user
// config's of a sensitive key the managed config sets, is held to the
// key's trust level: one that would loosen it is ignored, or cut down to
// its stricter part, and listed in Loaded.Ignored.
func Load(o Options) (*Loaded, error) { return load(o, registry{providers: o.Registry}) }

// load is Load with the providers of reg.
func load(o Options, reg registry) (*Loaded, error) {
	defaults := defaults(reg)
	sp, err := newSpec(reg)
	if err != nil {
		return nil, err
	}
	l, err := newLoader(o, sp)
	if err != nil {
		return nil, err
	}

	def := &layer{data: defaultMap(defaults), labels: map[string]string{}}
	for _, k := range flatKeys(def.data, "") {
		def.labels[k] = "default"
	}

	// Variables and flags come first: they may move the workspace, which
	// decides where the project config is searched.
	envL, err := l.envLayer()
	if err != nil {
		return nil, err
	}
	flagL, all, err := l.flagLayer(o.Flags)
	if err != nil {
		return nil, err
	}

	res := &Loaded{Sources: map[string]string{}}
	layers := []*layer{def}

	managedFile := o.ManagedFile
	if managedFile == "" {
		managedFile = cmp.Or(testManagedFile(l.getenv), managedPath(runtime.GOOS, l.getenv))
	}
	ml, err := l.fileLayer(managedFile, "managed config "+managedFile, true)
	if err != nil {
		return nil, err
	}
	builtin := func(key string) any { v, _ := lookupValue(def.data, key); return v }
	// managedBound holds a key to the managed config: the keys it sets,
	// and every signing key once it sets a signature rule.
	var managedBound func(key string) (bounds, bool)
	if ml != nil {
		layers = append(layers, ml)
		res.Files = append(res.Files, managedFile)
		res.ManagedSigning = managedSigning(ml.data)
		managedBound = func(key string) (bounds, bool) {
			if v, ok := lookupValue(ml.data, key); ok {
				return bounds{base: v, set: true, builtin: builtin(key)}, true
			}
			if res.ManagedSigning && strings.HasPrefix(key, "signing.") {
				return bounds{base: builtin(key), set: true, builtin: builtin(key)}, true
			}
			return bounds{}, false
		}
		// Variables and flags are held to the managed config as the
		// user config is: one that would loosen a key it holds is an
		// error naming the variable or flag, never a silent override.
		for _, ly := range []*layer{envL, flagL} {
			if ig := l.confine(ly, "a variable or a flag", managedBound); len(ig) > 0 {
				return nil, heldError(ig[0], managedFile)
			}
		}
	}

	var ul *layer
	if p := l.userConfigPath(); p != "" {
		if ul, err = l.fileLayer(p, "user config "+p, true); err != nil {
			return nil, err
		}
		if ul != nil {
			layers = append(layers, ul)
			res.Files = append(res.Files, p)
		}
	}

	projectPath, err := l.projectConfigPath(o, envL, flagL)
	if err != nil {
		return nil, err
	}
	var pl *layer
	if projectPath != "" {
		if pl, err = l.fileLayer(projectPath, "project config "+projectPath, false); err != nil {
			return nil, err
		}
		layers = append(layers, pl)
		res.Files = append(res.Files, projectPath)
	}
	layers = append(layers, envL, flagL)

	merged := koanf.New(".")
	fromFile := map[string]bool{} // the keys a config file set last
	for _, ly := range layers {
		switch {
		case ly == ul && ml != nil:
			// Under a managed config, the user config may only make
			// the sensitive keys it sets stricter.
			res.Ignored = append(res.Ignored, l.confine(ly, "a user config, where a managed config sets it,", managedBound)...)
		case ly == pl:
			// A project config may only make the sensitive keys
			// stricter than every layer below it left them.
			root := projectRoot(projectPath, l.home)
			res.Ignored = append(res.Ignored, l.confine(ly, "a project config", func(key string) (bounds, bool) {
				return bounds{base: merged.Get(key), set: res.Sources[key] != "default", root: root, builtin: builtin(key)}, true
			})...)
		}
		if err := merged.Load(confmap.Provider(ly.data, ""), nil); err != nil {
			return nil, fmt.Errorf("configs: merge: %w", err)
		}
		maps.Copy(res.Sources, ly.labels)
		for k := range ly.labels {
			fromFile[k] = ly.file
		}
	}
	// A value a variable or a flag overrides was not ignored for its
	// trust level: it would not have counted anyway.
	res.Ignored = slices.DeleteFunc(res.Ignored, func(ig Ignored) bool {
		_, env := envL.labels[ig.Key]
		_, flag := flagL.labels[ig.Key]
		return env || flag
	})

	// --all shows every state, and every skill unless a layer chose what
	// to include.
	if all && res.Sources["include"] == "default" {
		if err := merged.Load(confmap.Provider(map[string]any{"include": []string{"all"}}, ""), nil); err != nil {
			return nil, fmt.Errorf("configs: merge: %w", err)
		}
		res.Sources["include"] = "flag --all"
	}

	// The providers' sections are decoded into their options structs,
	// the rest into Config.
	sections, _ := merged.Get("providers").(map[string]any)
	merged.Delete("providers")
	if err := merged.UnmarshalWithConf("", &res.Config, koanf.UnmarshalConf{
		Tag:           "koanf",
		DecoderConfig: decoderConfig(&res.Config, true),
	}); err != nil {
		return nil, fmt.Errorf("configs: decode: %w", err)
	}
	if res.Config.Providers, err = reg.decodeProviders(sections); err != nil {
		return nil, err
	}
	res.Config.Registry = reg.providers
	res.Config.IncludeFromFile, res.Config.ExcludeFromFile = fromFile["include"], fromFile["exclude"]
	return res, nil
}

// decoderConfig is the strict mapstructure configuration. A custom
// DecoderConfig replaces koanf's own, so the hooks and weak typing (for
// strings from variables) are set here.
func decoderConfig(result any, strict bool) *mapstructure.DecoderConfig {
	return &mapstructure.DecoderConfig{
		DecodeHook: mapstructure.ComposeDecodeHookFunc(
			MillisecondsHook,
			mapstructure.StringToTimeDurationHookFunc(),
			mapstructure.StringToSliceHookFunc(","),
			mapstructure.TextUnmarshallerHookFunc()),
		WeaklyTypedInput: true,
		ErrorUnused:      strict,
		TagName:          "koanf",
		Result:           result,
	}
}

// MillisecondsHook is a mapstructure decode hook that reads a plain number
// as milliseconds when decoding into a time.Duration: 10000, "10000" and
// 10000.0 all give 10s. Other strings are left for
// mapstructure.StringToTimeDurationHookFunc ("10s", "1m30s").
func MillisecondsHook(from, to reflect.Type, data any) (any, error) {
	durationType := reflect.TypeFor[time.Duration]()
	if to != durationType || from == durationType {
		return data, nil
	}
	v := reflect.ValueOf(data)
	switch v.Kind() {
	case reflect.String:
		n, err := strconv.ParseInt(strings.TrimSpace(v.String()), 10, 64)
		if err != nil {
			return data, nil
		}
		return time.Duration(n) * time.Millisecond, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return time.Duration(v.Int()) * time.Millisecond, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return time.Duration(v.Uint()) * time.Millisecond, nil
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if f != float64(int64(f)) {
			return nil, fmt.Errorf("%v is not a whole number of milliseconds", f)
		}
		return time.Duration(f) * time.Millisecond, nil
	}
	return data, nil
}

// layer is one validated layer: its values, converted to their final types
// with paths resolved, and the label of each flattened key it sets.
type layer struct {
	data   map[string]any
	labels map[string]string
	// file marks the layer of a config file.
	file bool
}

// source tells the validator where a layer's values come from.
type source struct {
	// label names the layer that set a flattened key.
	label func(key string) string
	// base is the folder relative paths are resolved against.
	base string
	// env makes suggestions name variables instead of keys.
	env bool
	// envKey is the whole key of the variable being read, when env.
	envKey string
}

// loader holds what Load works out from Options.
type loader struct {
	spec    *spec
	cwd     string
	home    string
	getenv  func(string) string
	environ func() []string
}

func newLoader(o Options, sp *spec) (*loader, error) {
	l := &loader{spec: sp, getenv: o.Getenv, environ: o.Environ}
	switch {
	case l.getenv == nil && l.environ != nil:
		environ := l.environ
		l.getenv = func(name string) string {
			for _, kv := range environ() {
				if k, v, ok := strings.Cut(kv, "="); ok && k == name {
					return v
				}
			}
			return ""
		}
	case l.getenv == nil:
		l.getenv, l.environ = os.Getenv, os.Environ
	case l.environ == nil:
		l.environ = l.probeEnviron
	}

	l.cwd = o.Workspace
	if l.cwd == "" || !filepath.IsAbs(l.cwd) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("configs: current folder: %w", err)
		}
		l.cwd = filepath.Join(wd, l.cwd)
	}
	l.cwd = filepath.Clean(l.cwd)

	l.home = o.Home
	if l.home == "" {
		l.home = l.getenv("HOME")
	}
	if l.home == "" {
		l.home, _ = os.UserHomeDir() // only needed for "~/" and the user config
	}
	return l, nil
}

// probeEnviron lists the variables of every known key, read through
// Getenv.
func (l *loader) probeEnviron() []string {
	var out []string
	for _, name := range append(l.envNames(), envAuthToken) {
		if v := l.getenv(name); v != "" {
			out = append(out, name+"="+v)
		}
	}
	return out
}

// envNames lists the variable of every key.
func (l *loader) envNames() []string {
	names := make([]string, len(l.spec.leaves))
	for i, k := range l.spec.leaves {
		names[i] = envName(k)
	}
	return names
}

// userConfigPath is config.yaml in ccski's user config folder
// (userdirs.ConfigDir), or "" when that is not known.
func (l *loader) userConfigPath() string {
	dir, err := userdirs.ConfigDir(l.home, l.getenv)
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "config.yaml")
}

// projectConfigPath is the --config file, or the nearest ccski.yaml from
// the workspace up to the repository root, or "".
func (l *loader) projectConfigPath(o Options, envL, flagL *layer) (string, error) {
	file := o.ConfigFile
	if file == "" && o.Flags != nil {
		if f := o.Flags.Lookup("config"); f != nil && f.Changed {
			file = f.Value.String()
		}
	}
	if file != "" {
		p, err := l.resolvePath(file, l.cwd)
		if err != nil {
			return "", fmt.Errorf("configs: --config %s: %w", file, err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("configs: --config %s: %w", file, err)
		}
		if fi.IsDir() {
			return "", fmt.Errorf("configs: --config %s: is a folder, not a file", file)
		}
		return p, nil
	}

	start := l.cwd
	for _, ly := range []*layer{envL, flagL} {
		if ws, _ := ly.data["workspace"].(string); ws != "" {
			start = ws
		}
	}
	p, err := findProjectFile(start, l.home)
	if err != nil {
		return "", fmt.Errorf("configs: searching %s: %w", ProjectFile, err)
	}
	return p, nil
}

// ProjectRoot returns the folder of start's project: the folder of the
// ccski.yaml the loader reads for start, else the repository root start is
// in (never the home folder's own repository, as for the config); ok is
// false when there is neither, and start is in no project (a project lock
// would have no project to live in).
func ProjectRoot(start, home string) (root string, ok bool) {
	start = filepath.Clean(start)
	if p, err := findProjectFile(start, home); err == nil && p != "" {
		return filepath.Dir(p), true
	}
	if repo := repoRoot(start, home); repo != "" {
		return repo, true
	}
	return start, false
}

// findProjectFile returns the nearest ccski.yaml in dir or its ancestors,
// stopping at the repository root (the first ancestor holding a .git
// entry). Outside a repository only dir itself is looked at. It returns ""
// when there is none.
func findProjectFile(dir, home string) (string, error) {
	root := repoRoot(dir, home)
	for {
		p := filepath.Join(dir, ProjectFile)
		fi, err := os.Stat(p)
		switch {
		case err == nil && !fi.IsDir():
			return p, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return "", err
		}
		parent := filepath.Dir(dir)
		if root == "" || dir == root || parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// repoRoot returns the first of dir and its ancestors that holds a .git
// entry (a folder, or a file for worktrees), or "" outside a repository.
func repoRoot(dir, home string) string {
	home = filepath.Clean(home)
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		// Like discovery, never climb to the home folder: a repository
		// there (dotfiles) would make ~/ccski.yaml every folder's project
		// config.
		if parent == dir || (home != "." && parent == home) {
			return ""
		}
		dir = parent
	}
}

// testManagedFile names the managed config the integration tests give the
// binary ("" in every other build: see managed_ccskihold.go).
var testManagedFile = func(getenv func(string) string) string { return "" }

// maxConfigFile caps the size of a config file: far above any real one.
const maxConfigFile = 4 << 20

// fileLayer reads and validates one config file. A missing file is no
// layer when optional.
func (l *loader) fileLayer(path, label string, optional bool) (*layer, error) {
	// A config file sits in a folder ccski does not control: never block
	// on a FIFO, and refuse anything but a regular file of sane size.
	b, err := safefile.Read(path, maxConfigFile)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("configs: %s: %w", label, err)
	}
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider(b), yaml.Parser()); err != nil {
		return nil, fmt.Errorf("configs: %s: %w", label, err)
	}
	ly := &layer{data: map[string]any{}, labels: map[string]string{}, file: true}
	src := source{label: func(string) string { return label }, base: filepath.Dir(path)}
	if err := l.walk(l.spec.root, "", k.Raw(), ly, src); err != nil {
		return nil, err
	}
	return ly, nil
}

// envLayer reads the CCSKI_ variables. Each variable is validated on its
// own, so that errors name it.
func (l *loader) envLayer() (*layer, error) {
	// With no transform and no delimiter the provider returns the
	// variables by name.
	p := env.Provider("", env.Opt{Prefix: envPrefix, EnvironFunc: l.environ})
	vars, err := p.Read()
	if err != nil {
		return nil, fmt.Errorf("configs: environment: %w", err)
	}
	names := slices.Sorted(maps.Keys(vars))
	ly := &layer{data: map[string]any{}, labels: map[string]string{}}
	for _, name := range names {
		if name == envAuthToken {
			if _, ok := vars[envName("mcp.auth_token")]; ok {
				continue // the full name wins over the short one
			}
		}
		if strings.HasPrefix(name, envHTTPTokenPrefix) {
			return nil, fmt.Errorf("configs: env %s: per-host token variables are retired (two hosts could share one "+
				"name): set %s to \"<origin>=<token>\" entries instead, such as https://skills.example.com=<token>",
				name, envName("http.tokens"))
		}
		key := envKey(name)
		label := "env " + name
		if key == "policy" || strings.HasPrefix(key, "policy.") {
			return nil, fmt.Errorf("configs: %s: the policy is read from the managed and user config files only, "+
				"never from a variable: unset %s and write the key in the user config (or ask an administrator "+
				"to write it in the managed config)", label, name)
		}
		src := source{label: func(string) string { return label }, base: l.cwd, env: true, envKey: key}
		if key == "" || strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") || strings.Contains(key, "..") {
			return nil, fmt.Errorf("configs: %s: malformed variable name%s", label, l.suggest(src, l.spec.closestKey(key)))
		}
		if err := l.walk(l.spec.root, "", nest(key, vars[name]), ly, src); err != nil {
			return nil, err
		}
	}
	return ly, nil
}

// nest turns a flattened key and its value into a nested map.
func nest(key string, v any) map[string]any {
	parts := strings.Split(key, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		v = map[string]any{parts[i]: v}
	}
	return v.(map[string]any)
}

// flagLayer reads the changed flags of fs that map to a key. all reports
// that --all was given.
func (l *loader) flagLayer(fs *pflag.FlagSet) (ly *layer, all bool, err error) {
	ly = &layer{data: map[string]any{}, labels: map[string]string{}}
	if fs == nil {
		return ly, false, nil
	}
	byKey := map[string]string{} // key -> flag that set it
	var conflict error
	p := posflag.ProviderWithFlag(fs, ".", nil, func(f *pflag.Flag) (string, any) {
		if _, own := f.Annotations[CommandFlag]; !f.Changed || own {
			return "", nil
		}
		key, val := flagValue(fs, f)
		if key == "" {
			return "", nil
		}
		if f.Name == "all" {
			all = true
		}
		if prev, ok := byKey[key]; ok && conflict == nil {
			conflict = fmt.Errorf("configs: flag --%s: cannot be combined with --%s", f.Name, prev)
		}
		byKey[key] = f.Name
		return key, val
	})
	raw, err := p.Read()
	if err != nil {
		return nil, false, fmt.Errorf("configs: flags: %w", err)
	}
	if conflict != nil {
		return nil, false, conflict
	}
	src := source{label: func(key string) string { return "flag --" + byKey[key] }, base: l.cwd}
	if err := l.walk(l.spec.root, "", raw, ly, src); err != nil {
		return nil, false, err
	}
	return ly, all, nil
}

// walk validates raw, the keys below the section n at prefix, and stores
// the converted values and their labels in ly.
func (l *loader) walk(n *node, prefix string, raw map[string]any, ly *layer, src source) error {
	out := ly.data
	if prefix != "" {
		for part := range strings.SplitSeq(prefix, ".") {
			sub, ok := out[part].(map[string]any)
			if !ok {
				sub = map[string]any{}
				out[part] = sub
			}
			out = sub
		}
	}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		v := raw[name]
		key := join(prefix, name)
		child, ok := n.children[name]
		if !ok {
			return l.unknownKey(n, prefix, name, src)
		}
		if child.kind == kindSection {
			if v == nil {
				continue // an empty section, e.g. "mcp:" with every key commented out
			}
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("configs: %s: %s: want %s, got %s", src.label(key), key, child.kind, describe(v))
			}
			if err := l.walk(child, key, m, ly, src); err != nil {
				return err
			}
			continue
		}
		val, err := l.leaf(child, key, v, src)
		if err != nil {
			return err
		}
		out[name] = val
		ly.labels[key] = src.label(key)
	}
	return nil
}

// retiredKeys are keys ccski once read, with what replaces each.
var retiredKeys = map[string]string{
	"providers.remote.token": "one token went to every server; add \"<origin>=<token>\" for each server to http.tokens " +
		"in your user config (or to CCSKI_HTTP__TOKENS) instead, such as https://skills.example.com=<token>",
}

// unknownKey builds the error for name, unknown below the section n at
// prefix.
func (l *loader) unknownKey(n *node, prefix, name string, src source) error {
	key := join(prefix, name)
	label := src.label(key)
	if src.env {
		key = src.envKey
	}
	if why, ok := retiredKeys[key]; ok {
		return fmt.Errorf("configs: %s: %s is retired: %s", label, key, why)
	}
	if strings.Contains(name, ".") && !src.env {
		return fmt.Errorf("configs: %s: key %q: write nested keys as nested mappings, not with dots", label, key)
	}
	if src.env {
		// Suggest a whole variable: the valid key nearest to the
		// variable's key, else the structural guess when it is a key.
		best := l.spec.closestKey(src.envKey)
		if best == "" {
			best = l.spec.closest(prefix, name, n)
			if prefix == "providers" || strings.HasPrefix(prefix, "providers.") {
				best = siblingKey(n, prefix, name)
			}
			if c := l.spec.lookup(best); c == nil || c.kind == kindSection {
				best = ""
			}
		}
		return fmt.Errorf("configs: %s: unknown key %q%s", label, src.envKey, l.suggest(src, best))
	}
	switch {
	case prefix == "providers":
		return fmt.Errorf("configs: %s: unknown provider %q (key %q)%s", label, name, key,
			l.suggest(src, siblingKey(n, prefix, name)))
	case strings.HasPrefix(prefix, "providers."):
		return fmt.Errorf("configs: %s: unknown key %q: provider %s has no option %q%s", label, key,
			strings.TrimPrefix(prefix, "providers."), name, l.suggest(src, siblingKey(n, prefix, name)))
	}
	return fmt.Errorf("configs: %s: unknown key %q%s", label, key, l.suggest(src, l.spec.closest(prefix, name, n)))
}

// siblingKey returns the key of the child of n closest to name, or "".
func siblingKey(n *node, prefix, name string) string {
	if best := suggest.Closest(name, slices.Collect(maps.Keys(n.children))); best != "" {
		return join(prefix, best)
	}
	return ""
}

// suggest formats "; did you mean ...?" for key, or "" when key is empty.
func (l *loader) suggest(src source, key string) string {
	switch {
	case key == "":
		return ""
	case src.env:
		return fmt.Sprintf("; did you mean %s (key %q)?", envName(key), key)
	}
	return fmt.Sprintf("; did you mean %q?", key)
}

// leaf converts and checks the value v of key.
func (l *loader) leaf(n *node, key string, v any, src source) (any, error) {
	label := src.label(key)
	val, err := convert(n.kind, v)
	if err != nil {
		return nil, fmt.Errorf("configs: %s: %s: want %s, got %s", label, key, n.kind, err)
	}
	if len(n.enum) > 0 {
		values := []string{}
		if s, ok := val.(string); ok {
			values = append(values, s)
		} else {
			values = val.([]string)
		}
		seen := map[string]bool{}
		for _, s := range values {
			if !slices.Contains(n.enum, s) {
				return nil, fmt.Errorf("configs: %s: %s: invalid value %q%s; valid values: %s",
					label, key, s, didYouMean(s, n.enum), strings.Join(n.enum, ", "))
			}
			if n.unique && seen[s] {
				return nil, fmt.Errorf("configs: %s: %s: %q is listed more than once; valid values: %s",
					label, key, s, strings.Join(n.enum, ", "))
			}
			seen[s] = true
		}
	}
	if n.check != nil {
		if err := n.check(val); err != nil {
			return nil, fmt.Errorf("configs: %s: %s: %w", label, key, err)
		}
	}
	if n.path {
		scoped := n.query
		switch p := val.(type) {
		case string:
			if val, err = l.resolvePath(p, src.base); err != nil {
				return nil, fmt.Errorf("configs: %s: %s: %w", label, key, err)
			}
		case []string:
			for i, s := range p {
				suffix := ""
				if scoped {
					if path, query, ok := strings.Cut(s, "?"); ok {
						s, suffix = path, "?"+query
					}
				}
				r, err := l.resolvePath(s, src.base)
				if err != nil {
					return nil, fmt.Errorf("configs: %s: %s: %w", label, key, err)
				}
				p[i] = r + suffix
			}
		}
	}
	if s, ok := val.([]string); ok && n.option {
		list := make([]any, len(s))
		for i, e := range s {
			list[i] = e
		}
		return list, nil
	}
	return val, nil
}

// didYouMean returns " (did you mean "x"?)" for the closest of valid, or "".
func didYouMean(s string, valid []string) string {
	if best := suggest.Closest(s, valid); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// convert turns v into the Go type of k: string, bool, int,
// time.Duration or []string. Its error describes v.
func convert(k kind, v any) (any, error) {
	bad := errors.New(describe(v))
	switch v.(type) {
	case map[string]any:
		return nil, bad
	case []any, []string:
		if k != kindList {
			return nil, bad
		}
	case bool:
		if k != kindBool {
			return nil, bad
		}
	case nil:
		switch k {
		case kindString:
			return "", nil
		case kindList:
			return []string{}, nil
		}
		return nil, bad
	}
	switch k {
	case kindString:
		var s string
		return s, decodeWeak(v, &s, bad)
	case kindBool:
		var b bool
		return b, decodeWeak(v, &b, bad)
	case kindInt:
		var i int
		return i, decodeWeak(v, &i, bad)
	case kindDuration:
		var d time.Duration
		return d, decodeWeak(v, &d, bad)
	case kindList:
		return toList(v, bad)
	}
	return nil, bad
}

// decodeWeak decodes v into out with the hooks and weak typing of Load.
func decodeWeak(v, out any, bad error) error {
	dec, err := mapstructure.NewDecoder(decoderConfig(out, false))
	if err != nil {
		return err
	}
	if err := dec.Decode(v); err != nil {
		return bad
	}
	return nil
}

// toList reads a list of strings: a YAML list of scalars, a []string from a
// flag, or a comma-separated string from a variable. Entries are trimmed
// and empty ones dropped.
func toList(v any, bad error) ([]string, error) {
	var items []any
	switch t := v.(type) {
	case string:
		for _, s := range strings.Split(t, ",") {
			items = append(items, s)
		}
	case []string:
		for _, s := range t {
			items = append(items, s)
		}
	case []any:
		items = t
	default:
		return nil, bad
	}
	out := []string{}
	for i, it := range items {
		var s string
		switch e := it.(type) {
		case string:
			s = e
		case int, int64, uint64, float64:
			s = fmt.Sprint(e)
		default:
			return nil, fmt.Errorf("%s at entry %d", describe(it), i)
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// describe shows a value in an error message.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(t)
	case map[string]any:
		return "a mapping"
	case []any, []string:
		return "a list"
	case bool:
		return fmt.Sprintf("boolean %t", t)
	}
	return fmt.Sprint(v)
}

// resolvePath expands a leading "~/" to the home folder and makes a
// relative path absolute against base. An empty path stays empty.
func (l *loader) resolvePath(p, base string) (string, error) {
	switch {
	case p == "":
		return "", nil
	case p == "~" || strings.HasPrefix(p, "~/"):
		if l.home == "" {
			return "", fmt.Errorf("cannot expand %q: the home folder is unknown", p)
		}
		return filepath.Join(l.home, p[1:]), nil
	case filepath.IsAbs(p):
		return filepath.Clean(p), nil
	}
	return filepath.Join(base, p), nil
}

// flatKeys lists the flattened keys of the leaves of a nested map.
func flatKeys(m map[string]any, prefix string) []string {
	var out []string
	for k, v := range m {
		key := join(prefix, k)
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			out = append(out, flatKeys(sub, key)...)
			continue
		}
		out = append(out, key)
	}
	sort.Strings(out)
	return out
}
