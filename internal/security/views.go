package security

// The code view: a file as a shell or an interpreter reads it, rather
// than as it is written. Code hides what it runs from a byte match in
// many small ways: a command split over lines with a backslash, strings
// cut and glued back ('cu' + 'rl', c''url, "$HOME/.ss""h"), a module or
// function named by a string (getattr(__import__('o'+'s'), 'system')),
// a shell variable holding a command or a URL (a=cu; b=rl; $a$b ... |
// $SHELL), and encoded literals (base64, hex, \x escapes, char codes)
// decoded at run time. The view undoes each of them, line by line (a
// joined line keeps its first line's number and leaves the others
// empty, so that a finding on the view is reported at the file's line),
// and the rules that read code (and the phrase rules, for instructions
// hidden in an encoded literal) run again on it. A file in which nothing
// changes has no view.

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"encoding/hex"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What the view undid on a line, for the message of a finding there.
const (
	undoJoin    = 1 << iota // a line continuation (\, or a trailing | or &&)
	undoConcat              // strings concatenated or split with empty quotes
	undoEscape              // a backslash inside a shell word
	undoReflect             // getattr, __import__, import_module, globals()[...]
	undoVar                 // a shell variable replaced by its value
	undoDecode              // an encoded literal decoded
)

// undoText says what the view undid, for a message.
func undoText(m uint8) string {
	var parts []string
	for _, u := range []struct {
		bit  uint8
		what string
	}{{undoDecode, "its encoded literals decoded"}, {undoJoin, "its line continuations joined"},
		{undoConcat, "its split strings joined"}, {undoEscape, "its backslashes dropped"},
		{undoReflect, "its names looked up by string resolved"}, {undoVar, "its variables replaced by their values"}} {
		if m&u.bit != 0 {
			parts = append(parts, u.what)
		}
	}
	if len(parts) == 0 {
		return "read as code"
	}
	if len(parts) > 1 {
		parts[len(parts)-2] += " and " + parts[len(parts)-1]
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, ", ")
}

// maxViewLine caps a line of the view: substitutions stop growing it
// there.
const maxViewLine = 16 << 10

// codeView returns the file's code view, computing it on first use, with
// what was undone on each line (by 0-based line); nil when the view
// would equal the file.
func (c *fileCheck) codeView() (*file, []uint8) {
	if c.viewDone {
		return c.view, c.viewUndo
	}
	c.viewDone = true
	f := c.f
	if !f.is(classText) || f.is(classLegal) || len(f.data) == 0 {
		return nil, nil
	}
	decode, trigger := viewTriggers(f)
	shellWords := shellish(f) && !f.is(classDoc)
	if !decode && !trigger && !shellWords && !windowsScript(f.rel) {
		return nil, nil // nothing the view undoes
	}
	lines := bytes.Split(f.data, []byte{'\n'})
	undo := make([]uint8, len(lines))
	changed := false
	vars := map[string]string{}
	for i := 0; i < len(lines); i++ {
		first := i
		line := lines[i]
		// Join continued lines onto this one.
		for i+1 < len(lines) && len(line) < maxViewLine && continues(line, f.rel) && len(bytes.TrimSpace(lines[i+1])) > 0 {
			line = append(append(trimContinuation(line), ' '), bytes.TrimLeft(lines[i+1], " \t")...)
			lines[i+1] = nil
			undo[first] |= undoJoin
			i++
		}
		m := undo[first]
		if decode {
			line, m = decodeLiterals(line, m)
		}
		line, m = normaliseCode(line, shellWords, m)
		line, m = substituteVars(line, vars, m)
		if m != 0 {
			lines[first] = line
			undo[first] = m
			changed = true
		}
	}
	if !changed {
		return nil, nil
	}
	v := &file{rel: f.rel, class: f.class, mode: f.mode, data: bytes.Join(lines, []byte{'\n'}), closing: f.closing}
	c.view, c.viewUndo = v, undo
	return v, undo
}

// windowsScript reports whether a backslash is a path separator in the
// file (PowerShell, batch), not an escape.
func windowsScript(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".ps1", ".psm1", ".bat", ".cmd":
		return true
	}
	return false
}

