package mcp

// The sources tool: the MCP face of `ccski sources`. It lists every root
// discovery considered, with its provider, whether it exists, what it gave
// and a status, then per-provider totals and the counts of hidden copies
// and diagnostics. Its provider names and root paths are what ask accepts.

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
)

// Root statuses.
const (
	StatusOK      = "ok"      // exists and gave skills or commands
	StatusEmpty   = "empty"   // exists but gave nothing
	StatusMissing = "missing" // does not exist
)

// SourceRoot is one root in the sources result: the root as `ccski sources
// --json` reports it (pipeline.SourceRoot), plus status and problems.
type SourceRoot struct {
	pipeline.SourceRoot
	Status string `json:"status"`
	// Problems counts the errors and warnings about files under the root.
	Problems int `json:"problems"`
}

// SourceProvider totals one provider.
type SourceProvider struct {
	Name     string `json:"name"`
	Roots    int    `json:"roots"`
	Existing int    `json:"existing"`
	// Skills and Commands count the visible ones.
	Skills   int `json:"skills"`
	Commands int `json:"commands"`
}

// Counts are discovered and visible totals.
type Counts = pipeline.Counts

// DiagnosticCounts count diagnostics by severity.
type DiagnosticCounts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// SourcesOutput is the structured result of the sources tool.
type SourcesOutput struct {
	// Priority and Precedence say how copies of one skill are ranked, as
	// in `ccski sources --json` (see pipeline.SourcesReport).
	Priority    []pipeline.Kind           `json:"priority"`
	Precedence  []pipeline.PrecedenceRule `json:"precedence"`
	Roots       []SourceRoot              `json:"roots"`
	Providers   []SourceProvider          `json:"providers"`
	Skills      Counts                    `json:"skills"`
	Commands    Counts                    `json:"commands"`
	Hidden      int                       `json:"hidden"`
	Diagnostics DiagnosticCounts          `json:"diagnostics"`
	// Message says what is wrong when nothing was found.
	Message string `json:"message,omitempty"`
}

func sourcesTool() *sdk.Tool {
	integer := func(desc string) map[string]any {
		return map[string]any{"type": "integer", "minimum": 0, "description": desc}
	}
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	counts := func(desc string) map[string]any {
		o := objectSchema([]any{"discovered", "visible"},
			map[string]any{"discovered": integer("Found on disk."), "visible": integer("Kept after filters and dedupe.")})
		o["description"] = desc
		return o
	}
	return newTool(ToolSources,
		"List every place searched for skills and slash commands (the roots), with provider, type (skill or command), "+
			"whether the folder exists, how many it gave and a status (ok, empty, missing); then totals per provider, "+
			"how many copies filters and dedupe hid, and how many problems were found. Use it to answer \"why is my skill missing?\" "+
			"(`ccski sources` prints the details). The provider names and root paths are the sources the ask tool accepts.",
		objectSchema(nil, map[string]any{}),
		objectSchema([]any{"priority", "precedence", "roots", "providers", "skills", "commands", "hidden", "diagnostics"}, map[string]any{
			"priority": map[string]any{"type": "array", "items": map[string]any{"type": "string"},
				"description": "Root kinds, highest first: a copy of a skill from a higher kind wins."},
			"precedence": map[string]any{"type": "array",
				"description": "Each provider's rule for its own user and project copies, which adjusts the kind order.",
				"items": objectSchema([]any{"providers", "prefer", "option", "hostPrefers", "hostRule", "rule"}, map[string]any{
					"providers":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
					"prefer":      map[string]any{"type": "string", "enum": []any{"user", "project"}},
					"option":      str("The ccski.yaml key that sets the rule."),
					"hostPrefers": map[string]any{"type": "string", "enum": []any{"user", "project"}},
					"hostRule":    str("How the host itself ranks the two levels."),
					"rule":        str("The rule in words."),
				})},
			"roots": arraySchema(objectSchema([]any{"path", "type", "provider", "source", "location", "kind", "exists", "skills",
				"status", "problems"}, map[string]any{
				"path":     str("The folder searched (or the command file)."),
				"type":     map[string]any{"type": "string", "enum": []any{"skill", "command"}},
				"provider": str("The provider given to what the root holds."),
				"source":   str("The provider plugin that planned the root."),
				"location": str("project, user, plugin, custom or system."),
				"kind":     str("The root kind, which ranks duplicates."),
				"exists":   map[string]any{"type": "boolean"},
				"skills":   integer("Skills (commands for a command root) found, before filtering."),
				"status":   map[string]any{"type": "string", "enum": []any{StatusOK, StatusEmpty, StatusMissing}},
				"problems": integer("Errors and warnings about files under the root."),
				"pluginInfo": map[string]any{"type": "object", "properties": map[string]any{
					"pluginName": map[string]any{"type": "string"}, "marketplace": map[string]any{"type": "string"},
					"version": map[string]any{"type": "string"}}},
			})),
			"providers": arraySchema(objectSchema([]any{"name", "roots", "existing", "skills", "commands"}, map[string]any{
				"name": str("The provider name (a source for ask)."), "roots": integer("Roots searched."),
				"existing": integer("Roots that exist."), "skills": integer("Visible skills."),
				"commands": integer("Visible slash commands."),
			})),
			"skills":   counts("Skills found and kept."),
			"commands": counts("Slash commands found and kept."),
			"hidden":   integer("Copies hidden by dedupe or filters (`ccski sources` names them)."),
			"diagnostics": objectSchema([]any{"errors", "warnings", "infos"},
				map[string]any{"errors": integer("Errors found."), "warnings": integer("Warnings."), "infos": integer("Notes.")}),
			"message": str("Set when nothing was found: what to do."),
		}))
}

