package security

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Helpers over the bytes of one text file: positions, words, sentences.
// Offsets are byte offsets into the file's data; comparisons ignore ASCII
// case (lower returns the byte folded).

// lower folds an ASCII letter to lower case.
func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// isWordByte reports whether b belongs to a word: a letter, a digit, an
// underscore or any byte of a multi-byte character.
func isWordByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_' || b >= 0x80
}

// wordStart reports whether a word starts at i.
func wordStart(data []byte, i int) bool { return i == 0 || !isWordByte(data[i-1]) }

// wordEnd reports whether a word ends at i.
func wordEnd(data []byte, i int) bool { return i >= len(data) || !isWordByte(data[i]) }

// window bounds how far a check looks either way from a match: a line
// longer than that is checked as the window around the match, so that a
// file of one long line costs each match a window, not the line (which
// made a line of repeated anchors quadratic).
const window = 4 << 10

// lineBounds returns the start and end (without the newline) of the line
// holding offset i, each at most window bytes from i.
func lineBounds(data []byte, i int) (int, int) {
	lo := max(0, i-window)
	start := bytes.LastIndexByte(data[lo:i], '\n') + 1 + lo
	hi := min(len(data), i+window)
	end := bytes.IndexByte(data[i:hi], '\n')
	if end < 0 {
		return start, hi
	}
	return start, i + end
}

// lineEnd returns the end (without the newline) of the line that starts
// at offset i.
func lineEnd(data []byte, i int) int {
	if e := bytes.IndexByte(data[i:], '\n'); e >= 0 {
		return i + e
	}
	return len(data)
}

// position returns the 1-based line and column (in characters) of offset
// i.
func position(data []byte, i int) (line, col int) {
	i = min(i, len(data))
	line = 1 + bytes.Count(data[:i], []byte{'\n'})
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	return line, 1 + utf8.RuneCount(data[start:i])
}

// excerpt quotes data[start:end] for a message, cut to 80 bytes, with
// control, format and invisible characters escaped.
func excerpt(data []byte, start, end int) string {
	end = min(end, len(data))
	cut := false
	if end-start > 80 {
		end, cut = start+80, true
		for end > start && !utf8.RuneStart(data[end]) {
			end--
		}
	}
	s := strings.Join(strings.Fields(string(data[start:end])), " ")
	q := strconv.QuoteToASCII(s)
	if cut {
		q = q[:len(q)-1] + `..."`
	}
	return q
}

// sentenceBounds returns the sentence around [start, end): from after the
// last ". ", "! ", "? " or "; " before start to the first one after end,
// within 400 bytes either way. A newline ends a sentence only before a
// blank line or a line that starts a block (a list item, a table row, a
// heading, a quote, a fence, indented code): Markdown wraps paragraphs.
func sentenceBounds(data []byte, start, end int) (int, int) {
	lo := max(0, start-400)
	s := start
	for s > lo {
		c := data[s-1]
		if c == '\n' && (s-2 < 0 || data[s-2] == '\n' || blockStart(data[s:])) {
			break
		}
		if (c == ' ' || c == '\n' || c == '\t') && s-2 >= lo && isStop(data[s-2]) {
			break
		}
		s--
	}
	if s == lo && s > 0 {
		// Cut at the 400 bytes: start the sentence at a word.
		for s < start && isWordByte(data[s]) {
			s++
		}
	}
	hi := min(len(data), end+400)
	e := end
	for e < hi {
		c := data[e]
		if c == '\n' && (e+1 == len(data) || data[e+1] == '\n' || blockStart(data[e+1:])) {
			break
		}
		if isStop(c) && (e+1 == len(data) || data[e+1] == ' ' || data[e+1] == '\n') {
			break
		}
		e++
	}
	return s, e
}

// blockStart reports whether a line (b from its start) starts a Markdown
// block that a sentence does not run into.
func blockStart(b []byte) bool {
	indent := 0
	for indent < len(b) && (b[indent] == ' ' || b[indent] == '\t') {
		indent++
	}
	if indent >= 4 {
		return true
	}
	b = b[indent:]
	if len(b) == 0 {
		return true
	}
	switch b[0] {
	case '|', '-', '*', '+', '#', '>', '`', '~', '<', '\n', '\r':
		return true
	}
	i := 0
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i > 0 && i < len(b) && (b[i] == '.' || b[i] == ')')
}