// shellish reports whether a backslash before a letter is dropped in the
// file, as a shell drops it (c\url): shell scripts and documents, not
// the escapes of other languages or Windows paths.
func shellish(f *file) bool {
	switch strings.ToLower(path.Ext(f.rel)) {
	case ".sh", ".bash", ".zsh", ".ksh", ".fish":
		return true
	case "":
		return bytes.HasPrefix(f.data, []byte("#!")) && bytes.Contains(f.data[:min(len(f.data), 40)], []byte("sh"))
	}
	return f.is(classDoc)
}

// continues reports whether the line goes on on the next one: it ends
// with a backslash (a backquote in PowerShell), or with a pipe or && that
// waits for its command.
func continues(line []byte, rel string) bool {
	t := bytes.TrimRight(line, " \t\r")
	if len(t) == 0 {
		return false
	}
	switch t[len(t)-1] {
	case '\\':
		return len(t) < 2 || t[len(t)-2] != '\\'
	case '`':
		return windowsScript(rel)
	case '|':
		// Not a Markdown table row, which ends with a bar too.
		return (len(t) < 2 || t[len(t)-2] != '|') && bytes.TrimLeft(t, " \t")[0] != '|'
	case '&':
		return len(t) >= 2 && t[len(t)-2] == '&'
	}
	return false
}

// trimContinuation drops a trailing backslash or backquote.
func trimContinuation(line []byte) []byte {
	t := bytes.TrimRight(line, " \t\r")
	if n := len(t); n > 0 && (t[n-1] == '\\' || t[n-1] == '`') {
		t = t[:n-1]
	}
	return append([]byte(nil), t...)
}

// viewTriggers reports whether the file names a decoder (see
// obfuscationAnchors and the decode anchors of flow.go), so that its
// literals are decoded, and whether it holds something else the view
// undoes (a line continuation, a split string, a lookup by name,
// $SHELL). A file with neither, and not a shell script, has no view.
func viewTriggers(f *file) (decode, other bool) {
	table, _ := anchors()
	for _, h := range hitsOf(f) {
		a := table[h.id]
		switch {
		case a.code == CodeObfuscatedCode || a.flow == flowDecode || a.flow == flowHint:
			decode = true
		case a.flow == flowView:
			other = true
		}
	}
	// A line continuation (a backslash, or a pipe or && left open), or
	// empty quotes inside a word (c''url).
	other = other || bytes.Contains(f.data, []byte("\\\n")) || bytes.Contains(f.data, []byte("|\n")) ||
		bytes.Contains(f.data, []byte("&&\n")) || bytes.Contains(f.data, []byte("\\\r\n")) ||
		quotesInWord(f.data, "''") || quotesInWord(f.data, `""`)
	return decode, other
}

// quotesInWord reports whether q (two quotes) stands between two word
// characters somewhere in d.
func quotesInWord(d []byte, q string) bool {
	for i := 0; ; {
		j := bytes.Index(d[i:], []byte(q))
		if j < 0 {
			return false
		}
		k := i + j
		if k > 0 && k+2 < len(d) && isWordByte(d[k-1]) && isWordByte(d[k+2]) {
			return true
		}
		i = k + 2
	}
}

// Code normalisation.
var (
	// arrayJoin is ['ev', 'al'].join('').
	arrayJoin    = regexp.MustCompile(`\[\s*((?:["'][^"'\n]*["']\s*,\s*)+["'][^"'\n]*["'])\s*\]\s*\.\s*join\(\s*(?:''|"")\s*\)`)
	arrayPiece   = regexp.MustCompile(`["']([^"'\n]*)["']`)
	getattrCall  = regexp.MustCompile(`getattr\(\s*([A-Za-z_][\w.]*)\s*,\s*["'](\w+)["']\s*\)`)
	importCall   = regexp.MustCompile(`(?:__import__|importlib\.import_module|import_module)\(\s*["']([\w.]+)["']\s*\)`)
	builtinIndex = regexp.MustCompile(`(?:(?:__builtins__|builtins)(?:\.__dict__)?|globals\(\)|locals\(\)|vars\(\s*\w*\s*\)|global|window|globalThis|this)\s*\[\s*["'](\w+)["']\s*\]`)
)

