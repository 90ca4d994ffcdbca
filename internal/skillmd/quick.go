package skillmd

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// quick reads the frontmatter without the YAML parser when every line is a
// top-level "key: value" pair whose value is a plain scalar, or a quoted
// one without escapes, that the YAML parser would read as the same string.
// That covers nearly every SKILL.md and costs a fraction of a full parse.
// Anything else (nesting, comments, block scalars, escapes, flow
// collections, values YAML would read as numbers, booleans or null,
// duplicate keys) reports ok=false and goes to the YAML parser, so quick
// never changes a result: it only skips work. raw must be valid UTF-8.
func quick(raw []byte) (f Front, ok bool) {
	var seen [8]string // a few keys: enough to catch duplicates cheaply
	n := 0
	for len(raw) > 0 {
		var line []byte
		line, raw, _ = bytes.Cut(raw, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) == 0 {
			continue
		}
		colon := bytes.Index(line, []byte(": "))
		if colon <= 0 || !plainKey(line[:colon]) {
			return Front{}, false
		}
		key := string(line[:colon])
		for _, k := range seen[:min(n, len(seen))] {
			if k == key {
				return Front{}, false
			}
		}
		if n >= len(seen) {
			return Front{}, false
		}
		seen[n] = key
		n++
		val, ok := scalar(bytes.TrimLeft(line[colon+2:], " "), key == "name" || key == "description")
		if !ok {
			return Front{}, false
		}
		switch key {
		case "name":
			f.Name, f.HasName = val, true
		case "description":
			f.Description, f.HasDescription = val, true
		}
	}
	return f, n > 0 // no key at all is not a mapping: let YAML say so
}

// plainKey reports whether k is a short key made of letters, digits, '-'
// and '_' (YAML limits implicit keys to 1024 characters).
func plainKey(k []byte) bool {
	if len(k) > 128 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// scalar returns the string value of v when YAML would read it as exactly
// that string. typed asks for the stricter check used for name and
// description, which must not look like a number, boolean or null.
func scalar(v []byte, typed bool) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	ascii := true
	for _, c := range v {
		if c < 0x20 || c == 0x7f {
			return "", false // tabs and control characters
		}
		ascii = ascii && c < 0x80
	}
	if !ascii && !printable(v) {
		return "", false
	}
	switch q := v[0]; q {
	case '"', '\'':
		if len(v) < 2 || v[len(v)-1] != q {
			return "", false
		}
		in := v[1 : len(v)-1]
		if bytes.IndexByte(in, q) >= 0 || bytes.IndexByte(in, '\\') >= 0 {
			return "", false
		}
		return string(in), true
	}
	if strings.IndexByte("-?:,[]{}#&*!|>'\"%@`", v[0]) >= 0 || v[len(v)-1] == ' ' || v[len(v)-1] == ':' ||
		bytes.Contains(v, []byte(": ")) || bytes.Contains(v, []byte(" #")) {
		return "", false
	}
	if typed && looksTyped(v) {
		return "", false
	}
	return string(v), true
}

// printable reports whether every rune of v is in YAML's printable set and
// is neither a byte order mark nor one of the characters YAML 1.1 reads as
// a line break (U+0085, U+2028, U+2029).
func printable(v []byte) bool {
	for len(v) > 0 {
		r, size := utf8.DecodeRune(v)
		v = v[size:]
		switch {
		case r < 0x80:
		case r == 0x2028, r == 0x2029, r == 0xFEFF:
			return false
		case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000:
		default:
			return false
		}
	}
	return true
}

// looksTyped reports whether a plain scalar might resolve to something other
// than a string: anything starting like a number, or a boolean or null word
// in any case.
func looksTyped(v []byte) bool {
	if c := v[0]; c >= '0' && c <= '9' || c == '+' || c == '.' {
		return true
	}
	switch strings.ToLower(string(v)) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "<<":
		return true
	}
	return false
}
