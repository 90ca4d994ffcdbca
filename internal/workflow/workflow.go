// Package workflow edits the ccski workflow block of an agent's
// instructions file (CLAUDE.md, AGENTS.md, GEMINI.md): the short
// <workflow name="ccski"> element that tells the agent how to find, with
// ccski, the skills its own listing leaves out. Upsert puts the block in
// or replaces it where it is, keeping every other byte of the file; a
// block inside a Markdown code fence is an example, not the block, and an
// element it cannot delimit safely is an error rather than a guess.
package workflow

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Block is the block for the agent named agent (title names it for
// people): how that agent finds the skills its own listing leaves out,
// with ccski showing them as that agent sees them (--agent), so that a
// skill the user turned off for it stays out of sight.
func Block(agent, title string) string {
	return `<workflow name="ccski">
More Agent Skills may be installed on this machine than this session lists: other agents' skills, plugin skills and shared ones. ccski finds them all.
- To see them, run ` + "`ccski list --agent " + agent + "`" + ` (add ` + "`--json`" + ` to parse it).
- To find one for a task, run ` + "`ccski search --agent " + agent + ` "<words>"` + "`" + `.
- To use one, run ` + "`ccski info --agent " + agent + " <name> --full`" + ` and follow the SKILL.md it prints; the files it refers to are in the folder of its File.
A skill the user turned off for ` + title + ` stays off: with --agent ` + agent + `, list and search leave it out and info says it is off, so do not use it unless the user asks.
</workflow>`
}

var (
	// blockOpen matches the opening tag of the ccski workflow element,
	// either quote style, other attributes allowed.
	blockOpen = regexp.MustCompile(`<workflow\s+(?:[^>]*\s)?name\s*=\s*["']ccski["'][^>]*>`)
	// anyOpen matches the opening tag of any workflow element.
	anyOpen = regexp.MustCompile(`<workflow(?:\s[^>]*)?>`)
	// fenceLine matches a Markdown code fence line: up to three spaces,
	// then three or more backticks or tildes.
	fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
)

// fencedRanges returns the byte ranges of data's fenced code blocks, from
// the start of the opening fence line to the end of the closing one (or
// of the file, for a fence never closed).
func fencedRanges(data []byte) [][2]int {
	var out [][2]int
	open, start := "", 0
	for at := 0; at < len(data); {
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += at + 1
		}
		line := bytes.TrimRight(data[at:end], "\r\n")
		if m := fenceLine.FindSubmatch(line); m != nil {
			switch fence := string(m[1]); {
			case open == "":
				open, start = fence, at
			case fence[0] == open[0] && len(fence) >= len(open) && len(bytes.TrimSpace(line[len(m[0]):])) == 0:
				out = append(out, [2]int{start, end})
				open = ""
			}
		}
		at = end
	}
	if open != "" {
		out = append(out, [2]int{start, len(data)})
	}
	return out
}

// Find returns the byte range of the ccski workflow element in
// data, outside code fences: from its opening tag to the first
// </workflow> after it. found is false when data has none. An element
// that another <workflow> opens inside of, or that is never closed, is
// an error: replacing it could take the user's text along.
func Find(data []byte) (start, end int, found bool, err error) {
	fences := fencedRanges(data)
	fenced := func(off int) bool {
		for _, r := range fences {
			if off >= r[0] && off < r[1] {
				return true
			}
		}
		return false
	}
	line := func(off int) int { return bytes.Count(data[:off], []byte("\n")) + 1 }
	start = -1
	for _, loc := range blockOpen.FindAllIndex(data, -1) {
		if !fenced(loc[0]) {
			start, end = loc[0], loc[1]
			break
		}
	}
	if start < 0 {
		return 0, 0, false, nil
	}
	next := -1
	for _, loc := range anyOpen.FindAllIndex(data[end:], -1) {
		if !fenced(end + loc[0]) {
			next = end + loc[0]
			break
		}
	}
	closer := []byte("</workflow>")
	for at := end; ; {
		i := bytes.Index(data[at:], closer)
		if i < 0 {
			return 0, 0, false, fmt.Errorf(`the <workflow name="ccski"> element at line %d is never closed; `+
				"add </workflow> after it or remove it, then run again", line(start))
		}
		if fenced(at + i) {
			at += i + len(closer)
			continue
		}
		if next >= 0 && next < at+i {
			return 0, 0, false, fmt.Errorf(`the <workflow name="ccski"> element at line %d is not closed before the `+
				"<workflow> at line %d; add </workflow> where it ends, then run again", line(start), line(next))
		}
		return start, at + i + len(closer), true, nil
	}
}

// Upsert returns data with block in it: the existing ccski
// workflow element replaced, else the block appended after a blank line.
// Every other byte is kept; the block takes the file's line endings. An
// element it cannot delimit safely is an error (see Find).
func Upsert(data []byte, block string) ([]byte, error) {
	if bytes.Contains(data, []byte("\r\n")) {
		block = strings.ReplaceAll(block, "\n", "\r\n")
	}
	start, end, found, err := Find(data)
	if err != nil {
		return nil, err
	}
	if found {
		out := append([]byte(nil), data[:start]...)
		out = append(out, block...)
		return append(out, data[end:]...), nil
	}
	eol := "\n"
	if strings.Contains(block, "\r\n") {
		eol = "\r\n"
	}
	out := append([]byte(nil), data...)
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		out = nil
	case !bytes.HasSuffix(data, []byte("\n")):
		out = append(out, eol+eol...)
	case !bytes.HasSuffix(data, []byte(eol+eol)):
		out = append(out, eol...) // a blank line before the block
	}
	out = append(out, block...)
	return append(out, eol...), nil
}