// joinStrings joins strings cut and glued back on one line: a string
// closed, a + (or a spaced . or ..) and a string opened ('cu' + 'rl'),
// and empty quotes between two word characters (c”url, "$HOME/.ss""h").
func joinStrings(line []byte) ([]byte, bool) {
	var out []byte
	changed := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '"' || c == '\'' {
			// '' or "" inside a word.
			if i+1 < len(line) && line[i+1] == c && i > 0 && i+2 < len(line) && isWordByte(line[i-1]) && isWordByte(line[i+2]) {
				if out == nil {
					out = append([]byte(nil), line[:i]...)
				}
				i++
				changed = true
				continue
			}
			// A quote, an operator, a quote.
			j := i + 1
			for j < len(line) && line[j] == ' ' {
				j++
			}
			op := 0
			switch {
			case j < len(line) && line[j] == '+':
				op = 1
			case j+1 < len(line) && line[j] == '.' && line[j+1] == '.':
				op = 2
			case j < len(line) && line[j] == '.' && j > i+1 && j+1 < len(line) && line[j+1] == ' ':
				op = 1
			}
			if op > 0 {
				k := j + op
				for k < len(line) && line[k] == ' ' {
					k++
				}
				if k < len(line) && (line[k] == '"' || line[k] == '\'') {
					if out == nil {
						out = append([]byte(nil), line[:i]...)
					}
					i = k
					changed = true
					continue
				}
			}
		}
		if out != nil {
			out = append(out, c)
		}
	}
	if !changed {
		return line, false
	}
	return out, true
}

// normaliseCode undoes string splitting and lookups by name on one line.
func normaliseCode(line []byte, shellWords bool, m uint8) ([]byte, uint8) {
	if len(line) > maxViewLine {
		return line, m
	}
	if bytes.ContainsAny(line, `'"`) && (bytes.IndexByte(line, '+') >= 0 || bytes.Contains(line, []byte(" . ")) ||
		bytes.Contains(line, []byte("..")) || bytes.Contains(line, []byte("''")) || bytes.Contains(line, []byte(`""`))) {
		if n, ok := joinStrings(line); ok {
			line, m = n, m|undoConcat
		}
	}
	if bytes.ContainsAny(line, `'"`) {
		if bytes.Contains(line, []byte(".join(")) {
			n := arrayJoin.ReplaceAllFunc(line, func(b []byte) []byte {
				sub := arrayJoin.FindSubmatch(b)
				var out []byte
				for _, p := range arrayPiece.FindAllSubmatch(sub[1], -1) {
					out = append(out, p[1]...)
				}
				return append(append([]byte{'\''}, out...), '\'')
			})
			if !bytes.Equal(n, line) {
				line, m = n, m|undoConcat
			}
		}
		if bytes.Contains(line, []byte("getattr")) || bytes.Contains(line, []byte("__import__")) ||
			bytes.Contains(line, []byte("import_module")) ||
			(bytes.Contains(line, []byte(`['`)) || bytes.Contains(line, []byte(`["`)) || bytes.Contains(line, []byte(`[ `))) &&
				(bytes.Contains(line, []byte("builtins")) || bytes.Contains(line, []byte("globals")) ||
					bytes.Contains(line, []byte("locals")) || bytes.Contains(line, []byte("vars(")) ||
					bytes.Contains(line, []byte("global")) || bytes.Contains(line, []byte("window")) ||
					bytes.Contains(line, []byte("this"))) {
			for range 4 {
				n := importCall.ReplaceAll(line, []byte("$1"))
				n = getattrCall.ReplaceAll(n, []byte("$1.$2"))
				n = builtinIndex.ReplaceAll(n, []byte("$1"))
				if bytes.Equal(n, line) {
					break
				}
				line, m = n, m|undoReflect
			}
		}
	}
	if shellWords && bytes.IndexByte(line, '\\') >= 0 {
		var n []byte
		for i := 0; i < len(line); i++ {
			if line[i] == '\\' && i+1 < len(line) && ('a' <= line[i+1]|0x20 && line[i+1]|0x20 <= 'z') {
				if n == nil {
					n = append([]byte(nil), line[:i]...)
				}
				continue
			}
			if n != nil {
				n = append(n, line[i])
			}
		}
		if n != nil {
			line, m = n, m|undoEscape
		}
	}
	return line, m
}

// Shell variables.
var (
	// psAssign is $name = 'value' in PowerShell.
	psAssign = regexp.MustCompile(`^\s*\$([A-Za-z_]\w*)\s*=\s*("[^"\n]*"|'[^'\n]*')\s*;?\s*$`)
	varRef   = regexp.MustCompile(`\$\{?([A-Za-z_]\w*)\}?`)
)

