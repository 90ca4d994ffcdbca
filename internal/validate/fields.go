package validate

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/suggest"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"
)

// Limits from the Agent Skills specification and the agents.
const (
	MaxNameRunes          = 64
	MaxDescriptionRunes   = 1024
	MaxCompatibilityRunes = 500
	// ClaudeListingCap is where Claude Code cuts each skill's description
	// plus when_to_use in the listing the model sees.
	ClaudeListingCap = 1536
	// MaxBodyLines is the body length the specification recommends.
	MaxBodyLines = 500
)

// DescriptionPlaceholder is the description ccski new writes into a new
// skill's SKILL.md. It passes every other check, so that the new skill
// loads, and description-placeholder flags it until it is replaced.
const DescriptionPlaceholder = "TODO - say what this skill does and when an agent should use it."

// isPlaceholder reports whether a description still holds
// DescriptionPlaceholder (ignoring case and how white space is spread).
func isPlaceholder(s string) bool {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	return strings.Contains(norm(s), norm(DescriptionPlaceholder))
}

// SpecKeys are the top-level keys the Agent Skills specification defines.
var SpecKeys = []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools"}

// ClaudeKeys are the top-level keys Claude Code reads beyond the spec.
var ClaudeKeys = []string{"when_to_use", "argument-hint", "arguments", "disable-model-invocation",
	"user-invocable", "disallowed-tools", "model", "effort", "context", "agent", "background", "hooks",
	"paths", "shell", "version"}

var knownKeys = append(append([]string(nil), SpecKeys...), ClaudeKeys...)

// keyClass says who defines a top-level key.
type keyClass int

const (
	keySpec keyClass = iota
	keyClaude
	keyUnknown
)

func classifyKey(k *yaml.Node) keyClass {
	if k.Kind == yaml.ScalarNode && (k.Tag == "!!str" || k.Tag == "") {
		if slices.Contains(SpecKeys, k.Value) {
			return keySpec
		}
		if slices.Contains(ClaudeKeys, k.Value) {
			return keyClaude
		}
	}
	return keyUnknown
}

// field is a top-level key and its value (aliases resolved).
type field struct {
	key, val *yaml.Node
}

// fields checks every top-level key and the known fields' values.
func (c *checker) fields(root *yaml.Node, raw []byte, start int) {
	got := map[string]field{}
	lines := splitLines(raw)
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		line, col := start+k.Line-1, k.Column
		switch classifyKey(k) {
		case keyClaude:
			c.add(CodeClaudeExtensionKey, line, col, fmt.Sprintf("%s is a Claude Code field, not an Agent Skills "+
				"field: claude.ai uploads and the reference validator reject it and other agents ignore it; remove it "+
				"if the skill must work beyond Claude Code, or validate with --profile claude", k.Value), "")
		case keyUnknown:
			name := k.Value
			if k.Kind != yaml.ScalarNode {
				name = "a " + kindName(k)
			}
			if s := suggest.Closest(k.Value, knownKeys); s != "" && s != k.Value {
				c.add(CodeUnknownKey, line, col, fmt.Sprintf("unknown key %s: did you mean %s? Rename it; a "+
					"misspelt key is ignored by agents and rejected by uploads", name, s), s)
				continue
			}
			msg := fmt.Sprintf("unknown key %s: the spec allows only %s at the top level (and Claude Code its own "+
				"fields); uploads reject other keys: move it under metadata", name, strings.Join(SpecKeys, ", "))
			fixable := movable(k, v, lines, nextKeyLine(root, i)) == ""
			if fixable {
				msg += " (ccski validate --fix does this)"
			}
			c.addf(CodeUnknownKey, line, col, "", fixable, "%s", msg)
			continue
		}
		if _, dup := got[k.Value]; !dup {
			got[k.Value] = field{k, v}
		}
	}
	c.checkName(got, start)
	c.checkDescription(got, start)
	c.checkControl(got, start)
	c.checkCompatibility(got, start)
	c.checkString(got, "license", start)
	c.checkMetadata(got, start)
	c.checkAllowedTools(got, start)
}

