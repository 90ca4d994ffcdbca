package validate

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// frontmatter checks the YAML between the delimiters. raw is the text as
// in the file; start is the file line of its first line.
func (c *checker) frontmatter(raw []byte, start int) {
	raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))
	if len(bytes.TrimSpace(raw)) == 0 {
		c.add(CodeEmptyFrontmatter, c.openLine, 1, "the frontmatter is empty: add name: and description: lines "+
			"between the --- delimiters", "")
		return
	}
	root, ok := c.parseYAML(raw, start)
	if !ok {
		return
	}
	c.yamlStyle(root, start, false)
	c.duplicateKeys(root, start)
	c.fields(root, raw, start)
}

// parseYAML parses raw and reports why it cannot be read. When the only
// problem is unquoted ": " in top-level values, the values are quoted,
// the finding is reported and the repaired document is returned, so that
// the other checks still run (this is the lenient reading agents do).
func (c *checker) parseYAML(raw []byte, start int) (*yaml.Node, bool) {
	var doc yaml.Node
	err := yaml.Unmarshal(raw, &doc)
	if err != nil {
		lines := splitLines(raw)
		if fixed, spots := quoteColonValues(lines, nil); len(spots) > 0 {
			var repaired yaml.Node
			if yaml.Unmarshal(joinLines(fixed), &repaired) == nil {
				// --fix quotes only name and description, and only when
				// that is enough to make the YAML valid.
				fixable := false
				if fixed, n := quoteColonValues(lines, fixKeys); len(n) > 0 {
					var d yaml.Node
					fixable = yaml.Unmarshal(joinLines(fixed), &d) == nil
				}
				for _, s := range spots {
					fix := fixable && fixKeys[s.key]
					hint := ""
					if fix {
						hint = " (ccski validate --fix does this)"
					}
					c.addf(CodeUnquotedColon, start+s.line, s.col, "", fix,
						"the value of %s holds \": \" without quotes, which is invalid YAML (agents that read it "+
							"strictly drop the skill): put the value in double quotes, %s: \"...\"%s", s.key, s.key, hint)
				}
				doc, err = repaired, nil
			}
		}
	}
	if err != nil {
		lines := splitLines(raw)
		tabs := 0
		for n, l := range lines {
			ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			if i := strings.IndexByte(ws, '\t'); i >= 0 && strings.TrimSpace(l) != "" {
				tabs++
				c.add(CodeYAMLTab, start+n, i+1, "this line is indented with a tab; YAML allows only spaces for "+
					"indentation: replace the tab with spaces", "")
			}
		}
		if tabs == 0 {
			line, msg := yamlError(err, start, len(lines))
			c.add(CodeYAMLSyntax, line, 0, "the frontmatter is not valid YAML ("+msg+")"+yamlHint(msg)+
				"; agents skip a skill whose frontmatter they cannot read", "")
		}
		return nil, false
	}
	if len(doc.Content) == 0 {
		c.add(CodeEmptyFrontmatter, c.openLine, 1, "the frontmatter holds only comments: add name: and "+
			"description: lines", "")
		return nil, false
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		c.add(CodeNotAMapping, start+root.Line-1, root.Column, fmt.Sprintf("the frontmatter is a %s, not a "+
			"mapping of keys to values: write key: value lines, such as name: my-skill", kindName(root)), "")
		return nil, false
	}
	return root, true
}

// fixKeys are the keys whose unquoted ": " --fix quotes: free text that
// must be a string.
var fixKeys = map[string]bool{"name": true, "description": true}

// addf adds a finding with a formatted message.
func (c *checker) addf(code string, line, col int, suggestion string, fixable bool, format string, args ...any) {
	c.add(code, line, col, fmt.Sprintf(format, args...), suggestion)
	c.findings[len(c.findings)-1].Fixable = fixable
}

// yamlStyle reports anchors, aliases, flow collections and values holding
// "---" anywhere in the document.
func (c *checker) yamlStyle(n *yaml.Node, start int, inFlow bool) {
	line, col := start+n.Line-1, n.Column
	if n.Anchor != "" {
		c.add(CodeYAMLAnchor, line, col, fmt.Sprintf("the anchor &%s makes readers that do not resolve anchors see "+
			"different values: write the value out in full where it is used", n.Anchor), "")
	}
	switch n.Kind {
	case yaml.AliasNode:
		c.add(CodeYAMLAnchor, line, col, fmt.Sprintf("the alias *%s is resolved differently (or not at all) by "+
			"line-based readers: write the value out in full", n.Value), "")
		return
	case yaml.ScalarNode:
		if strings.Contains(n.Value, "---") {
			c.add(CodeTripleDashInValue, line, col, "this value contains ---; readers that split SKILL.md at the "+
				"first two --- cut the frontmatter here (the reference validator does): reword it without ---", "")
		}
		return
	case yaml.MappingNode, yaml.SequenceNode:
		if n.Style&yaml.FlowStyle != 0 && !inFlow {
			what, example := "list [...]", "one \"- item\" per line"
			if n.Kind == yaml.MappingNode {
				what, example = "mapping {...}", "one \"key: value\" per line, indented"
			}
			c.add(CodeFlowCollection, line, col, fmt.Sprintf("this flow-style %s is valid YAML, but strict readers "+
				"such as the reference validator reject it: write it in block style, %s", what, example), "")
			inFlow = true
		}
	}
	for _, ch := range n.Content {
		c.yamlStyle(ch, start, inFlow)
	}
}

