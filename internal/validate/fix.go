package validate

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/internal/suggest"
)

// Fix applies the safe, mechanical repairs to the content of a skill file
// and returns the new content and one sentence per kind of change (none
// when nothing changed). It
//
//   - strips a byte order mark and blank lines before the opening ---;
//   - converts CRLF line endings to LF in the frontmatter and its
//     delimiter lines, and trims white space after the --- delimiters;
//   - double-quotes a name or description value that holds ": ";
//   - moves top-level keys that neither the spec nor Claude Code knows
//     under metadata, as strings, when their value is a one-line scalar
//     and the key is not a likely typo of a known key.
//
// The body after the closing --- line is never changed, nothing is ever
// dropped, and each YAML change is kept only when the result parses to
// the same values. Fix is idempotent: Fix of its output changes nothing.
func Fix(data []byte) ([]byte, []string) {
	var changes []string
	if bytes.HasPrefix(data, bom) {
		for bytes.HasPrefix(data, bom) {
			data = data[len(bom):]
		}
		changes = append(changes, "removed the byte order mark")
	}
	h, err := skillmd.ReadHead(bytes.NewReader(data))
	if err != nil {
		return data, changes
	}
	// Find the opening line after the leading blank lines.
	open := 0
	for range h.LeadingBlank {
		open += bytes.IndexByte(data[open:], '\n') + 1
	}
	if h.LeadingBlank > 0 {
		changes = append(changes, fmt.Sprintf("removed %s before the opening ---",
			report.Plural(h.LeadingBlank, "blank line", "blank lines")))
	}
	openEnd := open + bytes.IndexByte(data[open:], '\n') + 1
	closeStart := openEnd + len(h.Raw)
	openLine, closeLine := data[open:openEnd], data[closeStart:h.BodyOffset]
	body := data[h.BodyOffset:]

	newClose := []byte("---")
	if bytes.HasSuffix(closeLine, []byte("\n")) {
		newClose = append(newClose, '\n')
	}
	crlf := bytes.Contains(openLine, []byte("\r\n")) || bytes.Contains(h.Raw, []byte("\r\n")) ||
		bytes.HasSuffix(closeLine, []byte("\r\n"))
	if crlf {
		changes = append(changes, "converted the frontmatter's CRLF line endings to LF (the body is unchanged)")
	}
	if trailingSpace(openLine) || trailingSpace(closeLine) {
		changes = append(changes, "removed white space after ---")
	}
	raw, yamlChanges := fixYAML(toLF(h.Raw))
	changes = append(changes, yamlChanges...)

	out := make([]byte, 0, len(data)+64)
	out = append(out, "---\n"...)
	out = append(out, raw...)
	out = append(out, newClose...)
	out = append(out, body...)
	if len(changes) == 0 {
		return data, nil
	}
	return out, changes
}

// toLF drops every carriage return that ends a line ("\r\n" and
// "\r\r\n" both become "\n").
func toLF(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == '\n' {
			for len(out) > 0 && out[len(out)-1] == '\r' {
				out = out[:len(out)-1]
			}
		}
		out = append(out, c)
	}
	return out
}

// trailingSpace reports whether a delimiter line has white space after
// its ---.
func trailingSpace(l []byte) bool {
	return len(bytes.TrimRight(l, "\r\n")) != len(bytes.TrimRight(l, " \t\r\n"))
}

// fixYAML quotes name and description values that hold ": " and moves
// unknown keys under metadata.
func fixYAML(raw []byte) ([]byte, []string) {
	var changes []string
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		fixed, spots := quoteColonValues(splitLines(raw), fixKeys)
		if len(spots) == 0 || yaml.Unmarshal(joinLines(fixed), &doc) != nil {
			return raw, nil
		}
		raw = joinLines(fixed)
		for _, s := range spots {
			changes = append(changes, fmt.Sprintf("quoted the %s value, which holds \": \"", s.key))
		}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return raw, changes
	}
	if moved, keys := moveUnknownKeys(raw, doc.Content[0]); keys != nil {
		raw = moved
		changes = append(changes, fmt.Sprintf("moved %s under metadata as %s", strings.Join(keys, ", "),
			map[bool]string{true: "a string", false: "strings"}[len(keys) == 1]))
	}
	return raw, changes
}

