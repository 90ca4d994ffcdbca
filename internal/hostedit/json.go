// Package hostedit edits the settings files of other programs (Claude
// Code's settings.json, Codex's config.toml, Gemini CLI's settings.json)
// the way a careful person would: it changes the one key it was asked to
// change and leaves every other byte of the file as it was: comments, key
// order, unknown keys, indentation, line endings and odd formatting.
//
// Nothing is re-serialised. Each edit parses the file into a tree that
// remembers the byte offsets of every key and value, splices new text in
// at those offsets, then decodes the old and the new file and checks that
// the new one means exactly the old one with the requested change. A file
// that does not parse is refused with a *SyntaxError naming its line and
// column; an edit whose result would mean anything else is refused with
// an *EditError, and nothing is written in either case. Writing the result
// is up to the caller (see safefile.WriteAtomic).
package hostedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// SyntaxError is a file that does not parse. Line and Column are 1-based.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// EditError is an edit that cannot be made safely: a value of the wrong
// type where an object, array or table is needed, or a layout the editor
// does not handle. The file is left alone; Msg says what to do.
type EditError struct{ Msg string }

func (e *EditError) Error() string { return e.Msg }

// JSON edits a JSON document, or with Comments set a JSONC one (// and
// /* */ comments and trailing commas, as Gemini CLI and VS Code allow). An
// empty or blank document counts as an empty object.
type JSON struct {
	// Comments allows comments and trailing commas.
	Comments bool
}

// Set returns data with the member at path set to value (a string, bool
// or []string, rendered as JSON). Objects missing along path are created;
// an existing member keeps its place and only its value changes. It
// returns data itself when the member already holds value.
func (j JSON) Set(data []byte, path []string, value any) ([]byte, error) {
	raw, err := marshal(value)
	if err != nil {
		return nil, err
	}
	return j.edit(data, func(d *jdoc) error { return d.set(path, raw) },
		func(v any) (any, error) { return setPath(v, path, decodeRaw(raw)) })
}

// Delete returns data without the member at path. With prune, the
// objects along path that held nothing else go too, up to (not
// including) the top-level object, but only when setting the member
// again would write them back exactly as they are: objects the user
// wrote are kept, emptied. So Set followed by Delete gives the file back
// byte for byte. A missing member is no error: data is returned as it
// is.
func (j JSON) Delete(data []byte, path []string, prune bool) ([]byte, error) {
	d, err := j.parse(data)
	if err != nil {
		return nil, err
	}
	chain, it := d.chain(path)
	if it == nil {
		return data, nil
	}
	raw := string(d.src[it.v.start:it.v.end])
	undo := func(out []byte) ([]byte, error) {
		return j.step(out, func(d *jdoc) error { return d.set(path, raw) })
	}
	return j.prune(data, pruneLevels(chain, path, prune), undo,
		func(level, layout int) func(*jdoc) (bool, error) {
			return func(d *jdoc) (bool, error) { return d.removeMember(path[:level+1], layout), nil }
		},
		func(level int) func(any) (any, error) {
			return func(v any) (any, error) { return deletePath(v, path[:level+1]), nil }
		})
}

// pruneLevels lists, highest first, the levels of path at which a
// removal may happen: level i removes the member path[i] from the object
// at path[:i]. The deepest level is the member itself; with prune, the
// levels above it whose object holds nothing but the next key of path
// come first.
func pruneLevels(chain []*jvalue, path []string, prune bool) []int {
	levels := []int{len(path) - 1}
	for l := len(path) - 1; prune && l > 0 && countMembers(chain[l], path[l]) == len(chain[l].items); l-- {
		levels = append([]int{l - 1}, levels...)
	}
	return levels
}

// prune makes the first removal, from the highest level down and each in
// every layout, whose undo gives data back byte for byte; when none does,
// the removal at the last level (the member or element itself). want
// says what the chosen removal must mean.
func (j JSON) prune(data []byte, levels []int, undo func([]byte) ([]byte, error),
	remove func(level, layout int) func(*jdoc) (bool, error), want func(level int) func(any) (any, error)) ([]byte, error) {
	for _, level := range levels {
		for layout := range layouts {
			out, err := j.repeat(data, remove(level, layout))
			if err != nil {
				continue
			}
			if back, err := undo(out); err == nil && bytes.Equal(back, data) {
				return j.checked(data, out, want(level))
			}
		}
	}
	last := levels[len(levels)-1]
	out, err := j.repeat(data, remove(last, layoutDefault))
	if err != nil {
		return nil, err
	}
	return j.checked(data, out, want(last))
}

