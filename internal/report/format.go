package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/ccski/ccski/internal/suggest"
)

// Format is an output format of a report.
type Format string

// The formats.
const (
	FormatText   Format = "text"
	FormatJSON   Format = "json"
	FormatGitHub Format = "github"
	FormatSARIF  Format = "sarif"
)

// Formats lists every format.
var Formats = []Format{FormatText, FormatJSON, FormatGitHub, FormatSARIF}

// ParseFormat checks a format name given by a user.
func ParseFormat(s string) (Format, error) { return ParseName("format", s, Formats) }

// ParseName returns the one of values spelled s, or an error that names
// what s should be, lists the values and suggests the closest one:
// unknown format "sarif2": use text, json, github, sarif (did you mean
// "sarif"?).
func ParseName[T ~string](what, s string, values []T) (T, error) {
	names := make([]string, len(values))
	for i, v := range values {
		if string(v) == s {
			return v, nil
		}
		names[i] = string(v)
	}
	hint := ""
	if c := suggest.Closest(s, names); c != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", c)
	}
	return "", fmt.Errorf("unknown %s %q: use %s%s", what, s, strings.Join(names, ", "), hint)
}

// WriteOptions shape the output.
type WriteOptions struct {
	// Color turns on ANSI colours in the text format.
	Color bool
	// Version is the tool version written into SARIF.
	Version string
	// Fixing is true when the run already applied --fix: the text format
	// then does not advertise it.
	Fixing bool
	// Rules are the rules SARIF lists, the table the report's codes come
	// from (validate.RuleDocs, security.RuleDocs). Every finding's code
	// must be one of them.
	Rules []RuleDoc
}

// RuleDoc describes one rule to the readers of a SARIF log: what its
// findings mean, how to fix them, its level in the run and where it is
// documented.
type RuleDoc struct {
	Code    string
	Summary string
	Help    string
	// Severity is the rule's level in the run.
	Severity Severity
	// HelpURI is the rule's documentation.
	HelpURI string
}

// Write prints r in format f.
func Write(w io.Writer, f Format, r *Report, o WriteOptions) error {
	switch f {
	case FormatJSON:
		return writeJSON(w, r)
	case FormatGitHub:
		return writeGitHub(w, r)
	case FormatSARIF:
		return writeSARIF(w, r, o)
	}
	return writeText(w, r, o)
}

// messageWithSuggestion is the message plus the did-you-mean, when the
// message does not already name it.
func messageWithSuggestion(f Finding) string {
	if f.Suggestion == "" || strings.Contains(f.Message, f.Suggestion) {
		return f.Message
	}
	return fmt.Sprintf("%s (did you mean %q?)", f.Message, f.Suggestion)
}
