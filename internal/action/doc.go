// Package action does the work of each ccski command, between the cobra
// commands of cmd/ccski and the packages that know skills (engine,
// install, toggle, search, mcp ...).
//
// The rule: cmd parses flags and prints; actions do the work. Each
// command's work is one function here that takes a Config (the loaded
// configuration and where the process runs) and a request struct (what
// the flags and arguments asked for) and returns a result struct (what the
// command prints, and the --json shape where the command has one). An
// action never prints to stdout: it returns its result, or takes an
// io.Writer for what it streams while it works (git's progress, a
// "waiting for another run" notice, the MCP server's log). So every action
// runs, and is tested, without cobra.
//
// Errors: an action returns a *UsageError for a request it cannot take (a
// bad value, a configuration that does not load), which cmd turns into
// exit 2; any other error is a failure (exit 1). Error texts are for the
// person who ran the command.
//
// Config is the one place an action reaches the configuration layers
// (package configs) and builds the engine. cmd hands most actions a
// Config whose layers are read (LoadConfig); validate, scan and trust get
// one that reads them when first needed (NewConfig), so that validate and
// scan of PATHs, which need no configuration, run where it does not load,
// and trust says first that it has no trust store. store.go is the one
// place an action decides where ccski's own files are (the trust store,
// profiles, the user lock, the git cache).
package action