// repeat applies op to data, each time to a fresh parse of the result,
// until op reports that it found nothing more to do: op removes one item
// at a time, since the commas of neighbouring items would overlap.
func (j JSON) repeat(data []byte, op func(*jdoc) (bool, error)) ([]byte, error) {
	for range 1000 {
		more := false
		out, err := j.step(data, func(d *jdoc) (err error) {
			more, err = op(d)
			return err
		})
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
		data = out
	}
	return nil, &EditError{Msg: "the file repeats the setting too often; remove the duplicates by hand"}
}

// step applies op to a fresh parse of data, without checking the result.
func (j JSON) step(data []byte, op func(*jdoc) error) ([]byte, error) {
	d, err := j.parse(data)
	if err != nil {
		return nil, err
	}
	if err := op(d); err != nil {
		return nil, err
	}
	return d.result()
}

// AddString returns data with s appended to the array of strings at path,
// which is created when missing. An array that already holds s is left as
// it is.
func (j JSON) AddString(data []byte, path []string, s string) ([]byte, error) {
	return j.edit(data, func(d *jdoc) error { return d.addString(path, s) },
		func(v any) (any, error) { return addString(v, path, s) })
}

// RemoveString returns data with every s removed from the array at path.
// With prune, an array left empty is removed, and so are the objects
// along path left empty (up to the top-level object), on the terms of
// Delete: only when adding s again would write them back exactly as
// they are. So AddString followed by RemoveString gives the file back
// byte for byte.
func (j JSON) RemoveString(data []byte, path []string, s string, prune bool) ([]byte, error) {
	d, err := j.parse(data)
	if err != nil {
		return nil, err
	}
	chain, it := d.chain(path)
	if it == nil || it.v.kind != 'a' || len(stringHits(it.v, s)) == 0 {
		return data, nil
	}
	// Level len(path) removes the elements and keeps the array.
	levels := []int{len(path)}
	if prune && len(stringHits(it.v, s)) == len(it.v.items) {
		levels = append(pruneLevels(chain, path, true), levels...)
	}
	undo := func(out []byte) ([]byte, error) {
		return j.step(out, func(d *jdoc) error { return d.addString(path, s) })
	}
	return j.prune(data, levels, undo,
		func(level, layout int) func(*jdoc) (bool, error) {
			if level == len(path) {
				return func(d *jdoc) (bool, error) { return d.removeString(path, s, layout), nil }
			}
			return func(d *jdoc) (bool, error) { return d.removeMember(path[:level+1], layout), nil }
		},
		func(level int) func(any) (any, error) {
			if level == len(path) {
				return func(v any) (any, error) { return removeString(v, path, s), nil }
			}
			return func(v any) (any, error) { return deletePath(v, path[:level+1]), nil }
		})
}

// Get returns the value at path, decoded (objects as map[string]any,
// arrays as []any, numbers as json.Number), and whether it is there.
func (j JSON) Get(data []byte, path []string) (any, bool, error) {
	d, err := j.parse(data)
	if err != nil {
		return nil, false, err
	}
	v := d.root.decode()
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		if v, ok = m[k]; !ok {
			return nil, false, nil
		}
	}
	return v, true, nil
}

// Check parses data and returns its *SyntaxError, or nil.
func (j JSON) Check(data []byte) error {
	_, err := j.parse(data)
	return err
}

// edit parses data, applies op to the tree, and checks that the result
// decodes to what want makes of the decoded original.
func (j JSON) edit(data []byte, op func(*jdoc) error, want func(any) (any, error)) ([]byte, error) {
	out, err := j.step(data, op)
	if err != nil {
		return nil, err
	}
	return j.checked(data, out, want)
}