// duplicateKeys reports keys that appear twice in one mapping, at any
// depth.
func (c *checker) duplicateKeys(n *yaml.Node, start int) {
	if n.Kind == yaml.MappingNode {
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if first, ok := seen[k.Value]; ok {
				c.add(CodeDuplicateKey, start+k.Line-1, k.Column, fmt.Sprintf("%s is already set on line %d; YAML "+
					"forbids repeated keys and parsers disagree on which value wins: keep one of them",
					k.Value, start+first.Line-1), "")
				continue
			}
			seen[k.Value] = k
		}
	}
	for _, ch := range n.Content {
		c.duplicateKeys(ch, start)
	}
}

// yamlError turns a yaml error into a file line and a message.
func yamlError(err error, start, lines int) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var n int
	if _, e := fmt.Sscanf(msg, "line %d:", &n); e == nil && n > 0 {
		_, rest, _ := strings.Cut(msg, ": ")
		return start + min(n, max(lines, 1)) - 1, rest
	}
	return start, msg
}

func yamlHint(msg string) string {
	switch {
	case strings.Contains(msg, "mapping values are not allowed"):
		return `: a value that holds ": " must be quoted, and nested keys must be indented under their parent`
	case strings.Contains(msg, "found character that cannot start any token"):
		return ": quote values that start with @, ` or %"
	case strings.Contains(msg, "did not find expected"), strings.Contains(msg, "unexpected end"):
		return ": close every quote and bracket you open"
	}
	return ""
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	case yaml.AliasNode:
		return "alias"
	}
	switch n.Tag {
	case "!!int", "!!float":
		return "number"
	case "!!bool":
		return "boolean"
	case "!!timestamp":
		return "date"
	case "!!null":
		return "null"
	case "!!str", "":
		return "string"
	}
	return "value tagged " + n.Tag
}

// splitLines splits LF-terminated text into lines without the "\n".
func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func joinLines(lines []string) []byte {
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// topLevel matches a top-level "key: value" line.
var topLevel = regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:[ \t]+(\S.*)$`)

// colonSpot is an unquoted ": " found by quoteColonValues: a 0-based line
// of the frontmatter and a 1-based column.
type colonSpot struct {
	key  string
	line int
	col  int
}

// quoteColonValues double-quotes the plain values of top-level keys that
// hold ": " (or end with ":"), which YAML rejects. keys, when not nil,
// limits the keys touched. A value continued on indented lines is quoted
// across them, so line numbers do not move and YAML folds the lines into
// the same text as the unquoted reading. A value with a comment inside
// or a blank line inside is left alone.
func quoteColonValues(lines []string, keys map[string]bool) ([]string, []colonSpot) {
	var out []string
	var spots []colonSpot
	for i := 0; i < len(lines); i++ {
		m := topLevel.FindStringSubmatchIndex(lines[i])
		if m == nil {
			continue
		}
		key, val := lines[i][m[2]:m[3]], lines[i][m[4]:m[5]]
		if keys != nil && !keys[key] || strings.ContainsRune("\"'[{|>&*!%@`#", rune(val[0])) {
			continue
		}
		comment := ""
		if j := strings.Index(val, " #"); j >= 0 {
			val, comment = val[:j], val[j:]
		}
		val = strings.TrimRight(val, " \t")
		colon := strings.Index(val, ": ")
		if colon < 0 && strings.HasSuffix(val, ":") {
			colon = len(val) - 1
		}
		if colon < 0 {
			continue
		}
		end := i
		for end+1 < len(lines) && isContinuation(lines[end+1]) {
			end++
		}
		if end > i && comment != "" || !continuationOK(lines[i+1:end+1]) {
			continue
		}
		if out == nil {
			out = append([]string(nil), lines...)
		}
		col := utf8.RuneCountInString(lines[i][:m[4]+colon]) + 1
		spots = append(spots, colonSpot{key: key, line: i, col: col})
		head := lines[i][:m[4]]
		if end == i {
			out[i] = head + `"` + escapeDouble(val) + `"` + comment
			continue
		}
		out[i] = head + `"` + escapeDouble(val)
		for j := i + 1; j <= end; j++ {
			l := out[j]
			ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			out[j] = ind + escapeDouble(strings.TrimSpace(l))
		}
		out[end] += `"`
		i = end
	}
	if out == nil {
		return lines, nil
	}
	return out, spots
}

// isContinuation reports whether l continues a plain scalar: indented and
// not blank.
func isContinuation(l string) bool {
	return len(l) > 0 && (l[0] == ' ' || l[0] == '\t') && strings.TrimSpace(l) != ""
}

// continuationOK reports whether continuation lines can be quoted without
// changing their meaning: no comments inside.
func continuationOK(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") || strings.Contains(t, " #") {
			return false
		}
	}
	return true
}

// escapeDouble escapes s for a YAML double-quoted scalar.
func escapeDouble(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0xfeff:
			b.WriteString(`\ufeff`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
