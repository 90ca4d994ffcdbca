package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// writeText prints the findings grouped by file, each as
// "line:col  severity  code  message", then the summary line.
func writeText(w io.Writer, r *Report, o WriteOptions) error {
	bw := bufio.NewWriter(w)
	c := Style(o.Color)
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
		fmt.Fprintln(bw, c.Bold(r.Findings[i].File))
		for _, f := range group {
			loc := location(f)
			sev := string(f.Severity)
			fmt.Fprintf(bw, "  %s%s  %s%s  %s%s  %s\n",
				c.Dim(loc), strings.Repeat(" ", locW-len(loc)),
				c.Severity(f.Severity), strings.Repeat(" ", len("warning")-utf8.RuneCountInString(sev)),
				c.Dim(f.Code), strings.Repeat(" ", codeW-len(f.Code)),
				messageWithSuggestion(f))
		}
		fmt.Fprintln(bw)
		i = j
	}
	errs, warns, _, _, fixable := r.Counts()
	sum := r.Summary()
	switch {
	case errs > 0:
		sum = c.Wrap("1;31", "✖ "+sum)
	case warns > 0:
		sum = c.Wrap("1;33", "⚠ "+sum)
	default:
		sum = c.Wrap("1;32", "✓ "+sum)
	}
	fmt.Fprintln(bw, sum)
	if fixable > 0 && !o.Fixing {
		fmt.Fprintf(bw, "%s can be fixed with --fix (preview with --fix --dry-run).\n",
			Plural(fixable, "finding", "findings"))
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