// nextKeyLine returns the 1-based frontmatter line of the top-level key
// after the i-th content node of root, or 0 when it is the last key.
func nextKeyLine(root *yaml.Node, i int) int {
	if i+2 < len(root.Content) {
		return root.Content[i+2].Line
	}
	return 0
}

// stringValue checks that a field holds text and returns it. It reports
// lists and mappings (wrong-type) and typed scalars (typed-scalar, whose
// text is still returned). ok is false when there is no usable text; a
// null value returns "", true.
func (c *checker) stringValue(f field, start int) (string, bool) {
	k, v := f.key, f.val
	line, col := start+v.Line-1, v.Column
	switch {
	case v.Kind != yaml.ScalarNode:
		c.add(CodeWrongType, line, col, fmt.Sprintf("%s must be text, not a %s: write it as one string value, "+
			"%s: ...", k.Value, kindName(v), k.Value), "")
		c.findings[len(c.findings)-1].Field = k.Value
		return "", false
	case v.Tag == "!!null":
		return "", true
	case isTyped(v):
		c.add(CodeTypedScalar, line, col, fmt.Sprintf("%s is read as a %s (%s), not as text; some agents then drop "+
			"the skill or show the wrong value: quote it, %s: %q", k.Value, kindName(v), v.Value, k.Value, v.Value), "")
	}
	return v.Value, true
}

// isTyped reports whether a scalar resolves to something other than a
// string: a plain number, boolean or date, or an explicit tag.
func isTyped(v *yaml.Node) bool {
	return v.Kind == yaml.ScalarNode && v.Tag != "!!str" && v.Tag != "!!null" && v.Tag != ""
}

func (c *checker) checkName(got map[string]field, start int) {
	folder := c.folder()
	f, ok := got["name"]
	if !ok {
		c.add(CodeNameMissing, c.openLine+1, 0, fmt.Sprintf("name is missing: add name: %s (the folder's name); "+
			"the spec requires it (Claude Code and Codex name the skill after its folder)", folder), suggestName(folder))
		return
	}
	line, col := start+f.val.Line-1, f.val.Column
	s, ok := c.stringValue(f, start)
	if !ok {
		return
	}
	if t := strings.TrimSpace(s); t != s && t != "" {
		c.add(CodeNameWhitespace, line, col, fmt.Sprintf("name %q has leading or trailing white space, which "+
			"strict readers keep as part of the name: write name: %s", s, t), t)
		s = t
	}
	if s == "" {
		c.add(CodeNameEmpty, line, col, fmt.Sprintf("name is empty: set it to the folder's name, name: %s", folder),
			suggestName(folder))
		return
	}
	n := norm.NFKC.String(s)
	c.name, c.nameLine, c.nameCol = n, line, col
	slug := suggestName(n)
	if k := utf8.RuneCountInString(n); k > MaxNameRunes {
		c.add(CodeNameTooLong, line, col, fmt.Sprintf("name is %d characters long; the limit is %d: shorten it "+
			"and rename the folder to match", k, MaxNameRunes), "")
	}
	var invalid []string
	upper, nonASCII := false, false
	for _, r := range n {
		switch {
		case r == '-':
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if r > unicode.MaxASCII {
				nonASCII = true
			}
		default:
			if q := describeRune(r); !slices.Contains(invalid, q) {
				invalid = append(invalid, q)
			}
		}
	}
	if upper {
		c.add(CodeNameUppercase, line, col, fmt.Sprintf("name %q has uppercase letters; names are lowercase: "+
			"write name: %s (and rename the folder to match)", n, slug), slug)
	}
	if len(invalid) > 0 {
		c.add(CodeNameInvalidChars, line, col, fmt.Sprintf("name %q contains %s; a name may hold only lowercase "+
			"letters, digits and hyphens: write name: %s (and rename the folder to match)", n,
			strings.Join(invalid, ", "), slug), slug)
	}
	if nonASCII {
		c.add(CodeNameNonASCII, line, col, fmt.Sprintf("name %q has non-ASCII letters; the spec allows them, but "+
			"claude.ai uploads, gh skill publish and some agents accept only a-z, 0-9 and -: use an ASCII name "+
			"if the skill is shared", n), "")
	}
	if strings.HasPrefix(n, "-") || strings.HasSuffix(n, "-") {
		c.add(CodeNameHyphenEdge, line, col, fmt.Sprintf("name %q starts or ends with a hyphen: remove it, "+
			"name: %s", n, slug), slug)
	}
	if strings.Contains(n, "--") {
		c.add(CodeNameDoubleHyphen, line, col, fmt.Sprintf("name %q has two hyphens in a row: use one, name: %s",
			n, slug), slug)
	}
	if n != folder {
		msg, sug := mismatchMessage(n, folder)
		c.add(CodeNameFolderMismatch, line, col, msg, sug)
	}
}

