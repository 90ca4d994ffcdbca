package validate

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/internal/suggest"
)

// CommandKeys are the frontmatter keys Claude Code and Codex read in a
// slash-command file (Claude Code reads a command with a skill's fields;
// handoffs are read by clients of ccski's MCP prompts). Other keys are
// ignored by the agents; only a likely misspelling of one of these is
// reported.
var CommandKeys = []string{"description", "argument-hint", "allowed-tools", "model", "disable-model-invocation",
	"name", "when_to_use", "arguments", "user-invocable", "disallowed-tools", "effort", "context", "agent",
	"background", "hooks", "paths", "shell", "metadata", "license", "compatibility", "version", "handoffs"}

// checkCommand checks a slash-command file: Markdown whose frontmatter is
// optional. It reports what makes ccski skip the command (the verdict of
// skillmd.DecodeCommand, which discovery uses), the types of the fields
// the agents read, likely misspelt keys, an empty command and a file name
// that cannot be typed.
func (c *checker) command() {
	if len(c.data) > skillmd.MaxCommandSize {
		c.add(CodeUnreadable, 0, 0, fmt.Sprintf("the command file is %d bytes, over the %d KiB ccski "+
			"reads, so ccski skips it: split it into smaller commands", len(c.data), skillmd.MaxCommandSize>>10), "")
		return
	}
	c.commandName()
	cmd, probs := skillmd.DecodeCommand(c.data)
	fatal := false
	for _, p := range probs {
		fatal = fatal || p.Fatal
		c.commandProblem(p)
	}
	if fatal {
		return
	}
	if cmd.HasFrontmatter {
		if h, err := skillmd.ReadHead(bytes.NewReader(c.data)); err == nil {
			c.commandFields(h)
		}
	}
	if cmd.Description == "" {
		c.add(CodeCommandEmpty, 0, 0, "the command has no description and no body, so running it sends an "+
			"empty prompt: write the prompt below the frontmatter", "")
	}
}

// commandProblem turns a problem skillmd.DecodeCommand found into a
// finding.
func (c *checker) commandProblem(p skillmd.Problem) {
	skipped := ""
	if p.Fatal {
		skipped = " (ccski skips the command, and agents cannot read its fields)"
	}
	switch p.Code {
	case CodeCommandUnclosedFrontmatter:
		c.add(CodeCommandUnclosedFrontmatter, max(p.Line, 1), 1, fmt.Sprintf("the --- on this line opens a "+
			"frontmatter that is never closed within %d KiB%s: add a line holding only --- after the last field, "+
			"or remove this line if the command has no frontmatter", skillmd.MaxFrontmatter>>10, skipped), "")
	case CodeCommandYAMLSyntax:
		c.add(CodeCommandYAMLSyntax, p.Line, 0, strings.TrimSuffix(p.Message, ".")+skipped+
			": fix the frontmatter at this line, or quote the value (a value that starts with [, { or @, or "+
			"holds \": \", must be quoted)", "")
	case CodeCommandArgumentHintQuotes:
		c.add(CodeCommandArgumentHintQuotes, p.Line, 0, "argument-hint is not valid YAML as written (a value "+
			"that starts with [ or { must be one YAML list or mapping); ccski reads it as text, but strict YAML "+
			"readers reject the whole frontmatter: quote the value, argument-hint: \"[a] [b]\"", "")
	case CodeCommandDescriptionType:
		c.add(CodeCommandDescriptionType, p.Line, 0, "description must be text, not a list or mapping; agents "+
			"fall back to the first line of the body: write it as one string", "")
	case CodeCommandHandoffs:
		c.add(CodeCommandHandoffs, p.Line, 0, p.Message+": write them out in full, without YAML aliases", "")
	case CodeControlCharacters:
		c.add(CodeControlCharacters, p.Line, 0, p.Message, "")
	case CodeUnreadable:
		c.add(CodeUnreadable, 0, 0, "cannot read the command file ("+p.Message+")"+skipped, "")
	default:
		if p.Fatal {
			c.add(CodeCommandYAMLSyntax, p.Line, 0, p.Message+skipped, "")
		}
	}
}

// commandFields checks the types of the fields the agents read and the
// spelling of the keys. A frontmatter that parses only once argument-hint
// is quoted (already reported) is not checked further.
func (c *checker) commandFields(h *skillmd.Head) {
	var doc yaml.Node
	if yaml.Unmarshal(bytes.ReplaceAll(h.Raw, []byte("\r\n"), []byte("\n")), &doc) != nil || len(doc.Content) == 0 ||
		doc.Content[0].Kind != yaml.MappingNode {
		return
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		line, col := h.StartLine+k.Line-1, k.Column
		switch k.Value {
		case "argument-hint":
			// argument-hint: [file] is a one-line YAML list; Claude Code's
			// documentation writes hints so, and agents show the text.
			if v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode && (v.Style&yaml.FlowStyle == 0 || v.Line != k.Line) {
				c.add(CodeCommandArgumentHintType, h.StartLine+v.Line-1, v.Column, fmt.Sprintf("argument-hint must be "+
					"text, not a %s: write the hint as one string, such as argument-hint: \"[file] [mode]\"",
					kindName(v)), "")
			}
		case "allowed-tools":
			if bad := badToolList(v); bad != nil {
				c.add(CodeCommandAllowedToolsType, h.StartLine+bad.Line-1, bad.Column, fmt.Sprintf("allowed-tools "+
					"must be a string (Read, Grep, Bash(git:*)) or a list of tool names, and this is a %s: Claude "+
					"Code does not grant the tools the command needs", kindName(bad)), "")
			}
		default:
			if k.Kind != yaml.ScalarNode || slices.Contains(CommandKeys, k.Value) {
				continue
			}
			if s := suggest.Closest(k.Value, CommandKeys); s != "" {
				c.add(CodeCommandUnknownKey, line, col, fmt.Sprintf("unknown key %s: did you mean %s? Agents "+
					"ignore a misspelt key: rename it", k.Value, s), s)
			}
		}
	}
}

// badToolList returns the node that makes an allowed-tools value neither
// a string nor a list of strings, or nil when it is fine. A null value is
// fine (no tools granted).
func badToolList(v *yaml.Node) *yaml.Node {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!str" || v.Tag == "!!null" {
			return nil
		}
		return v
	case yaml.SequenceNode:
		for _, e := range v.Content {
			if e.Kind == yaml.AliasNode && e.Alias != nil {
				e = e.Alias
			}
			if e.Kind != yaml.ScalarNode || e.Tag != "!!str" {
				return e
			}
		}
		return nil
	}
	return v
}

// commandName reports a file name that cannot be typed after a slash.
func (c *checker) commandName() {
	name := strings.TrimSuffix(filepath.Base(c.file), commandExt)
	if strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || r == ':' }) {
		c.add(CodeCommandNameChars, 0, 0, fmt.Sprintf("the command is named after its file, %q, which holds white "+
			"space or a colon: typing /%s runs another command or none; rename the file with letters, digits, - "+
			"and _ only", name, name), "")
	}
}