// substituteVars replaces $NAME and ${NAME} by the literal value a
// earlier statement gave NAME (and $SHELL by sh), and records this
// line's assignments in vars for the lines after it.
func substituteVars(line []byte, vars map[string]string, m uint8) ([]byte, uint8) {
	if bytes.IndexByte(line, '$') < 0 && bytes.IndexByte(line, '=') < 0 || len(line) > maxViewLine {
		return line, m
	}
	if bytes.IndexByte(line, '$') >= 0 && (len(vars) > 0 || bytes.Contains(line, []byte("SHELL")) ||
		bytes.Contains(line, []byte("BASH"))) {
		n := varRef.ReplaceAllFunc(line, func(b []byte) []byte {
			sub := varRef.FindSubmatch(b)
			name := string(sub[1])
			// ${NAME:...} and ${NAME[...]} are not the value itself.
			if bytes.HasPrefix(b, []byte("${")) && !bytes.HasSuffix(b, []byte("}")) {
				return b
			}
			if v, ok := vars[name]; ok {
				return []byte(v)
			}
			switch name {
			case "SHELL":
				return []byte("sh")
			case "BASH":
				return []byte("bash")
			}
			return b
		})
		if !bytes.Equal(n, line) && len(n) <= maxViewLine {
			line, m = n, m|undoVar
		}
	}
	record := func(name, v string) {
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		if len(v) > 256 || len(vars) >= 256 && vars[name] == "" || strings.HasPrefix(v, "$(") ||
			strings.HasPrefix(v, "`") {
			delete(vars, name) // computed when it runs: the flow follows the name
			return
		}
		vars[name] = v
	}
	if assignment(line) {
		if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] == '$' {
			if sub := psAssign.FindSubmatch(line); sub != nil {
				record(string(sub[1]), string(sub[2]))
			}
		} else {
			for _, a := range shellAssignments(line) {
				record(a[0], a[1])
			}
		}
	}
	return line, m
}

// assignment reports whether a line may assign a variable as a shell
// (NAME=value, no space before the =) or PowerShell ($name = ...) does.
func assignment(line []byte) bool {
	for i := 1; i < len(line); i++ {
		if line[i] != '=' || i+1 < len(line) && line[i+1] == '=' {
			continue
		}
		if isWordByte(line[i-1]) && line[i-1] < 0x80 {
			return true
		}
		if line[i-1] == ' ' && bytes.IndexByte(line[:i], '$') >= 0 {
			return true
		}
	}
	return false
}

// shellAssignments returns the NAME=value statements of a shell line
// (after ;, &&, || or |, and after export, local or readonly), each
// value quoted or bare, as written.
func shellAssignments(line []byte) [][2]string {
	var out [][2]string
	for i := 0; i < len(line) && len(out) < 16; {
		// The start of a statement.
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		for _, kw := range []string{"export ", "local ", "readonly "} {
			if bytes.HasPrefix(line[i:], []byte(kw)) {
				i += len(kw)
			}
		}
		n := i
		for n < len(line) && (line[n] == '_' || 'a' <= line[n]|0x20 && line[n]|0x20 <= 'z' || n > i && '0' <= line[n] && line[n] <= '9') {
			n++
		}
		if n > i && n < len(line) && line[n] == '=' {
			v := n + 1
			e := v
			switch {
			case e < len(line) && (line[e] == '"' || line[e] == '\''):
				if k := bytes.IndexByte(line[e+1:], line[e]); k >= 0 {
					e += k + 2
				} else {
					e = len(line)
				}
			case bytes.HasPrefix(line[e:], []byte("$(")):
				// A command substitution, to its closing parenthesis.
				depth := 0
				for ; e < len(line); e++ {
					if line[e] == '(' {
						depth++
					} else if line[e] == ')' {
						if depth--; depth == 0 {
							e++
							break
						}
					}
				}
			default:
				for e < len(line) && !strings.ContainsRune(" \t;&|'\"", rune(line[e])) {
					e++
				}
			}
			out = append(out, [2]string{string(line[i:n]), string(line[v:e])})
			i = e
		}
		// On to the next statement.
		k := bytes.IndexAny(line[i:], ";&|")
		if k < 0 {
			break
		}
		i += k + 1
		for i < len(line) && (line[i] == '&' || line[i] == '|') {
			i++
		}
	}
	return out
}