// checked returns out, the edit of data, when it decodes to what want
// makes of the decoded data; else an *EditError.
func (j JSON) checked(data, out []byte, want func(any) (any, error)) ([]byte, error) {
	if bytes.Equal(out, data) {
		return data, nil
	}
	d, err := j.parse(data)
	if err != nil {
		return nil, err
	}
	before := d.root.decode()
	after, err := j.parse(out)
	if err != nil {
		return nil, &EditError{Msg: fmt.Sprintf("ccski's edit would not parse (%v); the file is left alone: please report this", err)}
	}
	expect, err := want(before)
	if err != nil {
		return nil, err
	}
	if !reflect.DeepEqual(expect, after.root.decode()) {
		return nil, &EditError{Msg: "ccski's edit would change more than the one setting; the file is left alone: please report this"}
	}
	return out, nil
}

func (j JSON) parse(data []byte) (*jdoc, error) {
	d := &jdoc{src: data, eol: "\n"}
	if bytes.Contains(data, []byte("\r\n")) {
		d.eol = "\r\n"
	}
	p := &jparser{data: data, comments: j.Comments}
	root, err := p.document()
	switch {
	case err != nil:
		return nil, err
	case root == nil: // empty: an empty object, written from scratch
		d.empty = true
		d.root = &jvalue{kind: 'o', start: p.pos, end: p.pos}
		return d, nil
	case root.kind != 'o':
		return nil, p.errAt(root.start, "the file must hold a JSON object at the top level")
	}
	d.root = root
	return d, nil
}

// document reads the whole of p.data: a byte order mark, then one value
// between white space (and comments, when allowed). It returns a nil
// value for a document that holds none.
func (p *jparser) document() (*jvalue, error) {
	if bytes.HasPrefix(p.data, []byte(bom)) {
		p.pos = len(bom)
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos == len(p.data) {
		return nil, nil
	}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(p.data) {
		return nil, p.errorf("unexpected %q after the top-level value", p.data[p.pos])
	}
	return root, nil
}

// jvalue is one parsed value with its byte range [start, end).
type jvalue struct {
	kind       byte // 'o' object, 'a' array, 's' string, 'n' number, 't' true, 'f' false, 'z' null
	start, end int
	items      []*jitem // members of an object, elements of an array
	str        string   // a string's value
	raw        string   // a number's text
}

// jitem is an object member or an array element. start is where its key
// (or, in an array, its value) starts; comma is the offset of the comma
// that follows its value, or -1.
type jitem struct {
	key    string
	start  int
	keyEnd int
	v      *jvalue
	comma  int
}

func (v *jvalue) decode() any {
	switch v.kind {
	case 'o':
		m := map[string]any{}
		for _, it := range v.items {
			m[it.key] = it.v.decode()
		}
		return m
	case 'a':
		a := make([]any, 0, len(v.items))
		for _, it := range v.items {
			a = append(a, it.v.decode())
		}
		return a
	case 's':
		return v.str
	case 'n':
		return json.Number(v.raw)
	case 't':
		return true
	case 'f':
		return false
	}
	return nil
}

// member returns the last member named key (JSON parsers keep the last of
// duplicates), or nil.
func (v *jvalue) member(key string) *jitem {
	for i := len(v.items) - 1; i >= 0; i-- {
		if v.items[i].key == key {
			return v.items[i]
		}
	}
	return nil
}

type jparser struct {
	data     []byte
	pos      int
	comments bool
	// skipped, when not nil, collects the [start, end) range of every
	// comment passed (see JSON.Decode).
	skipped *[][2]int
}

func (p *jparser) errAt(off int, format string, args ...any) error {
	line, col := Position(p.data, off)
	return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *jparser) errorf(format string, args ...any) error { return p.errAt(p.pos, format, args...) }

// skip passes white space and, when allowed, comments.
func (p *jparser) skip() error {
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.data) && (p.data[p.pos+1] == '/' || p.data[p.pos+1] == '*'):
			if !p.comments {
				return p.errorf("comments are not allowed in this file")
			}
			start := p.pos
			if p.data[p.pos+1] == '/' {
				for p.pos < len(p.data) && p.data[p.pos] != '\n' {
					p.pos++
				}
			} else {
				end := bytes.Index(p.data[p.pos+2:], []byte("*/"))
				if end < 0 {
					return p.errorf("unterminated /* comment")
				}
				p.pos += 2 + end + 2
			}
			if p.skipped != nil {
				*p.skipped = append(*p.skipped, [2]int{start, p.pos})
			}
		default:
			return nil
		}
	}
	return nil
}

