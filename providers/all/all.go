// Package all lists every built-in provider. It is the one place a new
// provider is registered: each provider describes itself with an Entry
// (see providers.Entry), and everything that depends on the set of
// providers (the configuration's defaults, path keys, JSON Schema and
// example, the filter grammar's provider names, the CLI's provider groups,
// the folders the dynamic agents leave alone) is derived from Registry.
//
// To add a provider: write a package under providers/ with an options
// struct (koanf, doc and config:"path" tags; a providers.PrecedenceOption
// field for a precedence option) and its defaults, a New that takes the
// options configs decoded (providers.Typed), a Provider whose Plan
// returns roots with the Entry's labels and kinds, interface guards
// (var _ providers.Provider = (*X)(nil), and providers.Ranker,
// providers.HomeOwner or providers.HostOwner when it has a precedence
// option, owns a folder others read, or owns a host's skill switches) and
// a func Entry() providers.Entry; add its Entry() to Registry; regenerate
// the example ccski.yaml and the JSON Schema (go test ./configs -run
// Generated -update). Nothing else names it: the configuration, the
// engine and the CLI take everything from Registry, which the command
// passes to configs.Load.
package all

import (
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/agentplugins"
	"github.com/ccski/ccski/providers/agents"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
	"github.com/ccski/ccski/providers/codexplugins"
	"github.com/ccski/ccski/providers/commands"
	"github.com/ccski/ccski/providers/copilot"
	"github.com/ccski/ccski/providers/copilotplugins"
	"github.com/ccski/ccski/providers/cursor"
	"github.com/ccski/ccski/providers/cursorplugins"
	"github.com/ccski/ccski/providers/custom"
	"github.com/ccski/ccski/providers/geminiext"
	"github.com/ccski/ccski/providers/git"
	"github.com/ccski/ccski/providers/marketplace"
	"github.com/ccski/ccski/providers/project"
	"github.com/ccski/ccski/providers/remote"
)

// Registry returns the built-in providers in scan order. Scan order only
// decides the order of records with equal priority and which copy of a
// root planned twice is kept; ranking is the pipeline's job. It is also
// the order of the providers' sections in the example ccski.yaml and the
// JSON Schema.
func Registry() []providers.Entry {
	return []providers.Entry{
		custom.Entry(),
		project.Entry(),
		claude.Entry(),
		codex.Entry(),
		agents.Entry(),
		copilot.Entry(),
		cursor.Entry(),
		marketplace.Entry(),
		codexplugins.Entry(),
		geminiext.Entry(),
		copilotplugins.Entry(),
		cursorplugins.Entry(),
		agentplugins.Entry(),
		commands.Entry(),
		remote.Entry(),
		git.Entry(),
	}
}

// ProviderNames returns the agent labels the records of the registered
// providers carry (their Labels), each once, in the order of the CLI's
// provider groups and of the last tie-break between equal copies (see
// providers.LabelOrder). Filter tokens treat them as providers whether or
// not a scan found any of their skills; dynamic agents come on top of them
// at scan time.
func ProviderNames() []string { return providers.LabelOrder(Registry()) }

// Hosts returns the hosts whose skill switches the registered providers
// read and write (providers.HostOwner), in registry order.
func Hosts() []providers.Host { return providers.Hosts(providers.Build(Registry())) }

// HostNames returns the names of Hosts, in order.
func HostNames() []string { return providers.HostNames(Hosts()) }

// Claimed returns the hidden folder names the registered providers stand
// for, which the agents provider never takes for dynamic agents (see
// providers.Env.Claimed).
func Claimed() []string { return providers.Claimed(Registry()) }
