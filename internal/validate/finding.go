package validate

import (
	"cmp"
	"slices"
)

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
}

// compareFindings orders findings by file, line, column, code, message.
func compareFindings(a, b Finding) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column),
		cmp.Compare(a.Code, b.Code), cmp.Compare(a.Message, b.Message))
}

// SortFindings puts findings in the stable report order: file, line,
// column, code.
func SortFindings(fs []Finding) { slices.SortStableFunc(fs, compareFindings) }

// Report is the result of a validation run.
type Report struct {
	Profile Profile
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

// Failed reports whether the run fails: an error, or more than
// maxWarnings warnings (maxWarnings < 0 means no limit).
func (r *Report) Failed(maxWarnings int) bool {
	errs, warns, _, _, _ := r.Counts()
	return errs > 0 || maxWarnings >= 0 && warns > maxWarnings
}