const maxDepth = 200

func (p *jparser) value(depth int) (*jvalue, error) {
	if depth > maxDepth {
		return nil, p.errorf("values nested more than %d deep", maxDepth)
	}
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of file")
	}
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		return p.container(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jvalue{kind: 's', start: start, end: p.pos, str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		for p.pos < len(p.data) && strings.IndexByte("+-0123456789.eE", p.data[p.pos]) >= 0 {
			p.pos++
		}
		raw := string(p.data[start:p.pos])
		if !json.Valid([]byte(raw)) {
			return nil, p.errAt(start, "invalid number %q", raw)
		}
		return &jvalue{kind: 'n', start: start, end: p.pos, raw: raw}, nil
	default:
		for _, lit := range []struct {
			word string
			kind byte
		}{{"true", 't'}, {"false", 'f'}, {"null", 'z'}} {
			if bytes.HasPrefix(p.data[p.pos:], []byte(lit.word)) {
				p.pos += len(lit.word)
				return &jvalue{kind: lit.kind, start: start, end: p.pos}, nil
			}
		}
		return nil, p.errorf("unexpected character %q", c)
	}
}

// str reads a string at p.pos and decodes it.
func (p *jparser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; {
		case c == '\\':
			p.pos += 2
			continue
		case c == '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.data[start:p.pos], &s); err != nil {
				return "", p.errAt(start, "invalid string: %v", err)
			}
			return s, nil
		case c < 0x20:
			return "", p.errorf("control character in a string")
		}
		p.pos++
	}
	return "", p.errAt(start, "unterminated string")
}

// container reads an object or array at p.pos.
func (p *jparser) container(depth int) (*jvalue, error) {
	open := p.data[p.pos]
	v := &jvalue{kind: 'o', start: p.pos}
	closer := byte('}')
	if open == '[' {
		v.kind, closer = 'a', ']'
	}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.data) {
			return nil, p.errAt(v.start, "unclosed %q", open)
		}
		if p.data[p.pos] == closer {
			if n := len(v.items); n > 0 && v.items[n-1].comma >= 0 && !p.comments {
				return nil, p.errAt(v.items[n-1].comma, "trailing comma")
			}
			p.pos++
			v.end = p.pos
			return v, nil
		}
		if n := len(v.items); n > 0 && v.items[n-1].comma < 0 {
			return nil, p.errorf("expected ',' or %q", closer)
		}
		it := &jitem{start: p.pos, comma: -1}
		if v.kind == 'o' {
			if p.data[p.pos] != '"' {
				return nil, p.errorf("expected a member name in double quotes")
			}
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			it.key, it.keyEnd = key, p.pos
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.pos >= len(p.data) || p.data[p.pos] != ':' {
				return nil, p.errorf("expected ':' after the member name %q", key)
			}
			p.pos++
			if err := p.skip(); err != nil {
				return nil, err
			}
		}
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		it.v = val
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			it.comma = p.pos
			p.pos++
		}
		v.items = append(v.items, it)
	}
}

// jdoc is a document being edited: the source and the splices made to
// it. Each operation works on the tree of the source, so one jdoc makes
// one edit; a second edit parses the result again.
type jdoc struct {
	src    []byte
	root   *jvalue
	empty  bool // the source held no value: the result is a new object
	eol    string
	colon  string // what separates a new member's name from its value
	splice []splice
}

type splice struct {
	from, to int
	text     string
}

func (d *jdoc) replace(from, to int, text string) {
	d.splice = append(d.splice, splice{from, to, text})
}

// result applies the splices in order of offset. Overlapping splices
// (an edit of duplicate keys next to each other) are an *EditError.
func (d *jdoc) result() ([]byte, error) {
	if len(d.splice) == 0 {
		return d.src, nil
	}
	sorted := append([]splice(nil), d.splice...)
	for i := 1; i < len(sorted); i++ {
		for k := i; k > 0 && sorted[k].from < sorted[k-1].from; k-- {
			sorted[k], sorted[k-1] = sorted[k-1], sorted[k]
		}
	}
	var out bytes.Buffer
	at := 0
	for _, s := range sorted {
		if s.from < at {
			return nil, &EditError{Msg: "the file repeats the key next to itself; remove the duplicate by hand"}
		}
		out.Write(d.src[at:s.from])
		out.WriteString(s.text)
		at = s.to
	}
	out.Write(d.src[at:])
	return out.Bytes(), nil
}

