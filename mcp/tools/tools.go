// Package tools lists the tools `ccski mcp` can serve. It is the one list
// of them: package mcp registers each tool under its name and title and
// checks that it has a handler for every entry, and the mcp.tools key of
// the configuration (its valid values and its JSON Schema), the --tools
// flag's help and its shell completion take their names from it. Adding a
// tool is one entry here and its handler in package mcp.
//
// The list is a package of its own, importing nothing, because package
// configs, which validates mcp.tools, stands below package mcp in the
// layers of internal/README.md and may not import it.
package tools

import "slices"

// Tool describes one tool.
type Tool struct {
	// Name is the tool's name on the wire and in mcp.tools. It uses only
	// letters, digits, '_' and '-', which every major client accepts.
	Name string
	// Title is the tool's human-readable title.
	Title string
	// Doc says in a few words what the tool does, for help and the
	// configuration's documentation.
	Doc string
	// OptIn tools are served only when mcp.tools (or --tools) names them;
	// the others always are.
	OptIn bool
	// ReadOnly and Idempotent are the tool's behaviour hints for clients
	// (MCP annotations readOnlyHint and idempotentHint). A read-only tool
	// changes nothing on the machine; an idempotent one, called again with
	// the same arguments, has no further effect and answers the same while
	// the skills do not change.
	ReadOnly, Idempotent bool
}

// The tool names.
const (
	Skill        = "skill"
	SkillsList   = "skills_list"
	SkillsSearch = "skills_search"
	Sources      = "sources"
	Ask          = "ask"
)

// list is the tool list. Every tool reads skills and changes nothing; ask
// alone is not idempotent: each call puts the question to the client's
// model again (MCP sampling), and the answer may differ.
var list = []Tool{
	{Name: Skill, Title: "Load a skill", Doc: "load a skill by name; its description lists the skills",
		ReadOnly: true, Idempotent: true},
	{Name: SkillsList, Title: "List skills", Doc: "list the skills with their metadata", OptIn: true,
		ReadOnly: true, Idempotent: true},
	{Name: SkillsSearch, Title: "Search skills",
		Doc: "search every skill; also served while the skill tool's list is cut", OptIn: true,
		ReadOnly: true, Idempotent: true},
	{Name: Sources, Title: "Skill sources", Doc: "where skills come from and why copies are hidden", OptIn: true,
		ReadOnly: true, Idempotent: true},
	{Name: Ask, Title: "Ask about skills", Doc: "answer a question from the skills of named sources", OptIn: true,
		ReadOnly: true},
}

// All returns every tool, in the order the documentation lists them.
func All() []Tool { return slices.Clone(list) }

// OptIn returns the names of the opt-in tools, the values mcp.tools
// accepts, in order.
func OptIn() []string {
	var names []string
	for _, t := range list {
		if t.OptIn {
			names = append(names, t.Name)
		}
	}
	return names
}

// Lookup returns the tool called name.
func Lookup(name string) (Tool, bool) {
	for _, t := range list {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}
