package validate

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ansi wraps text in an ANSI colour when on.
type ansi bool

func (a ansi) wrap(code, s string) string {
	if !a || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (a ansi) severity(s Severity) string {
	switch s {
	case SeverityError:
		return a.wrap("31", string(s))
	case SeverityWarning:
		return a.wrap("33", string(s))
	}
	return a.wrap("36", string(s))
}

// writeText prints the findings grouped by file, each as
// "line:col  severity  code  message", then the summary line.
func writeText(w io.Writer, r *Report, o WriteOptions) error {
	bw := bufio.NewWriter(w)
	c := ansi(o.Color)
	for i := 0; i < len(r.Findings); {
		j := i
		for j < len(r.Findings) && r.Findings[j].File == r.Findings[i].File {
			j++
		}
		group := r.Findings[i:j]
		locW, codeW := 0, 0
		for _, f := range group {
			locW = max(locW, len(location(f)))
			codeW = max(codeW, len(f.Code))
		}
		fmt.Fprintln(bw, c.wrap("1", r.Findings[i].File))
		for _, f := range group {
			loc := location(f)
			sev := string(f.Severity)
			fmt.Fprintf(bw, "  %s%s  %s%s  %s%s  %s\n",
				c.wrap("2", loc), strings.Repeat(" ", locW-len(loc)),
				c.severity(f.Severity), strings.Repeat(" ", len("warning")-utf8.RuneCountInString(sev)),
				c.wrap("2", f.Code), strings.Repeat(" ", codeW-len(f.Code)),
				messageWithSuggestion(f))
		}
		fmt.Fprintln(bw)
		i = j
	}
	errs, warns, _, _, fixable := r.Counts()
	sum := r.Summary()
	switch {
	case errs > 0:
		sum = c.wrap("1;31", "✖ "+sum)
	case warns > 0:
		sum = c.wrap("1;33", "⚠ "+sum)
	default:
		sum = c.wrap("1;32", "✓ "+sum)
	}
	fmt.Fprintln(bw, sum)
	if fixable > 0 && !o.Fixing {
		fmt.Fprintf(bw, "%s can be fixed with --fix (preview with --fix --dry-run).\n",
			plural(fixable, "finding", "findings"))
	}
	return bw.Flush()
}

// location is "line:col", "line" or "-".
func location(f Finding) string {
	switch {
	case f.Line <= 0:
		return "-"
	case f.Column <= 0:
		return strconv.Itoa(f.Line)
	}
	return fmt.Sprintf("%d:%d", f.Line, f.Column)
}