// walk follows path from the root through objects. It returns the
// deepest object reached, how many keys of path it consumed, and the item
// holding it (nil for the root).
func (d *jdoc) walk(path []string) (obj *jvalue, n int, err error) {
	obj = d.root
	for n < len(path) {
		it := obj.member(path[n])
		if it == nil {
			return obj, n, nil
		}
		if it.v.kind != 'o' {
			return nil, 0, &EditError{Msg: fmt.Sprintf("%q is %s, not an object; fix it by hand", strings.Join(path[:n+1], "."), kindName(it.v.kind))}
		}
		obj = it.v
		n++
	}
	return obj, n, nil
}

func kindName(k byte) string {
	switch k {
	case 'o':
		return "an object"
	case 'a':
		return "an array"
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'z':
		return "null"
	}
	return "a boolean"
}

// set sets path to the JSON text raw.
func (d *jdoc) set(path []string, raw string) error {
	if d.empty {
		d.replace(0, len(d.src), d.fresh(path, raw))
		return nil
	}
	obj, n, err := d.walk(path[:len(path)-1])
	if err != nil {
		return err
	}
	if n == len(path)-1 {
		if it := obj.member(path[n]); it != nil {
			if string(d.src[it.v.start:it.v.end]) != raw {
				d.replace(it.v.start, it.v.end, raw)
			}
			return nil
		}
	}
	// Create path[n:] inside obj.
	return d.insert(obj, path[n:], raw)
}

// fresh is a whole new document holding path = raw.
func (d *jdoc) fresh(path []string, raw string) string {
	return "{" + d.eol + "  " + d.nest(path, raw, "  ", "  ", true) + d.eol + "}" + d.eol
}

// nest renders `"k1": {"k2": ... raw}` for keys, multi-line with the
// given indent of the first key and indent unit, or on one line.
func (d *jdoc) nest(keys []string, raw, indent, unit string, multiline bool) string {
	k, _ := marshal(keys[0])
	colon := d.colon
	if colon == "" {
		colon = ": "
	}
	if len(keys) == 1 {
		return k + colon + raw
	}
	if !multiline {
		return k + colon + "{" + d.nest(keys[1:], raw, indent, unit, false) + "}"
	}
	inner := indent + unit
	return k + colon + "{" + d.eol + inner + d.nest(keys[1:], raw, inner, unit, true) + d.eol + indent + "}"
}

// lineStart is the offset of the start of the line holding off.
func (d *jdoc) lineStart(off int) int {
	return bytes.LastIndexByte(d.src[:off], '\n') + 1
}

// indentOf is the white space from the start of off's line to off, when
// only white space precedes off on its line; ok is false otherwise.
func (d *jdoc) indentOf(off int) (string, bool) {
	ls := d.lineStart(off)
	pre := d.src[ls:off]
	if len(bytes.TrimLeft(pre, " \t")) != 0 {
		return "", false
	}
	return string(pre), true
}

// lineIndent is the leading white space of off's line.
func (d *jdoc) lineIndent(off int) string {
	ls := d.lineStart(off)
	i := ls
	for i < len(d.src) && (d.src[i] == ' ' || d.src[i] == '\t') {
		i++
	}
	return string(d.src[ls:i])
}

// unit guesses the file's indent unit: the indent of the first member of
// the root that starts its own line, else two spaces.
func (d *jdoc) unit() string {
	for _, it := range d.root.items {
		if ind, ok := d.indentOf(it.start); ok && ind != "" {
			return ind
		}
	}
	return "  "
}

// afterLine returns the offset where text after off may be inserted so
// that it follows a comment that ends off's line: the end of the line
// (before its newline) when only white space and a comment follow off on
// it, else off.
func (d *jdoc) afterLine(off int) int {
	end := bytes.IndexByte(d.src[off:], '\n')
	if end < 0 {
		end = len(d.src) - off
	}
	rest := bytes.TrimSpace(d.src[off : off+end])
	if len(rest) == 0 || bytes.HasPrefix(rest, []byte("//")) {
		e := off + end
		if e > off && d.src[e-1] == '\r' {
			e--
		}
		if len(rest) == 0 {
			return off
		}
		return e
	}
	return off
}

