// Package safetext keeps text that comes from files ccski does not control
// (a skill's name, description and body, a folder name, a plugin name)
// from acting on the terminal or the program it is shown in. A terminal
// acts on control characters: ESC starts sequences that set the window
// title, clear the screen or move the cursor, BEL rings, CR and backspace
// overwrite what was printed, and the C1 controls (U+0080-U+009F) are
// single-character forms of the same sequences on many terminals.
// Bidirectional embeddings, overrides and isolates (U+202A-U+202E,
// U+2066-U+2069) make text display in another order than it is read.
//
// Clean replaces such characters where ccski stores text (the records
// discovery builds); Writer escapes them in everything ccski prints for a
// person.
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Replacement is the character Clean puts in place of a control
// character: U+FFFD, which every terminal shows as a visible mark.
const Replacement = '\uFFFD'

// maxFound caps how many distinct characters Clean lists.
const maxFound = 8

// Control reports whether r is a character ccski never passes on raw: a
// C0 control (U+0000-U+001F, tab and newline included), DEL, a C1 control
// (U+0080-U+009F), or a bidirectional embedding, override or isolate
// (U+202A-U+202E, U+2066-U+2069).
func Control(r rune) bool {
	return r < 0x20 || r == 0x7f || 0x80 <= r && r <= 0x9f ||
		0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069
}

// Clean returns s with every Control character and every byte that is not
// valid UTF-8 replaced by Replacement, and the distinct characters it
// replaced, in order of first appearance and at most eight of them
// (utf8.RuneError stands for invalid bytes). s is returned as it is, and
// found is nil, when there is nothing to replace.
func Clean(s string) (clean string, found []rune) {
	i := firstUnsafe(s)
	if i < 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && size == 1 || Control(r)
		if !bad {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		b.WriteRune(Replacement)
		if len(found) < maxFound && !containsRune(found, r) {
			found = append(found, r)
		}
		i += size
	}
	return b.String(), found
}

// firstUnsafe returns the byte offset of the first Control character or
// invalid byte of s, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || Control(r) {
			return i
		}
		i += size
	}
	return -1
}

func containsRune(rs []rune, r rune) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// Describe names the characters Clean found for a message:
// "U+001B, U+0007 and an invalid byte".
func Describe(found []rune) string {
	names := make([]string, len(found))
	for i, r := range found {
		if r == utf8.RuneError {
			names[i] = "a byte that is not UTF-8"
			continue
		}
		names[i] = fmt.Sprintf("U+%04X", r)
	}
	return JoinAnd(names)
}

// JoinAnd joins parts for a message: "a", "a and b", "a, b and c".
func JoinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// AppendEscaped appends to dst the escaped form of one unsafe character:
// \u001b for a Control character (the form JSON, Go, JavaScript and
// Python all read back as the character), \xff for a byte that is not
// UTF-8 (b; r is then utf8.RuneError).
func AppendEscaped(dst []byte, r rune, b byte) []byte {
	const hex = "0123456789abcdef"
	if r == utf8.RuneError {
		return append(dst, '\\', 'x', hex[b>>4], hex[b&15])
	}
	return append(dst, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
}
