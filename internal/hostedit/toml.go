package hostedit

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// TOML edits a TOML document, such as Codex's config.toml, at the level
// of its tables: it sets a key of a [table] or of one [[array]] table,
// appends an [[array]] table, or removes one. The document is never
// re-serialised: new lines go after the table's last key (or at the end
// of the file), a changed value is replaced in place, and comments and
// every unrelated byte stay as they are, line endings included. A
// document that does not parse, or that defines a table twice (which
// Codex refuses, although BurntSushi/toml accepts it: see strictTOML), is
// refused with a *SyntaxError; a table written in a form these edits do
// not handle (an inline table, an inline array of tables) is refused with
// an *EditError, and so is an edit whose result Codex would refuse.
type TOML struct{}

// KV is one key and value of a new table, written in the given order.
// Values are strings or bools.
type KV struct {
	Key   string
	Value any
}

// Check parses data and returns its *SyntaxError, or nil.
func (TOML) Check(data []byte) error {
	_, err := decodeTOML(data)
	return err
}

// Decode parses data into maps (tables), slices and scalars.
func (TOML) Decode(data []byte) (map[string]any, error) { return decodeTOML(data) }

// ArrayEntries returns the decoded tables of the array of tables at path
// ([[skills.config]] is path skills, config), in file order.
func (TOML) ArrayEntries(data []byte, path []string) ([]map[string]any, error) {
	doc, err := decodeTOML(data)
	if err != nil {
		return nil, err
	}
	return arrayAt(doc, path), nil
}

// SetInArray sets key of the index-th table of the array at path.
func (t TOML) SetInArray(data []byte, path []string, index int, key string, value any) ([]byte, error) {
	text, err := tomlValue(value)
	if err != nil {
		return nil, err
	}
	return tomlEdit(data, func(d *tdoc) error {
		h, err := d.arrayHeader(path, index)
		if err != nil {
			return err
		}
		return d.setKey(h, key, text)
	}, func(doc map[string]any) error {
		arr := arrayAt(doc, path)
		if index >= len(arr) {
			return errors.New("no such entry")
		}
		arr[index][key] = value
		return nil
	})
}

// RemoveFromArray removes the index-th table of the array at path: its
// header and keys, and the blank line before it when it was the last
// thing in its place (so that removing a table AppendToArray added gives
// the file back as it was).
func (t TOML) RemoveFromArray(data []byte, path []string, index int) ([]byte, error) {
	return tomlEdit(data, func(d *tdoc) error {
		h, err := d.arrayHeader(path, index)
		if err != nil {
			return err
		}
		return d.removeTable(h)
	}, func(doc map[string]any) error {
		parent := tableAt(doc, path[:len(path)-1], false)
		arr := arrayAt(doc, path)
		if parent == nil || index >= len(arr) {
			return errors.New("no such entry")
		}
		parent[path[len(path)-1]] = append(arr[:index:index], arr[index+1:]...)
		return nil
	})
}

// AppendToArray adds a new table to the array at path, at the end of the
// file, after a blank line.
func (t TOML) AppendToArray(data []byte, path []string, kvs []KV) ([]byte, error) {
	body, err := renderKVs(kvs)
	if err != nil {
		return nil, err
	}
	return tomlEdit(data, func(d *tdoc) error {
		if err := d.checkShape(path, true); err != nil {
			return err
		}
		d.appendTable("[["+renderKey(path)+"]]", body)
		return nil
	}, func(doc map[string]any) error {
		parent := tableAt(doc, path[:len(path)-1], true)
		entry := map[string]any{}
		for _, kv := range kvs {
			entry[kv.Key] = kv.Value
		}
		parent[path[len(path)-1]] = append(arrayAt(doc, path), entry)
		return nil
	})
}

