// Package configs loads the ccski configuration.
//
// The configuration is built from layers; a later layer overrides an
// earlier one key by key, and lists are replaced whole:
//
//  1. the built-in defaults (Default);
//  2. the managed config, which an administrator writes for every user of
//     the machine, when it exists: /etc/ccski/config.yaml (macOS:
//     /Library/Application Support/ccski/config.yaml; Windows:
//     %ProgramData%\ccski\config.yaml; Options.ManagedFile replaces it);
//  3. the user config, $XDG_CONFIG_HOME/ccski/config.yaml, else
//     <home>/.config/ccski/config.yaml, when it exists;
//  4. the project config: the --config file when given (it must exist),
//     else the nearest ccski.yaml found from the workspace folder upward,
//     stopping at the repository root, the first ancestor holding a .git
//     entry (outside a repository only the workspace folder is looked at);
//  5. CCSKI_* environment variables;
//  6. the flags the user gave (AddFlags and AddMCPFlags).
//
// A project config comes with a repository, which someone else wrote, so
// it may not loosen what guards the user. Every key declares a trust level
// in a trust struct tag, on the fields of Config and of each provider's
// options struct (see trust.go): a project config may set a key of level
// "project" freely; it may not change one of level "user" (where and how
// the server listens, the user-level folders such as providers.claude.home,
// which would pass the repository's files off as the user's own); and it
// may only make the others stricter (mcp.scan only towards block,
// mcp.require_trusted only on, session and walk limits only lower, exclude
// only longer, skill_dirs and workspace only inside the project, ...). A
// value that would loosen a key is ignored, or cut down to its stricter
// part, and listed in Loaded.Ignored, which ccski config shows and ccski
// mcp logs. The user config is held the same way to the keys the managed
// config sets, and so are variables and flags, except that one which would
// loosen such a key is an error naming it; otherwise variables and flags
// are the user's own choice for one run and override every file. Once the
// managed config sets a signature rule (Loaded.ManagedSigning), every
// signing key is held to it, to its built-in value where it leaves one
// unset. A key without a trust level fails every Load.
//
// A variable names a key in upper case, with the CCSKI_ prefix and "__"
// between nesting levels: CCSKI_USER_DIR sets user_dir,
// CCSKI_PROVIDERS__MARKETPLACE__ENABLED sets providers.marketplace.enabled
// and CCSKI_MCP__PORT sets mcp.port. CCSKI_AUTH_TOKEN is a short name for
// CCSKI_MCP__AUTH_TOKEN, which wins when both are set. List values are
// comma-separated: CCSKI_INCLUDE=codex,claude. A CCSKI_ variable that names
// no key is an error.
//
// Every layer is validated on its own before the merge. An unknown key, an
// unknown provider or provider option, a value of the wrong type, a value
// outside its enumeration and a value its provider's check refuses are
// errors that name the file, variable or flag, the key, and the closest
// valid key or the valid values. Provider options (the keys under
// providers.<name> other than enabled) are checked against the provider's
// options struct, which its registry entry declares (see
// providers.Entry.Options). The caller passes the registry in
// (Options.Registry, and the argument of Default, Schema, Example and
// Values; package providers/all lists the built-in providers), so that
// this package imports no provider. After the merge each provider's
// section is decoded once, into its options struct (Provider.Options),
// which the provider's factory takes as it is (Config.ProviderOptions):
// nothing checks a provider option a second time.
//
// Paths (the keys whose field has a config:"path" tag: user_dir,
// workspace, skill_dirs, providers.custom.dirs, the marketplace
// plugins_file and plugins_root, the claude and codex home, and
// providers.codex.system_dirs) expand a leading "~/" to the home folder. A
// relative path is made absolute against the folder of the config file that
// set it, or, for variables and flags, against the workspace folder given to
// Load (the current folder by default). A "?scope=name" suffix of a
// providers.custom.dirs entry (config:"path,query") is kept after the
// resolved path.
//
// mcp.refresh_interval takes a Go duration ("10s") or a whole number of
// milliseconds (10000 or "10000").
//
// Nothing here lists the providers, the filter states or the MCP tools:
// the defaults, the keys, the valid values, Example (the ccski.yaml at the
// repository root, every key with its default value and documentation) and
// Schema (its JSON Schema, configs/ccski.schema.json, printed by `ccski
// config --schema`) are derived from Config, docs.go, the provider registry
// and packages filters, mcp/tools and internal/scanmode. A test keeps the
// two checked-in files equal to what is derived with the built-in
// providers, and another keeps this package low in the module: it builds
// with at most 15 of the module's packages.
package configs
