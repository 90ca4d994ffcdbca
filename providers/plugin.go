package providers

// This file holds what a provider gives the rest of ccski besides its
// plan: optional interfaces, as Caddy's modules implement Provisioner or
// Validator. A provider implements the ones that apply, under an
// interface guard (var _ providers.Ranker = (*Claude)(nil)), and the
// engine asks every registered provider alike, naming none.

import (
	"maps"
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
)

// Ranker is implemented by a provider with a precedence option
// (providers.<name>.precedence, a PrecedenceOption field): Rule is how it
// ranks a user and a project copy of one skill, its HostOrder changed by
// the option. The engine puts it in Env.Rules, so that another provider
// planning the same host's files ranks them alike (HostOrder.From).
type Ranker interface {
	Rule() *pipeline.Precedence
}

// HomeOwner is implemented by a provider that owns a folder other
// providers read too (Claude's configuration folder, read by claude,
// commands and marketplace): Home is that folder in env, moved by the
// provider's home option. The engine puts it in Env.Homes, whether or not
// the owner is enabled, and the readers take it from there
// (HomeFolder.From), so that one option moves every root at once.
type HomeOwner interface {
	Home(env Env) string
}

// HostOwner is implemented by a provider that reads its host's own skill
// switches (Plan.Switches, Plan.Disabled) and writes them
// (Host.Switcher): claude for Claude Code, codex for Codex, agents for
// Gemini CLI, copilot_plugins for Copilot CLI's plugins. Each host has one
// owner. The host does not depend on the provider's options.
type HostOwner interface {
	Host() Host
}

// HomeFolder is a folder that a provider owns and others read, and how
// it is found: the owner's home option, else a variable, else a folder
// below the user folder.
type HomeFolder struct {
	// Provider is the owner (its option is providers.<Provider>.home).
	Provider string
	// Var is the variable that moves the folder when the option is empty
	// (CLAUDE_CONFIG_DIR).
	Var string
	// Folder is the folder below the user folder otherwise (".claude").
	Folder string
}

// Resolve returns the folder for option, the owner's home option: option
// when it is not empty, else $Var (read through env.Getenv), else
// <user dir>/Folder. A relative option or variable is resolved against
// env.Workspace, and a leading "~/" stands for env.UserDir
// (Env.ResolvePath). This is the only place the folder is worked out.
func (h HomeFolder) Resolve(env Env, option string) string {
	if option != "" {
		return env.ResolvePath(option)
	}
	if env.Getenv != nil {
		if v := env.Getenv(h.Var); v != "" {
			return env.ResolvePath(v)
		}
	}
	return filepath.Join(env.UserDir, h.Folder)
}

// From returns the folder the owner set in env (Env.Homes), else the one
// Resolve gives without the option: the folder for a provider that reads
// another's.
func (h HomeFolder) From(env Env) string {
	if d := env.Homes[h.Provider]; d != "" {
		return d
	}
	return h.Resolve(env, "")
}

// Prepare returns env ready for the providers ps built from entries (the
// whole registry, enabled or not, each built from its options): Homes
// holds the folder of every HomeOwner, Rules the rule of every Ranker,
// each under the provider's name, and Claimed the folders entries stand
// for. The maps are new; env's are left as they are.
func Prepare(env Env, entries []Entry, ps []Provider) Env {
	env.Homes, env.Rules = map[string]string{}, map[string]*pipeline.Precedence{}
	for _, p := range ps {
		if h, ok := p.(HomeOwner); ok {
			env.Homes[p.Name()] = h.Home(env)
		}
		if r, ok := p.(Ranker); ok {
			env.Rules[p.Name()] = r.Rule()
		}
	}
	env.Claimed = Claimed(entries)
	return env
}

// Build returns the providers of entries, each built from its default
// options: what can be known of them without a configuration, such as
// the hosts with skill switches (Hosts), which package configs lists as
// the values of agent. An entry without a factory, or whose factory
// fails, is left out.
func Build(entries []Entry) []Provider {
	out := make([]Provider, 0, len(entries))
	for _, e := range entries {
		if e.New == nil {
			continue
		}
		if p, err := e.New(nil); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// Hosts returns the hosts of the HostOwners among ps, in order.
func Hosts(ps []Provider) []Host {
	var out []Host
	for _, p := range ps {
		if h, ok := p.(HostOwner); ok {
			out = append(out, h.Host())
		}
	}
	return out
}

// HostNames returns the names of hosts, in order.
func HostNames(hosts []Host) []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = h.Name
	}
	return out
}

// WithHome returns env with dir as the folder of provider in Homes: what
// an owner's Plan works in, so that it plans its own folder from its own
// option even in an Env that Prepare has not filled. env's map is left
// as it is.
func (e Env) WithHome(provider, dir string) Env {
	if e.Homes[provider] == dir {
		return e
	}
	homes := make(map[string]string, len(e.Homes)+1)
	maps.Copy(homes, e.Homes)
	homes[provider] = dir
	e.Homes = homes
	return e
}
