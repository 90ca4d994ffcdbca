package safetext

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Writer escapes what is written through it for a terminal: every Control
// character but newline and tab is written as \u001b, \u0085, \u202e...,
// and every byte that is not UTF-8 as \xff, so that no text ccski prints
// for a person can set the window title, clear the screen, move the
// cursor or reorder a line. With colour on (SetColor), the SGR colour
// sequences ccski itself writes pass: ESC [ params m, where every param is
// one ccski uses (0 reset, 1 bold, 2 dim, 4 underline, 31 red, 32 green,
// 33 yellow, 35 magenta, 36 cyan); any other escape sequence is escaped
// all the same. Text from a file can then at worst take one of those
// colours: it cannot be hidden (no black, no concealed text), moved, or
// change the window title.
//
// JSON written through a Writer stays valid JSON with the same meaning:
// encoding/json escapes C0 controls itself, and the characters it leaves
// raw (DEL, C1, bidirectional controls) can only occur inside strings,
// where \uXXXX is their JSON escape.
//
// A character or an SGR sequence split between two writes (a bufio.Writer
// flushing mid-character) is held until the next write completes it;
// Flush writes what is held. Writer is safe for concurrent use.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	color bool
	carry []byte // the start of a character or sequence the next write may complete
	buf   []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Unwrap returns the writer w writes to (to ask whether it is a
// terminal, say).
func (t *Writer) Unwrap() io.Writer { return t.w }

// SetColor lets ccski's own colour sequences through (on) or escapes them
// like any other (off, the default).
func (t *Writer) SetColor(on bool) {
	t.mu.Lock()
	t.color = on
	t.mu.Unlock()
}

// maxCarry bounds what a write may leave pending: the longest SGR prefix
// ccski writes, or a partial UTF-8 character.
const maxCarry = 16

// Write escapes p and writes it. It reports len(p) on success, whatever
// the escaped length.
func (t *Writer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	data := p
	if len(t.carry) > 0 {
		data = append(t.carry, p...)
		t.carry = nil
	}
	out := t.escape(t.buf[:0], data, false)
	_, err := t.w.Write(out)
	if cap(out) <= 64<<10 {
		t.buf = out[:0] // keep a modest buffer for the next write
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes, escaped, what a write left pending.
func (t *Writer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.carry) == 0 {
		return nil
	}
	data := t.carry
	t.carry = nil
	_, err := t.w.Write(t.escape(nil, data, true))
	return err
}

// escape appends data to out, escaped. Unless final, an incomplete
// character or SGR sequence at the end of data goes to t.carry instead.
func (t *Writer) escape(out, data []byte, final bool) []byte {
	for i := 0; i < len(data); {
		// Printable ASCII, newlines and tabs, most of any output, are
		// copied a run at a time.
		j := i
		for j < len(data) && (data[j] >= 0x20 && data[j] < 0x7f || data[j] == '\n' || data[j] == '\t') {
			j++
		}
		out = append(out, data[i:j]...)
		if i = j; i == len(data) {
			break
		}
		c := data[i]
		if c < utf8.RuneSelf { // a control character: the run above took the rest
			if c == 0x1b && t.color {
				n, complete := sgrLen(data[i:])
				if n > 0 {
					out = append(out, data[i:i+n]...)
					i += n
					continue
				}
				if !complete && !final {
					t.carry = append([]byte(nil), data[i:]...)
					return out
				}
			}
			out = AppendEscaped(out, rune(c), c)
			i++
			continue
		}
		if !utf8.FullRune(data[i:]) && !final && len(data)-i < utf8.UTFMax {
			t.carry = append([]byte(nil), data[i:]...)
			return out
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = AppendEscaped(out, utf8.RuneError, c)
		case Control(r):
			out = AppendEscaped(out, r, 0)
		default:
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	return out
}

// sgrLen returns the length of the SGR sequence b starts with when it is
// one of those a Writer lets through with colour on, else 0. complete is
// false when b ends inside what could still become one.
func sgrLen(b []byte) (n int, complete bool) {
	if len(b) < 2 {
		return 0, false
	}
	if b[1] != '[' {
		return 0, true
	}
	for i := 2; i < len(b); i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9' || c == ';':
			if i >= maxCarry {
				return 0, true
			}
		case c == 'm':
			if allowedSGR(b[2:i]) {
				return i + 1, true
			}
			return 0, true
		default:
			return 0, true
		}
	}
	return 0, len(b) >= maxCarry
}

// allowedSGR reports whether every parameter of an SGR sequence is one
// ccski's colours use: reset, bold, dim, underline, and red, green,
// yellow, magenta and cyan text. Black or white text, backgrounds,
// concealed, blinking or reversed text are not.
func allowedSGR(params []byte) bool {
	n, digits := 0, 0
	check := func() bool {
		switch {
		case digits == 0: // "" means 0
			return true
		case n == 0, n == 1, n == 2, n == 4, n == 31, n == 32, n == 33, n == 35, n == 36:
			return true
		}
		return false
	}
	for _, c := range params {
		if c == ';' {
			if !check() {
				return false
			}
			n, digits = 0, 0
			continue
		}
		n = n*10 + int(c-'0')
		digits++
		if digits > 2 {
			return false
		}
	}
	return check()
}
