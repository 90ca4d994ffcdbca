// Package providers defines how ccski finds skill roots. A provider knows
// where one kind of agent keeps its skills and returns those places as
// roots; it never reads skills and never filters. The scanner (package
// package scan) reads the roots, and the pipeline decides what is shown.
//
// Each provider lives in its own sub-package, describes itself with an
// Entry (see entry.go) and is listed once, in package providers/all. A
// provider decodes and validates its own options strictly.
package providers

import (
	"context"
	"fmt"
	"sort"

	"github.com/go-viper/mapstructure/v2"

	"github.com/ccski/ccski/internal/suggest"
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
	// ClaudeHome is the Claude configuration folder: providers.claude.home,
	// else $CLAUDE_CONFIG_DIR, else <user dir>/.claude. A relative value is
	// resolved against Workspace and a leading "~/" stands for UserDir.
	// Every provider that reads Claude's files (claude, commands,
	// marketplace) takes it from here, through ClaudeDir, so that they all
	// agree. NewEnv fills it from the variables; engine.New applies the
	// option (see ResolveHomes).
	ClaudeHome string
	// CodexHome is the Codex folder: providers.codex.home, else
	// $CODEX_HOME, else <user dir>/.codex, resolved like ClaudeHome. The
	// codex and commands providers take it from here, through CodexDir.
	CodexHome string
	// ClaudePrecedence and CodexPrecedence rank the user and project copies
	// of Claude's and Codex's skills and commands:
	// providers.claude.precedence and providers.codex.precedence, else the
	// host's own order. engine.New sets them from the options (see
	// ResolvePrecedence); the claude, codex and commands providers read
	// them through ClaudeRule and CodexRule, so that a skill and a command
	// of one host follow one rule.
	ClaudePrecedence *pipeline.Precedence
	CodexPrecedence  *pipeline.Precedence
	// Claimed lists, lower-cased, the hidden folder names that registered
	// providers stand for: the folders they plan (".claude", ".codex",
	// ...), and their names and agent labels with a leading dot
	// (".marketplace", ".custom"), which a dynamic agent must not pose as.
	// The agents provider never takes them for a dynamic .<agent> folder.
	// engine.New fills it from the registry (all.Claimed).
	Claimed []string
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

// Factory builds a provider from its options in ccski.yaml (the keys under
// providers.<name>, without "enabled"). It must reject unknown keys.
type Factory func(options map[string]any) (Provider, error)

// Decode decodes options into out (a pointer to the provider's options
// struct, with koanf tags) strictly: an unknown key is an error that names
// the closest valid key. Strings are converted where needed, because
// environment variables arrive as strings.
func Decode(provider string, options map[string]any, out any) error {
	var md mapstructure.Metadata
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		TagName:          "koanf",
		WeaklyTypedInput: true,
		Metadata:         &md,
		Result:           out,
		DecodeHook: mapstructure.ComposeDecodeHookFunc(
			mapstructure.StringToSliceHookFunc(","),
			mapstructure.StringToTimeDurationHookFunc()),
	})
	if err != nil {
		return err
	}
	if err := dec.Decode(options); err != nil {
		return fmt.Errorf("providers.%s: %w", provider, err)
	}
	if len(md.Unused) > 0 {
		sort.Strings(md.Unused)
		return fmt.Errorf("providers.%s: unknown key %q%s", provider, md.Unused[0],
			suggest.DidYouMean(md.Unused[0], fieldNames(options, md)))
	}
	return nil
}

func fieldNames(options map[string]any, md mapstructure.Metadata) []string {
	var names []string
	for _, k := range md.Keys {
		names = append(names, k)
	}
	for _, k := range md.Unset {
		names = append(names, k)
	}
	return names
}
