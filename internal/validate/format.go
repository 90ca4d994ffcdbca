package validate

import (
	"fmt"
	"io"
	"strings"
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
func ParseFormat(s string) (Format, error) {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		if string(f) == s {
			return f, nil
		}
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q: use %s%s", s, strings.Join(names, ", "), didYouMean(s, names))
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
	// Rules are the rules SARIF lists, for a report whose codes come from
	// another rule table (see RuleDocs); nil means the catalog under the
	// report's profile. Every finding's code must be one of them.
	Rules []RuleDoc
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

// Summary is the one-line summary: "N errors, M warnings in K files (P
// skills checked)", with ", Q commands" after the skills when commands
// were checked.
func (r *Report) Summary() string {
	errs, warns, _, files, _ := r.Counts()
	checked := plural(r.Skills, "skill", "skills")
	if r.Commands > 0 {
		checked += ", " + plural(r.Commands, "command", "commands")
	}
	return fmt.Sprintf("%s, %s in %s (%s checked)", plural(errs, "error", "errors"),
		plural(warns, "warning", "warnings"), plural(files, "file", "files"), checked)
}
