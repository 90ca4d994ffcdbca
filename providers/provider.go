// Package providers defines how ccski finds skill roots. A provider knows
// where one kind of agent keeps its skills and returns those places as
// roots; it never reads skills and never filters. The scanner (package
// scan) reads the roots, and the pipeline decides what is shown.
//
// Each provider lives in its own sub-package, describes itself with an
// Entry (see entry.go) and is listed once, in package providers/all. Its
// options struct is a declaration: package configs checks and decodes the
// user's keys against it, once, and the provider's Factory receives the
// decoded struct. What a provider gives the others (a folder they read,
// the precedence rule of its host, its host's skill switches) it gives
// through the optional interfaces of plugin.go, so that the engine treats
// every provider alike and names none.
package providers

import (
	"context"
	"fmt"

	"github.com/ccski/ccski/pipeline"
)

// Env is what a provider may know about the machine. Providers read paths
// and variables only through Env so that tests can point them anywhere.
type Env struct {
	// UserDir is the base of every user-level path (the home folder, or
	// --user-dir).
	UserDir string
	// Workspace is the folder ccski runs for (the current directory, or
	// --workspace).
	Workspace string
	// WorkspaceDirs is Workspace and its ancestors up to the repository
	// root, nearest first. Outside a repository it holds Workspace only.
	WorkspaceDirs []string
	// Getenv reads an environment variable.
	Getenv func(string) string
	// Tokens are the user's tokens of private hosts (http.tokens), by
	// origin, for a provider that reads over HTTP: an
	// internal/httpfetch.Tokens.
	Tokens map[string]string
	// Homes maps a provider's name to the folder it owns and other
	// providers read too: Claude's configuration folder, which the claude,
	// commands and marketplace providers all read, is Homes["claude"].
	// engine.New fills it from every registered provider that is a
	// HomeOwner, enabled or not; a provider reads it through the owner's
	// HomeFolder (claude.Dir), which falls back to the owner's default for
	// an Env built by hand.
	Homes map[string]string
	// Rules maps a provider's name to the precedence rule its options set
	// (see Ranker): the commands provider ranks Claude's commands by
	// Rules["claude"], as the claude provider ranks Claude's skills.
	// engine.New fills it from every registered Ranker, enabled or not; a
	// provider reads it through the owner's HostOrder (HostOrder.From).
	Rules map[string]*pipeline.Precedence
	// Claimed lists, lower-cased, the hidden folder names that registered
	// providers stand for: the folders they plan (".claude", ".codex",
	// ...), and their names and agent labels with a leading dot
	// (".marketplace", ".custom"), which a dynamic agent must not pose as.
	// The agents provider never takes them for a dynamic .<agent> folder.
	// engine.New fills it from the registry (see Prepare).
	Claimed []string
	// Background is set for a long-lived process that plans again and
	// again (ccski mcp): a provider that reaches the network (providers.git)
	// then fetches in the background and plans what it has, so that a
	// slow server never holds up discovery. Unset, for a one-shot command,
	// it may fetch in the foreground, within a bound of its own.
	Background bool
}

// Plan is what a provider returns: the roots to scan, in its own priority
// order, and the problems it met while working them out.
type Plan struct {
	Roots       []pipeline.Root
	Diagnostics []pipeline.Diagnostic
	// Disabled lists the installed plugins the settings turn off, whose
	// roots are not planned (the marketplace provider).
	Disabled []pipeline.DisabledPlugin
	// Switches are the skill switches the provider read from its host's
	// settings (Claude Code's skillOverrides, Codex's [[skills.config]],
	// Gemini CLI's skills.disabled), in the host's order of precedence:
	// a later switch for a skill overrides an earlier one. The engine
	// matches them to the records of the hosts they belong to
	// (pipeline.ApplySwitches); the files they come from belong in
	// Manifests.
	Switches []pipeline.SkillSwitch
	// Manifests lists every file the provider read, or looked for and
	// did not find, to work the roots out: settings, bookkeeping and
	// manifest files, never skills. A change to one of them can change
	// the plan, so a watcher watches them (pipeline.Snapshot.Manifests);
	// a missing one counts, since creating it can change the plan too.
	Manifests []string
	// Listings lists folders whose entries are themselves install state
	// (Gemini's extensions folder, a Codex plugin's version folders): a
	// new or removed entry changes the plan, so a watcher watches them
	// whole (pipeline.Snapshot.Listings), or their nearest existing
	// parent while they do not exist.
	Listings []string
}

// Provider plans the roots of one kind of skill location.
type Provider interface {
	// Name is the provider's key in ccski.yaml.
	Name() string
	// Plan lists the roots to scan. It reads only manifests and settings,
	// never skills. An error means the provider could not plan at all;
	// the caller then keeps the provider's previous result.
	Plan(ctx context.Context, env Env) (Plan, error)
}

// Factory builds a provider from its options: the value of its options
// struct (a pointer, as Entry.Options returns it) that package configs
// decoded and checked against the declaration, or nil for the defaults.
// The factory takes the options as they are: every key, type and value
// was checked once, by configs, before it runs.
type Factory func(options any) (Provider, error)

// Typed returns the Factory of a provider whose options struct is O: it
// hands build the options configs decoded, as they are (a *O), or
// defaults() for nil (a configuration built by hand that leaves them out).
// Options of any other type are an error naming the provider, which only
// such a configuration can give.
func Typed[O any](provider string, defaults func() *O, build func(o *O) (Provider, error)) Factory {
	return func(options any) (Provider, error) {
		switch o := options.(type) {
		case nil:
			return build(defaults())
		case *O:
			if o == nil {
				return build(defaults())
			}
			return build(o)
		}
		return nil, fmt.Errorf("providers.%s: options are a %T, want a %T", provider, options, new(O))
	}
}
