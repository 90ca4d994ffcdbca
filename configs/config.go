package configs

import (
	"fmt"
	"reflect"
	"time"

	"github.com/ccski/ccski/internal/httpfetch"

	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/internal/scanmode"
	"github.com/ccski/ccski/providers"
)

// Config is the effective configuration: the built-in defaults, the user
// config, the project ccski.yaml, CCSKI_* variables and flags, merged in
// that order. Every key is documented in ccski.yaml at the repository root
// and described by ccski.schema.json, both derived from this type, the
// documentation in docs.go and the provider registry (see Example and
// Schema). A field's config:"path" tag marks a path key (see Load).
type Config struct {
	// UserDir is the base of every user-level path; empty means the home
	// folder.
	UserDir string `koanf:"user_dir" config:"path" trust:"user"`
	// Workspace is the project folder; empty means the current directory.
	Workspace string `koanf:"workspace" config:"path" trust:"inside"`
	// SkillDirs are extra skill roots for the project provider. Relative
	// paths are relative to the file that lists them.
	SkillDirs []string `koanf:"skill_dirs" config:"path" trust:"inside"`
	// Include and Exclude are filter tokens (see package filters). An empty
	// Include means "auto".
	Include []string `koanf:"include" trust:"default"`
	Exclude []string `koanf:"exclude" trust:"more"`
	// IncludeFromFile and ExcludeFromFile say that Include and Exclude
	// were set by a config file (the user config or the project
	// ccski.yaml), not by the defaults, a CCSKI_ variable or a flag. Load
	// sets them; they are no keys. A shared ccski.yaml may name a skill
	// that some of the machines reading it lack, so the engine warns about
	// such a list's tokens that name nothing instead of failing (see
	// filters.Settings).
	IncludeFromFile bool `koanf:"-"`
	ExcludeFromFile bool `koanf:"-"`
	// State is enabled, disabled or all.
	State string `koanf:"state" trust:"stricter=all<enabled,all<disabled"`
	// Agent is the host whose skill switches decide which skills are off
	// (claude, codex or gemini), or all: a skill is then off only when
	// every host that reads it turns it off.
	Agent string `koanf:"agent" trust:"user"`
	// Priority orders root kinds for dedupe, highest first. Each of the
	// claude, codex and agents providers ranks its own user and project
	// copies by its precedence option (providers.<name>.precedence).
	Priority []string `koanf:"priority" trust:"project"`
	// Limits bound every walk.
	Limits Limits `koanf:"limits"`
	// Providers holds one section per provider, keyed by provider name:
	// one per entry of Registry, whose options struct gives the keys,
	// defaults and documentation.
	Providers map[string]Provider `koanf:"providers"`
	// Registry is the provider registry the configuration was loaded
	// with (Options.Registry; package providers/all lists the built-in
	// providers): the declarations its providers sections were checked
	// and decoded against, in scan order. The engine builds the providers
	// from it. It is no key.
	Registry []providers.Entry `koanf:"-"`
	// MCP configures `ccski mcp`.
	MCP MCP `koanf:"mcp"`
	// Install configures ccski install and update.
	Install Install `koanf:"install"`
	// HTTP configures every request ccski makes over HTTP.
	HTTP HTTP `koanf:"http"`
	// Policy is the organisation's policy: what may be installed,
	// updated, turned on and served (package internal/policy). Only the
	// managed and user configs set it.
	Policy Policy `koanf:"policy"`
	// Signing configures how a skill's signature is verified.
	Signing Signing `koanf:"signing"`
}

// Policy is what an organisation allows on the machine, written in the
// managed config (or the user config): the rules package internal/policy
// evaluates. Every key is trust:"user": a project config may not set it
// (its value is ignored and listed in Loaded.Ignored), a user config may
// not change a key the managed config sets, and no CCSKI_ variable or
// flag sets one (Load refuses such a variable).
type Policy struct {
	// AllowedSources are the source patterns skills may be installed
	// from; empty allows every source.
	AllowedSources []string `koanf:"allowed_sources" trust:"user"`
	// RequiredSigners are "<source pattern>=<identity>[@<issuer>]"
	// entries: a skill from a matching source must carry a signature by
	// one of the identities listed for it.
	RequiredSigners []string `koanf:"required_signers" trust:"user"`
	// BlockedSkills are skill names (globs) and sha256: digests that are
	// never installed, turned on or served.
	BlockedSkills []string `koanf:"blocked_skills" trust:"user"`
	// MinScanVerdict is the verdict of the offline security scan a
	// skill must reach (scanmode.Verdicts).
	MinScanVerdict string `koanf:"min_scan_verdict" trust:"user"`
	// AllowUnsigned lets skills that carry no signature be installed
	// and served; false implies mcp.require_signed.
	AllowUnsigned bool `koanf:"allow_unsigned" trust:"user"`
}

