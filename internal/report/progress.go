package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Progress is the one progress line of ccski's long operations (skills
// installed, updated or restored, with their files copied and hashed;
// skills scanned): "what done/total item" on a terminal, rewritten in
// place with a carriage return, and wiped by Done. It is drawn when the
// percentage done changes, so a run of 100,000 steps writes at most a
// hundred lines. Its methods are safe from several goroutines.
//
// A nil *Progress draws nothing, and NewProgress returns nil for a nil
// writer: callers step it unconditionally, and the command decides once
// whether there is a terminal to draw on (git's progress goes to the same
// writer).
type Progress struct {
	mu          sync.Mutex
	w           io.Writer
	what        string
	total, done int
	percent     int // the percentage last drawn; -1 before the first
	drawn       int // the width of the line on the terminal
}

// progressItemWidth caps the item shown, so that the line stays on one
// row of a narrow terminal.
const progressItemWidth = 40

// NewProgress starts the progress of total steps of what ("installing",
// "scanning") on w; nil when w is nil or there is nothing to count.
func NewProgress(w io.Writer, what string, total int) *Progress {
	if w == nil || total <= 0 {
		return nil
	}
	return &Progress{w: w, what: what, total: total, percent: -1}
}

// Step counts one step done, item (a skill's name, a file) being the one
// just started or finished, and draws the line when its percentage
// changed.
func (p *Progress) Step(item string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = min(p.done+1, p.total)
	pc := p.done * 100 / p.total
	if pc == p.percent {
		return
	}
	p.percent = pc
	item = printable(strings.Join(strings.Fields(item), " "))
	if utf8.RuneCountInString(item) > progressItemWidth {
		item = string([]rune(item)[:progressItemWidth-1]) + "…"
	}
	line := fmt.Sprintf("ccski: %s %d/%d %s", p.what, p.done, p.total, item)
	p.draw(line)
}

// Done wipes the line, leaving the terminal as it was before the first
// step.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn > 0 {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.drawn)+"\r")
		p.drawn = 0
	}
}

// draw writes line over the one drawn before, padding with spaces what
// the shorter line leaves of it.
func (p *Progress) draw(line string) {
	n := utf8.RuneCountInString(line)
	pad := max(p.drawn-n, 0)
	fmt.Fprint(p.w, "\r"+line+strings.Repeat(" ", pad))
	p.drawn = n
}

// printable replaces the characters a terminal acts on (C0 and C1
// controls, bidirectional controls) with U+FFFD: an item is a skill's
// name, from a file ccski does not control, and the progress line goes
// straight to the terminal. (safetext does this for the rest of the
// output; report stays below it.)
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}