// insert adds the member keys[0] (holding keys[1:]... = raw) to obj.
func (d *jdoc) insert(obj *jvalue, keys []string, raw string) error {
	if len(obj.items) == 0 {
		return d.insertFirst(obj, func(indent, unit string, multiline bool) string {
			return d.nest(keys, raw, indent, unit, multiline)
		})
	}
	return d.insertAfterLast(obj, func(indent, unit string, multiline bool) string {
		return d.nest(keys, raw, indent, unit, multiline)
	})
}

// insertFirst puts the first item into the empty container c.
func (d *jdoc) insertFirst(c *jvalue, render func(indent, unit string, multiline bool) string) error {
	inner := d.src[c.start+1 : c.end-1]
	blank := len(bytes.TrimSpace(inner)) == 0
	closer := d.lineStart(c.end - 1)
	ownLine := closer > c.start && isBlank(d.src[closer:c.end-1])
	multiline := c == d.root || (c.kind == 'o' && bytes.ContainsRune(d.src[d.root.start:d.root.end], '\n')) ||
		(!blank && ownLine)
	switch {
	case !multiline && blank:
		d.replace(c.start+1, c.end-1, render("", "", false))
		return nil
	case !multiline:
		// Comments inside: keep them, add the item before the closer.
		d.replace(c.end-1, c.end-1, render("", "", false))
		return nil
	}
	base := d.lineIndent(c.start)
	unit := d.unit()
	if c == d.root && len(d.root.items) == 0 {
		unit = "  "
	}
	item := base + unit + render(base+unit, unit, true)
	switch {
	case blank:
		d.replace(c.start+1, c.end-1, d.eol+item+d.eol+base)
	case ownLine:
		// Comments inside, and the closer on a line of its own: a line
		// of its own before it, so that removing the item's line gives
		// the file back.
		d.replace(closer, closer, item+d.eol)
	default:
		// Comments inside: keep them, add the item before the closer.
		d.replace(c.end-1, c.end-1, d.eol+item+d.eol+base)
	}
	return nil
}

// insertAfterLast puts a new item after the last item of c, in the style
// of that item: on a line of its own with the same indent, or on the
// same line after ", ".
func (d *jdoc) insertAfterLast(c *jvalue, render func(indent, unit string, multiline bool) string) error {
	last := c.items[len(c.items)-1]
	if c.kind == 'o' && string(d.src[last.keyEnd:last.v.start]) == ":" {
		d.colon = ":"
	}
	indent, ownLine := d.indentOf(last.start)
	end := last.v.end
	if last.comma >= 0 {
		end = last.comma + 1
	}
	if !ownLine {
		sep := ", "
		if len(c.items) > 1 {
			prev := c.items[len(c.items)-2]
			if prev.comma >= 0 && prev.comma+1 == c.items[len(c.items)-1].start {
				sep = ","
			}
		}
		text := render("", "", false)
		if last.comma >= 0 {
			d.replace(end, end, " "+text+",")
		} else {
			d.replace(end, end, sep+text)
		}
		return nil
	}
	base := d.lineIndent(c.start)
	unit := "  "
	if strings.HasPrefix(indent, base) && len(indent) > len(base) {
		unit = indent[len(base):]
	}
	text := d.eol + indent + render(indent, unit, true)
	at := d.afterLine(end)
	if last.comma >= 0 {
		d.replace(at, at, text+",")
		return nil
	}
	d.replace(last.v.end, last.v.end, ",")
	d.replace(at, at, text)
	return nil
}

// chain follows path through objects: it returns the objects from the
// root to the one that holds the last key, and the member at path; the
// member is nil when path is missing or goes through a value that is no
// object.
func (d *jdoc) chain(path []string) ([]*jvalue, *jitem) {
	if d.empty {
		return nil, nil
	}
	chain := []*jvalue{d.root}
	for i, k := range path {
		it := chain[len(chain)-1].member(k)
		if it == nil {
			return chain, nil
		}
		if i == len(path)-1 {
			return chain, it
		}
		if it.v.kind != 'o' {
			return chain, nil
		}
		chain = append(chain, it.v)
	}
	return chain, nil
}

