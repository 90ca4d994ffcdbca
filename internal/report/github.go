package report

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// writeGitHub prints one GitHub Actions workflow command per finding,
// ::error, ::warning or ::notice, which the runner turns into annotations
// on the files, then the summary as a plain line.
func writeGitHub(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		cmd := "notice"
		switch f.Severity {
		case SeverityError:
			cmd = "error"
		case SeverityWarning:
			cmd = "warning"
		}
		props := []string{"file=" + escapeProperty(filepath.ToSlash(f.File))}
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line))
			if f.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", f.Column))
			}
		}
		props = append(props, "title="+escapeProperty("ccski "+f.Code))
		fmt.Fprintf(bw, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(messageWithSuggestion(f)))
	}
	fmt.Fprintln(bw, r.Summary())
	return bw.Flush()
}

// escapeData escapes a workflow command's message: %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value: as data,
// plus ":" and ",".
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