// mismatchMessage explains a name that differs from its folder and
// suggests the valid one of the two to keep.
func mismatchMessage(name, folder string) (string, string) {
	msg := fmt.Sprintf("name %q differs from its folder %q; Claude Code names the skill after the folder and the "+
		"spec requires them to match: ", name, folder)
	switch nameOK, folderOK := validName(name), validName(folder); {
	case nameOK && folderOK:
		return msg + fmt.Sprintf("rename the folder to %s, or write name: %s", name, folder), folder
	case folderOK:
		return msg + "write name: " + folder, folder
	case nameOK:
		return msg + "rename the folder to " + name, name
	}
	slug := suggestName(name)
	if slug == "" {
		return msg + "give both the same valid name", ""
	}
	return msg + fmt.Sprintf("use one valid name for both, such as %s", slug), slug
}

// validName reports whether s follows every spec rule for a name.
func validName(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > MaxNameRunes || s[0] == '-' || s[len(s)-1] == '-' ||
		strings.Contains(s, "--") {
		return false
	}
	for _, r := range s {
		if r != '-' && (unicode.IsUpper(r) || !unicode.IsLetter(r) && !unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// suggestName turns s into a valid name: lowercase, runs of other
// characters become one hyphen, no hyphen at either end. It returns ""
// when nothing is left.
func suggestName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) && !unicode.IsUpper(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if n := []rune(out); len(n) > MaxNameRunes {
		out = strings.TrimRight(string(n[:MaxNameRunes]), "-")
	}
	return out
}

func describeRune(r rune) string {
	switch r {
	case ' ':
		return "spaces"
	case '_':
		return "underscores"
	case '.':
		return "dots"
	case ':':
		return "colons"
	case '/':
		return "slashes"
	}
	if unicode.IsSpace(r) {
		return fmt.Sprintf("white space (%U)", r)
	}
	return fmt.Sprintf("%q", r)
}

func (c *checker) checkDescription(got map[string]field, start int) {
	f, ok := got["description"]
	if !ok {
		c.add(CodeDescriptionMissing, c.openLine+1, 0, "description is missing: add description: saying what the "+
			"skill does and when to use it; agents choose skills by it", "")
		return
	}
	line, col := start+f.val.Line-1, f.val.Column
	s, ok := c.stringValue(f, start)
	if !ok {
		return
	}
	if strings.TrimSpace(s) == "" {
		c.add(CodeDescriptionEmpty, line, col, "description is empty: say what the skill does and when to use it; "+
			"agents choose skills by it", "")
		return
	}
	n := utf8.RuneCountInString(s)
	if n > MaxDescriptionRunes {
		c.add(CodeDescriptionTooLong, line, col, fmt.Sprintf("description is %d characters long; the limit is %d "+
			"(the spec and uploads reject the skill, Codex lists only the first %d): shorten it and move detail into the body",
			n, MaxDescriptionRunes, MaxDescriptionRunes), "")
	}
	if t := strings.TrimRight(s, " \t\n"); strings.Contains(t, "\n") {
		c.add(CodeDescriptionMultiline, line, col, fmt.Sprintf("description spans %d lines; Codex joins them into "+
			"one: write it on one line, or as a folded block (description: >-) without blank lines",
			strings.Count(t, "\n")+1), "")
	}
	if isPlaceholder(s) {
		c.add(CodeDescriptionPlaceholder, line, col, "description is still the placeholder ccski new wrote: "+
			"replace it with what the skill does and when to use it; agents choose skills by it", "")
	}
	if strings.ContainsAny(s, "<>") {
		c.add(CodeDescriptionAngleBrackets, line, col, "description contains < or >; claude.ai uploads reject it and "+
			"it can break the XML skill listings agents build: rephrase without angle brackets", "")
	}
	total := n
	if w, ok := got["when_to_use"]; ok && w.val.Kind == yaml.ScalarNode && w.val.Tag != "!!null" {
		total += utf8.RuneCountInString(w.val.Value)
	}
	if total > ClaudeListingCap {
		c.add(CodeDescriptionListingCap, line, col, fmt.Sprintf("description and when_to_use hold %d characters; "+
			"Claude Code cuts each skill's entry at %d, so the model never sees the end: shorten them",
			total, ClaudeListingCap), "")
	}
}

func (c *checker) checkCompatibility(got map[string]field, start int) {
	f, ok := got["compatibility"]
	if !ok {
		return
	}
	s, ok := c.stringValue(f, start)
	if !ok {
		return
	}
	line, col := start+f.val.Line-1, f.val.Column
	if n := utf8.RuneCountInString(s); strings.TrimSpace(s) == "" {
		c.add(CodeCompatibilityLength, line, col, "compatibility is empty: say what the skill needs (a product, "+
			"packages, network access) in 1 to 500 characters, or remove the field", "")
	} else if n > MaxCompatibilityRunes {
		c.add(CodeCompatibilityLength, line, col, fmt.Sprintf("compatibility is %d characters long; the limit is %d: "+
			"shorten it", n, MaxCompatibilityRunes), "")
	}
}

// checkString checks that an optional field, when set, holds text.
func (c *checker) checkString(got map[string]field, key string, start int) {
	if f, ok := got[key]; ok {
		c.stringValue(f, start)
	}
}

func (c *checker) checkMetadata(got map[string]field, start int) {
	f, ok := got["metadata"]
	if !ok {
		return
	}
	v := f.val
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return
	}
	if v.Kind != yaml.MappingNode {
		c.add(CodeWrongType, start+v.Line-1, v.Column, fmt.Sprintf("metadata must be a mapping of names to "+
			"strings, not a %s: put each entry on its own indented line under metadata:, such as "+
			"\"  author: example-org\"", kindName(v)), "")
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if val.Kind == yaml.AliasNode && val.Alias != nil {
			val = val.Alias
		}
		if k.Kind != yaml.ScalarNode || isTyped(k) {
			c.add(CodeMetadataValueNotString, start+k.Line-1, k.Column, fmt.Sprintf("the metadata key %s is a %s, "+
				"not a string: quote it", k.Value, kindName(k)), "")
			continue
		}
		line, col := start+val.Line-1, val.Column
		switch {
		case val.Kind != yaml.ScalarNode:
			c.add(CodeMetadataValueNotString, line, col, fmt.Sprintf("metadata.%s is a %s; metadata values must be "+
				"strings: flatten it into one quoted string", k.Value, kindName(val)), "")
		case val.Tag == "!!null":
			c.add(CodeMetadataValueNotString, line, col, fmt.Sprintf("metadata.%s has no value; metadata values must "+
				"be strings: give it a quoted value or remove it", k.Value), "")
		case isTyped(val):
			c.add(CodeMetadataValueNotString, line, col, fmt.Sprintf("metadata.%s is read as a %s (%s); metadata "+
				"values must be strings: quote it, %s: %q", k.Value, kindName(val), val.Value, k.Value, val.Value), "")
		}
	}
}

func (c *checker) checkAllowedTools(got map[string]field, start int) {
	f, ok := got["allowed-tools"]
	if !ok {
		return
	}
	v := f.val
	if v.Kind != yaml.SequenceNode {
		c.stringValue(f, start)
		return
	}
	var items []string
	for _, it := range v.Content {
		if it.Kind != yaml.ScalarNode {
			items = nil
			break
		}
		items = append(items, it.Value)
	}
	joined := strings.Join(items, " ")
	msg := "allowed-tools is a YAML list; the spec defines a space-separated string (Claude Code accepts both): "
	if joined != "" {
		msg += "write allowed-tools: " + joined
	} else {
		msg += "write allowed-tools: Read Grep Bash(git:*)"
	}
	c.add(CodeAllowedToolsList, start+v.Line-1, v.Column, msg, joined)
}