// Encoded literals.
const (
	minBase64Literal = 16 // characters of a base64 literal worth decoding
	minHexLiteral    = 8  // hex digits
	minEscapes       = 4  // \xHH in a row
	minCharCodes     = 6  // numbers in a list
	maxDecoded       = 64 << 10
)

var (
	charCodeList = regexp.MustCompile(`\b\d{1,3}(?:\s*,\s*\d{1,3}){5,}\b`)
	chrCalls     = regexp.MustCompile(`(?:(?:chr|\[char\])\s*\(?\s*\d{1,3}\s*\)?\s*[+,.]?\s*){6,}`)
	chrNumber    = regexp.MustCompile(`\d{1,3}`)
)

// decodeLiterals replaces the encoded literals of a line (base64, hex,
// \x escapes, lists of char codes) that decode to text by that text, a
// newline in it written as " ; ".
func decodeLiterals(line []byte, m uint8) ([]byte, uint8) {
	if len(line) > maxViewLine {
		return line, m
	}
	for round := 0; round < 2; round++ { // a literal may decode to another
		n, changed := decodeRound(line)
		if !changed {
			break
		}
		line, m = n, m|undoDecode
	}
	return line, m
}

func decodeRound(line []byte) ([]byte, bool) {
	changed := false
	// \x escapes.
	if bytes.Contains(line, []byte(`\x`)) || bytes.Contains(line, []byte(`\X`)) {
		var out []byte
		for i := 0; i < len(line); {
			k, n := i, 0
			var b []byte
			for k+4 <= len(line) && line[k] == '\\' && lower(line[k+1]) == 'x' && isHex(line[k+2]) && isHex(line[k+3]) {
				v, _ := strconv.ParseUint(string(line[k+2:k+4]), 16, 8)
				b = append(b, byte(v))
				k += 4
				n++
			}
			if n >= minEscapes {
				if t, ok := textOf(b); ok {
					out = append(out, t...)
					i, changed = k, true
					continue
				}
			}
			out = append(out, line[i])
			i++
		}
		line = out
	}
	// Char codes.
	if (bytes.Contains(line, []byte("chr")) || bytes.Contains(line, []byte("[char]"))) && chrCalls.Match(line) {
		line = chrCalls.ReplaceAllFunc(line, func(b []byte) []byte {
			if t, ok := codesText(chrNumber.FindAll(b, -1)); ok {
				changed = true
				return append(append([]byte{'"'}, t...), '"')
			}
			return b
		})
	}
	if bytes.Count(line, []byte{','}) >= minCharCodes-1 && charCodeList.Match(line) {
		line = charCodeList.ReplaceAllFunc(line, func(b []byte) []byte {
			if t, ok := codesText(chrNumber.FindAll(b, -1)); ok {
				changed = true
				return append(append([]byte{'"'}, t...), '"')
			}
			return b
		})
	}
	// Base64 and hex runs, compressed when the line says so (asked
	// only of a run that decodes to something else than text).
	compressed := func() bool {
		return containsFold(line, "inflate") || containsFold(line, "zlib") || containsFold(line, "gzip") ||
			containsFold(line, "decompress") || containsFold(line, "gunzip")
	}
	var out []byte
	last := 0
	for i := 0; i < len(line); {
		if !base64Class[line[i]] || i > 0 && (base64Class[line[i-1]] || line[i-1] == '\\' || line[i-1] == '%') {
			i++
			continue
		}
		e := i
		for e < len(line) && base64Class[line[e]] {
			e++
		}
		pad := e
		for pad < len(line) && pad-e < 2 && line[pad] == '=' {
			pad++
		}
		run := line[i:e]
		if t, ok := decodeRun(run, compressed); ok {
			out = append(append(out, line[last:i]...), t...)
			last, changed = pad, true
		}
		i = pad
		if i == e {
			i = e + 1
		}
	}
	if last > 0 {
		line = append(out, line[last:]...)
	}
	return line, changed
}

