package report

import (
	"encoding/json"
	"io"
)

// JSONVersion is the version of the --format json schema; it changes only
// when a field is removed or changes meaning.
const JSONVersion = 1

// JSONReport is the --format json document.
type JSONReport struct {
	Version  int         `json:"version"`
	Profile  string      `json:"profile"`
	Summary  JSONSummary `json:"summary"`
	Findings []Finding   `json:"findings"`
}

// JSONSummary counts the findings: files with findings, skills and
// commands checked, errors and warnings.
type JSONSummary struct {
	Files    int `json:"files"`
	Skills   int `json:"skills"`
	Commands int `json:"commands"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// JSON returns the report as the --format json document.
func (r *Report) JSON() JSONReport {
	errs, warns, _, files, _ := r.Counts()
	fs := r.Findings
	if fs == nil {
		fs = []Finding{}
	}
	return JSONReport{Version: JSONVersion, Profile: r.Profile,
		Summary: JSONSummary{Files: files, Skills: r.Skills, Commands: r.Commands, Errors: errs,
			Warnings: warns},
		Findings: fs}
}

func writeJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r.JSON())
}
