package security

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/testfs"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testdataDir is the absolute path of testdata/.
var testdataDir = func() string {
	d, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return d
}()

// goldenFinding is a finding of a golden file, its path relative to the
// case folder.
type goldenFinding struct {
	Code     string          `json:"code"`
	Severity report.Severity `json:"severity"`
	File     string          `json:"file"`
	Line     int             `json:"line"`
	Column   int             `json:"column"`
	Message  string          `json:"message"`
}

// scanCase copies testdata/<code> (see testfs.CopyCase) and scans its
// fail/ and pass/ skills together, as ccski scan does (so that the rules
// of names compare them), returning the findings of each, paths relative
// to the copy.
func scanCase(t *testing.T, code string) (dir string, fail, pass []goldenFinding) {
	t.Helper()
	dir = filepath.Join(testfs.TempDir(t), code)
	testfs.CopyCase(t, filepath.Join(testdataDir, code), dir)
	s := &Scanner{NoCache: true}
	files := []string{filepath.Join(dir, "fail", "SKILL.md"), filepath.Join(dir, "pass", "SKILL.md")}
	fail, pass = []goldenFinding{}, []goldenFinding{}
	for _, f := range Run(context.Background(), s, files, nil).Findings {
		rel, err := filepath.Rel(dir, f.File)
		if err != nil {
			t.Fatal(err)
		}
		g := goldenFinding{Code: f.Code, Severity: f.Severity, File: filepath.ToSlash(rel),
			Line: f.Line, Column: f.Column, Message: strings.ReplaceAll(f.Message, dir, "$CASE")}
		if g.File == "pass" || strings.HasPrefix(g.File, "pass/") {
			pass = append(pass, g)
		} else {
			fail = append(fail, g)
		}
	}
	return dir, fail, pass
}

// TestRuleCases checks every rule against its testdata folder: fail/
// must produce the rule's finding, with the rule's severity; pass/ must
// produce no finding at all; both must match their golden findings.
func TestRuleCases(t *testing.T) {
	for _, r := range Rules() {
		t.Run(r.Code, func(t *testing.T) {
			_, fail, pass := scanCase(t, r.Code)
			has := false
			for _, f := range fail {
				if f.Code == r.Code {
					has = true
					if f.Severity != r.Severity {
						t.Errorf("fail/: %s has severity %s, the rule %s", f.Code, f.Severity, r.Severity)
					}
				}
			}
			if !has {
				t.Errorf("fail/ does not produce %s: %+v", r.Code, fail)
			}
			if len(pass) > 0 {
				t.Errorf("pass/ has findings: %+v", pass)
			}
			checkGolden(t, filepath.Join(testdataDir, r.Code, "fail.json"), fail)
		})
	}
}

// checkGolden compares got with the golden file, or rewrites it with
// -update.
func checkGolden(t *testing.T, path string, got []goldenFinding) {
	t.Helper()
	if *update {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/security -run RuleCases -update to create it)", err)
	}
	var want []goldenFinding
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, d)
	}
}

// TestEveryTestdataFolderIsARule keeps testdata/ and the table in step.
func TestEveryTestdataFolderIsARule(t *testing.T) {
	ents, err := os.ReadDir(testdataDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == "corpus" {
			continue // the measure of the whole scan (TestCorpus)
		}
		if _, ok := Lookup(e.Name()); e.IsDir() && !ok {
			t.Errorf("testdata/%s names no rule", e.Name())
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTable checks the table's invariants: unique kebab-case codes (that
// no validate rule uses either: internal/action's TestScanRules), known groups
// and severities, one check each, a one-line title without a full stop
// and a documentation sentence.
func TestTable(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	groups := []string{"injection", "hidden", "shell", "code", "secrets", "size", "names"}
	seen := map[string]bool{}
	for _, r := range Rules() {
		if !kebab.MatchString(r.Code) || seen[r.Code] {
			t.Errorf("code %q is not unique kebab-case", r.Code)
		}
		seen[r.Code] = true
		if !slices.Contains(groups, r.Group) {
			t.Errorf("%s: unknown group %q", r.Code, r.Group)
		}
		if !slices.Contains([]report.Severity{report.SeverityError, report.SeverityWarning, report.SeverityInfo}, r.Severity) {
			t.Errorf("%s: bad severity %q", r.Code, r.Severity)
		}
		if checks := btoi(r.file != nil) + btoi(r.skill != nil) + btoi(r.names != nil); checks != 1 {
			t.Errorf("%s: needs exactly one of a file check, a skill check and a names check", r.Code)
		}
		if r.Title == "" || strings.HasSuffix(r.Title, ".") || strings.Contains(r.Title, "\n") {
			t.Errorf("%s: title %q is not one line without a full stop", r.Code, r.Title)
		}
		if !strings.HasSuffix(r.Doc, ".") || strings.Contains(r.Doc, "\n") {
			t.Errorf("%s: doc %q is not one sentence", r.Code, r.Doc)
		}
	}
	docs := RuleDocs()
	if len(docs) != len(rules) {
		t.Errorf("RuleDocs has %d rules, want %d", len(docs), len(rules))
	}
	for i, d := range docs {
		if r := rules[i]; d.Code != r.Code || d.Summary != r.Title || d.Help != r.Doc || d.Severity != r.Severity ||
			d.HelpURI != DocsURL+"#"+r.Code {
			t.Errorf("RuleDocs()[%d] = %+v, not rule %s", i, d, r.Code)
		}
	}
}

// TestDocsTable checks that docs/security-rules.md has one row per rule,
// in the table's order and under its group, with its severity, title and
// doc, and nothing else.
func TestDocsTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testdataDir, "..", "..", "..", "docs", "security-rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	cell := `((?:[^|\\]|\\.)+)` // a cell's text, with \| for a bar
	row := regexp.MustCompile("^\\| <a id=\"([a-z0-9-]+)\"></a>`([a-z0-9-]+)` \\| (\\w+) \\| " + cell + " \\| " + cell + " \\|$")
	heading := regexp.MustCompile(`^\| \*\*([a-z]+)\*\* \|`)
	var got []string
	group := ""
	for _, line := range strings.Split(string(b), "\n") {
		if h := heading.FindStringSubmatch(line); h != nil {
			group = h[1]
			continue
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			if strings.Contains(line, `<a id="`) {
				t.Errorf("malformed row: %s", line)
			}
			continue
		}
		r, ok := Lookup(m[2])
		if !ok || m[1] != m[2] {
			t.Errorf("row for an unknown or mislabelled code: %s", line)
			continue
		}
		got = append(got, r.Code)
		if group != r.Group {
			t.Errorf("%s is listed under %q, but its group is %q", r.Code, group, r.Group)
		}
		if report.Severity(m[3]) != r.Severity {
			t.Errorf("%s: docs say %s, the table %s", r.Code, m[3], r.Severity)
		}
		if title, doc := unescapeCell(m[4]), unescapeCell(m[5]); title != r.Title || doc != r.Doc {
			t.Errorf("%s: docs say %q / %q, the table %q / %q", r.Code, title, doc, r.Title, r.Doc)
		}
	}
	var want []string
	for _, r := range Rules() {
		want = append(want, r.Code)
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/security-rules.md lists %v, the table %v", got, want)
	}
}

// unescapeCell reads a table cell: trimmed, with the Markdown escapes of
// |, <, >, *, _, `, !, [, ] and \ undone.
func unescapeCell(s string) string {
	return cellEscape.ReplaceAllString(strings.TrimSpace(s), "$1")
}

var cellEscape = regexp.MustCompile("\\\\([|<>*_`!\\[\\]\\\\])")
