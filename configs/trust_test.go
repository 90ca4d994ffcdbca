package configs

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/ccski/ccski/providers"
)

// TestEveryKeyHasTrustLevel walks the whole key tree of the built-in
// configuration: every key must declare what a project config may do
// with it.
func TestEveryKeyHasTrustLevel(t *testing.T) {
	t.Parallel()
	sp := mustSpec(t)
	for _, key := range sp.leaves {
		if n := sp.lookup(key); n.trust == nil {
			t.Errorf("%s has no trust level", key)
		}
	}
	if len(sp.leaves) < 50 {
		t.Errorf("only %d keys walked", len(sp.leaves))
	}
}

// TestTrustTagErrors checks that a key whose trust level is missing or
// does not fit it fails newSpec, naming the key: on a field of Config's
// kind and on a provider's option.
func TestTrustTagErrors(t *testing.T) {
	t.Parallel()
	type noLevel struct {
		X string `koanf:"x" doc:"A key."`
	}
	if _, err := structNode(reflect.TypeFor[noLevel](), "", builtin()); err == nil ||
		!strings.Contains(err.Error(), `key "x" has no trust level`) {
		t.Errorf("a field without trust tag: error %v", err)
	}
	type (
		untagged struct {
			Home string `koanf:"home" doc:"A folder."`
		}
		unknown struct {
			Home string `koanf:"home" trust:"maybe" doc:"A folder."`
		}
		stricterInt struct {
			N int `koanf:"n" trust:"stricter=1<2" doc:"A number."`
		}
		stricterText struct {
			S string `koanf:"s" trust:"stricter=a<b" doc:"Free text."`
		}
		unordered struct {
			P providers.PrecedenceOption `koanf:"p" trust:"stricter=project<project" doc:"Which copy wins."`
		}
		halfOrdered struct {
			B bool `koanf:"b" trust:"stricter=true<yes" doc:"A switch."`
		}
		cycle struct {
			P providers.PrecedenceOption `koanf:"p" trust:"stricter=user<project,project<user" doc:"Which copy wins."`
		}
		lowerList struct {
			L []string `koanf:"l" trust:"lower" doc:"A list."`
		}
		moreBool struct {
			B bool `koanf:"b" trust:"more" doc:"A switch."`
		}
		insideText struct {
			S string `koanf:"s" trust:"inside" doc:"Not a path."`
		}
		userWithValues struct {
			S string `koanf:"s" trust:"user=x" doc:"A value."`
		}
		lowerWithValue struct {
			N int `koanf:"n" trust:"lower=none" doc:"A number."`
		}
	)
	for _, tt := range []struct {
		options func() any
		err     string
	}{
		{func() any { return &untagged{} }, `key "providers.x.home" has no trust level`},
		{func() any { return &unknown{} }, `key "providers.x.home": unknown trust level "maybe"; valid levels: default, fewer, inside`},
		{func() any { return &stricterInt{} }, `key "providers.x.n": trust level stricter needs a boolean or a string of fixed values`},
		{func() any { return &stricterText{} }, `trust level stricter needs a boolean or a string of fixed values, and the key is a string`},
		{func() any { return &unordered{} }, `providers.x.p": trust level "stricter=project<project": project is both looser and stricter`},
		{func() any { return &halfOrdered{} }, `key "providers.x.b": trust level orders "yes", which is no value of it`},
		{func() any { return &cycle{} }, `is both looser and stricter than itself`},
		{func() any { return &lowerList{} }, `trust level lower needs a number or a duration`},
		{func() any { return &moreBool{} }, `trust level more needs a list`},
		{func() any { return &insideText{} }, `trust level inside needs a path`},
		{func() any { return &userWithValues{} }, `only stricter takes values`},
		{func() any { return &lowerWithValue{} }, `lower takes only =default`},
	} {
		reg := builtin()
		reg.providers = append(reg.providers, providers.Entry{Name: "x", Doc: "X.", Options: tt.options})
		if _, err := newSpec(reg); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%T: newSpec error %v, want one containing %q", tt.options(), err, tt.err)
		}
	}
	type precedenceHalf struct {
		P providers.PrecedenceOption `koanf:"p" trust:"stricter=project<project2" doc:"Which copy wins."`
	}
	reg := builtin()
	reg.providers = append(reg.providers, providers.Entry{Name: "x", Doc: "X.", Options: func() any { return &precedenceHalf{} }})
	if _, err := newSpec(reg); err == nil || !strings.Contains(err.Error(), `orders "project2", which is no value of it; valid values: user, project`) {
		t.Errorf("a value the enum lacks: error %v", err)
	}
}

// trustCase is one merge of a user and a project config for a key.
type trustCase struct {
	name          string
	user, project string // YAML of each file; "" for none
	want          any    // the key's effective value (Config.Flat)
	ignored       bool   // the project's value is listed in Loaded.Ignored
	// cut says that the project's value was cut down to its stricter
	// part rather than ignored: the project's layer keeps the key.
	cut bool
}