// SetInTable sets key of the table at path. A table written as a
// [table] header gets the key in its body; one written with dotted keys
// (`"p@m".other = 1` in [plugins], or `plugins."p@m".other = 1` at the
// top) gets one more dotted key next to them, since TOML forbids a
// [table] header for it then. A table the file does not have is added at
// the end of the file.
func (t TOML) SetInTable(data []byte, path []string, key string, value any) ([]byte, error) {
	text, err := tomlValue(value)
	if err != nil {
		return nil, err
	}
	return tomlEdit(data, func(d *tdoc) error {
		if err := d.checkShape(path, false); err != nil {
			return err
		}
		if h, ok := d.table(path); ok {
			return d.setKey(h, key, text)
		}
		if d.setDotted(path, key, text) {
			return nil
		}
		d.appendTable("["+renderKey(path)+"]", renderKey([]string{key})+" = "+text+"\n")
		return nil
	}, func(doc map[string]any) error {
		tableAt(doc, path, true)[key] = value
		return nil
	})
}

func decodeTOML(data []byte) (map[string]any, error) {
	doc := map[string]any{}
	_, err := toml.Decode(string(data), &doc)
	if err == nil {
		return doc, nil
	}
	var pe toml.ParseError
	if errors.As(err, &pe) {
		line, col := Position(data, pe.Position.Start)
		return nil, &SyntaxError{Line: line, Column: col, Msg: pe.Message}
	}
	return nil, &SyntaxError{Line: 1, Column: 1, Msg: err.Error()}
}

// Position is the 1-based line and column of byte offset off in data;
// a column counts bytes.
func Position(data []byte, off int) (line, col int) {
	line, col = 1, 1
	for i := 0; i < off && i < len(data); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// tomlEdit parses data, applies op, and checks that the result decodes
// to the original with want applied.
func tomlEdit(data []byte, op func(*tdoc) error, want func(map[string]any) error) ([]byte, error) {
	before, err := decodeTOML(data)
	if err != nil {
		return nil, err
	}
	d, err := scanTOML(data)
	if err != nil {
		return nil, err
	}
	if err := strictTOML(d); err != nil {
		return nil, err
	}
	if err := op(d); err != nil {
		return nil, err
	}
	out := d.result()
	if bytes.Equal(out, data) {
		return data, nil
	}
	after, err := decodeTOML(out)
	if err == nil {
		var od *tdoc
		if od, err = scanTOML(out); err == nil {
			err = strictTOML(od)
		}
	}
	if err != nil {
		return nil, &EditError{Msg: fmt.Sprintf("the edit would not parse (%v), probably because the table is also "+
			"written in another form; change it by hand", err)}
	}
	if err := want(before); err != nil {
		return nil, &EditError{Msg: err.Error()}
	}
	if !reflect.DeepEqual(prune(before), prune(after)) {
		return nil, &EditError{Msg: "ccski's edit would change more than the one setting; the file is left alone: please report this"}
	}
	return out, nil
}

// prune removes empty tables and arrays, recursively: an empty table
// means what a missing one does, and removing the last [[x.y]] table can
// leave an empty [x] behind or not, depending on how x was written.
func prune(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			e = prune(e)
			if isEmpty(e) {
				delete(v, k)
			} else {
				v[k] = e
			}
		}
		return v
	case []map[string]any:
		out := make([]any, 0, len(v))
		for _, e := range v {
			out = append(out, prune(e))
		}
		return out
	case []any:
		for i, e := range v {
			v[i] = prune(e)
		}
		return v
	}
	return v
}

