package skillmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxFrontmatterValues caps how many YAML nodes FrontmatterData expands
// the frontmatter to, aliases included. MaxFrontmatter bytes hold at most
// about 33,000 values as written, so only aliases can reach it.
const maxFrontmatterValues = 100000

// FrontmatterData returns the frontmatter of h as JSON-compatible data,
// verbatim: every key the author wrote, with nested mappings and lists, as
// map[string]any, []any, string, int64, uint64, float64, bool and nil. It
// is what the Skills Extension (SEP-2640) puts in a skills/list entry's
// frontmatter, which a host compares field by field with its own reading
// of the SKILL.md; so values are typed as a YAML 1.2 parser with the core
// schema types them (JavaScript's yaml package by default), not as go-yaml
// does:
//
//   - version: 1.0 is the number 1, on: yes the string "yes", date:
//     2024-01-01 the string "2024-01-01", mode: 017 the number 17;
//   - "<<" is an ordinary key (merge keys are YAML 1.1), aliases are
//     expanded, and a key written twice is an error;
//   - keys are strings: a key that is not text is written as JavaScript
//     writes it as a property name (1.0 is "1", null is "");
//   - .inf, .nan and numbers past the float range, which JSON cannot hold,
//     are an error: a host would read them as numbers and never match.
//
// Frontmatter that is not valid UTF-8, not YAML, not a mapping, or more
// than one YAML document is an error naming the problem and its line.
func FrontmatterData(h *Head) (map[string]any, error) {
	raw := h.Raw
	if !utf8.Valid(raw) {
		return nil, errors.New("frontmatter is not valid UTF-8: save the file as UTF-8")
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("frontmatter is empty: add name: and description: lines between the --- delimiters")
		}
		return nil, yamlError(err, h, raw)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, yamlError(err, h, raw)
	default:
		return nil, fmt.Errorf("frontmatter holds more than one YAML document (the second starts on line %d): "+
			"remove the document marker (--- or ...) inside it", h.StartLine+next.Line-1)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].ShortTag() == "!!null" {
		return nil, errors.New("frontmatter holds no keys: add name: and description: lines between the --- delimiters")
	}
	if m := doc.Content[0]; m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("frontmatter is a %s, not a mapping of keys to values such as name: my-skill", kindName(m.Kind))
	}
	conv := converter{limit: maxFrontmatterValues, core: true, start: h.StartLine}
	v, err := conv.data(doc.Content[0])
	if err != nil {
		return nil, fmt.Errorf("frontmatter values %w", err)
	}
	return v.(map[string]any), nil
}

// yamlError is the error for frontmatter go-yaml cannot parse, with its
// file line and a hint.
func yamlError(err error, h *Head, raw []byte) error {
	line, msg := yamlErrorLine(err, h.StartLine)
	return fmt.Errorf("invalid YAML in frontmatter at line %d: %s%s", line, msg, hintFor(msg, raw))
}