// trustCases are the merges of TestProjectTrust by key: what a project
// config may do with each key, against the defaults and the user config.
// Every key of the built-in configuration has at least one (the enabled
// keys of the providers are added by the test). %r stands for the
// repository, and %h for the home folder.
var trustCases = map[string][]trustCase{
	"user_dir": {
		{name: "moved into the repository", project: "user_dir: .", want: "", ignored: true},
		{name: "left as it is", project: `user_dir: ""`, want: ""},
	},
	"workspace": {
		{name: "a folder of the repository", project: "workspace: sub", want: "%r/sub"},
		{name: "a folder outside", project: "workspace: ../elsewhere", want: "", ignored: true},
		{name: "the home folder", project: "workspace: ~/", want: "", ignored: true},
		{name: "a link out of the repository", project: "workspace: link-out", want: "", ignored: true},
	},
	"skill_dirs": {
		{name: "inside kept, outside left out", project: "skill_dirs: [skills, /abs/skills, ~/mine, link-out/x]",
			want: []string{"%r/skills"}, ignored: true, cut: true},
		{name: "all outside: the user's stay", user: "skill_dirs: [/u]", project: "skill_dirs: [/abs]",
			want: []string{"/u"}, ignored: true},
		{name: "all inside", user: "skill_dirs: [/u]", project: "skill_dirs: [a, b/c]", want: []string{"%r/a", "%r/b/c"}},
		{name: "none", user: "skill_dirs: [/u]", project: "skill_dirs: []", want: []string{}},
	},
	"include": {
		{name: "over the default", project: "include: [codex]", want: []string{"codex"}},
		{name: "over the user's", user: "include: [claude]", project: "include: [all]", want: []string{"claude"}, ignored: true},
	},
	"exclude": {
		{name: "more entries", user: "exclude: [a]", project: "exclude: [b]", want: []string{"b", "a"}, ignored: true, cut: true},
		{name: "a superset", user: "exclude: [a]", project: "exclude: [b, a]", want: []string{"b", "a"}},
		{name: "none over the user's", user: "exclude: [a]", project: "exclude: []", want: []string{"a"}, ignored: true},
	},
	"state": {
		{name: "all", project: "state: all", want: "enabled", ignored: true},
		{name: "disabled", project: "state: disabled", want: "enabled", ignored: true},
		{name: "enabled over the user's all", user: "state: all", project: "state: enabled", want: "enabled"},
		{name: "disabled over the user's all", user: "state: all", project: "state: disabled", want: "disabled"},
	},
	"agent": {
		{name: "one agent", project: "agent: claude", want: "all", ignored: true},
		{name: "the same", user: "agent: codex", project: "agent: codex", want: "codex"},
	},
	"priority": {
		{name: "reordered", user: "priority: [custom, project]", project: "priority: [plugin, custom]", want: []string{"plugin", "custom"}},
	},
	"limits.max_depth": {
		{name: "lower", project: "limits: {max_depth: 2}", want: 2},
		{name: "higher", project: "limits: {max_depth: 60}", want: 6, ignored: true},
		{name: "0, the built-in 6", project: "limits: {max_depth: 0}", want: 0},
		{name: "higher than the user's 0 (the built-in 6)", user: "limits: {max_depth: 0}", project: "limits: {max_depth: 1000}", want: 0, ignored: true},
		{name: "0 over the user's lower", user: "limits: {max_depth: 3}", project: "limits: {max_depth: 0}", want: 3, ignored: true},
	},
	"install.max_download": {
		{name: "lower", project: "install: {max_download: 1024}", want: 1024},
		{name: "higher", project: "install: {max_download: 104857600}", want: 10 << 20, ignored: true},
		{name: "0 over the user's lower", user: "install: {max_download: 4096}", project: "install: {max_download: 0}", want: 4096, ignored: true},
	},
	"install.max_unpacked": {
		{name: "lower", project: "install: {max_unpacked: 1024}", want: 1024},
		{name: "higher", user: "install: {max_unpacked: 4096}", project: "install: {max_unpacked: 8192}", want: 4096, ignored: true},
	},
	"install.max_files": {
		{name: "lower", project: "install: {max_files: 10}", want: 10},
		{name: "higher", project: "install: {max_files: 100000}", want: 1000, ignored: true},
	},
	"limits.max_dirs": {
		{name: "lower", user: "limits: {max_dirs: 5000}", project: "limits: {max_dirs: 100}", want: 100},
		{name: "higher", user: "limits: {max_dirs: 5000}", project: "limits: {max_dirs: 20000}", want: 5000, ignored: true},
		{name: "higher than the user's 0 (the built-in 20000)", user: "limits: {max_dirs: 0}", project: "limits: {max_dirs: 100000000}", want: 0, ignored: true},
		{name: "lower than the user's 0 (the built-in 20000)", user: "limits: {max_dirs: 0}", project: "limits: {max_dirs: 99}", want: 99},
		{name: "0 over the user's lower", user: "limits: {max_dirs: 5000}", project: "limits: {max_dirs: 0}", want: 5000, ignored: true},
	},
	"mcp.transport": {
		{name: "http", project: "mcp: {transport: http}", want: "stdio", ignored: true},
		{name: "sse", project: "mcp: {transport: sse}", want: "stdio", ignored: true},
		{name: "stdio over the user's http", user: "mcp: {transport: http}", project: "mcp: {transport: stdio}", want: "stdio"},
		{name: "sse over the user's http", user: "mcp: {transport: http}", project: "mcp: {transport: sse}", want: "http", ignored: true},
	},
	"mcp.host": {
		{name: "every interface", project: "mcp: {host: 0.0.0.0}", want: "127.0.0.1", ignored: true},
		{name: "the same", project: "mcp: {host: 127.0.0.1}", want: "127.0.0.1"},
		{name: "loopback over the user's", user: "mcp: {host: 0.0.0.0}", project: "mcp: {host: 127.0.0.1}", want: "0.0.0.0", ignored: true},
	},
	"mcp.port": {{name: "another port", project: "mcp: {port: 9}", want: 3000, ignored: true}},
	"mcp.refresh": {
		{name: "off", project: "mcp: {refresh: false}", want: true, ignored: true},
		{name: "on over the user's off", user: "mcp: {refresh: false}", project: "mcp: {refresh: true}", want: true},
	},
	"mcp.refresh_interval": {{name: "shorter", project: "mcp: {refresh_interval: 1}", want: "30s", ignored: true}},
	"mcp.watch": {
		{name: "off", project: "mcp: {watch: false}", want: true, ignored: true},
		{name: "on over the user's off", user: "mcp: {watch: false}", project: "mcp: {watch: true}", want: true},
	},
	"mcp.web": {
		{name: "off", project: "mcp: {web: false}", want: false},
		{name: "on over the user's off", user: "mcp: {web: false}", project: "mcp: {web: true}", want: false, ignored: true},
	},
	"mcp.allowed_origins": {{name: "an origin", project: "mcp: {allowed_origins: [https://evil.example]}", want: []string{}, ignored: true}},
	"mcp.auth_token": {
		{name: "none over the user's", user: "mcp: {auth_token: u-secret}", project: `mcp: {auth_token: ""}`, want: "u-secret", ignored: true},
		{name: "one of its own", project: "mcp: {auth_token: p-secret}", want: "", ignored: true},
	},
	"mcp.stateless":     {{name: "on", project: "mcp: {stateless: true}", want: false, ignored: true}},
	"mcp.drain_delay":   {{name: "a delay", project: "mcp: {drain_delay: 1h}", want: "0s", ignored: true}},
	"mcp.drain_timeout": {{name: "longer", project: "mcp: {drain_timeout: 1h}", want: "2s", ignored: true}},
	"mcp.session_idle_timeout": {
		{name: "shorter", user: "mcp: {session_idle_timeout: 10m}", project: "mcp: {session_idle_timeout: 5m}", want: "5m0s"},
		{name: "longer", user: "mcp: {session_idle_timeout: 10m}", project: "mcp: {session_idle_timeout: 1h}", want: "10m0s", ignored: true},
		{name: "0, forever", project: "mcp: {session_idle_timeout: 0}", want: "30m0s", ignored: true},
		{name: "any under the user's forever", user: "mcp: {session_idle_timeout: 0}", project: "mcp: {session_idle_timeout: 2h}", want: "2h0m0s"},
	},
	"mcp.max_sessions": {
		{name: "fewer", project: "mcp: {max_sessions: 10}", want: 10},
		{name: "more", project: "mcp: {max_sessions: 5000}", want: 1000, ignored: true},
		{name: "0, no cap", project: "mcp: {max_sessions: 0}", want: 1000, ignored: true},
	},
	"mcp.log_level": {
		{name: "quieter", project: "mcp: {log_level: error}", want: "info", ignored: true},
		{name: "louder", project: "mcp: {log_level: debug}", want: "debug"},
	},
	"mcp.log_format":    {{name: "json", project: "mcp: {log_format: json}", want: "json"}},
	"mcp.tools":         {{name: "fewer", user: "mcp: {tools: [skills_list, sources]}", project: "mcp: {tools: [sources, ask]}", want: []string{"sources"}, ignored: true, cut: true}, {name: "more than none", project: "mcp: {tools: [sources]}", want: []string{}, ignored: true}},
	"mcp.catalog":       {{name: "no budget", project: "mcp: {catalog: 0}", want: 0}},
	"mcp.ask_context":   {{name: "no cap", project: "mcp: {ask_context: 0}", want: 0}},
	"mcp.skill_prompts": {{name: "on", project: "mcp: {skill_prompts: true}", want: true}},
	"mcp.scan": {
		{name: "off under the user's block", user: "mcp: {scan: block}", project: `mcp: {scan: "off"}`, want: "block", ignored: true},
		{name: "warn under the user's block", user: "mcp: {scan: block}", project: "mcp: {scan: warn}", want: "block", ignored: true},
		{name: "off over the default", project: `mcp: {scan: "off"}`, want: "warn", ignored: true},
		{name: "block over the user's warn", user: "mcp: {scan: warn}", project: "mcp: {scan: block}", want: "block"},
		{name: "warn over the user's off", user: `mcp: {scan: "off"}`, project: "mcp: {scan: warn}", want: "warn"},
	},
	"mcp.require_trusted": {
		{name: "off under the user's on", user: "mcp: {require_trusted: true}", project: "mcp: {require_trusted: false}", want: true, ignored: true},
		{name: "on", project: "mcp: {require_trusted: true}", want: true},
	},
	"mcp.require_signed": {
		{name: "off under the user's on", user: "mcp: {require_signed: true}", project: "mcp: {require_signed: false}", want: true, ignored: true},
		{name: "on: the user's decision, not a repository's", project: "mcp: {require_signed: true}", want: false, ignored: true},
	},
	"providers.custom.dirs": {{name: "a folder of the repository", project: "providers: {custom: {dirs: [mine]}}", want: []any{}, ignored: true}},
	"providers.claude.home": {{name: "moved into the repository", project: "providers: {claude: {home: fake}}", want: "", ignored: true}},
	"providers.claude.precedence": {
		{name: "project", project: "providers: {claude: {precedence: project}}", want: "project"},
	},
	"providers.codex.home": {{name: "moved", project: "providers: {codex: {home: fake}}", want: "", ignored: true}},
	"providers.codex.system_dirs": {
		{name: "a folder of the repository", project: "providers: {codex: {system_dirs: [sys]}}", want: []any{"/etc/codex/skills"}, ignored: true},
	},
	"providers.codex.precedence": {{name: "user", project: "providers: {codex: {precedence: user}}", want: "user"}},
	"providers.agents.dynamic": {
		{name: "on over the user's off", user: "providers: {agents: {dynamic: false}}", project: "providers: {agents: {dynamic: true}}", want: false, ignored: true},
		{name: "off", project: "providers: {agents: {dynamic: false}}", want: false},
	},
	"providers.agents.precedence": {{name: "user", project: "providers: {agents: {precedence: user}}", want: "user"}},
	"providers.copilot.settings": {
		{name: "on over the user's off", user: "providers: {copilot: {settings: false}}", project: "providers: {copilot: {settings: true}}", want: false, ignored: true},
	},
	"providers.copilot.user_settings": {{name: "a file", project: "providers: {copilot: {user_settings: [s.json]}}", want: []any{}, ignored: true}},
	"providers.copilot.precedence":    {{name: "user", project: "providers: {copilot: {precedence: user}}", want: "user"}},
	"providers.cursor.precedence":     {{name: "user", project: "providers: {cursor: {precedence: user}}", want: "user"}},
	"providers.marketplace.plugins_file": {
		{name: "a file of the repository", project: "providers: {marketplace: {plugins_file: p.json}}", want: "", ignored: true},
	},
	"providers.marketplace.plugins_root": {
		{name: "a folder of the repository", project: "providers: {marketplace: {plugins_root: p}}", want: "", ignored: true},
	},
	"providers.marketplace.commands": {
		{name: "on over the user's off", user: "providers: {marketplace: {commands: false}}", project: "providers: {marketplace: {commands: true}}", want: false, ignored: true},
	},
	"providers.codex_plugins.config_file": {
		{name: "a file of the repository", project: "providers: {codex_plugins: {config_file: c.toml}}", want: "", ignored: true},
	},
	"providers.codex_plugins.cache_dir": {
		{name: "a folder of the repository", project: "providers: {codex_plugins: {cache_dir: c}}", want: "", ignored: true},
	},
	"providers.gemini_extensions.extensions_dir": {
		{name: "a folder of the repository", project: "providers: {gemini_extensions: {extensions_dir: e}}", want: "", ignored: true},
	},
	"providers.copilot_plugins.home": {
		{name: "a folder of the repository", project: "providers: {copilot_plugins: {home: c}}", want: "", ignored: true},
	},
	"providers.cursor_plugins.plugins_dir": {
		{name: "a folder of the repository", project: "providers: {cursor_plugins: {plugins_dir: p}}", want: "", ignored: true},
	},
	"providers.agent_plugins.user_dir": {
		{name: "a folder of the repository", project: "providers: {agent_plugins: {user_dir: p}}", want: "", ignored: true},
	},
	"providers.gemini_extensions.namespace": {{name: "off", project: "providers: {gemini_extensions: {namespace: false}}", want: false}},
	"providers.commands.claude": {
		{name: "on over the user's off", user: "providers: {commands: {claude: false}}", project: "providers: {commands: {claude: true}}", want: false, ignored: true},
	},
	"providers.commands.codex": {
		{name: "off", project: "providers: {commands: {codex: false}}", want: false},
	},
	"providers.remote.servers": {
		{name: "a server of the project's", project: "providers: {remote: {servers: [\"https://evil.example/mcp\"]}}", want: []any{}, ignored: true},
		{name: "over the user's", user: "providers: {remote: {servers: [\"http://127.0.0.1:3801/mcp\"]}}",
			project: "providers: {remote: {servers: [\"https://evil.example/mcp\"]}}", want: []any{"http://127.0.0.1:3801/mcp"}, ignored: true},
	},
	"signing.trusted_root": {{name: "the project's", project: "signing: {trusted_root: evil.json}", want: "", ignored: true}},
	"signing.keys": {
		{name: "the project's", project: "signing: {keys: [evil.pem]}", want: []string{}, ignored: true},
	},
	"signing.strict": {
		{name: "off", project: "signing: {strict: false}", want: true, ignored: true},
		{name: "on over the user's off", user: "signing: {strict: false}", project: "signing: {strict: true}", want: false, ignored: true},
	},
	"providers.git.url": {
		{name: "a repository of the project's", project: "providers: {git: {url: \"https://evil.example/skills.git\"}}", want: "", ignored: true},
		{name: "over the user's", user: "providers: {git: {url: \"https://git.example.com/skills.git\"}}",
			project: "providers: {git: {url: \"https://evil.example/skills.git\"}}", want: "https://git.example.com/skills.git", ignored: true},
	},
	"providers.git.ref":      {{name: "the project's", project: "providers: {git: {ref: evil}}", want: "", ignored: true}},
	"providers.git.path":     {{name: "the project's", project: "providers: {git: {path: evil}}", want: "", ignored: true}},
	"providers.git.interval": {{name: "the project's", project: "providers: {git: {interval: 1s}}", want: "5m0s", ignored: true}},
	"http.tokens": {
		{name: "the project's", project: "http: {tokens: [\"https://evil.example=x\"]}", want: []string{}, ignored: true},
		{name: "over the user's", user: "http: {tokens: [\"https://skills.example.com=u\"]}",
			project: "http: {tokens: [\"https://evil.example=x\"]}", want: []string{"https://skills.example.com=u"}, ignored: true},
	},
	"policy.allowed_sources": {
		{name: "every source over the user's", user: "policy: {allowed_sources: [github.com/acme]}",
			project: "policy: {allowed_sources: [\"*\"]}", want: []string{"github.com/acme"}, ignored: true},
		{name: "fewer sources", user: "policy: {allowed_sources: [github.com/acme, gitlab.com]}",
			project: "policy: {allowed_sources: [github.com/acme]}", want: []string{"github.com/acme", "gitlab.com"}, ignored: true},
	},
	"policy.required_signers": {
		{name: "a signer of its own", user: "policy: {required_signers: [\"github.com/acme=*@acme.com\"]}",
			project: "policy: {required_signers: [\"github.com/acme=*\"]}", want: []string{"github.com/acme=*@acme.com"}, ignored: true},
	},
	"policy.blocked_skills": {
		{name: "none over the user's", user: "policy: {blocked_skills: [evil]}", project: "policy: {blocked_skills: []}",
			want: []string{"evil"}, ignored: true},
	},
	"policy.min_scan_verdict": {
		{name: "any over the user's", user: "policy: {min_scan_verdict: no-errors}", project: "policy: {min_scan_verdict: any}",
			want: "no-errors", ignored: true},
	},
	"policy.allow_unsigned": {
		{name: "on over the user's off", user: "policy: {allow_unsigned: false}", project: "policy: {allow_unsigned: true}",
			want: false, ignored: true},
	},
}