func isEmpty(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

// tableAt returns the table at path in doc, creating it when create is
// set; nil when it is missing (or not a table) and create is not set.
func tableAt(doc map[string]any, path []string, create bool) map[string]any {
	m := doc
	for _, k := range path {
		next, ok := m[k].(map[string]any)
		if !ok {
			if !create {
				return nil
			}
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	return m
}

// arrayAt returns the array of tables at path in doc, or nil.
func arrayAt(doc map[string]any, path []string) []map[string]any {
	parent := tableAt(doc, path[:len(path)-1], false)
	if parent == nil {
		return nil
	}
	switch a := parent[path[len(path)-1]].(type) {
	case []map[string]any:
		return a
	case []any:
		out := make([]map[string]any, 0, len(a))
		for _, e := range a {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// tomlValue renders a string or bool as TOML.
func tomlValue(v any) (string, error) {
	switch v := v.(type) {
	case bool:
		return strconv.FormatBool(v), nil
	case string:
		return quote(v), nil
	}
	return "", fmt.Errorf("hostedit: cannot write a %T to TOML", v)
}

// quote renders s as a TOML basic string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func isBare(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// renderKey renders a dotted key, quoting the parts that need it.
func renderKey(path []string) string {
	parts := make([]string, len(path))
	for i, k := range path {
		if isBare(k) {
			parts[i] = k
		} else {
			parts[i] = quote(k)
		}
	}
	return strings.Join(parts, ".")
}

func renderKVs(kvs []KV) (string, error) {
	var b strings.Builder
	for _, kv := range kvs {
		v, err := tomlValue(kv.Value)
		if err != nil {
			return "", err
		}
		b.WriteString(renderKey([]string{kv.Key}) + " = " + v + "\n")
	}
	return b.String(), nil
}

// tdoc is a scanned TOML document: its statements with their byte
// ranges, and the splices an edit makes.
type tdoc struct {
	src    []byte
	eol    string
	stmts  []tstmt
	splice []splice
}

// tstmt is a table header or a key/value line. start is the offset of
// its first character, lineEnd the offset just past the newline of the
// line its value (or header) ends on, or len(src).
type tstmt struct {
	header    bool
	array     bool
	key       []string // the header's path, or the key (dotted) of a key/value
	start     int
	lineStart int
	lineEnd   int
	valStart  int
	valEnd    int
}

func (d *tdoc) result() []byte {
	j := &jdoc{src: d.src, splice: d.splice}
	out, _ := j.result() // tdoc splices never overlap: one per edit
	return out
}

// checkShape returns an *EditError when a key along path holds
// something other than a table (the last key, with array set, other than
// an array of tables), so that no table can be added there.
func (d *tdoc) checkShape(path []string, array bool) error {
	doc, err := decodeTOML(d.src)
	if err != nil {
		return err
	}
	var header []string
	for _, st := range d.stmts {
		if st.header {
			header = st.key
			continue
		}
		abs := append(append([]string(nil), header...), st.key...)
		if len(abs) > len(path) || !equalKeys(abs, path[:len(abs)]) {
			continue
		}
		line := bytes.Count(d.src[:st.start], []byte("\n")) + 1
		switch c := d.src[st.valStart]; {
		case c == '{':
			return &EditError{Msg: fmt.Sprintf("%s is written as an inline table at line %d; change it by hand", renderKey(abs), line)}
		case c == '[' && len(abs) == len(path):
			return &EditError{Msg: fmt.Sprintf("%s is written as an inline array at line %d; change it by hand", renderKey(abs), line)}
		}
	}
	var v any = doc
	for i, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return &EditError{Msg: fmt.Sprintf("%s is not a table in this file; change it by hand", renderKey(path[:i]))}
		}
		if v, ok = m[k]; !ok {
			return nil
		}
	}
	switch v.(type) {
	case map[string]any:
		if !array {
			return nil
		}
	case []map[string]any:
		if array {
			return nil
		}
	}
	want := "a table"
	if array {
		want = "an array of tables"
	}
	return &EditError{Msg: fmt.Sprintf("%s is not %s in this file; change it by hand", renderKey(path), want)}
}

// arrayHeader returns the header of the index-th table of the array at
// path.
func (d *tdoc) arrayHeader(path []string, index int) (int, error) {
	n := 0
	for i, s := range d.stmts {
		if s.header && s.array && equalKeys(s.key, path) {
			if n == index {
				return i, nil
			}
			n++
		}
	}
	return 0, &EditError{Msg: fmt.Sprintf("[[%s]] is not written as a table of its own in this file (an inline array?); change it by hand", renderKey(path))}
}

// table returns the index of the [table] header of path; ok is false
// when the document has none.
func (d *tdoc) table(path []string) (int, bool) {
	for i, s := range d.stmts {
		if s.header && !s.array && equalKeys(s.key, path) {
			return i, true
		}
	}
	return 0, false
}

func equalKeys(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// body returns the indexes of the key/value statements of the table
// whose header is stmts[h].
func (d *tdoc) body(h int) []int {
	var out []int
	for i := h + 1; i < len(d.stmts) && !d.stmts[i].header; i++ {
		out = append(out, i)
	}
	return out
}

// setKey sets key in the table of header h to the TOML text val.
func (d *tdoc) setKey(h int, key, val string) error {
	body := d.body(h)
	for _, i := range body {
		s := d.stmts[i]
		if equalKeys(s.key, []string{key}) {
			if string(d.src[s.valStart:s.valEnd]) != val {
				d.splice = append(d.splice, splice{s.valStart, s.valEnd, val})
			}
			return nil
		}
	}
	at, indent := d.stmts[h].lineEnd, ""
	if len(body) > 0 {
		last := d.stmts[body[len(body)-1]]
		at = last.lineEnd
		indent = string(d.src[last.lineStart:last.start])
	}
	text := indent + renderKey([]string{key}) + " = " + val + d.eol
	if at == len(d.src) && at > 0 && d.src[at-1] != '\n' {
		text = d.eol + text
	}
	d.splice = append(d.splice, splice{at, at, text})
	return nil
}

// removeTable removes the table of header h: from the start of the
// header's line to the end of its last key's line. A blank line before
// it goes too when a blank line or the end of the file follows; and a
// table that ends the file without a final newline takes the newline
// before it along, so that the file again ends as it did. This undoes
// appendTable exactly.
func (d *tdoc) removeTable(h int) error {
	from := d.stmts[h].lineStart
	to := d.stmts[h].lineEnd
	if body := d.body(h); len(body) > 0 {
		to = d.stmts[body[len(body)-1]].lineEnd
	}
	if h+1 < len(d.stmts) && d.stmts[h+1].header && hasPrefix(d.stmts[h+1].key, d.stmts[h].key) && !d.stmts[h+1].array {
		return &EditError{Msg: fmt.Sprintf("the [[%s]] table has sub-tables; change it by hand", renderKey(d.stmts[h].key))}
	}
	rest := d.src[to:]
	atEnd := len(bytes.TrimSpace(rest)) == 0
	if atEnd || startsBlank(rest) {
		if prev := prevLine(d.src, from); prev >= 0 && len(bytes.TrimSpace(d.src[prev:from])) == 0 {
			from = prev
		}
	}
	if atEnd && len(rest) == 0 && to > 0 && d.src[to-1] != '\n' && from > 0 {
		// No final newline: the line before loses its newline too.
		from--
		if from > 0 && d.src[from-1] == '\r' {
			from--
		}
	}
	d.splice = append(d.splice, splice{from, to, ""})
	return nil
}

func hasPrefix(k, prefix []string) bool {
	return len(k) > len(prefix) && equalKeys(k[:len(prefix)], prefix)
}

// startsBlank reports whether b starts with a blank line.
func startsBlank(b []byte) bool {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return len(bytes.TrimSpace(b)) == 0
	}
	return len(bytes.TrimSpace(b[:i])) == 0
}

// prevLine is the start of the line before the one starting at off, or -1.
func prevLine(src []byte, off int) int {
	if off == 0 {
		return -1
	}
	return bytes.LastIndexByte(src[:off-1], '\n') + 1
}

// appendTable adds header and body (lines ending in "\n", written with
// the file's line endings) at the end of the file, after a blank line. A
// file without a final newline stays so: the table's last line goes
// without one. removeTable undoes it byte for byte.
func (d *tdoc) appendTable(header, body string) {
	text := header + "\n" + body
	if d.eol != "\n" {
		text = strings.ReplaceAll(text, "\n", d.eol)
	}
	src := d.src
	switch {
	case len(src) == 0:
		// An empty file: the table alone.
		d.splice = append(d.splice, splice{0, 0, text})
		return
	case !bytes.HasSuffix(src, []byte("\n")):
		text = d.eol + d.eol + strings.TrimSuffix(text, d.eol)
	default:
		text = d.eol + text
	}
	d.splice = append(d.splice, splice{len(src), len(src), text})
}

// setDotted sets key of the table at path when the file defines that
// table with dotted keys in a table above it (or at the top): the value
// in place when the dotted key path.key is there, else a new dotted key
// after the last one that defines the table. It reports whether the file
// defines the table so.
func (d *tdoc) setDotted(path []string, key, val string) bool {
	var header, lastHeader []string
	array := false
	last := -1
	for i, s := range d.stmts {
		if s.header {
			header, array = s.key, s.array
			continue
		}
		if array || len(header) >= len(path) || !equalKeys(header, path[:len(header)]) {
			continue
		}
		abs := append(append([]string(nil), header...), s.key...)
		if len(abs) <= len(path) || !equalKeys(abs[:len(path)], path) {
			continue
		}
		if len(abs) == len(path)+1 && abs[len(path)] == key {
			if string(d.src[s.valStart:s.valEnd]) != val {
				d.splice = append(d.splice, splice{s.valStart, s.valEnd, val})
			}
			return true
		}
		last, lastHeader = i, header
	}
	if last < 0 {
		return false
	}
	s := d.stmts[last]
	rel := append(append([]string(nil), path[len(lastHeader):]...), key)
	text := string(d.src[s.lineStart:s.start]) + renderKey(rel) + " = " + val + d.eol
	at := s.lineEnd
	if at == len(d.src) && at > 0 && d.src[at-1] != '\n' {
		text = d.eol + strings.TrimSuffix(text, d.eol)
	}
	d.splice = append(d.splice, splice{at, at, text})
	return true
}

// scanTOML finds the statements of a document that parses.
func scanTOML(src []byte) (*tdoc, error) {
	d := &tdoc{src: src, eol: "\n"}
	s := &tscanner{src: src}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		s.pos = 3
	}
	for {
		s.skipBlank()
		if s.pos >= len(src) {
			d.eol = d.lineEnding()
			return d, nil
		}
		st := tstmt{start: s.pos, lineStart: bytes.LastIndexByte(src[:s.pos], '\n') + 1}
		if src[s.pos] == '[' {
			st.header = true
			s.pos++
			if s.pos < len(src) && src[s.pos] == '[' {
				st.array = true
				s.pos++
			}
			key, err := s.key()
			if err != nil {
				return nil, err
			}
			st.key = key
			s.skipSpace()
			closer := "]"
			if st.array {
				closer = "]]"
			}
			if !bytes.HasPrefix(src[s.pos:], []byte(closer)) {
				return nil, s.fail()
			}
			s.pos += len(closer)
		} else {
			key, err := s.key()
			if err != nil {
				return nil, err
			}
			st.key = key
			s.skipSpace()
			if s.pos >= len(src) || src[s.pos] != '=' {
				return nil, s.fail()
			}
			s.pos++
			s.skipSpace()
			st.valStart = s.pos
			if err := s.value(); err != nil {
				return nil, err
			}
			st.valEnd = s.pos
		}
		s.skipSpace()
		if s.pos < len(src) && src[s.pos] == '#' {
			s.toEOL()
		}
		if s.pos < len(src) && src[s.pos] == '\r' {
			s.pos++
		}
		if s.pos < len(src) {
			if src[s.pos] != '\n' {
				return nil, s.fail()
			}
			s.pos++
		}
		st.lineEnd = s.pos
		d.stmts = append(d.stmts, st)
	}
}

// lineEnding is the file's line ending: that of its first line break
// outside a value (a multi-line string may hold others), "\n" when it
// has none.
func (d *tdoc) lineEnding() string {
	from := 0 // the search goes on after each value
	for _, st := range d.stmts {
		if st.header {
			continue
		}
		if bytes.IndexByte(d.src[from:st.valStart], '\n') >= 0 {
			break
		}
		from = st.valEnd
	}
	i := bytes.IndexByte(d.src[from:], '\n')
	if i > 0 && d.src[from+i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// tscanner walks a TOML document that is known to parse, only to find
// where its statements are.
type tscanner struct {
	src []byte
	pos int
}

func (s *tscanner) fail() error {
	line, col := Position(s.src, s.pos)
	return &EditError{Msg: fmt.Sprintf("ccski cannot follow this file's layout at line %d, column %d; change it by hand", line, col)}
}

func (s *tscanner) skipSpace() {
	for s.pos < len(s.src) && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
		s.pos++
	}
}

func (s *tscanner) toEOL() {
	for s.pos < len(s.src) && s.src[s.pos] != '\n' {
		s.pos++
	}
}

// skipBlank passes white space, newlines and comments.
func (s *tscanner) skipBlank() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		case '#':
			s.toEOL()
		default:
			return
		}
	}
}

// key reads a dotted key.
func (s *tscanner) key() ([]string, error) {
	var parts []string
	for {
		s.skipSpace()
		if s.pos >= len(s.src) {
			return nil, s.fail()
		}
		switch s.src[s.pos] {
		case '"':
			start := s.pos
			if err := s.basic(); err != nil {
				return nil, err
			}
			k, err := unquote(string(s.src[start:s.pos]))
			if err != nil {
				return nil, s.fail()
			}
			parts = append(parts, k)
		case '\'':
			start := s.pos
			end := bytes.IndexByte(s.src[s.pos+1:], '\'')
			if end < 0 {
				return nil, s.fail()
			}
			s.pos += end + 2
			parts = append(parts, string(s.src[start+1:s.pos-1]))
		default:
			start := s.pos
			for s.pos < len(s.src) && isBare(string(s.src[s.pos])) {
				s.pos++
			}
			if s.pos == start {
				return nil, s.fail()
			}
			parts = append(parts, string(s.src[start:s.pos]))
		}
		s.skipSpace()
		if s.pos < len(s.src) && s.src[s.pos] == '.' {
			s.pos++
			continue
		}
		return parts, nil
	}
}

// unquote decodes a TOML basic string.
func unquote(q string) (string, error) {
	var m map[string]string
	if _, err := toml.Decode("k = "+q, &m); err != nil {
		return "", err
	}
	return m["k"], nil
}

// basic passes a basic string starting at pos.
func (s *tscanner) basic() error {
	s.pos++
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case '\\':
			s.pos += 2
			continue
		case '"':
			s.pos++
			return nil
		case '\n':
			return s.fail()
		}
		s.pos++
	}
	return s.fail()
}

