// Package skillmd reads SKILL.md files: the YAML frontmatter at discovery
// time (a bounded read that stops at the closing "---") and the Markdown
// body on demand. Frontmatter is only ever parsed as YAML data.
package skillmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/problems"
	"go.yaml.in/yaml/v3"
)

// MaxFrontmatter caps how many bytes of frontmatter are read before the
// closing delimiter must appear.
const MaxFrontmatter = 64 << 10

// Problem is something wrong with a SKILL.md file. Line is 1-based in the
// whole file, or 0 when unknown.
type Problem struct {
	// Code is one of package problems' codes, the one ccski validate
	// reports for the same problem.
	Code    string
	Fatal   bool // the skill cannot be used
	Line    int
	Message string
}

// Head is the result of reading a SKILL.md up to the end of its
// frontmatter.
type Head struct {
	// Raw is the frontmatter text between the delimiters, with a BOM and
	// CR line endings as they were in the file.
	Raw []byte
	// StartLine is the file line of the first frontmatter line (the line
	// after the opening "---").
	StartLine int
	// BodyOffset is the byte offset where the body starts.
	BodyOffset int
	BOM        bool
	CRLF       bool
	// LeadingBlank counts blank lines before the opening delimiter.
	LeadingBlank int
}

// Errors returned by ReadHead; each is also described by a Problem.
var (
	ErrNoFrontmatter = errors.New("no frontmatter: the file must start with a line holding only ---")
	ErrUnterminated  = errors.New("frontmatter is not closed: add a line holding only --- after the last field")
	ErrTooLarge      = fmt.Errorf("frontmatter is larger than %d KiB", MaxFrontmatter>>10)
)

// readers recycles the 4 KiB read buffers: discovery reads thousands of
// heads, and nothing keeps a slice of a buffer (Raw is a copy).
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// ReadHead reads from r only as far as the closing frontmatter delimiter.
func ReadHead(r io.Reader) (*Head, error) {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() { br.Reset(nil); readers.Put(br) }()
	h := &Head{}
	off, line := 0, 0
	readLine := func() ([]byte, error) {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A very long line: collect it whole, within the cap.
			buf := append([]byte(nil), b...)
			for errors.Is(err, bufio.ErrBufferFull) && len(buf) <= MaxFrontmatter {
				b, err = br.ReadSlice('\n')
				buf = append(buf, b...)
			}
			b = buf
		}
		off += len(b)
		line++
		return b, err
	}
	// Opening delimiter, after an optional BOM and blank lines.
	for {
		b, err := readLine()
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err // a read failure, not a missing delimiter
		}
		if line == 1 && bytes.HasPrefix(b, []byte("\ufeff")) {
			h.BOM = true
			b = b[3:]
		}
		t := bytes.TrimRight(b, " \t\r\n")
		if len(t) == 0 && err == nil {
			h.LeadingBlank++
			if h.LeadingBlank > 64 {
				return nil, ErrNoFrontmatter
			}
			continue
		}
		if string(t) != "---" {
			return nil, ErrNoFrontmatter
		}
		h.CRLF = bytes.HasSuffix(b, []byte("\r\n"))
		if err != nil {
			return nil, ErrUnterminated
		}
		break
	}
	h.StartLine = line + 1
	start := off
	var raw []byte
	for {
		b, err := readLine()
		if t := bytes.TrimRight(b, " \t\r\n"); string(t) == "---" && (err == nil || len(b) > 0) {
			h.Raw = raw
			h.BodyOffset = off
			return h, nil
		}
		raw = append(raw, b...)
		if off-start > MaxFrontmatter {
			return nil, ErrTooLarge
		}
		if err != nil {
			if err == io.EOF {
				return nil, ErrUnterminated
			}
			return nil, err
		}
	}
}

// Front is what discovery needs from the frontmatter.
type Front struct {
	Name        string
	Description string
	// HasName and HasDescription say whether the keys were present.
	HasName        bool
	HasDescription bool
}

// Decode parses the frontmatter of h. It returns the fields it could read
// and every problem found. When the YAML is invalid it falls back to a
// line-based reading of top-level "key: value" pairs, which recovers the
// common unquoted "description: Use when: ..." case; the YAML error is then
// reported as a warning. Control characters in the name and description
// are replaced (cleanFront), with a problem saying so.
func Decode(h *Head) (Front, []Problem) {
	f, probs := decode(h)
	if f.HasName || f.HasDescription {
		probs = append(probs, cleanFront(&f, h.StartLine)...)
	}
	return f, probs
}