// TestProjectTrust merges a user and a project config for every key of the
// built-in configuration and checks the effective value and whether the
// project's value is reported as ignored. The repository holds a link
// leading out of it (link-out).
func TestProjectTrust(t *testing.T) {
	t.Parallel()
	cases := map[string][]trustCase{}
	for k, v := range trustCases {
		cases[k] = v
	}
	sp := mustSpec(t)
	for _, key := range sp.leaves {
		name, ok := strings.CutPrefix(key, "providers.")
		if name, ok = strings.CutSuffix(name, ".enabled"); ok {
			cases[key] = []trustCase{
				{name: "off", project: "providers: {" + name + ": {enabled: false}}", want: false},
				{name: "on over the user's off", user: "providers: {" + name + ": {enabled: false}}",
					project: "providers: {" + name + ": {enabled: true}}", want: false, ignored: true},
			}
		}
		if len(cases[key]) == 0 {
			t.Errorf("%s: no case shows what a project config may do with it", key)
		}
	}
	for key, cs := range cases {
		for _, tc := range cs {
			t.Run(key+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				root := tempDir(t)
				home := mkdir(t, filepath.Join(root, "home"))
				repo := mkdir(t, filepath.Join(root, "repo"))
				mkdir(t, filepath.Join(repo, ".git"))
				mkdir(t, filepath.Join(root, "outside"))
				if err := os.Symlink(filepath.Join(root, "outside"), filepath.Join(repo, "link-out")); err != nil {
					t.Fatal(err)
				}
				if tc.user != "" {
					write(t, filepath.Join(home, ".config", "ccski", "config.yaml"), tc.user+"\n")
				}
				project := write(t, filepath.Join(repo, "ccski.yaml"), tc.project+"\n")
				l := mustLoad(t, Options{Workspace: repo, Home: home, Environ: func() []string { return nil },
					ManagedFile: filepath.Join(root, "no-managed.yaml")})
				got := l.Config.Flat()[key]
				if d, ok := got.(interface{ String() string }); ok {
					got = d.String()
				}
				if diff := cmp.Diff(expand(tc.want, repo, home), got, equateEmpty()); diff != "" {
					t.Errorf("%s (-want +got):\n%s", key, diff)
				}
				var ig *Ignored
				for i := range l.Ignored {
					if l.Ignored[i].Key == key {
						ig = &l.Ignored[i]
					}
				}
				if (ig != nil) != tc.ignored {
					t.Errorf("reported as ignored: %v, want %v (%+v)", ig != nil, tc.ignored, l.Ignored)
				}
				if ig != nil && (ig.Layer != "project config "+project || !strings.HasPrefix(ig.Reason, "a project config may ")) {
					t.Errorf("ignored: %+v", *ig)
				}
				switch userConfig := "user config " + filepath.Join(home, ".config", "ccski", "config.yaml"); {
				case tc.ignored && !tc.cut:
					// Taken out of the project's layer: the layer below keeps it.
					if src := l.Sources[key]; src != "default" && src != userConfig {
						t.Errorf("source %q, want the layer below the project", src)
					}
				case l.Sources[key] != "project config "+project:
					t.Errorf("source %q, want the project config", l.Sources[key])
				}
			})
		}
	}
}

