package report

import (
	"cmp"
	"slices"
	"strconv"
)

// Severity is how much a finding matters.
type Severity string

// The severities, from the most to the least serious. A finding whose
// rule is off is not reported.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
	SeverityOff     Severity = "off"
)

// Rank orders severities: error 3, warning 2, info 1, off (and anything
// else) 0.
func (s Severity) Rank() int {
	switch s {
	case SeverityError:
		return 3
	case SeverityWarning:
		return 2
	case SeverityInfo:
		return 1
	}
	return 0
}

// Finding is one problem in one file. Line and Column are 1-based and 0
// when unknown; Column counts characters (Unicode code points), not bytes.
type Finding struct {
	Code       string   `json:"code"`
	Severity   Severity `json:"severity"`
	File       string   `json:"file"`
	Line       int      `json:"line"`
	Column     int      `json:"column"`
	Message    string   `json:"message"`
	Suggestion string   `json:"suggestion,omitempty"`
	// Fixable is true when --fix repairs this finding.
	Fixable bool `json:"-"`
	// Field is the frontmatter key the finding is about, where a rule
	// checks one key's value ("" when not known), so that a caller can
	// tell a wrong-type description from a wrong-type compatibility.
	Field string `json:"-"`
}

// CompareFindings orders findings by file, line, column, code, message.
func CompareFindings(a, b Finding) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column),
		cmp.Compare(a.Code, b.Code), cmp.Compare(a.Message, b.Message))
}

// SortFindings puts findings in the stable report order: file, line,
// column, code.
func SortFindings(fs []Finding) { slices.SortStableFunc(fs, CompareFindings) }

// Report is the result of a run that checks files.
type Report struct {
	// Profile names the rule set the findings come from: a profile of
	// ccski validate (spec, claude, ...) or "security" for ccski scan.
	Profile string
	// Skills and Commands are how many skill and command files were
	// checked.
	Skills, Commands int
	// Findings are sorted (SortFindings); none has severity off.
	Findings []Finding
}

// Counts returns how many findings are errors, warnings and infos, how
// many files have findings and how many findings --fix can repair.
func (r *Report) Counts() (errors, warnings, infos, files, fixable int) {
	last := ""
	for i, f := range r.Findings {
		switch f.Severity {
		case SeverityError:
			errors++
		case SeverityWarning:
			warnings++
		case SeverityInfo:
			infos++
		}
		if f.Fixable {
			fixable++
		}
		if i == 0 || f.File != last {
			files++
			last = f.File
		}
	}
	return
}

// RelativeTo rewrites the file of every finding as DisplayPath shows it
// to a person working in dir.
func (r *Report) RelativeTo(dir string) {
	for i := range r.Findings {
		r.Findings[i].File = DisplayPath(dir, r.Findings[i].File)
	}
}

// Summary is the one-line summary: "N errors, M warnings in K files (P
// skills checked)", with ", Q commands" after the skills when commands
// were checked.
func (r *Report) Summary() string {
	errs, warns, _, files, _ := r.Counts()
	checked := Plural(r.Skills, "skill", "skills")
	if r.Commands > 0 {
		checked += ", " + Plural(r.Commands, "command", "commands")
	}
	return Plural(errs, "error", "errors") + ", " + Plural(warns, "warning", "warnings") + " in " +
		Plural(files, "file", "files") + " (" + checked + " checked)"
}

// Plural is "1 one" or "n many".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
