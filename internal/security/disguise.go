package security

// Disguised text: letters an agent reads as the phrase a rule looks for,
// written so that a byte match misses it. Fullwidth and other
// compatibility forms (ｉｇｎｏｒｅ), Cyrillic and Greek letters that look
// Latin inside a Latin word (іgnore), and invisible characters inside a
// word (a soft hyphen, a zero-width space, a variation selector). A line
// holding any of them is normalised (NFKC, invisible characters dropped,
// look-alikes mapped to Latin) and the phrase rules run again on it.

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// withUndisguised runs check on the file, then on every line that holds
// disguising characters, normalised; a finding on a normalised line that
// the plain check did not make on that line is reported at the line.
func withUndisguised(check func(c *fileCheck)) func(c *fileCheck) {
	return func(c *fileCheck) {
		check(c)
		for _, dl := range c.disguisedLines() {
			sub := &fileCheck{f: &file{rel: c.f.rel, class: c.f.class, data: dl.clean}, count: c.count, code: c.code}
			check(sub)
			for _, fd := range sub.out {
				dup := false
				for _, o := range c.out {
					dup = dup || o.code == fd.code && o.line == dl.line
				}
				if !dup {
					fd.line, fd.col = dl.line, 0
					fd.msg = "once its look-alike and invisible characters are read as the agent reads them, " + fd.msg
					c.out = append(c.out, fd)
				}
			}
		}
	}
}

// disguisedLine is a line of a file as undisguise rewrote it, with its
// line number.
type disguisedLine struct {
	line  int
	clean []byte
}

// disguisedLines returns the lines of the file undisguise rewrites, in
// order, finding them on the first call.
func (c *fileCheck) disguisedLines() []disguisedLine {
	if c.disguisedDone {
		return c.disguised
	}
	c.disguisedDone = true
	data := c.f.data
	for start := 0; start < len(data); {
		end := lineEnd(data, start)
		if clean, ok := undisguise(data[start:end]); ok {
			line, _ := position(data, start)
			c.disguised = append(c.disguised, disguisedLine{line: line, clean: clean})
		}
		start = end + 1
	}
	return c.disguised
}

// maxDisguisedLine caps the length of a line undisguise looks at.
const maxDisguisedLine = 16 << 10

// undisguise returns line normalised when it holds a disguising
// character: a compatibility form NFKC folds, an invisible (default
// ignorable) character, or a Cyrillic or Greek letter next to a Latin
// one. ok is false for a line with none, which is every ASCII line.
func undisguise(line []byte) ([]byte, bool) {
	if len(line) > maxDisguisedLine || !hasNonASCII(line) {
		return nil, false
	}
	// Most lines with non-ASCII text (CJK, accents) hide nothing: the
	// output is built only from the first disguised character on, and a
	// character is tested in place, without a copy.
	var b strings.Builder
	found := false
	begin := func(at int) {
		if !found {
			found = true
			b.Grow(len(line))
			for _, r := range string(line[:at]) {
				b.WriteRune(r)
			}
		}
	}
	prevLatin := false
	// A line NFKC leaves alone holds no character it would fold, so the
	// characters need not be tested one by one (a character it folds
	// alone, it folds in any line).
	normal := norm.NFKC.IsNormal(line)
	for i := 0; i < len(line); {
		if c := line[i]; c < utf8.RuneSelf { // ASCII: never disguising
			if found {
				b.WriteByte(c)
			}
			prevLatin = 'a' <= c|0x20 && c|0x20 <= 'z'
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		switch {
		case invisible(r):
			begin(i)
			i += size
			continue
		case !normal && size > 1 && !norm.NFKC.IsNormal(line[i:i+size]):
			begin(i)
			b.WriteString(norm.NFKC.String(string(r)))
			prevLatin = true
			i += size
			continue
		}
		if l, ok := lookalikeOf(r); ok {
			next, _ := utf8.DecodeRune(line[i+size:])
			if prevLatin || next < 0x80 && unicode.IsLetter(next) {
				begin(i)
				b.WriteRune(l)
				prevLatin = true
				i += size
				continue
			}
		}
		if found {
			b.WriteRune(r)
		}
		prevLatin = false
		i += size
	}
	if !found {
		return nil, false
	}
	return []byte(b.String()), true
}

func hasNonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// invisible reports a character that displays as nothing inside text:
// soft hyphen, combining grapheme joiner, zero-width characters, word
// joiner and invisible operators, variation selectors, the Mongolian vowel
// separator and the Hangul fillers.
func invisible(r rune) bool {
	switch {
	case r == 0xAD, r == 0x34F, r == 0x180E, r == 0x3164, r == 0xFFA0, r == 0x115F, r == 0x1160:
		return true
	case r >= 0x200B && r <= 0x200F, r >= 0x2060 && r <= 0x2064, r == 0xFEFF:
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return false
}

// lookalikeOf returns the Latin letter r looks like. Letters outside the
// table's range, such as CJK text, are answered without a map lookup.
func lookalikeOf(r rune) (rune, bool) {
	if r < lookalikeMin || r > lookalikeMax {
		return 0, false
	}
	l, ok := lookalike[r]
	return l, ok
}

// lookalikeMin and lookalikeMax bound the letters of lookalike (a test
// checks them).
const lookalikeMin, lookalikeMax = 0x0250, 0x058F

// lookalike maps Cyrillic and Greek letters that look like Latin ones.
var lookalike = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's',
	'ԁ': 'd', 'ɡ': 'g', 'һ': 'h', 'ӏ': 'l', 'ո': 'n', 'ԛ': 'q', 'ԝ': 'w',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'Х': 'X', 'І': 'I', 'Ј': 'J', 'Ѕ': 'S',
	'α': 'a', 'ο': 'o', 'ν': 'v', 'ι': 'i', 'κ': 'k', 'ρ': 'p', 'τ': 't', 'υ': 'u',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P',
	'Τ': 'T', 'Χ': 'X', 'Υ': 'Y', 'Ζ': 'Z',
}
