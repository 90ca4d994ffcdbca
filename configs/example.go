package configs

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ccski/ccski/providers"
)

// exampleWidth is the widest line of a comment in the example ccski.yaml.
const exampleWidth = 76

// Example returns the example ccski.yaml with the providers of reg: every
// key set to its built-in default, under its documentation and a line
// naming the flags that set it, derived like Schema. The ccski.yaml at the
// repository root is a copy, with the built-in providers, that a test
// keeps equal to it.
func Example(reg []providers.Entry) ([]byte, error) { return exampleFor(registry{providers: reg}) }

// exampleFor returns the example with the providers of reg.
func exampleFor(reg registry) ([]byte, error) {
	sp, err := newSpec(reg)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(exampleHeader)
	if err := writeSection(&b, sp.root, defaultMap(defaults(reg)), ""); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// writeSection writes the keys of the section n at prefix, whose default
// values are def. A blank line comes before each top-level key and each
// provider's section but the first.
func writeSection(b *strings.Builder, n *node, def map[string]any, prefix string) error {
	depth := 0
	if prefix != "" {
		depth = strings.Count(prefix, ".") + 1
	}
	indent := strings.Repeat("  ", depth)
	for i, name := range n.order {
		c, key := n.children[name], join(prefix, name)
		if depth == 0 || (prefix == "providers" && i > 0) {
			b.WriteString("\n")
		}
		doc := c.doc
		if depth == 2 && strings.HasPrefix(prefix, "providers.") && name == "enabled" {
			doc = "" // obvious, unless a flag sets it
		}
		writeComment(b, indent, doc)
		if doc != "" {
			writeComment(b, indent, c.trust.doc())
		}
		writeComment(b, indent, flagNote(key))
		if c.kind == kindSection {
			sub, _ := def[name].(map[string]any)
			b.WriteString(indent + name + ":\n")
			if err := writeSection(b, c, sub, key); err != nil {
				return err
			}
			continue
		}
		v, err := yamlValue(def[name], indent)
		if err != nil {
			return fmt.Errorf("configs: example: %s: %w", key, err)
		}
		b.WriteString(indent + name + ":" + v + "\n")
	}
	return nil
}

// writeComment writes text as comment lines at indent, wrapped at
// exampleWidth.
func writeComment(b *strings.Builder, indent, text string) {
	if text == "" {
		return
	}
	line := indent + "#"
	for _, w := range strings.Fields(text) {
		if len(line) > len(indent)+1 && len(line)+1+len(w) > exampleWidth {
			b.WriteString(line + "\n")
			line = indent + "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
}

// yamlValue returns v as YAML after "key:": " value" for a scalar or an
// empty list, or a block list indented below indent.
func yamlValue(v any, indent string) (string, error) {
	switch x := v.(type) {
	case time.Duration:
		return " " + x.String(), nil
	case []string:
		items := make([]any, len(x))
		for i, s := range x {
			items[i] = s
		}
		return yamlValue(items, indent)
	case []any:
		if len(x) == 0 {
			return " []", nil
		}
		var b strings.Builder
		for _, e := range x {
			s, err := yamlScalar(e)
			if err != nil {
				return "", err
			}
			b.WriteString("\n" + indent + "  - " + s)
		}
		return b.String(), nil
	}
	s, err := yamlScalar(v)
	return " " + s, err
}

// yamlScalar returns a scalar as YAML, quoted where YAML needs it.
func yamlScalar(v any) (string, error) {
	out, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}
