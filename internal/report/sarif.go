package report

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// SARIF 2.1.0 documents, reduced to what code scanning reads.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool     `json:"tool"`
		Results    []sarifResult `json:"results"`
		ColumnKind string        `json:"columnKind"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string        `json:"id"`
		ShortDescription     sarifText     `json:"shortDescription"`
		Help                 sarifText     `json:"help"`
		HelpURI              string        `json:"helpUri"`
		DefaultConfiguration sarifRuleConf `json:"defaultConfiguration"`
	}
	sarifRuleConf struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)

const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// sarifLevel maps a severity to a SARIF level.
func sarifLevel(s Severity) string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "note"
	}
	return "none"
}

// writeSARIF prints a SARIF 2.1.0 log with one run: every rule of the
// table o.Rules, so that ruleIndex is stable, and one result per finding.
// File paths become URIs relative to the current folder when they are
// relative, file URIs otherwise.
func writeSARIF(w io.Writer, r *Report, o WriteOptions) error {
	d := sarifDriver{Name: "ccski", Version: o.Version, InformationURI: "https://github.com/ccski/ccski",
		Rules: []sarifRule{}}
	index := make(map[string]int, len(o.Rules))
	for i, rule := range o.Rules {
		index[rule.Code] = i
		d.Rules = append(d.Rules, sarifRule{
			ID:                   rule.Code,
			ShortDescription:     sarifText{rule.Summary},
			Help:                 sarifText{rule.Help},
			HelpURI:              rule.HelpURI,
			DefaultConfiguration: sarifRuleConf{sarifLevel(rule.Severity)},
		})
	}
	run := sarifRun{Tool: sarifTool{d}, Results: []sarifResult{}, ColumnKind: "unicodeCodePoints"}
	for _, f := range r.Findings {
		loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: fileURI(f.File)}}
		if f.Line > 0 {
			loc.Region = &sarifRegion{StartLine: f.Line, StartColumn: max(f.Column, 0)}
		}
		run.Results = append(run.Results, sarifResult{
			RuleID: f.Code, RuleIndex: index[f.Code], Level: sarifLevel(f.Severity),
			Message:   sarifText{messageWithSuggestion(f)},
			Locations: []sarifLocation{{PhysicalLocation: loc}},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// fileURI turns a path into a SARIF artifact URI: a relative reference
// for a relative path, a file:// URI for an absolute one.
func fileURI(p string) string {
	s := filepath.ToSlash(p)
	if filepath.IsAbs(p) {
		if !strings.HasPrefix(s, "/") {
			s = "/" + s // a Windows drive letter
		}
		return (&url.URL{Scheme: "file", Path: s}).String()
	}
	return (&url.URL{Path: s}).String()
}
