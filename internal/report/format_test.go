package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleReport() *Report {
	return &Report{Profile: "spec", Skills: 3, Findings: []Finding{
		{Code: "name-uppercase", Severity: SeverityError, File: "skills/a,b:c/SKILL.md", Line: 2, Column: 7,
			Message: "100% wrong\r\nsecond line", Suggestion: "a-b"},
		{Code: "body-too-long", Severity: SeverityWarning, File: "skills/a,b:c/SKILL.md", Line: 505, Column: 1,
			Message: "too long", Fixable: true},
		{Code: "description-angle-brackets", Severity: SeverityInfo, File: "skills/x/SKILL.md", Line: 3,
			Message: "angles"},
		{Code: "lowercase-skill-file", Severity: SeverityWarning, File: "skills/y/skill.md",
			Message: "lowercase", Suggestion: "SKILL.md"},
	}}
}

func TestGitHubFormat(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, FormatGitHub, sampleReport(), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `::error file=skills/a%2Cb%3Ac/SKILL.md,line=2,col=7,title=ccski name-uppercase::100%25 wrong%0D%0Asecond line (did you mean "a-b"?)
::warning file=skills/a%2Cb%3Ac/SKILL.md,line=505,col=1,title=ccski body-too-long::too long
::notice file=skills/x/SKILL.md,line=3,title=ccski description-angle-brackets::angles
::warning file=skills/y/skill.md,title=ccski lowercase-skill-file::lowercase (did you mean "SKILL.md"?)
1 error, 2 warnings in 3 files (3 skills checked)
`
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestJSONFormat(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, FormatJSON, sampleReport(), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got["version"] != 1.0 || got["profile"] != "spec" {
		t.Errorf("header = %v %v", got["version"], got["profile"])
	}
	if d := cmp.Diff(map[string]any{"files": 3.0, "skills": 3.0, "commands": 0.0, "errors": 1.0, "warnings": 2.0}, got["summary"]); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	fs := got["findings"].([]any)
	first := fs[0].(map[string]any)
	want := map[string]any{"code": "name-uppercase", "severity": "error", "file": "skills/a,b:c/SKILL.md",
		"line": 2.0, "column": 7.0, "message": "100% wrong\r\nsecond line", "suggestion": "a-b"}
	if d := cmp.Diff(want, first); d != "" {
		t.Errorf("finding (-want +got):\n%s", d)
	}
	if _, ok := fs[1].(map[string]any)["suggestion"]; ok {
		t.Error("an empty suggestion is written")
	}

	// No findings is an empty list, never null.
	b.Reset()
	Write(&b, FormatJSON, &Report{Profile: "codex"}, WriteOptions{})
	if !strings.Contains(b.String(), `"findings": []`) {
		t.Errorf("empty report: %s", b.String())
	}
}

// sampleRules is a rule table for the codes of sampleReport, in another
// order, with one rule no finding uses.
func sampleRules() []RuleDoc {
	var out []RuleDoc
	for _, c := range []string{"unused", "lowercase-skill-file", "name-uppercase", "description-angle-brackets",
		"body-too-long"} {
		out = append(out, RuleDoc{Code: c, Summary: "summary of " + c, Help: "help for " + c,
			Severity: SeverityWarning, HelpURI: "https://example.com/rules#" + c})
	}
	return out
}

func TestSARIFFormat(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, FormatSARIF, sampleReport(), WriteOptions{Version: "1.2.3", Rules: sampleRules()}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name, Version string
					Rules         []struct {
						ID               string
						ShortDescription struct{ Text string }
						Help             struct{ Text string }
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("header: %q %q %d runs", log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	d := run.Tool.Driver
	if d.Name != "ccski" || d.Version != "1.2.3" || len(d.Rules) != len(sampleRules()) {
		t.Errorf("driver = %q %q with %d rules", d.Name, d.Version, len(d.Rules))
	}
	for _, r := range d.Rules {
		if r.ID == "" || r.ShortDescription.Text == "" || r.Help.Text == "" {
			t.Errorf("incomplete rule %+v", r)
		}
	}
	if len(run.Results) != 4 {
		t.Fatalf("%d results", len(run.Results))
	}
	for i, res := range run.Results {
		if d.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %d: ruleIndex %d is %s, not %s", i, res.RuleIndex, d.Rules[res.RuleIndex].ID, res.RuleID)
		}
		if len(res.Locations) != 1 || res.Message.Text == "" {
			t.Errorf("result %d: %+v", i, res)
		}
	}
	levels := []string{run.Results[0].Level, run.Results[1].Level, run.Results[2].Level}
	if d := cmp.Diff([]string{"error", "warning", "note"}, levels); d != "" {
		t.Errorf("levels (-want +got):\n%s", d)
	}
	loc := run.Results[0].Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "skills/a,b:c/SKILL.md" || loc.Region == nil ||
		loc.Region.StartLine != 2 || loc.Region.StartColumn != 7 {
		t.Errorf("location = %+v %+v", loc.ArtifactLocation, loc.Region)
	}
	if r := run.Results[3].Locations[0].PhysicalLocation.Region; r != nil {
		t.Errorf("a finding without a line has a region: %+v", r)
	}
	if !strings.Contains(run.Results[0].Message.Text, `did you mean "a-b"`) {
		t.Errorf("message = %q", run.Results[0].Message.Text)
	}
}

func TestFileURI(t *testing.T) {
	for in, want := range map[string]string{
		"skills/a b/SKILL.md": "skills/a%20b/SKILL.md",
		"a:b/SKILL.md":        "./a:b/SKILL.md",
		"/abs/x y/SKILL.md":   "file:///abs/x%20y/SKILL.md",
		"café/SKILL.md":       "caf%C3%A9/SKILL.md",
	} {
		if got := fileURI(in); got != want {
			t.Errorf("fileURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTextFormat(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, FormatText, sampleReport(), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `skills/a,b:c/SKILL.md
  2:7    error    name-uppercase  100% wrong` + "\r\n" + `second line (did you mean "a-b"?)
  505:1  warning  body-too-long   too long

skills/x/SKILL.md
  3  info     description-angle-brackets  angles

skills/y/skill.md
  -  warning  lowercase-skill-file  lowercase (did you mean "SKILL.md"?)

✖ 1 error, 2 warnings in 3 files (3 skills checked)
1 finding can be fixed with --fix (preview with --fix --dry-run).
`
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}

	b.Reset()
	Write(&b, FormatText, sampleReport(), WriteOptions{Color: true, Fixing: true})
	out := b.String()
	if !strings.Contains(out, "\x1b[31merror\x1b[0m") || !strings.Contains(out, "\x1b[1;31m✖ 1 error") {
		t.Errorf("no colour:\n%s", out)
	}
	if strings.Contains(out, "can be fixed") {
		t.Error("the --fix hint is shown while fixing")
	}

	b.Reset()
	Write(&b, FormatText, &Report{Skills: 1}, WriteOptions{})
	if b.String() != "✓ 0 errors, 0 warnings in 0 files (1 skill checked)\n" {
		t.Errorf("clean report: %q", b.String())
	}
}

func TestParseNames(t *testing.T) {
	if _, err := ParseFormat("sarif2"); err == nil ||
		err.Error() != `unknown format "sarif2": use text, json, github, sarif (did you mean "sarif"?)` {
		t.Errorf("ParseFormat(sarif2) = %v", err)
	}
	if _, err := ParseFormat("yaml"); err == nil || err.Error() != `unknown format "yaml": use text, json, github, sarif` {
		t.Errorf("ParseFormat(yaml) = %v", err)
	}
	for _, f := range Formats {
		if got, err := ParseFormat(string(f)); got != f || err != nil {
			t.Errorf("ParseFormat(%s) = %v, %v", f, got, err)
		}
	}
}
