package security

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/report"
)

// The corpus (testdata/corpus) is the measure of the scan: skills written
// to attack the agent or the user, in malicious/<behaviour>/<sample>/, and
// skills that look risky but are not, in benign/<kind>/<sample>/, labelled
// by someone who did not see the rules. TestCorpus scans every one and
// checks the targets of issue 21 (point 11); with -update it writes
// docs/scanner-accuracy.md, which must otherwise equal what the scan
// gives, so that the published figures cannot go stale:
//
//	go test ./internal/security -run TestCorpus -update

// Targets on the corpus: recall as errors (what mcp.scan: block withholds)
// for each behaviour, false positives as errors, and the corpus's size.
const (
	minRecall      = 0.90
	maxFalsePos    = 0.03
	minMalicious   = 150
	minPerBehavior = 40
	minBenign      = 150
)

// behaviours are the three kinds of attack published benchmarks use.
var behaviours = []string{"exec", "exfil", "hijack"}

var behaviourNames = map[string]string{
	"exec":   "code execution",
	"exfil":  "data exfiltration",
	"hijack": "agent hijacking",
}

// corpusSample is one skill of the corpus and what the scan found in it.
type corpusSample struct {
	set   string // "malicious" or "benign"
	class string // the behaviour, or the benign kind
	name  string
	// errors and warnings are the codes of the findings of each severity,
	// sorted, without repeats.
	errors, warnings []string
}

func (s corpusSample) path() string { return s.set + "/" + s.class + "/" + s.name }

// flagged reports whether the sample has an error, or with warnings an
// error or a warning.
func (s corpusSample) flagged(warnings bool) bool {
	return len(s.errors) > 0 || warnings && len(s.warnings) > 0
}

