package providers

import (
	"sort"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// Entry is a provider's description of itself: everything the rest of
// ccski needs to know about it without running it. Each provider package
// returns its Entry from a function of its own (claude.Entry, ...), and
// package providers/all lists them, once each. Everything else is derived
// from that list: package configs takes the provider's section of the
// defaults, its path keys, its part of the JSON Schema and of the example
// ccski.yaml from Options and Doc; the filter grammar, the tie-break
// between equal copies and the CLI's provider groups take their names from
// Labels; the agents provider leaves the Folders alone. What the provider
// gives the others at run time, it gives through the optional interfaces
// of plugin.go. Adding a provider is a new package and one line in
// providers/all.
type Entry struct {
	// Name is the provider's key in ccski.yaml (providers.<Name>), and
	// what its Provider.Name returns.
	Name string
	// Doc describes the provider in a sentence or two: the comment above
	// its section of the example ccski.yaml and the section's description
	// in the JSON Schema.
	Doc string
	// Options returns a pointer to a new value of the provider's options
	// struct holding its defaults, or nil when the provider takes no
	// options. It is a declaration: package configs derives the keys under
	// providers.<Name> (besides enabled), their defaults, checks, schema
	// and documentation from it, decodes the user's keys on top of these
	// defaults, and hands the result to New. Each exported field with a
	// koanf tag is a key. It is a string (or a named string type: one
	// with a method Values() []string takes only those values, as
	// PrecedenceOption does; one with a method Check(string) error takes
	// only the values it accepts), a bool, an int, a time.Duration or a
	// slice of strings. Its doc tag documents it, in full sentences, for
	// the schema and the example. Its trust tag, which every key must
	// have, says what a project config (a repository's ccski.yaml, written
	// by someone else) may do with it: "project" to set it freely, "user"
	// not to change it (a user-level folder: a project must not pass its
	// own files off as the user's), "stricter=on<off" only to turn it
	// towards the stricter end, "inside" to name only folders inside the
	// project, and the other levels configs/trust.go lists. Its config
	// tag, when present, says more:
	//
	//	config:"path"        the value is a path (a list: paths): configs
	//	                     expands a leading "~/" and makes a relative
	//	                     path absolute against the file that set it
	//	config:"path,query"  the same, keeping a "?query" suffix as is
	//	config:"from=KEY"    no key under providers.<Name>: the field
	//	                     takes the value of the configuration's key
	//	                     KEY (the project provider's dirs are
	//	                     skill_dirs)
	Options func() any
	// Labels are the agent labels the provider's roots give their records
	// (pipeline.Record.Agent), which ids, filter tokens and the CLI's
	// groups use: the marketplace entry's plugin skills are "claude", the
	// agents entry gives "agents", "gemini" and "openclaw". Dynamic agents
	// found at scan time (".cursor/skills" gives "cursor") come on top of
	// these.
	Labels []Label
	// Folders are the hidden folders, below a workspace folder or the
	// user folder, whose skills the provider plans (".claude"). The
	// agents provider never takes one of them for a dynamic .<agent>
	// folder (see Env.Claimed).
	Folders []string
	// Kinds are the root kinds of the roots the provider plans, which
	// place its skills in the priority order (pipeline.DefaultPriority).
	Kinds []pipeline.Kind
	// New builds the provider from its options, as decoded by configs.
	New Factory
}

// Label is an agent label that records carry (pipeline.Record.Agent).
type Label struct {
	// Name is the label: the agent (claude, gemini), or what the folders
	// are when they are no one agent's (custom, project, agents).
	Name string
	// Shared says that Name is no agent: the folders the user names
	// (custom, project) or that several agents read (agents). See
	// LabelOrder.
	Shared bool
}

// LabelNames returns the names of e's labels, in order.
func (e Entry) LabelNames() []string {
	names := make([]string, len(e.Labels))
	for i, l := range e.Labels {
		names[i] = l.Name
	}
	return names
}

// LabelOrder returns the agent labels of entries, each once: the shared
// labels first, in the order of entries, then the agents' labels,
// alphabetically. It is the order of the CLI's provider groups and the one
// that breaks the last ties between equal copies of a skill (see
// filters.Settings.Providers); dynamic agents, which no entry lists, come
// after it, alphabetically.
func LabelOrder(entries []Entry) []string {
	var shared, agents []string
	seen := map[string]bool{}
	for _, e := range entries {
		for _, l := range e.Labels {
			if seen[l.Name] {
				continue
			}
			seen[l.Name] = true
			if l.Shared {
				shared = append(shared, l.Name)
			} else {
				agents = append(agents, l.Name)
			}
		}
	}
	sort.Strings(agents)
	return append(shared, agents...)
}

// Claimed returns, lower-cased, sorted and each once, the hidden folder
// names that entries stand for: their Folders, and their names and label
// names with a leading dot. See Env.Claimed.
func Claimed(entries []Entry) []string {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if name = strings.ToLower(name); name != "." && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, e := range entries {
		for _, f := range e.Folders {
			add(f)
		}
		add("." + e.Name)
		for _, l := range e.Labels {
			add("." + l.Name)
		}
	}
	sort.Strings(out)
	return out
}