// Signing is the trusted material a skill's signature is checked against
// (package internal/provenance; a caller builds its Verifier with
// provenance.NewVerifier(provenance.Config{TrustedRoot: s.TrustedRoot,
// Keys: s.Keys, Lax: !s.Strict, StateDir: <the user state folder>})).
// Only the user and managed configs set it: a project file never says
// whom to trust.
type Signing struct {
	// TrustedRoot is the path of a Sigstore trusted root (JSON); empty
	// means the one ccski trust-root update wrote, else the one ccski
	// ships.
	TrustedRoot string `koanf:"trusted_root" config:"path" trust:"user"`
	// Keys are PEM files of public keys and root certificates.
	Keys []string `koanf:"keys" config:"path" trust:"user"`
	// Strict refuses an OpenSSF model signature that leaves a file of
	// the skill unsigned.
	Strict bool `koanf:"strict" trust:"user"`
}

// HTTP configures every request ccski makes over HTTP (package
// internal/httpfetch): the install sources (well-known indexes, archives,
// MCP servers) and the remote provider's upstream servers.
type HTTP struct {
	// Tokens are "<origin>=<token>" entries: each origin's bearer token.
	// Only the user and managed configs (and CCSKI_HTTP__TOKENS) set
	// them: a project file never names where a token goes.
	Tokens []httpfetch.Token `koanf:"tokens" trust:"user" doc:"Bearer tokens of private hosts, each \"<origin>=<token>\" (such as https://skills.example.com=<token>; an origin is a scheme, a host and a port unless the default). A token is sent to its own origin only, over https or over http to a loopback address, and looked up again after every redirect. Only the user and managed configs may set it; prefer the CCSKI_HTTP__TOKENS environment variable (entries separated by commas) to a file."`
}

// Install bounds what ccski install and update download from an HTTP
// source (a well-known index, an archive): each artifact's bytes, and an
// archive's bytes and entries once unpacked. A project config may only
// lower them.
type Install struct {
	// MaxDownload is the most bytes one downloaded artifact may have.
	MaxDownload int `koanf:"max_download" trust:"lower=default"`
	// MaxUnpacked is the most bytes the files of one archive may have.
	MaxUnpacked int `koanf:"max_unpacked" trust:"lower=default"`
	// MaxFiles is the most entries one archive may hold.
	MaxFiles int `koanf:"max_files" trust:"lower=default"`
}

// Limits bound the walk of each root.
type Limits struct {
	// MaxDepth is how many folder levels below a root are searched.
	MaxDepth int `koanf:"max_depth" trust:"lower=default"`
	// MaxDirs is how many folders one root may hold before its walk stops.
	MaxDirs int `koanf:"max_dirs" trust:"lower=default"`
}

// Provider is one provider's section: whether it runs, and its options.
type Provider struct {
	Enabled bool `koanf:"enabled"`
	// Options are the keys of the section besides enabled, decoded: a
	// pointer to the provider's options struct (providers.Entry.Options)
	// holding its defaults overlaid with every layer's keys, checked
	// once, by Load. The provider's factory takes them as they are (see
	// ProviderOptions). nil for a provider without options.
	Options any `koanf:"-"`
}

// ProviderOptions returns the options the registered provider e is built
// from (e.New): a copy of Providers[e.Name].Options, or of e's defaults
// when a Config built by hand leaves them out, in which every field
// tagged config:"from=KEY" holds the value of c's key KEY (the project
// provider's dirs are skill_dirs). It is nil for a provider without
// options. Options of another type than e's are an error naming the
// provider.
func (c Config) ProviderOptions(e providers.Entry) (any, error) {
	if e.Options == nil {
		return nil, nil
	}
	v := reflect.ValueOf(e.Options())
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("configs: provider %s: Options returns %s, not a pointer to a struct", e.Name, v.Type())
	}
	if o := c.Providers[e.Name].Options; o != nil {
		ov := reflect.ValueOf(o)
		if ov.Type() != v.Type() || ov.IsNil() {
			return nil, fmt.Errorf("configs: providers.%s: options are a %T, want a %s", e.Name, o, v.Type())
		}
		v = reflect.New(ov.Type().Elem())
		v.Elem().Set(ov.Elem())
	}
	cv := reflect.ValueOf(c)
	t := v.Elem().Type()
	for i := range t.NumField() {
		key := fromKey(t.Field(i))
		if key == "" {
			continue
		}
		src, index, ok := fieldByKey(cv.Type(), key)
		if !ok || !src.Type.AssignableTo(t.Field(i).Type) {
			return nil, fmt.Errorf("configs: providers.%s: field %s takes %q, which is no key of its type", e.Name, t.Field(i).Name, key)
		}
		val := cv.FieldByIndex(index)
		if val.Kind() == reflect.Slice && !val.IsNil() {
			val = reflect.AppendSlice(reflect.MakeSlice(val.Type(), 0, val.Len()), val) // a copy, not c's list
		}
		v.Elem().Field(i).Set(val)
	}
	return v.Interface(), nil
}