// decode is Decode before control characters are replaced.
func decode(h *Head) (Front, []Problem) {
	raw := h.Raw
	if !utf8.Valid(raw) {
		return Front{}, []Problem{{Code: problems.InvalidUTF8, Fatal: true, Line: h.StartLine,
			Message: "frontmatter is not valid UTF-8: save the file as UTF-8"}}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return Front{}, []Problem{{Code: problems.EmptyFrontmatter, Fatal: true, Line: h.StartLine,
			Message: "frontmatter is empty: add name: and description: lines between the --- delimiters"}}
	}
	if f, ok := quick(raw); ok {
		return f, checkFields(f, h.StartLine, nil)
	}
	return decodeYAML(h)
}

// decodeYAML is Decode through the YAML parser, with the lenient fallback.
func decodeYAML(h *Head) (Front, []Problem) {
	var probs []Problem
	raw := h.Raw
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		f, ok := lenient(raw)
		line, msg := yamlErrorLine(err, h.StartLine)
		if !ok {
			return Front{}, []Problem{{Code: yamlCode(msg, raw, false), Fatal: true, Line: line,
				Message: "invalid YAML in frontmatter: " + msg + hintFor(msg, raw)}}
		}
		probs = append(probs, Problem{Code: yamlCode(msg, raw, true), Line: line,
			Message: "invalid YAML in frontmatter (" + msg + "); name and description were read line by line" + hintFor(msg, raw)})
		return f, append(probs, checkFields(f, h.StartLine, nil)...)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return Front{}, []Problem{{Code: problems.NotAMapping, Fatal: true, Line: h.StartLine,
			Message: "frontmatter must be a YAML mapping of keys to values, such as name: my-skill"}}
	}
	m := doc.Content[0]
	var f Front
	wrong := map[string]bool{} // fields of the wrong type, already reported
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		var dst *string
		switch k.Value {
		case "name":
			dst, f.HasName = &f.Name, true
		case "description":
			dst, f.HasDescription = &f.Description, true
		default:
			continue
		}
		line := h.StartLine + k.Line - 1
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if v.Kind != yaml.ScalarNode {
			probs = append(probs, Problem{Code: problems.WrongType, Fatal: true, Line: line,
				Message: fmt.Sprintf("%s must be a string, not a %s", k.Value, kindName(v.Kind))})
			wrong[k.Value] = true
			continue
		}
		if v.Tag != "!!str" && v.Tag != "" && v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 &&
			v.Tag != "!!null" {
			probs = append(probs, Problem{Code: problems.TypedScalar, Line: line,
				Message: fmt.Sprintf("%s is read as a %s (%s); quote it to make it a string", k.Value,
					strings.TrimPrefix(v.Tag, "!!"), v.Value)})
		}
		if v.Tag == "!!null" {
			continue // reported as empty below
		}
		*dst = v.Value
	}
	return f, append(probs, checkFields(f, h.StartLine, wrong)...)
}

// checkFields reports a missing or empty name or description, except a
// field in wrong, whose type was reported already.
func checkFields(f Front, line int, wrong map[string]bool) []Problem {
	var probs []Problem
	switch {
	case wrong["description"]:
	case !f.HasDescription:
		probs = append(probs, Problem{Code: problems.DescriptionMissing, Fatal: true, Line: line,
			Message: "description is missing: add description: followed by what the skill does and when to use it"})
	case strings.TrimSpace(f.Description) == "":
		probs = append(probs, Problem{Code: problems.DescriptionEmpty, Fatal: true, Line: line,
			Message: "description is empty: add what the skill does and when to use it after description:"})
	}
	switch {
	case wrong["name"]:
	case !f.HasName:
		probs = append(probs, Problem{Code: problems.NameMissing, Line: line,
			Message: "name is missing; the folder name is used instead: add name: <folder-name>"})
	case strings.TrimSpace(f.Name) == "":
		probs = append(probs, Problem{Code: problems.NameEmpty, Line: line,
			Message: "name is empty; the folder name is used instead: set name: <folder-name>"})
	}
	return probs
}

