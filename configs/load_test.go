package configs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/providers/all"
)

// tempDir returns a fresh folder that is not inside a repository, so that
// the search for ccski.yaml stops where the test expects.
func tempDir(t *testing.T) string {
	t.Helper()
	dir := testfs.TempDir(t)
	if r := repoRoot(dir, ""); r != "" {
		t.Skipf("temporary folder %s is inside the repository %s", dir, r)
	}
	return dir
}

// options isolates a run: a fresh home, the variables vars ("NAME=value")
// and nothing else from the environment, working in ws.
func options(t *testing.T, ws string, vars ...string) Options {
	t.Helper()
	return Options{Workspace: ws, Home: tempDir(t), Environ: func() []string { return vars }}
}

// write creates path with content, and its folders (through testfs.Write,
// so content must not start with "-> ").
func write(t *testing.T, path, content string) string {
	t.Helper()
	testfs.Write(t, filepath.Dir(path), map[string]string{filepath.Base(path): content})
	return path
}

func mkdir(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// flags returns a flag set with the ccski flags and a few that map to no
// key, parsed from args.
func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs)
	AddMCPFlags(fs)
	fs.BoolP("help", "h", false, "help")
	fs.Bool("json", false, "json output")
	fs.Bool("no-color", false, "no color")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func mustLoad(t *testing.T, o Options) *Loaded {
	t.Helper()
	l, err := loadBuiltin(o)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

func TestDefaultsOnly(t *testing.T) {
	t.Parallel()
	ws := tempDir(t)
	l := mustLoad(t, options(t, ws))
	if diff := cmp.Diff(Default(all.Registry()), l.Config, equateEmpty()); diff != "" {
		t.Errorf("config differs from Default(all.Registry()) (-want +got):\n%s", diff)
	}
	if len(l.Files) != 0 {
		t.Errorf("Files = %v, want none", l.Files)
	}
	for _, k := range flattenSpec(mustSpec(t).root, "") {
		if got := l.Sources[k]; got != "default" {
			t.Errorf("Sources[%q] = %q, want default", k, got)
		}
	}
}

func TestLayerOrder(t *testing.T) {
	t.Parallel()
	// Each layer sets mcp.catalog, a key a project config may set
	// freely, to its own value, and one key no other layer sets.
	tests := []struct {
		name                     string
		user, project, env, flag bool
		wantCatalog              int
		wantLabel                string // with %u and %p for the file paths
	}{
		{"flag beats all", true, true, true, true, 4004, "flag --catalog"},
		{"env beats files", true, true, true, false, 3003, "env CCSKI_MCP__CATALOG"},
		{"project beats user", true, true, false, false, 2002, "project config %p"},
		{"user beats default", true, false, false, false, 1001, "user config %u"},
		{"default", false, false, false, false, 16000, "default"},
		{"flag beats default", false, false, false, true, 4004, "flag --catalog"},
		{"env beats user", true, false, true, false, 3003, "env CCSKI_MCP__CATALOG"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := tempDir(t)
			home := mkdir(t, filepath.Join(root, "home"))
			repo := mkdir(t, filepath.Join(root, "repo"))
			mkdir(t, filepath.Join(repo, ".git"))
			ws := mkdir(t, filepath.Join(repo, "sub"))
			userPath := filepath.Join(home, ".config", "ccski", "config.yaml")
			projectPath := filepath.Join(repo, "ccski.yaml")
			var vars []string
			var args []string
			if tt.user {
				write(t, userPath, "mcp:\n  catalog: 1001\n  host: user.example\n")
			}
			if tt.project {
				write(t, projectPath, "mcp:\n  catalog: 2002\nlimits:\n  max_depth: 2\n")
			}
			if tt.env {
				vars = append(vars, "CCSKI_MCP__CATALOG=3003", "CCSKI_MCP__LOG_LEVEL=debug")
			}
			if tt.flag {
				args = append(args, "--catalog", "4004", "--transport", "http")
			}
			o := Options{Workspace: ws, Home: home, Environ: func() []string { return vars }, Flags: flags(t, args...)}
			l := mustLoad(t, o)

			if l.Config.MCP.Catalog != tt.wantCatalog {
				t.Errorf("catalog = %d, want %d", l.Config.MCP.Catalog, tt.wantCatalog)
			}
			label := strings.NewReplacer("%u", userPath, "%p", projectPath).Replace(tt.wantLabel)
			if got := l.Sources["mcp.catalog"]; got != label {
				t.Errorf("Sources[mcp.catalog] = %q, want %q", got, label)
			}
			// Keys set by one layer only keep that layer's label.
			checks := []struct {
				on    bool
				key   string
				label string
				ok    func() bool
			}{
				{tt.user, "mcp.host", "user config " + userPath, func() bool { return l.Config.MCP.Host == "user.example" }},
				{tt.project, "limits.max_depth", "project config " + projectPath, func() bool { return l.Config.Limits.MaxDepth == 2 }},
				{tt.env, "mcp.log_level", "env CCSKI_MCP__LOG_LEVEL", func() bool { return l.Config.MCP.LogLevel == "debug" }},
				{tt.flag, "mcp.transport", "flag --transport", func() bool { return l.Config.MCP.Transport == "http" }},
			}
			for _, c := range checks {
				want := "default"
				if c.on {
					want = c.label
					if !c.ok() {
						t.Errorf("%s not set by its layer", c.key)
					}
				}
				if got := l.Sources[c.key]; got != want {
					t.Errorf("Sources[%q] = %q, want %q", c.key, got, want)
				}
			}
			var wantFiles []string
			if tt.user {
				wantFiles = append(wantFiles, userPath)
			}
			if tt.project {
				wantFiles = append(wantFiles, projectPath)
			}
			if diff := cmp.Diff(wantFiles, l.Files); diff != "" {
				t.Errorf("Files (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFilterListsFromFile checks that Config says whether include and
// exclude come from a config file, each on its own: the layer that set a
// list last decides, and --all, a variable or a flag is no file.
func TestFilterListsFromFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		user, project    string
		vars, args       []string
		include, exclude bool
	}{
		{name: "defaults"},
		{name: "project file", project: "exclude: [team-skill]\n", exclude: true},
		{name: "user file", user: "include: [auto]\nexclude: [x]\n", include: true, exclude: true},
		{name: "variable over file", project: "include: [auto]\nexclude: [x]\n",
			vars: []string{"CCSKI_EXCLUDE=codex"}, include: true},
		{name: "flag over file", user: "include: [auto]\n", args: []string{"--include", "codex"}},
		{name: "--all is a flag", project: "exclude: [x]\n", args: []string{"--all"}, exclude: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := tempDir(t)
			home := mkdir(t, filepath.Join(root, "home"))
			repo := mkdir(t, filepath.Join(root, "repo"))
			mkdir(t, filepath.Join(repo, ".git"))
			if tt.user != "" {
				write(t, filepath.Join(home, ".config", "ccski", "config.yaml"), tt.user)
			}
			if tt.project != "" {
				write(t, filepath.Join(repo, "ccski.yaml"), tt.project)
			}
			o := Options{Workspace: repo, Home: home, Environ: func() []string { return tt.vars }, Flags: flags(t, tt.args...)}
			c := mustLoad(t, o).Config
			if c.IncludeFromFile != tt.include || c.ExcludeFromFile != tt.exclude {
				t.Errorf("IncludeFromFile, ExcludeFromFile = %v, %v; want %v, %v (include %q, exclude %q)",
					c.IncludeFromFile, c.ExcludeFromFile, tt.include, tt.exclude, c.Include, c.Exclude)
			}
		})
	}
}

func TestUserConfigLocation(t *testing.T) {
	t.Parallel()
	root := tempDir(t)
	home := mkdir(t, filepath.Join(root, "home"))
	xdg := mkdir(t, filepath.Join(root, "xdg"))
	write(t, filepath.Join(home, ".config", "ccski", "config.yaml"), "mcp: {port: 1111}\n")
	write(t, filepath.Join(xdg, "ccski", "config.yaml"), "mcp: {port: 2222}\n")
	tests := []struct {
		name string
		xdg  string
		want int
	}{
		{"XDG_CONFIG_HOME wins", xdg, 2222},
		{"home without XDG_CONFIG_HOME", "", 1111},
		{"relative XDG_CONFIG_HOME is ignored", "xdg", 1111},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := tempDir(t)
			l := mustLoad(t, Options{Workspace: ws, Home: home, Getenv: func(k string) string {
				if k == "XDG_CONFIG_HOME" {
					return tt.xdg
				}
				return ""
			}})
			if l.Config.MCP.Port != tt.want {
				t.Errorf("port = %d, want %d", l.Config.MCP.Port, tt.want)
			}
		})
	}
}

func TestHomeFromGetenv(t *testing.T) {
	t.Parallel()
	home := tempDir(t)
	write(t, filepath.Join(home, ".config", "ccski", "config.yaml"), "user_dir: ~/u\n")
	l := mustLoad(t, Options{Workspace: tempDir(t), Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	if want := filepath.Join(home, "u"); l.Config.UserDir != want {
		t.Errorf("user_dir = %q, want %q", l.Config.UserDir, want)
	}
}

func TestConfigFileMustExist(t *testing.T) {
	t.Parallel()
	ws := tempDir(t)
	_, err := loadBuiltin(Options{ConfigFile: "missing.yaml", Workspace: ws, Home: ws, Environ: func() []string { return nil }})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want fs.ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), "--config missing.yaml") {
		t.Errorf("error %q does not name the --config file", err)
	}

	// A folder is not a config file.
	mkdir(t, filepath.Join(ws, "dir.yaml"))
	if _, err := loadBuiltin(Options{ConfigFile: "dir.yaml", Workspace: ws, Home: ws, Environ: func() []string { return nil }}); err == nil || !strings.Contains(err.Error(), "dir.yaml") {
		t.Errorf("folder as --config: err = %v", err)
	}
}

func TestConfigFileReplacesSearch(t *testing.T) {
	t.Parallel()
	ws := tempDir(t)
	write(t, filepath.Join(ws, "ccski.yaml"), "mcp: {catalog: 1}\n")
	other := write(t, filepath.Join(ws, "conf", "other.yaml"), "mcp: {catalog: 2}\n")
	for name, o := range map[string]Options{
		"Options.ConfigFile": {ConfigFile: "conf/other.yaml"},
		"--config flag":      {Flags: flags(t, "--config", other)},
	} {
		t.Run(name, func(t *testing.T) {
			o.Workspace, o.Home, o.Environ = ws, ws, func() []string { return nil }
			l := mustLoad(t, o)
			if l.Config.MCP.Catalog != 2 {
				t.Errorf("catalog = %d, want 2 from %s", l.Config.MCP.Catalog, other)
			}
			if diff := cmp.Diff([]string{other}, l.Files); diff != "" {
				t.Errorf("Files (-want +got):\n%s", diff)
			}
			if got, want := l.Sources["mcp.catalog"], "project config "+other; got != want {
				t.Errorf("Sources[mcp.catalog] = %q, want %q", got, want)
			}
		})
	}
}

func TestProjectSearch(t *testing.T) {
	t.Parallel()
	root := tempDir(t)
	// root/outer/ccski.yaml lies above the repository and must not be used.
	outer := mkdir(t, filepath.Join(root, "outer"))
	write(t, filepath.Join(outer, "ccski.yaml"), "mcp: {port: 9}\n")
	repo := mkdir(t, filepath.Join(outer, "repo"))
	write(t, filepath.Join(repo, ".git"), "gitdir: elsewhere\n") // a worktree's .git is a file
	write(t, filepath.Join(repo, "ccski.yaml"), "mcp: {port: 1}\n")
	write(t, filepath.Join(repo, "a", "ccski.yaml"), "mcp: {port: 2}\n")
	mkdir(t, filepath.Join(repo, "a", "b", "ccski.yaml")) // a folder, skipped
	mkdir(t, filepath.Join(repo, "a", "b", "c"))
	other := mkdir(t, filepath.Join(root, "other", "repo"))
	mkdir(t, filepath.Join(other, ".git"))
	mkdir(t, filepath.Join(other, "x", "y"))
	write(t, filepath.Join(root, "other", "ccski.yaml"), "mcp: {port: 8}\n")
	plain := mkdir(t, filepath.Join(root, "plain"))
	write(t, filepath.Join(plain, "ccski.yaml"), "mcp: {port: 7}\n")
	mkdir(t, filepath.Join(plain, "sub"))

	tests := []struct {
		name string
		ws   string
		args []string
		vars []string
		want string // "" for none
	}{
		{"nearest walking up", filepath.Join(repo, "a", "b", "c"), nil, nil, filepath.Join(repo, "a", "ccski.yaml")},
		{"in the workspace itself", filepath.Join(repo, "a"), nil, nil, filepath.Join(repo, "a", "ccski.yaml")},
		{"at the repository root", repo, nil, nil, filepath.Join(repo, "ccski.yaml")},
		{"not beyond the repository root", filepath.Join(other, "x", "y"), nil, nil, ""},
		{"outside a repository: the workspace only", filepath.Join(plain, "sub"), nil, nil, ""},
		{"outside a repository: found in the workspace", plain, nil, nil, filepath.Join(plain, "ccski.yaml")},
		{"--workspace moves the search", plain, []string{"--workspace", filepath.Join(repo, "a", "b")}, nil, filepath.Join(repo, "a", "ccski.yaml")},
		{"CCSKI_WORKSPACE moves the search", plain, nil, []string{"CCSKI_WORKSPACE=" + repo}, filepath.Join(repo, "ccski.yaml")},
		{"relative --workspace", repo, []string{"--workspace", "a/b/c"}, nil, filepath.Join(repo, "a", "ccski.yaml")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := options(t, tt.ws, tt.vars...)
			o.Flags = flags(t, tt.args...)
			l := mustLoad(t, o)
			var want []string
			if tt.want != "" {
				want = []string{tt.want}
			}
			if diff := cmp.Diff(want, l.Files); diff != "" {
				t.Errorf("Files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPathResolution(t *testing.T) {
	t.Parallel()
	root := tempDir(t)
	home := mkdir(t, filepath.Join(root, "home"))
	confDir := filepath.Join(root, "proj", "conf")
	file := write(t, filepath.Join(confDir, "ccski.yaml"), `
user_dir: ../users/me
workspace: .
skill_dirs: [skills, /abs/skills, ~/my-skills]
providers:
  claude: {home: claude-home}
  codex: {home: ~/.codex2, system_dirs: [sys, /etc/x]}
  marketplace: {plugins_file: plugins/installed.json, plugins_root: "~"}
  custom: {dirs: ["team/?scope=team", "~/solo", "/abs/d?scope=x", "~?scope=me"]}
`)
	// Read as the managed config, which may set every key; paths resolve
	// the same way in every config file.
	o := Options{ManagedFile: file, Workspace: root, Home: home, Environ: func() []string { return nil }}
	l := mustLoad(t, o)
	c := l.Config
	want := struct {
		UserDir, Workspace string
		SkillDirs          []string
		Options            map[string]map[string]any
	}{
		UserDir:   filepath.Join(root, "proj", "users", "me"),
		Workspace: confDir,
		SkillDirs: []string{filepath.Join(confDir, "skills"), "/abs/skills", filepath.Join(home, "my-skills")},
		Options: map[string]map[string]any{
			"claude": {"home": filepath.Join(confDir, "claude-home"), "precedence": "user"},
			"codex": {"home": filepath.Join(home, ".codex2"), "system_dirs": []any{filepath.Join(confDir, "sys"), "/etc/x"},
				"precedence": "project"},
			"marketplace": {"plugins_file": filepath.Join(confDir, "plugins", "installed.json"), "plugins_root": home, "commands": true},
			"custom":      {"dirs": []any{filepath.Join(confDir, "team") + "?scope=team", filepath.Join(home, "solo"), "/abs/d?scope=x", home + "?scope=me"}},
		},
	}
	if c.UserDir != want.UserDir || c.Workspace != want.Workspace {
		t.Errorf("user_dir, workspace = %q, %q; want %q, %q", c.UserDir, c.Workspace, want.UserDir, want.Workspace)
	}
	if diff := cmp.Diff(want.SkillDirs, c.SkillDirs); diff != "" {
		t.Errorf("skill_dirs (-want +got):\n%s", diff)
	}
	for name, opts := range want.Options {
		if diff := cmp.Diff(opts, optionValues(c.Providers[name].Options)); diff != "" {
			t.Errorf("providers.%s options (-want +got):\n%s", name, diff)
		}
	}

	// Variables and flags resolve against the workspace given to Load.
	ws := mkdir(t, filepath.Join(root, "ws"))
	o = options(t, ws, "CCSKI_USER_DIR=users/env", "CCSKI_PROVIDERS__CODEX__SYSTEM_DIRS=sys1, ~/sys2")
	o.Home = home
	o.Flags = flags(t, "--skill-dir", "flagdir?scope=f", "--claude-plugins-file", "p.json", "--claude-plugins-root", "~/r")
	l = mustLoad(t, o)
	c = l.Config
	if want := filepath.Join(ws, "users", "env"); c.UserDir != want {
		t.Errorf("user_dir from env = %q, want %q", c.UserDir, want)
	}
	checks := map[string]any{
		"codex.system_dirs":        []any{filepath.Join(ws, "sys1"), filepath.Join(home, "sys2")},
		"custom.dirs":              []any{filepath.Join(ws, "flagdir") + "?scope=f"},
		"marketplace.plugins_file": filepath.Join(ws, "p.json"),
		"marketplace.plugins_root": filepath.Join(home, "r"),
	}
	for k, want := range checks {
		name, opt, _ := strings.Cut(k, ".")
		if diff := cmp.Diff(want, optionOf(c, name, opt)); diff != "" {
			t.Errorf("providers.%s (-want +got):\n%s", k, diff)
		}
	}
}

func TestEnvNaming(t *testing.T) {
	t.Parallel()
	ws := tempDir(t)
	tests := []struct {
		vars  []string
		key   string
		label string
		get   func(Config) any
		want  any
	}{
		{[]string{"CCSKI_USER_DIR=/u"}, "user_dir", "env CCSKI_USER_DIR", func(c Config) any { return c.UserDir }, "/u"},
		{[]string{"CCSKI_PROVIDERS__MARKETPLACE__ENABLED=false"}, "providers.marketplace.enabled", "env CCSKI_PROVIDERS__MARKETPLACE__ENABLED",
			func(c Config) any { return c.Providers["marketplace"].Enabled }, false},
		{[]string{"CCSKI_MCP__PORT=8080"}, "mcp.port", "env CCSKI_MCP__PORT", func(c Config) any { return c.MCP.Port }, 8080},
		{[]string{"CCSKI_INCLUDE=codex, claude,"}, "include", "env CCSKI_INCLUDE", func(c Config) any { return c.Include }, []string{"codex", "claude"}},
		{[]string{"CCSKI_PRIORITY=plugin,custom"}, "priority", "env CCSKI_PRIORITY", func(c Config) any { return c.Priority }, []string{"plugin", "custom"}},
		{[]string{"CCSKI_AUTH_TOKEN=s3cret"}, "mcp.auth_token", "env CCSKI_AUTH_TOKEN", func(c Config) any { return c.MCP.AuthToken }, "s3cret"},
		{[]string{"CCSKI_AUTH_TOKEN=short", "CCSKI_MCP__AUTH_TOKEN=full"}, "mcp.auth_token", "env CCSKI_MCP__AUTH_TOKEN", func(c Config) any { return c.MCP.AuthToken }, "full"},
		{[]string{"CCSKI_MCP__STATELESS=1"}, "mcp.stateless", "env CCSKI_MCP__STATELESS", func(c Config) any { return c.MCP.Stateless }, true},
		{[]string{"CCSKI_MCP__REFRESH_INTERVAL=1m"}, "mcp.refresh_interval", "env CCSKI_MCP__REFRESH_INTERVAL", func(c Config) any { return c.MCP.RefreshInterval }, time.Minute},
		// Provider options are converted to the type of their default.
		{[]string{"CCSKI_PROVIDERS__AGENTS__DYNAMIC=false"}, "providers.agents.dynamic", "env CCSKI_PROVIDERS__AGENTS__DYNAMIC",
			func(c Config) any { return optionOf(c, "agents", "dynamic") }, false},
		{[]string{"CCSKI_PROVIDERS__CODEX__SYSTEM_DIRS=/a,/b"}, "providers.codex.system_dirs", "env CCSKI_PROVIDERS__CODEX__SYSTEM_DIRS",
			func(c Config) any { return optionOf(c, "codex", "system_dirs") }, []any{"/a", "/b"}},
		{[]string{"CCSKI_INCLUDE="}, "include", "env CCSKI_INCLUDE", func(c Config) any { return len(c.Include) }, 0},
		// Variables without the prefix are not ccski's.
		{[]string{"XCCSKI_MCP__PORT=1", "ccski_mcp__port=2"}, "mcp.port", "default", func(c Config) any { return c.MCP.Port }, 3000},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.vars, " "), func(t *testing.T) {
			t.Parallel()
			l := mustLoad(t, options(t, ws, tt.vars...))
			if diff := cmp.Diff(tt.want, tt.get(l.Config)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.key, diff)
			}
			if got := l.Sources[tt.key]; got != tt.label {
				t.Errorf("Sources[%q] = %q, want %q", tt.key, got, tt.label)
			}
		})
	}
}

func TestEnvThroughGetenv(t *testing.T) {
	t.Parallel()
	// Without Environ, the variable of each known key is probed.
	vars := map[string]string{"CCSKI_MCP__PORT": "1234", "CCSKI_AUTH_TOKEN": "tok", "CCSKI_BOGUS": "x"}
	l := mustLoad(t, Options{Workspace: tempDir(t), Home: tempDir(t), Getenv: func(k string) string { return vars[k] }})
	if l.Config.MCP.Port != 1234 || l.Config.MCP.AuthToken != "tok" {
		t.Errorf("port, token = %d, %q; want 1234, tok", l.Config.MCP.Port, l.Config.MCP.AuthToken)
	}
}

func TestRefreshInterval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		vars []string
		args []string
		want time.Duration
	}{
		{"duration string", "mcp: {refresh_interval: 10s}", nil, nil, 10 * time.Second},
		{"milliseconds string", `mcp: {refresh_interval: "10000"}`, nil, nil, 10 * time.Second},
		{"milliseconds number", "mcp: {refresh_interval: 10000}", nil, nil, 10 * time.Second},
		{"whole float", "mcp: {refresh_interval: 1500.0}", nil, nil, 1500 * time.Millisecond},
		{"compound duration", "mcp: {refresh_interval: 1m30s}", nil, nil, 90 * time.Second},
		{"env milliseconds", "", []string{"CCSKI_MCP__REFRESH_INTERVAL=2500"}, nil, 2500 * time.Millisecond},
		{"flag duration", "", nil, []string{"--refresh-interval", "5s"}, 5 * time.Second},
		{"flag milliseconds", "", nil, []string{"--refresh-interval=750"}, 750 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// In the user config: a project config may not change it.
			o := options(t, tempDir(t), tt.vars...)
			if tt.yaml != "" {
				write(t, filepath.Join(o.Home, ".config", "ccski", "config.yaml"), tt.yaml+"\n")
			}
			o.Flags = flags(t, tt.args...)
			l := mustLoad(t, o)
			if l.Config.MCP.RefreshInterval != tt.want {
				t.Errorf("refresh_interval = %s, want %s", l.Config.MCP.RefreshInterval, tt.want)
			}
		})
	}
}