// scanCorpus scans every skill of testdata/corpus.
func scanCorpus(t *testing.T) []corpusSample {
	t.Helper()
	root := filepath.Join(testdataDir, "corpus")
	var samples []corpusSample
	var files []string
	for _, set := range []string{"malicious", "benign"} {
		classes, err := os.ReadDir(filepath.Join(root, set))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, c := range classes {
			if !c.IsDir() {
				continue
			}
			if set == "malicious" && !slices.Contains(behaviours, c.Name()) {
				t.Errorf("corpus/malicious/%s is not a behaviour (%v)", c.Name(), behaviours)
				continue
			}
			names, err := os.ReadDir(filepath.Join(root, set, c.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if !n.IsDir() {
					continue
				}
				file := filepath.Join(root, set, c.Name(), n.Name(), "SKILL.md")
				if _, err := os.Stat(file); err != nil {
					t.Errorf("corpus/%s/%s/%s has no SKILL.md", set, c.Name(), n.Name())
					continue
				}
				samples = append(samples, corpusSample{set: set, class: c.Name(), name: n.Name()})
				files = append(files, file)
			}
		}
	}
	found := (&Scanner{NoCache: true}).Skills(context.Background(), files)
	for i, fs := range found {
		for _, f := range fs {
			switch f.Severity {
			case report.SeverityError:
				samples[i].errors = append(samples[i].errors, f.Code)
			case report.SeverityWarning:
				samples[i].warnings = append(samples[i].warnings, f.Code)
			}
		}
		slices.Sort(samples[i].errors)
		samples[i].errors = slices.Compact(samples[i].errors)
		slices.Sort(samples[i].warnings)
		samples[i].warnings = slices.Compact(samples[i].warnings)
	}
	return samples
}

// score is the measure of one set of malicious samples against the
// benign ones, at one level (errors, or errors and warnings).
type score struct {
	n, caught   int // malicious samples, and those flagged
	benign, fps int // benign samples, and those flagged
}

func (s score) recall() float64 { return ratio(s.caught, s.n) }
func (s score) fpRate() float64 { return ratio(s.fps, s.benign) }
func (s score) precision() float64 {
	return ratio(s.caught, s.caught+s.fps)
}
func (s score) f1() float64 {
	p, r := s.precision(), s.recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// scoreOf measures the malicious samples of behaviour (all of them for
// "") against every benign sample.
func scoreOf(samples []corpusSample, behaviour string, warnings bool) score {
	var s score
	for _, c := range samples {
		switch {
		case c.set == "benign":
			s.benign++
			if c.flagged(warnings) {
				s.fps++
			}
		case behaviour == "" || c.class == behaviour:
			s.n++
			if c.flagged(warnings) {
				s.caught++
			}
		}
	}
	return s
}

// accuracyPath is the published measure.
var accuracyPath = filepath.Join(testdataDir, "..", "..", "..", "docs", "scanner-accuracy.md")

// TestCorpus scans the corpus, checks its size and the targets, and
// checks that docs/scanner-accuracy.md says what the scan gives.
func TestCorpus(t *testing.T) {
	samples := scanCorpus(t)
	all := scoreOf(samples, "", false)
	if all.n < minMalicious {
		t.Errorf("the corpus has %d malicious samples, want at least %d", all.n, minMalicious)
	}
	if all.benign < minBenign {
		t.Errorf("the corpus has %d benign samples, want at least %d", all.benign, minBenign)
	}
	for _, b := range behaviours {
		s := scoreOf(samples, b, false)
		if s.n < minPerBehavior {
			t.Errorf("corpus/malicious/%s has %d samples, want at least %d", b, s.n, minPerBehavior)
		}
		if s.recall() < minRecall {
			t.Errorf("%s: %d of %d caught as errors (%s), want at least %s; missed: %s", b, s.caught, s.n,
				percent(s.recall()), percent(minRecall), strings.Join(missed(samples, b), ", "))
		}
	}
	if all.benign > 0 && all.fpRate() > maxFalsePos {
		var fps []string
		for _, c := range samples {
			if c.set == "benign" && c.flagged(false) {
				fps = append(fps, c.path()+" "+strings.Join(c.errors, ","))
			}
		}
		t.Errorf("%d of %d benign samples are errors (%s), want at most %s: %s", all.fps, all.benign,
			percent(all.fpRate()), percent(maxFalsePos), strings.Join(fps, "; "))
	}

	doc := accuracyDoc(samples)
	if *update {
		if err := os.WriteFile(accuracyPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(accuracyPath)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/security -run TestCorpus -update to write it)", err)
	}
	if string(b) != doc {
		t.Errorf("docs/scanner-accuracy.md is not what the scan of the corpus gives: run go test " +
			"./internal/security -run TestCorpus -update and commit it")
	}
}

// missed lists the malicious samples of behaviour that are not errors.
func missed(samples []corpusSample, behaviour string) []string {
	var out []string
	for _, c := range samples {
		if c.set == "malicious" && c.class == behaviour && !c.flagged(false) {
			out = append(out, c.name)
		}
	}
	return out
}

func percent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// accuracyDoc writes docs/scanner-accuracy.md.
func accuracyDoc(samples []corpusSample) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	all := scoreOf(samples, "", false)
	p("# Scanner accuracy\n\n")
	p("<!-- Generated by `go test ./internal/security -run TestCorpus -update`; a test fails when it is stale. -->\n\n")
	p("How well [`ccski scan`](security-rules.md) tells malicious skills from benign ones, measured on the "+
		"labelled corpus in [internal/security/testdata/corpus](../internal/security/testdata/corpus): "+
		"%d malicious skills and %d benign ones, scanned with rule set version **%d**. "+
		"Errors are what `ccski mcp` with `mcp.scan: block` keeps from agents; warnings are only reported.\n\n",
		all.n, all.benign, RulesVersion)
	p("A malicious sample counts as caught when the scan reports at least one finding of the level on " +
		"it (any rule, in any file of the skill), a benign one as a false positive likewise. For each " +
		"behaviour, precision and F1 weigh its malicious samples against every benign sample.\n\n")
	for _, level := range []struct {
		title    string
		warnings bool
	}{{"Errors only", false}, {"Errors and warnings", true}} {
		a := scoreOf(samples, "", level.warnings)
		p("## %s\n\n", level.title)
		p("| behaviour | samples | caught | recall | precision | F1 |\n|---|--:|--:|--:|--:|--:|\n")
		for _, bh := range behaviours {
			s := scoreOf(samples, bh, level.warnings)
			p("| %s (`%s`) | %d | %d | %s | %s | %.3f |\n", behaviourNames[bh], bh, s.n, s.caught,
				percent(s.recall()), percent(s.precision()), s.f1())
		}
		p("| **all** | %d | %d | %s | %s | %.3f |\n\n", a.n, a.caught, percent(a.recall()),
			percent(a.precision()), a.f1())
		p("False positives: %d of %d benign samples (%s).\n\n", a.fps, a.benign, percent(a.fpRate()))
	}
	p("## Malicious samples that are not errors\n\n")
	n := 0
	for _, c := range samples {
		if c.set != "malicious" || c.flagged(false) {
			continue
		}
		n++
		what := "nothing"
		if len(c.warnings) > 0 {
			what = "warnings: " + strings.Join(c.warnings, ", ")
		}
		p("- `%s`: %s\n", c.path(), what)
	}
	if n == 0 {
		p("None.\n")
	}
	p("\n## Benign samples with findings\n\n")
	n = 0
	for _, c := range samples {
		if c.set != "benign" || !c.flagged(true) {
			continue
		}
		n++
		var what []string
		if len(c.errors) > 0 {
			what = append(what, "errors: "+strings.Join(c.errors, ", "))
		}
		if len(c.warnings) > 0 {
			what = append(what, "warnings: "+strings.Join(c.warnings, ", "))
		}
		p("- `%s`: %s\n", c.path(), strings.Join(what, "; "))
	}
	if n == 0 {
		p("None.\n")
	}
	return b.String()
}
