package skillmd

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/problems"
	"go.yaml.in/yaml/v3"
)

// MaxCommandSize caps the size of a command file. Commands are prompt
// templates, read whole at discovery (the description may come from the
// body) and again for every prompts/get.
const MaxCommandSize = 1 << 20

// maxHandoffNodes caps how many YAML nodes the handoffs value may expand
// to, aliases included, so that a few aliases cannot blow it up.
const maxHandoffNodes = 10000

// Command is what discovery reads from a slash-command file: Markdown with
// optional YAML frontmatter.
type Command struct {
	// Description is the frontmatter description with white space folded
	// or, without one, the first non-empty line of the body with leading
	// '#' and spaces trimmed.
	Description string
	// ArgumentHint is the frontmatter argument-hint, as text.
	ArgumentHint string
	// Handoffs is the frontmatter handoffs value as JSON-compatible data
	// (map[string]any, []any, string, int64, uint64, float64, bool, nil);
	// nil when absent.
	Handoffs any
	// HasFrontmatter says whether the file starts with a frontmatter block.
	HasFrontmatter bool
}

var bom = []byte("\ufeff")

// DecodeCommand reads a whole command file. A file that does not start
// with a "---" line has no frontmatter, which is fine. A frontmatter that
// is not closed, too large, not UTF-8, not YAML or not a mapping is a fatal
// problem: the command cannot be used. Unknown keys are ignored, as Claude
// Code and Codex ignore them.
func DecodeCommand(data []byte) (Command, []Problem) {
	var c Command
	h, err := ReadHead(bytes.NewReader(data))
	switch {
	case errors.Is(err, ErrNoFrontmatter):
		c.Description = firstLine(bytes.TrimPrefix(data, bom))
		return c, cleanCommand(&c, 0)
	case errors.Is(err, ErrUnterminated):
		return c, []Problem{{Code: problems.CommandUnclosedFrontmatter, Fatal: true, Line: 1, Message: err.Error()}}
	case errors.Is(err, ErrTooLarge):
		return c, []Problem{{Code: problems.CommandUnclosedFrontmatter, Fatal: true, Line: 1, Message: err.Error()}}
	case err != nil:
		return c, []Problem{{Code: problems.Unreadable, Fatal: true, Message: err.Error()}}
	}
	c.HasFrontmatter = true
	probs := decodeCommandFront(h, &c)
	for _, p := range probs {
		if p.Fatal {
			return Command{}, probs
		}
	}
	if c.Description == "" {
		c.Description = firstLine(data[min(h.BodyOffset, len(data)):])
	}
	return c, append(probs, cleanCommand(&c, h.StartLine)...)
}

// CommandBody returns the body of a command file: everything after the
// frontmatter, or the whole file (less a byte order mark) when it has
// none. The error is a frontmatter problem (see DecodeCommand).
// It is Body with the frontmatter error kept.
func CommandBody(data []byte) ([]byte, error) {
	b, err := splitBody(data)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// decodeCommandFront fills c from the frontmatter of h.
func decodeCommandFront(h *Head, c *Command) []Problem {
	raw := h.Raw
	if !utf8.Valid(raw) {
		return []Problem{{Code: problems.CommandYAMLSyntax, Fatal: true, Line: h.StartLine,
			Message: "frontmatter is not valid UTF-8: save the file as UTF-8"}}
	}
	var probs []Problem
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		line, msg := yamlErrorLine(err, h.StartLine)
		fixed, hintLine, ok := quoteArgumentHint(raw)
		if !ok || yaml.Unmarshal(fixed, &doc) != nil {
			return []Problem{{Code: problems.CommandYAMLSyntax, Fatal: true, Line: line,
				Message: "invalid YAML in frontmatter: " + msg + hintFor(msg, raw)}}
		}
		// The one common case: argument-hint: [a] [b], which is not YAML
		// but is what Claude Code's documentation shows.
		probs = append(probs, Problem{Code: problems.CommandArgumentHintQuotes, Line: h.StartLine + hintLine,
			Message: "argument-hint is not valid YAML as written (" + msg + "); it was read as text: quote it"})
		raw = fixed
	}
	if len(doc.Content) == 0 {
		return probs // only comments or white space: no fields
	}
	m := doc.Content[0]
	if m.Kind == yaml.ScalarNode && m.ShortTag() == "!!null" {
		return probs
	}
	if m.Kind != yaml.MappingNode {
		return []Problem{{Code: problems.CommandYAMLSyntax, Fatal: true, Line: h.StartLine,
			Message: "frontmatter must be a YAML mapping of keys to values, such as description: what the command does"}}
	}
	lines := strings.Split(string(raw), "\n")
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		line := h.StartLine + k.Line - 1
		if v.Kind == yaml.AliasNode && v.Alias != nil && k.Value != "handoffs" {
			v = v.Alias
		}
		switch k.Value {
		case "description":
			if v.Kind != yaml.ScalarNode {
				probs = append(probs, Problem{Code: problems.CommandDescriptionType, Line: line,
					Message: fmt.Sprintf("description must be a string, not a %s; the first line of the body is used instead", kindName(v.Kind))})
				continue
			}
			if v.ShortTag() != "!!null" {
				c.Description = FoldSpace(v.Value)
			}
		case "argument-hint":
			switch {
			case v.Kind == yaml.ScalarNode && v.ShortTag() != "!!null":
				c.ArgumentHint = strings.TrimSpace(v.Value)
			case v.Kind != yaml.ScalarNode:
				// argument-hint: [file] is a YAML list; the hint is the text.
				c.ArgumentHint = valueText(lines, k)
			}
		case "handoffs":
			conv := converter{limit: maxHandoffNodes}
			data, err := conv.data(v)
			if err != nil {
				probs = append(probs, Problem{Code: problems.CommandHandoffs, Line: line,
					Message: "handoffs " + err.Error() + "; they are left out"})
				continue
			}
			c.Handoffs = data
		}
	}
	return probs
}

// quoteArgumentHint single-quotes the value of every top-level
// "argument-hint:" line whose value starts with '[' or '{', and reports
// the 0-based line of the first. ok is false when there is none.
func quoteArgumentHint(raw []byte) (fixed []byte, line int, ok bool) {
	lines := strings.Split(string(raw), "\n")
	line = -1
	for i, ln := range lines {
		rest, found := strings.CutPrefix(ln, "argument-hint:")
		if !found {
			continue
		}
		cr := strings.HasSuffix(rest, "\r")
		v := strings.TrimSpace(rest)
		if v == "" || (v[0] != '[' && v[0] != '{') {
			continue
		}
		lines[i] = "argument-hint: '" + strings.ReplaceAll(v, "'", "''") + "'"
		if cr {
			lines[i] += "\r"
		}
		if line < 0 {
			line = i
		}
	}
	if line < 0 {
		return nil, 0, false
	}
	return []byte(strings.Join(lines, "\n")), line, true
}

// valueText returns the text after "key:" on the key's line.
func valueText(lines []string, k *yaml.Node) string {
	if k.Line < 1 || k.Line > len(lines) {
		return ""
	}
	_, v, _ := strings.Cut(lines[k.Line-1], ":")
	return strings.TrimSpace(v)
}

// firstLine returns the first line of body that still holds text once
// leading '#' and white space are trimmed.
func firstLine(body []byte) string {
	for len(body) > 0 {
		var ln []byte
		ln, body, _ = bytes.Cut(body, []byte{'\n'})
		s := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(string(ln)), "#"))
		if s != "" {
			return FoldSpace(s)
		}
	}
	return ""
}