func TestMillisecondsHook(t *testing.T) {
	t.Parallel()
	var d time.Duration
	dt := func(v any) (any, error) {
		return MillisecondsHook(typeOf(v), typeOf(d), v)
	}
	for _, tt := range []struct {
		in   any
		want any
	}{
		{"250", 250 * time.Millisecond},
		{" 250 ", 250 * time.Millisecond},
		{250, 250 * time.Millisecond},
		{uint64(250), 250 * time.Millisecond},
		{250.0, 250 * time.Millisecond},
		{"10s", "10s"},                     // left for StringToTimeDurationHookFunc
		{5 * time.Second, 5 * time.Second}, // already a duration: not milliseconds
	} {
		got, err := dt(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("hook(%#v) = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}
	if _, err := dt(1.5); err == nil {
		t.Error("hook(1.5) succeeded, want an error for a fraction of a millisecond")
	}
	// Other targets are untouched.
	if got, err := MillisecondsHook(typeOf(""), typeOf(""), "250"); err != nil || got != "250" {
		t.Errorf("hook to string = %#v, %v", got, err)
	}
}

func TestFileErrors(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		want []string // substrings of the error, after the file label
	}{
		{"unknown_key.yaml", []string{`unknown key "limits.max_dept"`, `did you mean "limits.max_depth"?`}},
		{"misplaced_key.yaml", []string{`unknown key "max_depth"`, `did you mean "limits.max_depth"?`}},
		{"unknown_provider.yaml", []string{`unknown provider "cladue"`, `"providers.cladue"`, `did you mean "providers.claude"?`}},
		{"unknown_option.yaml", []string{`unknown key "providers.codex.hme"`, `did you mean "providers.codex.home"?`}},
		{"bad_type.yaml", []string{"limits.max_depth", "want an integer", `"x"`}},
		{"bad_section.yaml", []string{"mcp: want a mapping", `"stdio"`}},
		{"bad_option_type.yaml", []string{"providers.agents.dynamic", "want a boolean", `"sometimes"`}},
		{"bad_enum.yaml", []string{"mcp.transport", `invalid value "htp"`, `did you mean "http"?`, "valid values: stdio, http, sse"}},
		{"bad_priority.yaml", []string{"priority", `"custom" is listed more than once`, "valid values: custom, project"}},
		{"bad_priority_kind.yaml", []string{"priority", `invalid value "plugins"`, `did you mean "plugin"?`, "system, plugin"}},
		{"bad_tool.yaml", []string{"mcp.tools", `invalid value "skills_lst"`, `did you mean "skills_list"?`}},
		{"bad_precedence.yaml", []string{"providers.claude.precedence", `invalid value "personal"`, "valid values: user, project"}},
		{"malformed.yaml", []string{"line 3"}},
		{"dotted_key.yaml", []string{`key "mcp.port": write nested keys as nested mappings`}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(wd, "testdata", tt.file)
			o := options(t, wd)
			o.ConfigFile = filepath.Join("testdata", tt.file)
			_, err := loadBuiltin(o)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			msg := err.Error()
			if prefix := "configs: project config " + path + ": "; !strings.HasPrefix(msg, prefix) {
				t.Errorf("error %q does not start with %q", msg, prefix)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestUserConfigErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	home := tempDir(t)
	path := write(t, filepath.Join(home, ".config", "ccski", "config.yaml"), "mcp:\n  prot: 1\n")
	o := options(t, tempDir(t))
	o.Home = home
	_, err := loadBuiltin(o)
	want := "configs: user config " + path + `: unknown key "mcp.prot"; did you mean "mcp.port"?`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

func TestUnreadableUserConfig(t *testing.T) {
	t.Parallel()
	home := tempDir(t)
	path := mkdir(t, filepath.Join(home, ".config", "ccski", "config.yaml"))
	o := options(t, tempDir(t))
	o.Home = home
	_, err := loadBuiltin(o)
	if err == nil || !strings.HasPrefix(err.Error(), "configs: user config "+path+": ") {
		t.Errorf("err = %v, want an error naming %s", err, path)
	}
}

func TestEnvAndFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		vars []string
		args []string
		want []string
	}{
		{"unknown variable", []string{"CCSKI_MCP__PROT=1"}, nil,
			[]string{"configs: env CCSKI_MCP__PROT:", `unknown key "mcp.prot"`, `did you mean CCSKI_MCP__PORT (key "mcp.port")?`}},
		{"variable at the wrong level", []string{"CCSKI_MAX_DEPTH=3"}, nil,
			[]string{"env CCSKI_MAX_DEPTH", `unknown key "max_depth"`, "did you mean CCSKI_LIMITS__MAX_DEPTH"}},
		{"unknown provider variable", []string{"CCSKI_PROVIDERS__CLADUE__ENABLED=false"}, nil,
			[]string{"env CCSKI_PROVIDERS__CLADUE__ENABLED", "did you mean CCSKI_PROVIDERS__CLAUDE__ENABLED"}},
		{"unknown option variable", []string{"CCSKI_PROVIDERS__CODEX__HOMES=/x"}, nil,
			[]string{"env CCSKI_PROVIDERS__CODEX__HOMES", "did you mean CCSKI_PROVIDERS__CODEX__HOME"}},
		{"unrelated variable", []string{"CCSKI_TOTALLY_UNRELATED=1"}, nil,
			[]string{"env CCSKI_TOTALLY_UNRELATED", `unknown key "totally_unrelated"`, "/no suggestion"}},
		{"variable naming a section", []string{"CCSKI_LIMITS=3"}, nil,
			[]string{"env CCSKI_LIMITS", "limits: want a mapping"}},
		{"malformed variable name", []string{"CCSKI_MCP____PORT=3"}, nil,
			[]string{"env CCSKI_MCP____PORT", "malformed variable name"}},
		{"variable of the wrong type", []string{"CCSKI_LIMITS__MAX_DEPTH=deep"}, nil,
			[]string{"env CCSKI_LIMITS__MAX_DEPTH", "limits.max_depth: want an integer", `"deep"`}},
		{"variable with a bad value", []string{"CCSKI_STATE=enable"}, nil,
			[]string{"env CCSKI_STATE", `state: invalid value "enable"`, `did you mean "enabled"?`, "valid values: enabled, disabled, all"}},
		{"bad refresh interval", []string{"CCSKI_MCP__REFRESH_INTERVAL=ten"}, nil,
			[]string{"env CCSKI_MCP__REFRESH_INTERVAL", "mcp.refresh_interval", `"ten"`}},
		{"zero refresh interval", []string{"CCSKI_MCP__REFRESH_INTERVAL=0"}, nil,
			[]string{"env CCSKI_MCP__REFRESH_INTERVAL", "must be positive"}},
		{"flag with a bad value", nil, []string{"--transport", "htp"},
			[]string{"configs: flag --transport:", `mcp.transport: invalid value "htp"`, "valid values: stdio, http, sse"}},
		{"flag out of range", nil, []string{"--port", "70000"},
			[]string{"flag --port", "mcp.port", "out of range"}},
		{"bad log level flag", nil, []string{"--log-level", "verbose"},
			[]string{"flag --log-level", "valid values: debug, info, warn, error"}},
		{"bad log format variable", []string{"CCSKI_MCP__LOG_FORMAT=yaml"}, nil,
			[]string{"env CCSKI_MCP__LOG_FORMAT", "valid values: text, json"}},
		{"bad scan mode variable", []string{"CCSKI_MCP__SCAN=blocked"}, nil,
			[]string{"env CCSKI_MCP__SCAN", `mcp.scan: invalid value "blocked"`, `did you mean "block"?`,
				"valid values: warn, off, block"}},
		{"bad precedence variable", []string{"CCSKI_PROVIDERS__CODEX__PRECEDENCE=repo"}, nil,
			[]string{"env CCSKI_PROVIDERS__CODEX__PRECEDENCE", `providers.codex.precedence: invalid value "repo"`,
				"valid values: user, project"}},
		{"bad scope flag", nil, []string{"--skill-dir", "x?scope=a b"},
			[]string{"configs: flag --skill-dir: providers.custom.dirs: custom:", `scope "a b" must not contain`}},
		{"bad scope variable", []string{"CCSKI_PROVIDERS__CUSTOM__DIRS=ok,x?mode=y"}, nil,
			[]string{"env CCSKI_PROVIDERS__CUSTOM__DIRS", `unknown parameter "mode"`}},
		{"bad refresh interval flag", nil, []string{"--refresh-interval", "1.5"},
			[]string{"flag --refresh-interval", "mcp.refresh_interval"}},
		{"--all with --disabled", nil, []string{"--all", "--disabled"},
			[]string{"flag --disabled: cannot be combined with --all"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := options(t, tempDir(t), tt.vars...)
			o.Flags = flags(t, tt.args...)
			_, err := loadBuiltin(o)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			for _, w := range tt.want {
				if w == "/no suggestion" {
					if strings.Contains(err.Error(), "did you mean") {
						t.Errorf("error %q suggests a key that is not close", err)
					}
					continue
				}
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestNullValues(t *testing.T) {
	t.Parallel()
	ws := tempDir(t)
	// An empty section and null strings and lists are accepted.
	write(t, filepath.Join(ws, "ccski.yaml"), "mcp:\nlimits: {}\nuser_dir:\ninclude:\n")
	l := mustLoad(t, options(t, ws))
	if l.Config.UserDir != "" || len(l.Config.Include) != 0 || l.Config.MCP.Port != 3000 {
		t.Errorf("config = %+v", l.Config)
	}
	// A null where a number is needed is not.
	ws = tempDir(t)
	write(t, filepath.Join(ws, "ccski.yaml"), "mcp:\n  port:\n")
	if _, err := loadBuiltin(options(t, ws)); err == nil || !strings.Contains(err.Error(), "mcp.port: want an integer, got null") {
		t.Errorf("err = %v", err)
	}
}

func TestListReplacedWhole(t *testing.T) {
	t.Parallel()
	root := tempDir(t)
	home := mkdir(t, filepath.Join(root, "home"))
	write(t, filepath.Join(home, ".config", "ccski", "config.yaml"),
		"priority: [custom, project]\nexclude: [a, b]\nmcp: {allowed_origins: [x]}\n")
	ws := mkdir(t, filepath.Join(root, "ws"))
	write(t, filepath.Join(ws, "ccski.yaml"), "priority: [plugin]\nexclude: [c]\n")
	o := options(t, ws)
	o.Home = home
	l := mustLoad(t, o)
	if diff := cmp.Diff([]string{"plugin"}, l.Config.Priority); diff != "" {
		t.Errorf("priority (-want +got):\n%s", diff)
	}
	// A project config may only add entries to exclude (trust "more"):
	// its list comes first, with the user's entries it left out.
	if diff := cmp.Diff([]string{"c", "a", "b"}, l.Config.Exclude); diff != "" {
		t.Errorf("exclude (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x"}, l.Config.MCP.AllowedOrigins); diff != "" {
		t.Errorf("allowed_origins (-want +got):\n%s", diff)
	}
}

// TestProjectFileStopsBelowHome checks that the search for ccski.yaml, like
// discovery, never climbs to the home folder: a repository there (dotfiles)
// must not make ~/ccski.yaml every folder's project config.
func TestProjectFileStopsBelowHome(t *testing.T) {
	home := tempDir(t)
	testfs.Write(t, home, map[string]string{
		".git/":            "",
		"ccski.yaml":       "state: all\n",
		"notes/":           "",
		"repo/.git/":       "",
		"repo/ccski.yaml":  "state: disabled\n",
		"repo/sub/deeper/": "",
	})
	for _, tc := range []struct{ dir, want string }{
		{filepath.Join(home, "notes"), ""},
		{filepath.Join(home, "repo", "sub", "deeper"), filepath.Join(home, "repo", "ccski.yaml")},
	} {
		got, err := findProjectFile(tc.dir, home)
		if err != nil || got != tc.want {
			t.Errorf("findProjectFile(%s) = %q, %v; want %q", tc.dir, got, err, tc.want)
		}
	}
}

// TestProjectRoot finds the folder of the ccski.yaml the loader reads,
// else the repository root; a folder in neither, or below a home folder
// that is itself a repository (dotfiles), is in no project.
func TestProjectRoot(t *testing.T) {
	base := testfs.TempDir(t)
	home := filepath.Join(base, "home")
	testfs.Write(t, base, map[string]string{
		"repo/.git/":           "",
		"repo/a/b/":            "",
		"repo/sub/ccski.yaml":  "",
		"repo/sub/deep/":       "",
		"loose/x/":             "",
		"loose/ccski.yaml":     "", // outside a repository only the folder itself counts
		"home/.git/":           "",
		"home/ccski.yaml":      "",
		"home/notes/":          "",
		"home/code/proj/.git/": "",
		"home/code/proj/src/":  "",
	})
	tests := []struct {
		start, want string
		ok          bool
	}{
		{"repo/a/b", "repo", true},
		{"repo/sub/deep", "repo/sub", true},
		{"loose/x", "loose/x", false},
		{"loose", "loose", true},
		{"home/notes", "home/notes", false},
		{"home/code/proj/src", "home/code/proj", true},
	}
	for _, tt := range tests {
		got, ok := ProjectRoot(filepath.Join(base, tt.start), home)
		if want := filepath.Join(base, tt.want); got != want || ok != tt.ok {
			t.Errorf("ProjectRoot(%s) = %s, %v, want %s, %v", tt.start, got, ok, want, tt.ok)
		}
	}
}
