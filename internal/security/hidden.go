package security

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Invisible characters. Each rule reports the first one of a file and how
// many there are.

// runeNames names the characters the rules report.
var runeNames = map[rune]string{
	0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
	0x2060: "WORD JOINER", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE (byte order mark)",
	0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE", 0x2066: "LEFT-TO-RIGHT ISOLATE",
	0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE",
}

// eachRune calls fn with the offset of every character of d whose UTF-8
// encoding starts with lead, and the character.
func eachRune(d []byte, lead byte, fn func(i int, r rune)) {
	for i := 0; ; {
		j := bytes.IndexByte(d[i:], lead)
		if j < 0 {
			return
		}
		i += j
		r, n := utf8.DecodeRune(d[i:])
		fn(i, r)
		i += max(n, 1)
	}
}

func isBidi(r rune) bool { return 0x202A <= r && r <= 0x202E || 0x2066 <= r && r <= 0x2069 }

// checkBidi reports bidirectional controls (U+202A-202E, U+2066-2069 all
// start with E2 80 or E2 81).
func checkBidi(c *fileCheck) {
	if !c.f.is(classText) {
		return
	}
	first, n, r0 := -1, 0, rune(0)
	eachRune(c.f.data, 0xE2, func(i int, r rune) {
		if isBidi(r) {
			if first < 0 {
				first, r0 = i, r
			}
			n++
		}
	})
	if first >= 0 {
		c.add(first, "U+%04X %s makes the text display in another order than the agent and the shell read it%s: "+
			"delete it", r0, runeNames[r0], count(n))
	}
}

// count says how many there are when more than one.
func count(n int) string {
	if n < 2 {
		return ""
	}
	return fmt.Sprintf(" (%d such characters in this file)", n)
}

// checkZeroWidth reports zero-width characters, except joiners between
// emoji or letters of scripts that need them, and a byte order mark at
// the start.
func checkZeroWidth(c *fileCheck) {
	if !c.f.is(classText) {
		return
	}
	d := c.f.data
	first, n, r0 := -1, 0, rune(0)
	report := func(i int, r rune) {
		if first < 0 {
			first, r0 = i, r
		}
		n++
	}
	eachRune(d, 0xE2, func(i int, r rune) {
		switch r {
		case 0x200B, 0x2060:
			report(i, r)
		case 0x200C, 0x200D:
			if !joinerInPlace(d, i, r) {
				report(i, r)
			}
		}
	})
	eachRune(d, 0xEF, func(i int, r rune) {
		if r == 0xFEFF && i > 0 {
			report(i, r)
		}
	})
	if first >= 0 {
		c.add(first, "U+%04X %s is invisible, so what a person reviews differs from what the agent reads%s: "+
			"delete it", r0, runeNames[r0], count(n))
	}
}

// joinerInPlace reports whether the joiner at i does its job: between
// emoji (ZWJ sequences), or next to letters of a script that is not
// Latin (Persian, Indic scripts use ZWNJ and ZWJ).
func joinerInPlace(d []byte, i int, r rune) bool {
	prev, _ := utf8.DecodeLastRune(d[:i])
	next, _ := utf8.DecodeRune(d[i+utf8.RuneLen(r):])
	neighbour := func(x rune) bool {
		return x >= 0x1F000 || 0x2600 <= x && x <= 0x27BF || x == 0xFE0F ||
			x > 0x2FF && unicode.IsLetter(x) || unicode.Is(unicode.Mn, x) || unicode.Is(unicode.Mc, x)
	}
	return neighbour(prev) || neighbour(next)
}