// MCP configures the MCP server.
type MCP struct {
	// Transport is stdio, http or sse.
	Transport string `koanf:"transport" trust:"stricter=http<stdio,sse<stdio"`
	// Host and Port are where http and sse listen.
	Host string `koanf:"host" trust:"user"`
	Port int    `koanf:"port" trust:"user"`
	// Refresh turns periodic rescans and the watcher on or off.
	Refresh bool `koanf:"refresh" trust:"stricter=false<true"`
	// RefreshInterval is the time between periodic rescans.
	RefreshInterval time.Duration `koanf:"refresh_interval" trust:"user"`
	// Watch turns the file watcher on or off.
	Watch bool `koanf:"watch" trust:"stricter=false<true"`
	// AllowedOrigins are browser origins accepted besides loopback ones.
	AllowedOrigins []string `koanf:"allowed_origins" trust:"user"`
	// AuthToken, when set, is the bearer token HTTP clients must send.
	AuthToken string `koanf:"auth_token" trust:"user"`
	// Stateless serves HTTP without sessions, for replicas behind a load
	// balancer.
	Stateless bool `koanf:"stateless" trust:"user"`
	// Web serves the skills catalogue, a web page, at GET / of the http
	// and sse transports (package internal/web), behind the same Origin,
	// Host and token checks as /mcp.
	Web bool `koanf:"web" trust:"stricter=true<false"`
	// SessionIdleTimeout closes an HTTP session that has had no request
	// open for this long; 0 keeps idle sessions forever.
	SessionIdleTimeout time.Duration `koanf:"session_idle_timeout" trust:"lower"`
	// MaxSessions caps the live HTTP and SSE sessions; a new one beyond
	// it closes the longest-idle one. 0 means no cap.
	MaxSessions int `koanf:"max_sessions" trust:"lower"`
	// DrainDelay is how long an http or sse server keeps serving, with
	// /readyz answering 503, after SIGTERM; DrainTimeout how long the
	// calls in flight then get to finish.
	DrainDelay   time.Duration `koanf:"drain_delay" trust:"user"`
	DrainTimeout time.Duration `koanf:"drain_timeout" trust:"user"`
	// LogLevel is debug, info, warn or error; LogFormat is text or json.
	LogLevel  string `koanf:"log_level" trust:"stricter=error<warn<info<debug"`
	LogFormat string `koanf:"log_format" trust:"project"`
	// Tools are the opt-in tools served besides skill (see package
	// mcp/tools): skills_list, skills_search, sources, ask.
	Tools []string `koanf:"tools" trust:"fewer"`
	// Catalog is the character budget of the skill tool's list of
	// skills; beyond it the list degrades (names first, then shortened
	// descriptions, then full entries) and skills_search is served. 0
	// means no budget.
	Catalog int `koanf:"catalog" trust:"project"`
	// AskContext caps the SKILL.md text the ask tool sends to the
	// client's model, in characters. 0 means no cap.
	AskContext int `koanf:"ask_context" trust:"project"`
	// SkillPrompts also serves every skill as an MCP prompt.
	SkillPrompts bool `koanf:"skill_prompts" trust:"project"`
	// Scan is what the server does with the offline security scan's
	// findings (see package security): warn, off or block.
	Scan string `koanf:"scan" trust:"stricter=off<warn<block"`
	// RequireTrusted serves a project skill only while its files match a
	// state accepted with ccski trust (see package trust).
	RequireTrusted bool `koanf:"require_trusted" trust:"stricter=false<true"`
	// RequireSigned serves only the skills whose signature verifies
	// against their files exactly (see package provenance). It is the
	// user's or the administrator's decision: a project config can
	// neither set it nor turn it off.
	RequireSigned bool `koanf:"require_signed" trust:"user"`
}

// Default returns the built-in defaults, the lowest layer, with the
// providers of reg (providers/all.Registry() for the built-in ones): every
// provider enabled, with the defaults of its options struct.
func Default(reg []providers.Entry) Config { return defaults(registry{providers: reg}) }

// defaults returns the built-in defaults with the providers of reg.
func defaults(reg registry) Config {
	return Config{
		State:     filters.States()[0],
		Agent:     filters.AgentAll,
		Priority:  kindNames(),
		Limits:    Limits{MaxDepth: 6, MaxDirs: 20000},
		Install:   Install{MaxDownload: 10 << 20, MaxUnpacked: 25 << 20, MaxFiles: 1000},
		Signing:   Signing{Keys: []string{}, Strict: true},
		Providers: reg.providerDefaults(),
		Registry:  reg.providers,
		Policy:    Policy{AllowedSources: []string{}, RequiredSigners: []string{}, BlockedSkills: []string{}, MinScanVerdict: string(scanmode.VerdictAny), AllowUnsigned: true},
		MCP: MCP{
			Transport:          "stdio",
			Host:               "127.0.0.1",
			Port:               3000,
			Refresh:            true,
			RefreshInterval:    30 * time.Second,
			Watch:              true,
			Web:                true,
			SessionIdleTimeout: 30 * time.Minute,
			MaxSessions:        1000,
			DrainTimeout:       2 * time.Second,
			LogLevel:           "info",
			LogFormat:          "text",
			Tools:              []string{},
			Catalog:            16000,
			AskContext:         100000,
			Scan:               string(scanmode.Warn),
		},
	}
}