// plainKey matches a key that needs no quotes.
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// movable says why the top-level key k with value v cannot be moved under
// metadata, or returns "" when it can: a string key at column 1 whose
// value is a scalar written on the key's own line (no block scalar, no
// anchor or alias, no continuation lines). next is the 1-based line of
// the following top-level key (0 for none).
func movable(k, v *yaml.Node, lines []string, next int) string {
	switch {
	case k.Kind != yaml.ScalarNode || k.Tag != "!!str" || k.Column != 1:
		return "the key is not a plain string"
	case v.Kind != yaml.ScalarNode || v.Anchor != "" || k.Anchor != "":
		return "the value is not a single scalar"
	case v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || v.Line != k.Line:
		return "the value is not on the key's line"
	}
	if next == 0 {
		next = len(lines) + 1
	}
	for l := k.Line + 1; l < next && l <= len(lines); l++ {
		if t := strings.TrimSpace(lines[l-1]); t != "" && !strings.HasPrefix(t, "#") {
			return "the value continues on the next line"
		}
	}
	return ""
}

// moveUnknownKeys moves the movable unknown keys of root under metadata.
// It returns the new text and the keys moved, or nil keys when nothing
// was moved (including when the result would not read back as the same
// values).
func moveUnknownKeys(raw []byte, root *yaml.Node) ([]byte, []string) {
	lines := splitLines(raw)
	var meta *yaml.Node
	metaKeyLine := 0
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "metadata" {
			meta, metaKeyLine = root.Content[i+1], root.Content[i].Line
		}
	}
	// Where the new entries go, and with what indentation.
	indent, insertAfter := "  ", -1 // -1: append "metadata:" at the end
	var existing []string
	switch {
	case meta == nil:
	case meta.Kind == yaml.MappingNode && meta.Style&yaml.FlowStyle == 0 && len(meta.Content) > 0:
		indent = strings.Repeat(" ", meta.Content[0].Column-1)
		for i := 0; i < len(meta.Content); i += 2 {
			existing = append(existing, meta.Content[i].Value)
		}
		end := len(lines)
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Line > metaKeyLine {
				end = root.Content[i].Line - 1
				break
			}
		}
		for end > metaKeyLine {
			t := lines[end-1]
			if strings.TrimSpace(t) != "" && !strings.HasPrefix(t, "#") {
				break
			}
			end--
		}
		insertAfter = end - 1
	case meta.Kind == yaml.ScalarNode && meta.Tag == "!!null" && meta.Value == "" &&
		strings.HasPrefix(lines[metaKeyLine-1], "metadata:") && onlyComment(lines[metaKeyLine-1][len("metadata:"):]):
		insertAfter = metaKeyLine - 1
	default:
		return raw, nil // a metadata we cannot safely add to
	}

	drop := map[int]bool{}
	var entries, keys []string
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if classifyKey(k) != keyUnknown || suggest.Closest(k.Value, knownKeys) != "" ||
			slices.Contains(existing, k.Value) || slices.Contains(keys, k.Value) ||
			movable(k, v, lines, nextKeyLine(root, i)) != "" {
			continue
		}
		key := k.Value
		if !plainKey.MatchString(key) {
			key = `"` + escapeDouble(key) + `"`
		}
		entry := indent + key + `: "` + escapeDouble(v.Value) + `"`
		if cm := v.LineComment + k.LineComment; cm != "" {
			entry += " " + cm
		}
		drop[k.Line-1] = true
		entries = append(entries, entry)
		keys = append(keys, k.Value)
	}
	if len(keys) == 0 {
		return raw, nil
	}
	var out []string
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l)
		}
		if i == insertAfter {
			out = append(out, entries...)
		}
	}
	if insertAfter < 0 {
		out = append(out, "metadata:")
		out = append(out, entries...)
	}
	res := joinLines(out)
	if !sameValues(raw, res, keys) {
		return raw, nil
	}
	return res, keys
}

func onlyComment(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || strings.HasPrefix(t, "#")
}

// sameValues reports whether after reads back as before with the moved
// keys under metadata as strings and everything else unchanged.
func sameValues(before, after []byte, moved []string) bool {
	var b, a map[string]any
	if yaml.Unmarshal(before, &b) != nil || yaml.Unmarshal(after, &a) != nil {
		return false
	}
	var bn yaml.Node
	if yaml.Unmarshal(before, &bn) != nil {
		return false
	}
	want := map[string]any{}
	for k, v := range b {
		want[k] = v
	}
	meta, _ := want["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	} else {
		meta = clone(meta)
	}
	root := bn.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i].Value; slices.Contains(moved, k) {
			meta[k] = root.Content[i+1].Value
			delete(want, k)
		}
	}
	want["metadata"] = meta
	return reflect.DeepEqual(want, a)
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// writeAtomic replaces the file at path (following a symlink to its
// target) with data, keeping its permissions (see safefile.Write). The
// file must still be there: one deleted since it was read is not made
// again.
func writeAtomic(path string, data []byte) error {
	return safefile.Write(path, data, safefile.WriteOptions{MustExist: true})
}