// checkUnicodeTags reports tag characters, U+E0000-U+E007F (F3 A0 80 80
// to F3 A0 81 BF), and decodes the text they spell.
func checkUnicodeTags(c *fileCheck) {
	if !c.f.is(classText) {
		return
	}
	d := c.f.data
	first, n := -1, 0
	var spelled strings.Builder
	flagEnd := -1 // the end of a flag's tag sequence
	eachRune(d, 0xF3, func(i int, r rune) {
		if i < flagEnd {
			return
		}
		if e := flagSequence(d, i); e > 0 {
			flagEnd = e
			return
		}
		if 0xE0000 <= r && r <= 0xE007F {
			if first < 0 {
				first = i
			}
			n++
			if t := r - 0xE0000; 0x20 <= t && t < 0x7F && spelled.Len() < 60 {
				spelled.WriteRune(t)
			}
		}
	})
	if first >= 0 {
		what := ""
		if spelled.Len() > 0 {
			what = ", spelling " + excerptString(spelled.String())
		}
		c.add(first, "%d Unicode tag characters display as nothing but carry text the model reads%s: delete them",
			n, what)
	}
}

// flagSequence returns the end of the emoji tag sequence starting at i (a
// subdivision flag such as Scotland's: U+1F3F4, then 2 to 6 tags of
// lower-case letters and digits, then U+E007F CANCEL TAG), or 0 when
// there is none.
func flagSequence(d []byte, i int) int {
	prev, _ := utf8.DecodeLastRune(d[:i])
	if prev != 0x1F3F4 {
		return 0
	}
	for n, j := 0, i; n <= 7 && j < len(d); n++ {
		r, size := utf8.DecodeRune(d[j:])
		j += size
		switch t := r - 0xE0000; {
		case r == 0xE007F:
			if n >= 2 {
				return j
			}
			return 0
		case 'a' <= t && t <= 'z' || '0' <= t && t <= '9':
		default:
			return 0
		}
	}
	return 0
}

// Hidden Markdown.

// A hidden comment is addressed to the agent when it names an AI and
// tells it something (agentWords and an imperativeWords), or tells "you"
// something pressing (pressWords). Notes to reviewers, references and
// lint directives do neither; words inside identifiers and paths
// (build-with-claude, agents/skills) do not count.
var (
	agentWords      = set("claude", "assistant", "agent", "ai", "llm", "codex", "gpt", "chatgpt", "gemini", "copilot")
	pressWords      = set("must", "always", "never", "important", "immediately", "required", "mandatory", "don't", "secretly", "silently")
	imperativeWords = set("you", "your", "please", "run", "execute", "send", "upload", "delete", "remove", "ignore",
		"note", "do", "don't", "must", "always", "never", "should", "important", "secretly", "silently")
)

// addressedToAgent reports whether a hidden text reads like an
// instruction to the agent rather than a note or a lint directive.
func addressedToAgent(text []byte) bool {
	var agent, imperative, you, press bool
	n := 0
	for _, f := range bytes.Fields(text) {
		w := strings.ToLower(strings.Trim(string(f), ".,;:!?()[]{}\"'`*"))
		if w == "" || strings.ContainsAny(w, "-/_.=<>") {
			continue
		}
		n++
		agent = agent || agentWords[w]
		imperative = imperative || imperativeWords[w]
		you = you || w == "you" || w == "your"
		press = press || pressWords[w]
	}
	return n >= 5 && (agent && imperative || you && press)
}

// fencesOf returns the fenced code blocks of a Markdown file.
func fencesOf(f *file) [][2]int {
	if f.fencesDone {
		return f.fences
	}
	f.fencesDone = true
	d := f.data
	open, marker := -1, byte(0)
	for i := 0; i < len(d); {
		e := lineEnd(d, i)
		line := d[i:e]
		t := bytes.TrimLeft(line, " ")
		if len(line)-len(t) <= 3 && len(t) >= 3 && (t[0] == '`' || t[0] == '~') && t[1] == t[0] && t[2] == t[0] {
			switch {
			case open < 0:
				open, marker = i, t[0]
			case t[0] == marker:
				f.fences = append(f.fences, [2]int{open, e})
				open = -1
			}
		}
		i = e + 1
	}
	if open >= 0 {
		f.fences = append(f.fences, [2]int{open, len(d)})
	}
	return f.fences
}