// value passes one value starting at pos.
func (s *tscanner) value() error {
	rest := s.src[s.pos:]
	switch {
	case bytes.HasPrefix(rest, []byte(`"""`)):
		return s.multi(`"""`, true)
	case bytes.HasPrefix(rest, []byte(`'''`)):
		return s.multi(`'''`, false)
	case len(rest) == 0:
		return s.fail()
	}
	switch s.src[s.pos] {
	case '"':
		return s.basic()
	case '\'':
		end := bytes.IndexByte(rest[1:], '\'')
		if end < 0 {
			return s.fail()
		}
		s.pos += end + 2
		return nil
	case '[':
		return s.items(']', s.value)
	case '{':
		return s.items('}', s.pair)
	}
	// A number, boolean or date-time; a date and a time may be separated
	// by one space.
	start := s.pos
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		if c == ' ' && s.pos-start == 10 && s.pos+1 < len(s.src) && s.src[s.pos+1] >= '0' && s.src[s.pos+1] <= '9' {
			s.pos++
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' || c == '#' {
			break
		}
		s.pos++
	}
	if s.pos == start {
		return s.fail()
	}
	return nil
}

// items passes the items of an array or an inline table, whose opening
// bracket is at pos, up to the closing one: each item is passed by item,
// and followed by a comma or not.
func (s *tscanner) items(closing byte, item func() error) error {
	s.pos++
	for {
		s.skipBlank()
		if s.pos >= len(s.src) {
			return s.fail()
		}
		if s.src[s.pos] == closing {
			s.pos++
			return nil
		}
		if err := item(); err != nil {
			return err
		}
		s.skipBlank()
		if s.pos < len(s.src) && s.src[s.pos] == ',' {
			s.pos++
		}
	}
}

// pair passes one key = value pair of an inline table.
func (s *tscanner) pair() error {
	if _, err := s.key(); err != nil {
		return err
	}
	s.skipSpace()
	if s.pos >= len(s.src) || s.src[s.pos] != '=' {
		return s.fail()
	}
	s.pos++
	s.skipSpace()
	return s.value()
}

// multi passes a multi-line string opened by delim.
func (s *tscanner) multi(delim string, escapes bool) error {
	s.pos += 3
	for s.pos < len(s.src) {
		if escapes && s.src[s.pos] == '\\' {
			s.pos += 2
			continue
		}
		if bytes.HasPrefix(s.src[s.pos:], []byte(delim)) {
			s.pos += 3
			// Up to two more quotes belong to the content.
			for i := 0; i < 2 && s.pos < len(s.src) && s.src[s.pos] == delim[0]; i++ {
				s.pos++
			}
			return nil
		}
		s.pos++
	}
	return s.fail()
}