// tableRow reports whether offset i lies on a Markdown table row: text
// that describes (a threat model, a list of patterns) rather than
// instructs.
func tableRow(data []byte, i int) bool {
	ls, le := lineBounds(data, i)
	t := bytes.TrimLeft(data[ls:le], " \t")
	return len(t) > 0 && t[0] == '|'
}

func isStop(c byte) bool { return c == '.' || c == '!' || c == '?' || c == ';' }

// words returns the words of data[start:end], lower case, in order. A
// word is a run of letters, digits, underscores, apostrophes and
// multi-byte characters; ’ counts as an apostrophe.
func words(data []byte, start, end int) []string {
	var out []string
	i := start
	for i < end {
		for i < end && !isWordByte(data[i]) && data[i] != '\'' {
			i++
		}
		j := i
		for j < end && (isWordByte(data[j]) || data[j] == '\'') {
			j++
		}
		if j > i {
			w := strings.ToLower(string(data[i:j]))
			w = strings.ReplaceAll(w, "’", "'")
			out = append(out, strings.Trim(w, "'"))
		}
		i = j
	}
	return out
}

// wordsAfter returns up to n words after offset i, within the sentence
// that ends at e.
func wordsAfter(data []byte, i, e, n int) []string {
	ws := words(data, i, min(e, i+40*n))
	if len(ws) > n {
		ws = ws[:n]
	}
	return ws
}

// wordsBefore returns up to n words before offset i, from the sentence
// that starts at s, in text order.
func wordsBefore(data []byte, s, i, n int) []string {
	ws := words(data, max(s, i-40*n), i)
	if len(ws) > n {
		ws = ws[len(ws)-n:]
	}
	return ws
}

// negators are the words that, earlier in a sentence, turn a phrase into
// a warning against it or a description of it ("never ignore previous
// instructions", "if a page asks you to ignore previous instructions").
var negators = set("not", "never", "no", "don't", "dont", "doesn't", "won't", "cannot", "can't", "shouldn't",
	"mustn't", "avoid", "refuse", "reject", "if", "unless", "whether", "detect", "detects", "prevent", "block",
	"flag", "flags", "warn", "beware", "suspicious", "attempt", "attempts", "tries", "such", "like", "e.g",
	"example", "malicious", "injection", "injected", "attacker", "attackers", "adversary", "adversaries",
	"threat", "threats", "mitigate", "defend", "against", "vulnerable", "vulnerability")

// negated reports whether a negator precedes offset i in its sentence
// (starting at s), within 30 words.
func negated(data []byte, s, i int) bool {
	lo := max(s, i-40*30)
	n := 0
	for j := i; j > lo && n < 30; {
		// The words from the end, each with its bounds.
		for j > lo && !isWordByte(data[j-1]) && data[j-1] != '\'' {
			j--
		}
		k := j
		for k > lo && (isWordByte(data[k-1]) || data[k-1] == '\'') {
			k--
		}
		if k == j {
			break
		}
		n++
		w := strings.Trim(strings.ReplaceAll(strings.ToLower(string(data[k:j])), "’", "'"), "'")
		if negators[w] && !inURL(data, k, j) {
			return true
		}
		j = k
	}
	return false
}

// inURL reports whether the word data[k:j] is part of a URL, a host name
// or a path (example in https://x.example.com/, never in a file name):
// such words say nothing about the sentence.
func inURL(data []byte, k, j int) bool {
	if k > 0 && strings.IndexByte("./@:-_", data[k-1]) >= 0 && k > 1 && isWordByte(data[k-2]) {
		return true
	}
	if k > 0 && data[k-1] == '/' {
		return true
	}
	return j+1 < len(data) && strings.IndexByte("./-_", data[j]) >= 0 && isWordByte(data[j+1])
}