// expand replaces %r and %h in the strings of want.
func expand(want any, repo, home string) any {
	r := strings.NewReplacer("%r", repo, "%h", home)
	switch w := want.(type) {
	case string:
		return r.Replace(w)
	case []string:
		out := make([]string, len(w))
		for i, s := range w {
			out[i] = r.Replace(s)
		}
		return out
	}
	return want
}

// TestIgnoredReport checks what Loaded.Ignored says of a project's value:
// the value as written and the one used, durations as in ccski.yaml and
// secrets redacted; nothing for a value a variable or a flag overrides
// anyway, nor for a value equal to the one below.
func TestIgnoredReport(t *testing.T) {
	t.Parallel()
	root := tempDir(t)
	home := mkdir(t, filepath.Join(root, "home"))
	user := write(t, filepath.Join(home, ".config", "ccski", "config.yaml"),
		"mcp: {auth_token: u-secret, scan: block, session_idle_timeout: 10m}\n")
	repo := mkdir(t, filepath.Join(root, "repo"))
	mkdir(t, filepath.Join(repo, ".git"))
	project := write(t, filepath.Join(repo, "ccski.yaml"), `
skill_dirs: [in, /out]
mcp:
  auth_token: p-secret
  scan: "off"
  session_idle_timeout: 1h
  transport: http
  host: 127.0.0.1
  port: 9
`)
	o := Options{Workspace: repo, Home: home, ManagedFile: filepath.Join(root, "none.yaml"),
		Environ: func() []string { return []string{"CCSKI_MCP__TRANSPORT=sse"} }, Flags: flags(t, "--port", "7")}
	l := mustLoad(t, o)
	p := "project config " + project
	want := []Ignored{
		{Key: "mcp.auth_token", Layer: p, Value: RedactedValue, Used: RedactedValue, Reason: "a project config may not change it"},
		{Key: "mcp.scan", Layer: p, Value: "off", Used: "block", Reason: "a project config may only make it stricter (off < warn < block)"},
		{Key: "mcp.session_idle_timeout", Layer: p, Value: "1h0m0s", Used: "10m0s",
			Reason: "a project config may only lower it (0 counts as the highest)"},
		{Key: "skill_dirs", Layer: p, Value: []string{filepath.Join(repo, "in"), "/out"}, Used: []string{filepath.Join(repo, "in")},
			Reason: "a project config may only name paths inside the project (" + repo + ")"},
	}
	if diff := cmp.Diff(want, l.Ignored); diff != "" {
		t.Errorf("Ignored (-want +got):\n%s", diff)
	}
	c := l.Config.MCP
	if c.AuthToken != "u-secret" || c.Scan != "block" || c.Transport != "sse" || c.Port != 7 || c.Host != "127.0.0.1" {
		t.Errorf("mcp = %+v", c)
	}
	for key, src := range map[string]string{"mcp.auth_token": "user config " + user, "mcp.scan": "user config " + user,
		"mcp.host": p, "skill_dirs": p, "mcp.transport": "env CCSKI_MCP__TRANSPORT"} {
		if l.Sources[key] != src {
			t.Errorf("Sources[%s] = %q, want %q", key, l.Sources[key], src)
		}
	}
}

