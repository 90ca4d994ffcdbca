package configs

// docs documents the keys and sections of Config by flattened key, in
// full sentences: the description of each in the JSON Schema and the
// comment above it in the example ccski.yaml. The flags that set a key are
// added to the example's comment from the flag table (flags.go), and the
// providers document their own sections and options (providers.Entry).
// Keys whose valid values are listed by newSpec's rules get the list from
// there, so the text here only explains them.
var docs = map[string]string{
	"user_dir":   "Base of every user-level path (~/.claude, ~/.codex, ~/.agents, ...). Empty means the home folder.",
	"workspace":  "Project folder whose skills are found. Empty means the current folder.",
	"skill_dirs": "Extra skill folders of this project, scanned by the project provider.",
	"include": "Filter tokens (provider, location or skill names): only matching skills are shown. " +
		"Empty means auto. A token here that names nothing on the machine (no provider, plugin, skill or " +
		"command) is a warning, listed by ccski sources, so that a shared file may name a skill some " +
		"machines lack; given as --include or CCSKI_INCLUDE it is an error.",
	"exclude": "Filter tokens: matching skills are hidden, before duplicates are resolved, so hiding the " +
		"copy that would win shows the next one. A token that names nothing is a warning, as for include.",
	"state": "Which skills are shown: enabled, disabled or all.",
	"agent": "Whose skill switches count (Claude Code's skillOverrides, Codex's [[skills.config]], Gemini CLI's " +
		"skills.disabled, Copilot CLI's plugin switch enabledPlugins): all, where a skill is off when every agent that reads it turns it off, or one agent, " +
		"whose switches then hide a skill from every view, such as ccski mcp --agent claude serving Claude Code.",
	"priority": "Root kinds, highest first. When two skills share a fully qualified name (a plugin's skills " +
		"are qualified by their plugin, so two plugins' skills never compete), the one found in the higher " +
		"kind wins. Each kind may appear once. The providers with a precedence option then rank their own " +
		"user and project copies by it (a personal Claude skill beats the project's copy by default). " +
		"ccski sources shows the rules in force.",
	"limits":           "Bounds on the walk of each skill root.",
	"limits.max_depth": "How many folder levels below a root are searched.",
	"limits.max_dirs":  "How many folders one root may hold before its walk stops.",
	"install": "Bounds on what ccski install and update download from an HTTP source (a well-known skills " +
		"index, an archive URL, an Agent Plugins package), as the skills CLI bounds them. A project config may " +
		"only lower them; 0 means the built-in value.",
	"install.max_download": "Most bytes one downloaded artifact (an index's SKILL.md or archive, an archive URL) may have.",
	"install.max_unpacked": "Most bytes the files of one archive may have once unpacked.",
	"install.max_files":    "Most entries one archive may hold.",
	"http": "Every request ccski makes over HTTP: install from an index, an archive or an MCP server, and the " +
		"remote provider's upstream servers.",
	"signing": "How a skill's signature is verified (a skill that carries skill.oms.sig, model.sig, *.oms.sig or " +
		"skill.sigstore.json): the trusted material, checked offline. Only the user and managed configs may set " +
		"these keys; a project file never says whom to trust.",
	"signing.trusted_root": "Sigstore trusted root (trusted_root.json) keyless signatures are checked against. " +
		"Empty means the one ccski trust-root update last fetched, else the Sigstore public-good root ccski ships.",
	"signing.keys": "PEM files of public keys (a signature by one of them verifies) and root certificates (a " +
		"signature whose certificate chain ends at one of them verifies, as model_signing verify certificate checks it).",
	"signing.strict": "Refuse an OpenSSF model signature (*.oms.sig, model.sig) that leaves a file or link of the " +
		"skill unsigned, as model_signing does. A changed or missing file fails either way.",
	"providers":     "One section per provider: enabled, plus the provider's own options. A project config may turn a provider off, never on.",
	"mcp":           "Settings of ccski mcp.",
	"mcp.transport": "How clients connect: stdio, http (streamable HTTP) or sse (legacy).",
	"mcp.host":      "Address http and sse listen on.",
	"mcp.port":      "Port http and sse listen on.",
	"mcp.refresh":   "Rescan skills while serving (periodically and on changes).",
	"mcp.refresh_interval": "Time between periodic rescans: a Go duration (\"30s\", \"2m\") or a whole " +
		"number of milliseconds (30000).",
	"mcp.watch":           "Watch skill folders for changes.",
	"mcp.allowed_origins": "Browser origins accepted besides loopback ones.",
	"mcp.auth_token": "Bearer token HTTP clients must send. Empty means none. Prefer the CCSKI_AUTH_TOKEN " +
		"variable (or the flag) to a token in a file. ccski config shows it as <redacted>.",
	"mcp.stateless": "Serve every HTTP client without a session, for replicas behind a load balancer. By default " +
		"clients of protocol 2026-07-28 are served without one and older clients get a session; stateless, " +
		"older clients get no list_changed notifications.",
	"mcp.web": "Serve the skills catalogue, a web page, at / of the http and sse transports, behind the " +
		"same Origin, Host and token checks as /mcp.",
	"mcp.log_level":  "Lowest level logged to stderr: debug, info, warn or error.",
	"mcp.log_format": "Log format on stderr: text or json.",
	// mcp.tools is documented by toolsDoc, from the tool list.
	"mcp.catalog": "Character budget of the skill tool's list of skills. Claude Code gives its own skill " +
		"listing about 1% of the context window (8,000 characters by default) and Codex about 2% (8,000 " +
		"characters as a floor); 16,000 characters (about 4,000 tokens, 2% of a 200k-token window) keeps " +
		"the list useful without crowding the context. Beyond it the list degrades: every skill named " +
		"first, then shortened descriptions, then full entries, shared across providers and plugins; " +
		"skills are left out only when not even the names fit. skills_search is then served. 0: no budget.",
	"mcp.ask_context": "Cap on the SKILL.md text the ask tool sends to the client's model, in characters: " +
		"whole files in priority order while they fit, the rest named as left out. 100,000 characters is " +
		"about 25,000 tokens, an eighth of a 200k-token window, leaving room for the answer. 0: no cap.",
	"mcp.session_idle_timeout": "HTTP sessions (of clients before protocol 2026-07-28) with no request open for this " +
		"long are closed, and their memory freed; a client that comes back is told the session is gone and starts a " +
		"new one. A Go duration (\"30m\", \"2h\") or a whole number of milliseconds; 0 keeps idle sessions forever.",
	"mcp.drain_delay": "On SIGTERM, how long an http or sse server keeps serving while /readyz answers 503, " +
		"so that a load balancer stops sending it requests before its listener closes (Kubernetes: a few seconds). " +
		"0 closes the listener at once.",
	"mcp.drain_timeout": "On shutdown, how long the tool calls in flight get to finish before the sessions close. " +
		"drain_delay + drain_timeout + 5s must stay under Kubernetes' terminationGracePeriodSeconds.",
	"mcp.max_sessions": "The most HTTP and SSE sessions kept at once; a new client beyond it closes the session " +
		"that has gone longest without a request (a GET stream held open counts as idle), and is refused with HTTP 503 " +
		"only while every session has a call in flight. 0: no cap.",
	"mcp.skill_prompts": "Also serve every skill as an MCP prompt, so /skill-name works in hosts without " +
		"native skills.",
	"mcp.scan": "What the server does with the offline security scan of the skills it serves (ccski scan, " +
		"docs/security-rules.md): warn serves every skill and logs each flagged one once on stderr, the scan " +
		"running in the background; block also keeps skills with an error-level finding from agents (not " +
		"listed, loading refused with the rules named), the scan running inside discovery; off scans nothing.",
	"mcp.require_trusted": "Serve a project skill to agents only while its files match a state accepted with " +
		"ccski trust; any other project skill (never accepted, or changed since) is hidden, and ccski sources says " +
		"why. ccski records the files of every project and plugin skill the first time it sees them " +
		"(<user config folder>/trust.json), but a first sight is not an acceptance.",
	"policy": "The organisation's policy: what may be installed, updated, turned on (enable, profile use) and " +
		"served (ccski mcp). Write it in the managed config (/etc/ccski/config.yaml on Linux and other Unix " +
		"systems, /Library/Application Support/ccski/config.yaml on macOS, %ProgramData%\\ccski\\config.yaml on " +
		"Windows: readable by everyone, writable by administrators only) or in the user config; a project " +
		"config's policy is ignored, a user config may not change a key the managed config sets, and no CCSKI_ " +
		"variable sets one. Every refusal names the rule and the file it comes from; ccski policy check " +
		"explains the policy in force.",
	"policy.allowed_sources": "Sources skills may be installed and updated from; empty allows every source. " +
		"Each is a pattern matched against the source's forms, segment by segment with * and ? as in a path " +
		"glob, a pattern that matches the first segments matching the whole: github.com (a host), " +
		"github.com/acme (an owner), github.com/acme/skills (a repository), https://skills.example.com (a " +
		"well-known or HTTP origin), marketplace:NAME (a marketplace Claude Code cloned), a local folder's " +
		"absolute path. Sources and patterns are compared in one spelling: host in lower case, no user, default " +
		"port or trailing .git or /, and on GitHub, GitLab, Bitbucket and Codeberg (whose names are " +
		"case-insensitive) the path in lower case too. A skill installed from a source this list does not " +
		"allow is not turned on or served either.",
	"policy.required_signers": "Signers required per source, each \"<source pattern>=<identity>[@<issuer>]\" " +
		"(such as github.com/acme=*@acme.com@https://accounts.google.com): a skill from a source the pattern " +
		"matches must carry a signature that verifies, by one of the identities listed for a pattern matching " +
		"its source (the identity as install --signer takes it: a pattern, with * and ?, needs its issuer, and " +
		"its * never crosses @; an exact identity with no issuer: any issuer). The source pattern governs every " +
		"spelling of a source, case-insensitively.",
	"policy.blocked_skills": "Skills never installed, turned on or served: names (globs, such as " +
		"\"*-exfil\") or \"sha256:<hex>\" digests of a file the skill holds (its SKILL.md, a script), as " +
		"ccski.lock and skills/list give them.",
	"policy.min_scan_verdict": "The verdict of the offline security scan (ccski scan) a skill must reach to " +
		"be installed, turned on or served: any (no requirement), no-errors (ccski scan passes: no error-level " +
		"finding) or no-warnings (ccski scan --max-warnings 0 passes).",
	"policy.allow_unsigned": "Whether skills that carry no signature may be installed, turned on and served. " +
		"false implies mcp.require_signed for ccski mcp.",
	"mcp.require_signed": "Serve to agents only the skills whose signature (an OpenSSF model signing file or a " +
		"Sigstore bundle in the skill folder) verifies against their files exactly, and each only while its files " +
		"are the bytes verified; unsigned skills, commands and skills whose signature fails are hidden, and ccski " +
		"list and ccski doctor say why. User or managed config only: a project ccski.yaml can neither set it nor " +
		"turn it off.",
}

