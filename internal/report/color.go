package report

import (
	"io"
	"os"
)

// Style wraps text in ANSI colours when it is true: the one place ccski
// writes colour sequences. safetext.Writer lets exactly these through
// when colour is on.
type Style bool

// ColorOn reports whether output to w gets colours: not with --no-color
// (noColor), not when NO_COLOR is set to anything, and only when w is a
// terminal.
func ColorOn(w io.Writer, noColor bool) bool {
	return !noColor && os.Getenv("NO_COLOR") == "" && isTerminal(w)
}

// Wrap wraps t in the SGR sequence code ("1", "1;31"...) and a reset, or
// returns t as it is when the style is off or t is empty.
func (s Style) Wrap(code, t string) string {
	if !s || t == "" {
		return t
	}
	return "\x1b[" + code + "m" + t + "\x1b[0m"
}

// The colours and weights ccski uses.
func (s Style) Bold(t string) string    { return s.Wrap("1", t) }
func (s Style) Heading(t string) string { return s.Wrap("1;4", t) }
func (s Style) Dim(t string) string     { return s.Wrap("2", t) }
func (s Style) Red(t string) string     { return s.Wrap("31", t) }
func (s Style) Green(t string) string   { return s.Wrap("32", t) }
func (s Style) Yellow(t string) string  { return s.Wrap("33", t) }
func (s Style) Magenta(t string) string { return s.Wrap("35", t) }
func (s Style) Cyan(t string) string    { return s.Wrap("36", t) }

// Severity is the name of sev in its colour: red errors, yellow warnings,
// cyan the rest.
func (s Style) Severity(sev Severity) string {
	switch sev {
	case SeverityError:
		return s.Red(string(sev))
	case SeverityWarning:
		return s.Yellow(string(sev))
	}
	return s.Cyan(string(sev))
}

// OutputFile returns the file w writes to, looking through writers that
// wrap another (safetext.Writer's Unwrap), to ask whether it is a
// terminal or how wide it is.
func OutputFile(w io.Writer) (*os.File, bool) {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	return f, ok
}

// isTerminal reports whether w writes to a character device.
func isTerminal(w io.Writer) bool {
	f, ok := OutputFile(w)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