// TestManagedConfig checks the managed config: it sits between the
// defaults and the user config; the user config may only make the
// sensitive keys it sets stricter, and the project config is held to
// what both leave; variables are held to it as the user config is; a key
// a project may set freely is only a default there.
func TestManagedConfig(t *testing.T) {
	t.Parallel()
	root := tempDir(t)
	home := mkdir(t, filepath.Join(root, "home"))
	managed := write(t, filepath.Join(root, "etc", "ccski", "config.yaml"),
		"mcp: {scan: warn, catalog: 5, tools: [sources, ask]}\nproviders: {codex: {system_dirs: [sys]}}\n")
	user := write(t, filepath.Join(home, ".config", "ccski", "config.yaml"),
		`mcp: {scan: "off", catalog: 7, tools: [sources, skills_list], require_trusted: true}`+"\n")
	repo := mkdir(t, filepath.Join(root, "repo"))
	mkdir(t, filepath.Join(repo, ".git"))
	project := write(t, filepath.Join(repo, "ccski.yaml"), `mcp: {scan: "off", require_trusted: false, catalog: 9}`+"\n")

	load := func(vars ...string) *Loaded {
		return mustLoad(t, Options{Workspace: repo, Home: home, ManagedFile: managed, Environ: func() []string { return vars }})
	}
	l := load()
	if diff := cmp.Diff([]string{managed, user, project}, l.Files); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	c := l.Config
	if c.MCP.Scan != "warn" || !c.MCP.RequireTrusted || c.MCP.Catalog != 9 || !slices.Equal(c.MCP.Tools, []string{"sources"}) {
		t.Errorf("mcp = %+v", c.MCP)
	}
	if got := optionOf(c, "codex", "system_dirs"); !cmp.Equal(got, []any{filepath.Join(root, "etc", "ccski", "sys")}) {
		t.Errorf("codex.system_dirs from the managed config = %v", got)
	}
	for key, src := range map[string]string{"mcp.scan": "managed config " + managed, "mcp.tools": "user config " + user,
		"mcp.require_trusted": "user config " + user, "mcp.catalog": "project config " + project,
		"providers.codex.system_dirs": "managed config " + managed} {
		if l.Sources[key] != src {
			t.Errorf("Sources[%s] = %q, want %q", key, l.Sources[key], src)
		}
	}
	u, p := "user config "+user, "project config "+project
	under := "a user config, where a managed config sets it, may "
	want := []Ignored{
		{Key: "mcp.scan", Layer: u, Value: "off", Used: "warn", Reason: under + "only make it stricter (off < warn < block)"},
		{Key: "mcp.tools", Layer: u, Value: []string{"sources", "skills_list"}, Used: []string{"sources"}, Reason: under + "only leave entries out"},
		{Key: "mcp.require_trusted", Layer: p, Value: false, Used: true, Reason: "a project config may only turn it on"},
		{Key: "mcp.scan", Layer: p, Value: "off", Used: "warn", Reason: "a project config may only make it stricter (off < warn < block)"},
	}
	if diff := cmp.Diff(want, l.Ignored); diff != "" {
		t.Errorf("Ignored (-want +got):\n%s", diff)
	}

	// A variable is held to the managed config as the user config is:
	// it may make a key stricter, and one that would loosen it is an
	// error naming it.
	if l := load("CCSKI_MCP__SCAN=block"); l.Config.MCP.Scan != "block" || len(l.Ignored) != 2 {
		t.Errorf("CCSKI_MCP__SCAN=block: scan %q, ignored %+v", l.Config.MCP.Scan, l.Ignored)
	}
	if _, err := loadBuiltin(Options{Workspace: repo, Home: home, ManagedFile: managed,
		Environ: func() []string { return []string{"CCSKI_MCP__SCAN=off"} }}); err == nil ||
		!strings.Contains(err.Error(), "env CCSKI_MCP__SCAN: mcp.scan: the managed config "+managed) {
		t.Errorf("CCSKI_MCP__SCAN=off: error %v", err)
	}

	// No managed file: no layer.
	l = mustLoad(t, Options{Workspace: repo, Home: home, ManagedFile: filepath.Join(root, "none.yaml"), Environ: func() []string { return nil }})
	if diff := cmp.Diff([]string{user, project}, l.Files); diff != "" {
		t.Errorf("Files without a managed config (-want +got):\n%s", diff)
	}
	if l.Config.MCP.Scan != "off" {
		t.Errorf("without a managed config the user's scan: off holds; got %q", l.Config.MCP.Scan)
	}

	// A bad managed config is an error naming it.
	bad := write(t, filepath.Join(root, "bad", "config.yaml"), "mcp: {scna: block}\n")
	_, err := loadBuiltin(Options{Workspace: repo, Home: home, ManagedFile: bad, Environ: func() []string { return nil }})
	if err == nil || !strings.Contains(err.Error(), "managed config "+bad) || !strings.Contains(err.Error(), `did you mean "mcp.scan"?`) {
		t.Errorf("bad managed config: error %v", err)
	}
}