// inFence reports whether offset i lies in a fenced code block.
func inFence(f *file, i int) bool {
	fs := fencesOf(f)
	// The ranges are in order and apart: the last one starting at or
	// before i is the only one that can hold it.
	k, _ := slices.BinarySearchFunc(fs, i, func(r [2]int, i int) int { return cmp.Compare(r[0], i+1) })
	return k > 0 && i < fs[k-1][1]
}

// hasClosing reports whether the file holds the closing tag </name>
// anywhere, searching the file once per name.
func (f *file) hasClosing(name string) bool {
	if f.closing == nil {
		f.closing = map[string]bool{}
	}
	has, ok := f.closing[name]
	if !ok {
		has = indexFold(f.data, "</"+name) >= 0
		f.closing[name] = has
	}
	return has
}

// hiddenStyles are the inline styles that keep an element off the page.
var hiddenStyles = []string{"display:none", "display: none", "visibility:hidden", "visibility: hidden",
	"font-size:0", "font-size: 0", "opacity:0", "opacity: 0", "color:transparent", "color: transparent"}

// checkHiddenText reports, in Markdown, HTML comments and [//]: #
// comments addressed to the agent, and elements hidden from the rendered
// page. Code blocks and code spans are shown as they are, so they are
// left alone.
func checkHiddenText(c *fileCheck) {
	f := c.f
	if !f.is(classMarkdown) || !f.is(classText) {
		return
	}
	d := f.data
	// <!-- comments -->.
	for i := 0; ; {
		j := bytes.Index(d[i:], []byte("<!--"))
		if j < 0 {
			break
		}
		s := i + j
		e := bytes.Index(d[s+4:], []byte("-->"))
		end := len(d)
		if e >= 0 {
			end = s + 4 + e + 3
		}
		if !inFence(f, s) && !inCodeSpan(d, s) && addressedToAgent(d[s+4:max(s+4, end-3)]) {
			c.add(s, "an HTML comment holds instructions a person reading the rendered file never sees (%s): "+
				"make them visible text, or delete them", excerpt(d, s, end))
		}
		i = end
	}
	// [//]: # (comment), [comment]: <> "comment".
	for i := 0; i < len(d); {
		e := lineEnd(d, i)
		line := bytes.TrimLeft(d[i:e], " ")
		if bytes.HasPrefix(line, []byte("[//]:")) || bytes.HasPrefix(line, []byte("[comment]:")) ||
			bytes.HasPrefix(line, []byte("[_]:")) {
			if !inFence(f, i) && addressedToAgent(line) {
				c.add(i, "a Markdown comment ([//]: #) holds instructions a person reading the rendered file never "+
					"sees (%s): make them visible text, or delete them", excerpt(d, i, e))
			}
		}
		i = e + 1
	}
	// Elements hidden by an attribute or a style.
	for i := 0; ; {
		j := bytes.IndexByte(d[i:], '<')
		if j < 0 {
			return
		}
		s := i + j
		i = s + 1
		if s+1 >= len(d) || !('a' <= lower(d[s+1]) && lower(d[s+1]) <= 'z') {
			continue
		}
		gt := bytes.IndexByte(d[s:min(len(d), s+400)], '>')
		if gt < 0 {
			continue
		}
		tag := d[s : s+gt+1]
		hidden := hiddenAttribute(tag)
		for _, st := range hiddenStyles {
			hidden = hidden || containsFold(tag, st)
		}
		if hidden && !inFence(f, s) && !inCodeSpan(d, s) {
			c.add(s, "an element hidden from the rendered page (%s) still reaches the agent, which reads the raw "+
				"file: make its text visible, or delete it", excerpt(d, s, s+gt+1))
		}
	}
}

// hiddenAttribute reports whether a tag has the hidden attribute:
// " hidden" followed by white space, "=", "/" or ">".
func hiddenAttribute(tag []byte) bool {
	for i := 0; ; {
		j := indexFold(tag[i:], " hidden")
		if j < 0 {
			return false
		}
		k := i + j + len(" hidden")
		if k < len(tag) && strings.IndexByte(" \t\n=/>", tag[k]) >= 0 {
			return true
		}
		i += j + 1
	}
}