// removeMember removes the last member at path, and reports whether
// there was one (an object may repeat a key: see JSON.repeat).
// layout is removeItem's.
func (d *jdoc) removeMember(path []string, layout int) bool {
	chain, it := d.chain(path)
	if it == nil {
		return false
	}
	obj := chain[len(chain)-1]
	d.removeItem(obj, slices.Index(obj.items, it), layout)
	return true
}

// blankBesideItems reports whether c holds nothing but its items, their
// commas and white space: no comments.
func (d *jdoc) blankBesideItems(c *jvalue) bool {
	at := c.start + 1
	for _, it := range c.items {
		if len(bytes.TrimSpace(d.src[at:it.start])) != 0 {
			return false
		}
		at = it.v.end
		if it.comma >= 0 {
			if len(bytes.TrimSpace(d.src[at:it.comma])) != 0 {
				return false
			}
			at = it.comma + 1
		}
	}
	return len(bytes.TrimSpace(d.src[at:c.end-1])) == 0
}

// isBlank reports whether b is spaces and tabs only.
func isBlank(b []byte) bool { return len(bytes.Trim(b, " \t")) == 0 }

// lineEnd is the offset just past the line break that ends off's line
// when only spaces and tabs lie between off and it, else -1.
func (d *jdoc) lineEnd(off int) int {
	i := off
	for i < len(d.src) && (d.src[i] == ' ' || d.src[i] == '\t') {
		i++
	}
	switch {
	case i < len(d.src) && d.src[i] == '\n':
		return i + 1
	case i+1 < len(d.src) && d.src[i] == '\r' && d.src[i+1] == '\n':
		return i + 2
	}
	return -1
}

// The layouts removeItem can leave, tried in turn by JSON.prune: the one
// whose undo gives the file back is the one its insertion made.
const (
	// layoutDefault empties a container that holds nothing but the item.
	layoutDefault = iota
	// layoutLine removes an only item's line, and nothing more.
	layoutLine
	// layoutTight removes an only item with the line break before it and
	// the white space up to the closer.
	layoutTight
	layouts
)

// removeItem removes item i of c and the comma that separates it from
// its neighbours, so that the rest stays valid and keeps its layout.
// Comments stay wherever they are: before the item, after it on its
// line, or between items. An item alone on its line goes with its line
// (the last of several with the line break before it, which is the one
// insertAfterLast writes); one that shares its line goes with the spaces
// that separate it. The only item of a container is removed in the given
// layout.
func (d *jdoc) removeItem(c *jvalue, i int, layout int) {
	it := c.items[i]
	only := len(c.items) == 1
	if only && layout == layoutDefault && d.blankBesideItems(c) {
		d.replace(c.start+1, c.end-1, "")
		return
	}
	from, to := it.start, it.v.end
	switch {
	case it.comma >= 0 && isBlank(bytes.TrimSpace(d.src[to:it.comma])):
		to = it.comma + 1
	case it.comma >= 0:
		// A comment between the value and its comma stays.
		d.replace(it.comma, it.comma+1, "")
	case i > 0:
		prev := c.items[i-1]
		if isBlank(d.src[prev.comma+1 : it.start]) {
			from = prev.comma // "a": 1, "b": 2 loses ", "b": 2"
		} else {
			d.replace(prev.comma, prev.comma+1, "")
		}
	}
	ls := d.lineStart(from)
	ownLine := from == it.start && isBlank(d.src[ls:from])
	breakBefore := ls - len(d.eolAt(ls)) // the line break that ends the line before
	end := d.lineEnd(to)
	switch {
	case ownLine && only && layout == layoutTight && ls-1 > c.start && len(bytes.TrimSpace(d.src[to:c.end-1])) == 0:
		from, to = breakBefore, c.end-1
	case ownLine && !only && i == len(c.items)-1 && ls-1 > c.start:
		// What follows it on its line (spaces, a comment, the closer)
		// stays, as it was before insertAfterLast wrote the item.
		from = breakBefore
	case end >= 0 && ownLine:
		from, to = ls, end // the whole line
	case end >= 0 && from == it.start:
		// The rest of the line is empty: the spaces before the item go.
		for from > ls && (d.src[from-1] == ' ' || d.src[from-1] == '\t') {
			from--
		}
		to = end - len(d.eolAt(end))
	case !ownLine && i == len(c.items)-1 && it.comma >= 0:
		// The last item, with a trailing comma, before the closer on its
		// line: the spaces before it go.
		for from > ls && (d.src[from-1] == ' ' || d.src[from-1] == '\t') {
			from--
		}
	case ownLine || (it.comma >= 0 && to == it.comma+1):
		// Shares its line with what follows: the spaces after it go.
		for to < len(d.src) && (d.src[to] == ' ' || d.src[to] == '\t') {
			to++
		}
	}
	d.replace(from, to, "")
}