func TestManagedPath(t *testing.T) {
	t.Parallel()
	getenv := func(v string) string {
		if v == "ProgramData" {
			return `D:\Data`
		}
		return ""
	}
	for goos, want := range map[string]string{
		"linux":   "/etc/ccski/config.yaml",
		"freebsd": "/etc/ccski/config.yaml",
		"darwin":  "/Library/Application Support/ccski/config.yaml",
		"windows": filepath.Join(`D:\Data`, "ccski", "config.yaml"),
	} {
		if got := managedPath(goos, getenv); got != want {
			t.Errorf("%s: %q, want %q", goos, got, want)
		}
	}
	if got := managedPath("windows", func(string) string { return "" }); got != filepath.Join(`C:\ProgramData`, "ccski", "config.yaml") {
		t.Errorf("windows without ProgramData: %q", got)
	}
}

// TestPolicyOnlyFromFiles checks that the policy comes from the managed and
// user config files only: a CCSKI_ variable that would set a policy key is
// an error naming it, and a user config may not change a policy key the
// managed config sets.
func TestPolicyOnlyFromFiles(t *testing.T) {
	t.Parallel()
	root := tempDir(t)
	home := mkdir(t, filepath.Join(root, "home"))
	managed := write(t, filepath.Join(root, "etc", "ccski", "config.yaml"),
		"policy: {allowed_sources: [github.com/acme], allow_unsigned: false}\n")
	user := write(t, filepath.Join(home, ".config", "ccski", "config.yaml"),
		"policy: {allowed_sources: [\"*\"], blocked_skills: [evil]}\n")
	_, err := Load(Options{Workspace: root, Home: home, ManagedFile: managed,
		Environ: func() []string { return []string{"CCSKI_POLICY__ALLOWED_SOURCES=*"} }})
	if err == nil || !strings.Contains(err.Error(), "CCSKI_POLICY__ALLOWED_SOURCES") || !strings.Contains(err.Error(), "config files only") {
		t.Errorf("a policy variable: error = %v", err)
	}
	l := mustLoad(t, Options{Workspace: root, Home: home, ManagedFile: managed, Environ: func() []string { return nil }})
	p := l.Config.Policy
	if !slices.Equal(p.AllowedSources, []string{"github.com/acme"}) || p.AllowUnsigned || !slices.Equal(p.BlockedSkills, []string{"evil"}) {
		t.Errorf("policy = %+v", p)
	}
	if l.Sources["policy.allowed_sources"] != "managed config "+managed || l.Sources["policy.blocked_skills"] != "user config "+user {
		t.Errorf("sources = %v", l.Sources)
	}
	if len(l.Ignored) != 1 || l.Ignored[0].Key != "policy.allowed_sources" {
		t.Errorf("ignored = %+v", l.Ignored)
	}
}