// negatedAt is negated for an instruction at i, within its clause: a
// negator before the last comma, colon, semicolon, parenthesis or quote
// mark of the sentence does not count ("If you are reading this, ignore
// ...", "No matter what, ignore ..."). A quotation introduced by a colon
// is read with the whole sentence, so that "Attackers write: \"ignore
// ...\"" stays a description.
func negatedAt(data []byte, s, i int) bool {
	if quoted(data, i) {
		return negated(data, s, i)
	}
	c := s
	if j := bytes.LastIndexAny(data[s:i], ",:;()\"“”"); j >= 0 {
		c = s + j + 1
	}
	return negated(data, c, i)
}

// introduced reports whether the quotation at i (see quoted) follows a
// colon, as in Now: "ignore ...": a quotation given as the instruction.
func introduced(data []byte, i int) bool {
	k := i - 1
	if data[k] >= 0x80 {
		k = i - 3
	}
	for k > 0 && (data[k-1] == ' ' || data[k-1] == '\t') {
		k--
	}
	return k > 0 && data[k-1] == ':'
}

// quoted reports whether the text at i is quoted: a quote mark or a
// backquote comes right before it.
func quoted(data []byte, i int) bool {
	if i == 0 {
		return false
	}
	switch data[i-1] {
	case '"', '\'', '`':
		return true
	}
	// “ and ‘ are E2 80 9C and E2 80 98.
	return i >= 3 && data[i-3] == 0xE2 && data[i-2] == 0x80 && (data[i-1] == 0x9C || data[i-1] == 0x98)
}

// inCodeSpan reports whether offset i lies inside a `code span` of its
// line: an odd number of backquotes come before it on the line.
func inCodeSpan(data []byte, i int) bool {
	start, _ := lineBounds(data, i)
	return bytes.Count(data[start:i], []byte{'`'})%2 == 1
}

// set makes a lookup table of words.
func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// hasPrefixIn reports whether w starts with one of the prefixes.
func hasPrefixIn(w string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// containsFold reports whether the lower-case needle occurs in data,
// ignoring ASCII case.
func containsFold(data []byte, needle string) bool { return indexFold(data, needle) >= 0 }

// indexFold is bytes.Index ignoring ASCII case, for a lower-case needle
// and short data (a line or a sentence).
func indexFold(data []byte, needle string) int {
	n := len(needle)
	if n == 0 {
		return 0
	}
	for i := 0; i+n <= len(data); i++ {
		if lower(data[i]) != needle[0] {
			continue
		}
		j := 1
		for j < n && lower(data[i+j]) == needle[j] {
			j++
		}
		if j == n {
			return i
		}
	}
	return -1
}

// withWords is a copy of m with ws added.
func withWords(m map[string]bool, ws ...string) map[string]bool {
	c := set(ws...)
	for w := range m {
		c[w] = true
	}
	return c
}

// oneOf reports whether w is one of the words: set(...)[w] without
// building a map on every call, for the checks that run per match.
func oneOf(w string, words ...string) bool {
	for _, x := range words {
		if w == x {
			return true
		}
	}
	return false
}

// hasAny reports whether one of ws is one of the words.
func hasAny(ws []string, words ...string) bool {
	for _, w := range ws {
		if oneOf(w, words...) {
			return true
		}
	}
	return false
}

// anchorText returns the anchor found at d[start:end] lower case, with a
// line break or a tab read as a space (see matcher), for a check that
// compares it with the anchor's text.
func anchorText(d []byte, start, end int) string {
	b := []byte(strings.ToLower(string(d[start:end])))
	for i, c := range b {
		if c == '\n' || c == '\t' {
			b[i] = ' '
		}
	}
	return string(b)
}

// inQuotes reports whether offset i lies inside a quotation on its line:
// an odd number of double quotes (straight or curly) before it.
func inQuotes(d []byte, i int) bool {
	ls, _ := lineBounds(d, i)
	b := d[ls:i]
	return (bytes.Count(b, []byte{'"'})+bytes.Count(b, []byte("“"))+bytes.Count(b, []byte("”")))%2 == 1
}