// eolAt is the line break that ends just before off ("\n" or "\r\n").
func (d *jdoc) eolAt(off int) string {
	if off >= 2 && d.src[off-2] == '\r' {
		return "\r\n"
	}
	return "\n"
}

func countMembers(obj *jvalue, key string) int {
	n := 0
	for _, it := range obj.items {
		if it.key == key {
			n++
		}
	}
	return n
}

// addString appends s to the array at path.
func (d *jdoc) addString(path []string, s string) error {
	raw, _ := marshal(s)
	if d.empty {
		d.replace(0, len(d.src), d.fresh(path, "["+raw+"]"))
		return nil
	}
	obj, n, err := d.walk(path[:len(path)-1])
	if err != nil {
		return err
	}
	var it *jitem
	if n == len(path)-1 {
		it = obj.member(path[n])
	}
	if it == nil {
		return d.insert(obj, path[n:], "["+raw+"]")
	}
	if it.v.kind != 'a' {
		return &EditError{Msg: fmt.Sprintf("%q is %s, not an array; fix it by hand", strings.Join(path, "."), kindName(it.v.kind))}
	}
	for _, e := range it.v.items {
		if e.v.kind == 's' && e.v.str == s {
			return nil
		}
	}
	render := func(string, string, bool) string { return raw }
	if len(it.v.items) == 0 {
		return d.insertFirst(it.v, render)
	}
	return d.insertAfterLast(it.v, render)
}

// stringHits lists the elements of the array a that are the string s.
func stringHits(a *jvalue, s string) []int {
	var hits []int
	for i, e := range a.items {
		if e.v.kind == 's' && e.v.str == s {
			hits = append(hits, i)
		}
	}
	return hits
}

// removeString removes the last s from the array at path, and reports
// whether there was one (see JSON.repeat); the array stays, if empty.
// layout is removeItem's.
func (d *jdoc) removeString(path []string, s string, layout int) bool {
	_, it := d.chain(path)
	if it == nil || it.v.kind != 'a' {
		return false
	}
	hits := stringHits(it.v, s)
	if len(hits) == 0 {
		return false
	}
	d.removeItem(it.v, hits[len(hits)-1], layout)
	return true
}

// marshal renders a string, bool or []string as JSON, without HTML
// escaping.
func marshal(v any) (string, error) {
	switch v.(type) {
	case string, bool, []string:
	default:
		return "", fmt.Errorf("hostedit: cannot write a %T", v)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func decodeRaw(raw string) any {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(err) // raw comes from marshal
	}
	return v
}

// The functions below apply an edit to a decoded document, to check the
// edited file against.

// parentOf returns the object of v that holds the last key of path
// (tableAt).
func parentOf(v any, path []string, create bool) map[string]any {
	return tableAt(v.(map[string]any), path[:len(path)-1], create)
}

func setPath(v any, path []string, val any) (any, error) {
	parentOf(v, path, true)[path[len(path)-1]] = val
	return v, nil
}

func deletePath(v any, path []string) any {
	if m := parentOf(v, path, false); m != nil {
		delete(m, path[len(path)-1])
	}
	return v
}

func addString(v any, path []string, s string) (any, error) {
	m := parentOf(v, path, true)
	key := path[len(path)-1]
	arr, _ := m[key].([]any)
	for _, e := range arr {
		if e == s {
			return v, nil
		}
	}
	m[key] = append(arr, s)
	return v, nil
}

func removeString(v any, path []string, s string) any {
	m := parentOf(v, path, false)
	key := path[len(path)-1]
	arr, ok := m[key].([]any)
	if !ok {
		return v
	}
	out := []any{}
	for _, e := range arr {
		if e != s {
			out = append(out, e)
		}
	}
	if len(out) == len(arr) {
		return v
	}
	m[key] = out
	return v
}