// lenient reads top-level "key: value" lines, taking everything after the
// first ": " as the value, with indented continuation lines folded in.
func lenient(raw []byte) (Front, bool) {
	var f Front
	var cur *string
	for _, ln := range strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n") {
		if ln == "" || ln[0] == '#' {
			continue
		}
		if ln[0] == ' ' || ln[0] == '\t' {
			if cur != nil {
				if *cur != "" {
					*cur += " "
				}
				*cur += strings.TrimSpace(ln)
			}
			continue
		}
		cur = nil
		k, v, ok := strings.Cut(ln, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch key := strings.TrimSpace(k); {
		case key != "name" && key != "description":
		case strings.HasPrefix(v, "[") || strings.HasPrefix(v, "{"):
			// A broken flow collection is not the unquoted-colon case:
			// guessing its meaning would serve a wrong value.
			return Front{}, false
		case len(v) > 0 && (v[0] == '"' || v[0] == '\'') && (len(v) < 2 || v[len(v)-1] != v[0]):
			return Front{}, false // an unclosed quote
		}
		v = unquote(v)
		if isBlockHeader(v) {
			v = "" // "description: >-": the value is on the indented lines
		}
		switch strings.TrimSpace(k) {
		case "name":
			f.Name, f.HasName, cur = v, true, &f.Name
		case "description":
			f.Description, f.HasDescription, cur = v, true, &f.Description
		}
	}
	return f, f.HasDescription && strings.TrimSpace(f.Description) != ""
}

// isBlockHeader reports whether s is a YAML block scalar header such as
// "|", ">-" or "|2+".
func isBlockHeader(s string) bool {
	return len(s) > 0 && (s[0] == '|' || s[0] == '>') && strings.Trim(s[1:], "+-0123456789") == ""
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// yamlErrorLine turns "yaml: line 3: ..." into a file line and a message.
func yamlErrorLine(err error, start int) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var n int
	if _, e := fmt.Sscanf(msg, "line %d:", &n); e == nil && n > 0 {
		_, rest, _ := strings.Cut(msg, ": ")
		return start + n - 1, rest
	}
	return start, msg
}

func hintFor(msg string, raw []byte) string {
	switch {
	case strings.Contains(msg, "mapping values are not allowed"):
		return "; quote values that contain \": \""
	case strings.Contains(msg, "tab character"),
		strings.Contains(msg, "found character that cannot start any token") && tabIndented(raw):
		return "; indent with spaces, not tabs"
	case strings.Contains(msg, "found character that cannot start any token"):
		return "; quote values that start with @ or `"
	}
	return ""
}

// yamlCode names a YAML error with validate's code (package problems): a
// value read line by line because it holds an unquoted ": " is
// unquoted-colon, a frontmatter with a tab-indented line yaml-tab-indent,
// anything else yaml-syntax. recovered says whether the lenient reading
// read the fields.
func yamlCode(msg string, raw []byte, recovered bool) string {
	switch {
	case recovered && strings.Contains(msg, "mapping values are not allowed"):
		return problems.UnquotedColon
	case tabIndented(raw):
		return problems.YAMLTab
	}
	return problems.YAMLSyntax
}

// tabIndented reports whether a line of raw is indented with a tab.
func tabIndented(raw []byte) bool {
	for _, ln := range bytes.Split(raw, []byte("\n")) {
		if ws := len(ln) - len(bytes.TrimLeft(ln, " \t")); bytes.IndexByte(ln[:ws], '\t') >= 0 {
			return true
		}
	}
	return false
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	default:
		return "value"
	}
}

// FoldSpace replaces every run of white space with one space and trims.
// Text that is already folded is returned as it is, without allocating.
func FoldSpace(s string) string {
	prevSpace := true // a leading space needs folding too
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				return strings.Join(strings.Fields(s), " ")
			}
			i += size - 1
			prevSpace = false
			continue
		}
		space := c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
		if space && (prevSpace || c != ' ') {
			return strings.Join(strings.Fields(s), " ")
		}
		prevSpace = space
	}
	if prevSpace && s != "" {
		return strings.Join(strings.Fields(s), " ") // a trailing space
	}
	return s
}