// schemaTitle and schemaDescription head the JSON Schema.
const (
	schemaID          = "https://github.com/ccski/ccski/configs/ccski.schema.json"
	schemaTitle       = "ccski configuration"
	schemaDescription = "ccski.yaml (project), ~/.config/ccski/config.yaml (user) and /etc/ccski/config.yaml " +
		"(managed). Every key is optional; a missing key keeps its value from the layer below. A project config " +
		"may only make the keys that guard the user stricter, as each key's description says; a value that " +
		"would loosen one is ignored, and ccski config says so. Relative paths are relative to the file's " +
		"folder, and a leading ~/ is the home folder."
)

// exampleHeader opens the example ccski.yaml, before the first key.
const exampleHeader = `# yaml-language-server: $schema=configs/ccski.schema.json
#
# ccski configuration, with every key set to its built-in default.
#
# ccski reads, lowest first (a later layer overrides an earlier one key by
# key; lists are replaced whole):
#   1. built-in defaults (the values below);
#   2. the managed config an administrator writes for every user of the
#      machine: /etc/ccski/config.yaml (macOS: /Library/Application
#      Support/ccski/config.yaml; Windows: %ProgramData%\ccski\config.yaml);
#   3. the user config: $XDG_CONFIG_HOME/ccski/config.yaml, else
#      ~/.config/ccski/config.yaml;
#   4. the project config: the nearest ccski.yaml from the workspace up to
#      the repository root, or the file given with --config;
#   5. CCSKI_* environment variables: the key in upper case with "__"
#      between levels, e.g. CCSKI_MCP__PORT=8080,
#      CCSKI_PROVIDERS__MARKETPLACE__ENABLED=false; lists are
#      comma-separated, e.g. CCSKI_INCLUDE=codex,claude;
#   6. command-line flags.
#
# A repository is someone else's: the keys that guard you (the security
# scan, trust, where and how the server listens, the user-level folders,
# ...) may only be made stricter by a project config, as the comment of
# each says; a value that would loosen one is ignored, and ccski config and
# ccski mcp say so. A user config may only make stricter what the managed
# config sets of them.
#
# Unknown keys are errors. Relative paths are relative to the folder of
# this file, and a leading ~/ is the home folder.
#
# This file is generated from the code (go test ./configs -run Generated
# -update), as is configs/ccski.schema.json.
`