// TestManagedSigningHeld checks that neither a variable, nor a flag, nor
// the user config can loosen what the signature rules of a managed config
// rest on: mcp.require_signed and signing.strict it sets, and the trusted
// root and keys, which come from it alone once it sets a signature rule
// (even where it leaves them unset). A value that would loosen one is an
// error naming the variable or flag; one that keeps it is taken.
func TestManagedSigningHeld(t *testing.T) {
	t.Parallel()
	root := tempDir(t)
	home := mkdir(t, filepath.Join(root, "home"))
	flagsFor := func(args ...string) *pflag.FlagSet {
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return fs
	}
	for _, tc := range []struct {
		name, managed string
		env           []string
		flags         []string
		wantErr       string // "" when Load succeeds
	}{
		{"require_signed off", "mcp: {require_signed: true}\nsigning: {strict: true}\n",
			[]string{"CCSKI_MCP__REQUIRE_SIGNED=false"}, nil, "env CCSKI_MCP__REQUIRE_SIGNED: mcp.require_signed"},
		{"strict off", "mcp: {require_signed: true}\nsigning: {strict: true}\n",
			[]string{"CCSKI_SIGNING__STRICT=false"}, nil, "env CCSKI_SIGNING__STRICT: signing.strict"},
		{"own trusted root", "mcp: {require_signed: true}\nsigning: {strict: true}\n",
			[]string{"CCSKI_SIGNING__TRUSTED_ROOT=/tmp/evil-root.json"}, nil, "env CCSKI_SIGNING__TRUSTED_ROOT: signing.trusted_root"},
		{"own root under required signers", "policy: {required_signers: [\"github.com/acme=*@acme.com\"]}\n",
			[]string{"CCSKI_SIGNING__TRUSTED_ROOT=/tmp/evil-root.json"}, nil, "signing.trusted_root: the managed config"},
		{"own keys under allow_unsigned false", "policy: {allow_unsigned: false}\n",
			[]string{"CCSKI_SIGNING__KEYS=/tmp/evil.pem"}, nil, "env CCSKI_SIGNING__KEYS: signing.keys"},
		{"lax under a managed root", "signing: {trusted_root: /etc/ccski/root.json}\n",
			[]string{"CCSKI_SIGNING__STRICT=false"}, nil, "env CCSKI_SIGNING__STRICT"},
		{"user_dir the managed config sets", "user_dir: /srv/skills\n",
			[]string{"CCSKI_USER_DIR=/tmp/elsewhere"}, nil, "env CCSKI_USER_DIR: user_dir"},
		{"flag user_dir the managed config sets", "user_dir: /srv/skills\n",
			nil, []string{"--user-dir=/tmp/elsewhere"}, "flag --user-dir: user_dir"},
		{"same value", "mcp: {require_signed: true}\nsigning: {strict: true}\n",
			[]string{"CCSKI_MCP__REQUIRE_SIGNED=true", "CCSKI_SIGNING__STRICT=true"}, nil, ""},
		{"no signature rule: the root is the user's", "mcp: {scan: warn}\n",
			[]string{"CCSKI_SIGNING__TRUSTED_ROOT=/tmp/my-root.json"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			managed := write(t, filepath.Join(tempDir(t), "config.yaml"), tc.managed)
			l, err := Load(Options{Workspace: root, Home: home, ManagedFile: managed, Flags: flagsFor(tc.flags...),
				Environ: func() []string { return tc.env }})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) ||
				!strings.Contains(err.Error(), managed)):
				t.Fatalf("error %v, want one naming %q and %s (config %+v, sources %v)", err, tc.wantErr, managed,
					func() any {
						if l == nil {
							return nil
						}
						return l.Config.Signing
					}(), func() any {
						if l == nil {
							return nil
						}
						return l.Sources
					}())
			}
		})
	}

	// The user config may not set the trusted root or keys either, once
	// the managed config sets a signature rule: they are ignored and
	// listed, and the managed config's (here the built-in) values hold.
	managed := write(t, filepath.Join(root, "etc", "config.yaml"), "policy: {required_signers: [\"github.com/acme=*@acme.com\"]}\n")
	user := write(t, filepath.Join(home, ".config", "ccski", "config.yaml"),
		"signing: {trusted_root: /tmp/evil-root.json, keys: [/tmp/evil.pem], strict: false}\n")
	l := mustLoad(t, Options{Workspace: root, Home: home, ManagedFile: managed, Environ: func() []string { return nil }})
	if s := l.Config.Signing; s.TrustedRoot != "" || len(s.Keys) != 0 || !s.Strict || !l.ManagedSigning {
		t.Errorf("signing = %+v, managed signing %v", s, l.ManagedSigning)
	}
	var keys []string
	for _, ig := range l.Ignored {
		if ig.Layer == "user config "+user {
			keys = append(keys, ig.Key)
		}
	}
	if want := []string{"signing.keys", "signing.strict", "signing.trusted_root"}; !slices.Equal(keys, want) {
		t.Errorf("ignored keys %v, want %v (%+v)", keys, want, l.Ignored)
	}
}