// decodeRun decodes a run of base64 characters, as hex when every
// character is a hex digit, and inflates it when compressed.
func decodeRun(run []byte, compressed func() bool) ([]byte, bool) {
	if len(run) < minHexLiteral {
		return nil, false
	}
	allHex := true
	for _, b := range run {
		allHex = allHex && isHex(b)
	}
	if allHex {
		if len(run) < minHexLiteral || len(run)%2 != 0 {
			return nil, false
		}
		b, err := hex.DecodeString(string(run))
		if err != nil {
			return nil, false
		}
		return textOf(b)
	}
	if len(run) < minBase64Literal {
		return nil, false
	}
	// A word, a path or an identifier is no base64: it needs a digit or
	// both cases, and no slash-separated words.
	var upper, lowerc, digit bool
	for _, b := range run {
		switch {
		case 'A' <= b && b <= 'Z':
			upper = true
		case 'a' <= b && b <= 'z':
			lowerc = true
		case '0' <= b && b <= '9':
			digit = true
		}
	}
	if !(upper && lowerc) && !(digit && (upper || lowerc)) {
		return nil, false
	}
	s := string(run)
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(strings.TrimRight(s, "="))
		if err != nil {
			continue
		}
		if t, ok := textOf(b); ok {
			return t, true
		}
		if !compressed() {
			continue
		}
		if t, ok := inflate(b); ok {
			return t, true
		}
	}
	return nil, false
}

// codesText decodes a list of decimal character codes.
func codesText(nums [][]byte) ([]byte, bool) {
	if len(nums) < minCharCodes {
		return nil, false
	}
	b := make([]byte, 0, len(nums))
	for _, n := range nums {
		v, err := strconv.Atoi(string(n))
		if err != nil || v > 126 || v < 9 {
			return nil, false
		}
		b = append(b, byte(v))
	}
	return textOf(b)
}

// inflate decompresses gzip, zlib or raw deflate data that holds text.
func inflate(b []byte) ([]byte, bool) {
	var r io.Reader
	switch {
	case len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b:
		gz, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, false
		}
		r = gz
	case len(b) > 2 && b[0] == 0x78:
		z, err := zlib.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, false
		}
		r = z
	default:
		r = flate.NewReader(bytes.NewReader(b))
	}
	out, err := io.ReadAll(io.LimitReader(r, maxDecoded))
	if err != nil && len(out) == 0 {
		return nil, false
	}
	return textOf(out)
}

// textOf returns decoded bytes as one line of text when they are text:
// valid UTF-8 (or UTF-16LE, as PowerShell encodes commands) of printable
// characters and white space, at least four of them. Newlines become
// " ; ", other control characters are dropped.
func textOf(b []byte) ([]byte, bool) {
	if len(b) >= 4 && len(b)%2 == 0 && utf16LE(b) {
		r := make([]rune, 0, len(b)/2)
		for i := 0; i+1 < len(b); i += 2 {
			r = append(r, rune(b[i])|rune(b[i+1])<<8)
		}
		b = []byte(string(r))
	}
	if len(b) < 4 || len(b) > maxDecoded || !utf8.Valid(b) {
		return nil, false
	}
	bad, n := 0, 0
	var out []byte
	for _, r := range string(b) {
		n++
		switch {
		case r == '\n':
			out = append(out, " ; "...)
		case r == '\r' || r == '\t':
			out = append(out, ' ')
		case unicode.IsPrint(r):
			out = utf8.AppendRune(out, r)
		default:
			bad++
		}
	}
	if bad*20 > n || n < 4 {
		return nil, false
	}
	return out, true
}

// utf16LE reports whether b looks like ASCII text in UTF-16LE: every odd
// byte zero.
func utf16LE(b []byte) bool {
	for i := 1; i < len(b); i += 2 {
		if b[i] != 0 || b[i-1] == 0 {
			return false
		}
	}
	return true
}

// withCodeView runs check on the file, then on its code view; a finding
// on the view that the file has not on that line is reported there, with
// what the view undid.
func withCodeView(check func(c *fileCheck)) func(c *fileCheck) {
	return func(c *fileCheck) {
		check(c)
		v, undo := c.codeView()
		if v == nil {
			return
		}
		if c.viewCheck == nil {
			// The view of a view is itself.
			c.viewCheck = &fileCheck{f: v, front: c.front, facts: c.facts, viewDone: true}
		}
		sub := c.viewCheck
		sub.out, sub.count, sub.code = nil, c.count, c.code
		check(sub)
		for _, fd := range sub.out {
			dup := false
			for _, o := range c.out {
				dup = dup || o.code == fd.code && o.line == fd.line
			}
			if dup {
				continue
			}
			if fd.line > 0 && fd.line <= len(undo) && undo[fd.line-1] != 0 {
				fd.col = 0
				fd.msg = "once " + undoText(undo[fd.line-1]) + ", " + fd.msg
			}
			c.out = append(c.out, fd)
		}
	}
}