// callSources answers the sources tool.
func (s *Server) callSources(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, SourcesOutput, error) {
	out := Sources(s.snap.Load())
	return summary(sourcesSummary(out)), out, nil
}

// Sources sums up where snap's records came from. It is built from
// snap.Sources, the report `ccski sources --json` prints.
func Sources(snap *pipeline.Snapshot) SourcesOutput {
	rep := snap.Sources("")
	out := SourcesOutput{Priority: rep.Priority, Precedence: rep.Precedence,
		Roots: make([]SourceRoot, 0, len(rep.Roots)), Providers: []SourceProvider{}, Hidden: len(rep.Hidden)}
	out.Skills, out.Commands = snap.Tally()
	byName := map[string]int{} // provider -> index in out.Providers
	provider := func(name string) *SourceProvider {
		i, ok := byName[name]
		if !ok {
			i = len(out.Providers)
			byName[name] = i
			out.Providers = append(out.Providers, SourceProvider{Name: name})
		}
		return &out.Providers[i]
	}
	for _, r := range rep.Roots {
		sr := SourceRoot{SourceRoot: r}
		switch {
		case !r.Exists:
			sr.Status = StatusMissing
		case r.Skills == 0:
			sr.Status = StatusEmpty
		default:
			sr.Status = StatusOK
		}
		for _, d := range rep.Diagnostics {
			if d.Severity != pipeline.SeverityInfo && safefile.Within(r.Path, d.Path) {
				sr.Problems++
			}
		}
		out.Roots = append(out.Roots, sr)
		p := provider(r.Provider)
		p.Roots++
		if r.Exists {
			p.Existing++
		}
	}
	for _, r := range snap.Visible {
		p := provider(r.Agent)
		if r.IsCommand() {
			p.Commands++
		} else {
			p.Skills++
		}
	}
	for _, d := range rep.Diagnostics {
		switch d.Severity {
		case pipeline.SeverityError:
			out.Diagnostics.Errors++
		case pipeline.SeverityWarning:
			out.Diagnostics.Warnings++
		default:
			out.Diagnostics.Infos++
		}
	}
	existing := 0
	for _, r := range out.Roots {
		if r.Exists {
			existing++
		}
	}
	switch {
	case len(out.Roots) == 0:
		out.Message = "No sources are configured: every provider is disabled or planned no folder to search. " +
			"Enable providers in ccski.yaml (providers.<name>.enabled) or pass --skill-dir."
	case rep.Discovered == 0 && existing == 0:
		out.Message = fmt.Sprintf("Nothing was found: none of the %d folders searched exists. "+
			"Put a skill in one of them (a folder holding SKILL.md), e.g. %s.", len(out.Roots), exampleRoot(out.Roots))
	case rep.Discovered == 0:
		out.Message = fmt.Sprintf("Nothing was found: %d of the %d folders searched exist, but none holds a skill or command. "+
			"A skill is a folder holding SKILL.md with name and description frontmatter.", existing, len(out.Roots))
	case out.Skills.Visible == 0 && out.Commands.Visible == 0:
		out.Message = fmt.Sprintf("%s found, but filters hide every one: check include, exclude and state in ccski.yaml and the flags.",
			plural(rep.Discovered, "skill or command was", "skills and commands were"))
	}
	return out
}

// exampleRoot names a skill root to suggest, preferring a user one.
func exampleRoot(roots []SourceRoot) string {
	for _, r := range roots {
		if r.Type == pipeline.TypeSkill && r.Location == pipeline.LocationUser {
			return r.Path
		}
	}
	for _, r := range roots {
		if r.Type == pipeline.TypeSkill {
			return r.Path
		}
	}
	return roots[0].Path
}

func sourcesSummary(out SourcesOutput) string {
	if out.Message != "" {
		return out.Message
	}
	existing := 0
	for _, r := range out.Roots {
		if r.Exists {
			existing++
		}
	}
	line := fmt.Sprintf("%s searched (%d exist): %d of %d skills visible", plural(len(out.Roots), "root", "roots"), existing,
		out.Skills.Visible, out.Skills.Discovered)
	if out.Commands.Discovered > 0 {
		line += fmt.Sprintf(", %d of %d commands", out.Commands.Visible, out.Commands.Discovered)
	}
	line += fmt.Sprintf("; %s hidden; %s, %s.", plural(out.Hidden, "copy", "copies"),
		plural(out.Diagnostics.Errors, "error", "errors"), plural(out.Diagnostics.Warnings, "warning", "warnings"))
	names := make([]string, 0, len(out.Providers))
	for _, p := range out.Providers {
		if p.Skills > 0 {
			names = append(names, fmt.Sprintf("%s (%d)", p.Name, p.Skills))
		}
	}
	if len(names) > 0 {
		line += " Skills by provider: " + strings.Join(names, ", ") + "."
	}
	return line
}
