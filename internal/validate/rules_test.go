package validate

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/report"
)

// TestRuleCases checks every rule against its testdata folder: fail/ must
// produce the rule's finding under at least one profile, pass/ must not
// produce it, nor any error under a profile that reports the rule, and
// both must match
// their golden findings, with the severity under every profile.
func TestRuleCases(t *testing.T) {
	for _, r := range Rules() {
		t.Run(r.Code, func(t *testing.T) {
			dir := copyCase(t, r.Code)
			t.Chdir(dir)
			for _, kind := range []string{"fail", "pass"} {
				got := validateAll(t, kind)
				has := false
				for _, f := range got {
					if f.Code != r.Code {
						continue
					}
					has = true
					for _, p := range Profiles {
						if want := r.Severity(p); *f.Severity.at(p) != want {
							t.Errorf("%s: %s under %s is %s, want the rule's %s", kind, f.Code, p, *f.Severity.at(p), want)
						}
					}
				}
				if kind == "fail" && !has {
					t.Errorf("fail/ does not produce %s: %+v", r.Code, got)
				}
				if kind == "pass" {
					if has {
						t.Errorf("pass/ produces %s", r.Code)
					}
					for _, f := range got {
						for _, p := range Profiles[:3] { // strict reports everything
							if r.Severity(p) != report.SeverityOff && *f.Severity.at(p) == report.SeverityError {
								t.Errorf("pass/ has an error under %s: %s %s", p, f.Code, f.Message)
							}
						}
					}
				}
				checkGolden(t, filepath.Join(testdataDir, r.Code, kind+".json"), got)
			}
		})
	}
}

// testdataDir is the absolute path of testdata/, fixed before any test
// changes folder.
var testdataDir = func() string {
	d, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return d
}()

// TestEveryTestdataFolderIsARule keeps testdata/ and the catalog in step.
func TestEveryTestdataFolderIsARule(t *testing.T) {
	ents, err := os.ReadDir(testdataDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, ok := Lookup(e.Name()); !ok && e.Name() != "fuzz" { // fuzz: go test -fuzz regressions
			t.Errorf("testdata/%s names no rule", e.Name())
		}
	}
}

// TestCatalog checks the catalog's invariants: kebab-case unique codes,
// known severities, strict at least as severe as every other profile,
// and text that says what is wrong and how to fix it.
func TestCatalog(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, r := range Rules() {
		if !kebab.MatchString(r.Code) || seen[r.Code] {
			t.Errorf("code %q is not unique kebab-case", r.Code)
		}
		seen[r.Code] = true
		for _, p := range Profiles {
			if !slices.Contains([]report.Severity{report.SeverityError, report.SeverityWarning, report.SeverityInfo, report.SeverityOff}, r.Severity(p)) {
				t.Errorf("%s: bad severity %q under %s", r.Code, r.Severity(p), p)
			}
			if r.Strict.Rank() < r.Severity(p).Rank() {
				t.Errorf("%s: strict (%s) is milder than %s (%s)", r.Code, r.Strict, p, r.Severity(p))
			}
		}
		if r.Summary == "" || r.Help == "" || strings.HasSuffix(r.Summary, ".") {
			t.Errorf("%s: summary %q / help %q", r.Code, r.Summary, r.Help)
		}
	}
}

// TestDocsTable checks that docs/validate.md lists every code once, under
// the heading row of its group, with the catalog's summary, help,
// severities and --fix mark, and nothing else.
func TestDocsTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testdataDir, "..", "..", "..", "docs", "validate.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| <a id=\"([a-z0-9-]+)\"></a>`([a-z0-9-]+)` \\| ([^|]+) \\| ([^|]+) \\| (\\w+) \\| (\\w+) \\| (\\w+) \\| (\\w+) \\|$")
	heading := regexp.MustCompile(`^\| \*\*([a-z]+)\*\* \|`)
	seen := map[string]bool{}
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
		if !ok || m[1] != m[2] || seen[m[2]] {
			t.Errorf("row for unknown, mislabelled or repeated code: %s", line)
			continue
		}
		seen[m[2]] = true
		if group != r.Group {
			t.Errorf("%s is listed under %q, but its group is %q", r.Code, group, r.Group)
		}
		if summary, help := strings.TrimSpace(m[3]), strings.TrimSuffix(strings.TrimSpace(m[4]), " (`--fix`)"); summary != r.Summary || help != r.Help {
			t.Errorf("%s: docs say %q / %q, the catalog %q / %q", r.Code, summary, help, r.Summary, r.Help)
		}
		got := []report.Severity{report.Severity(m[5]), report.Severity(m[6]), report.Severity(m[7]), report.Severity(m[8])}
		if want := []report.Severity{r.Spec, r.Claude, r.Codex, r.Strict}; !slices.Equal(got, want) {
			t.Errorf("%s: docs say %v, the catalog %v", r.Code, got, want)
		}
		if strings.Contains(m[4], "`--fix`") != r.Fixable {
			t.Errorf("%s: the --fix mark disagrees with the catalog", r.Code)
		}
	}
	for _, r := range Rules() {
		if !seen[r.Code] {
			t.Errorf("docs/validate.md has no row for %s", r.Code)
		}
	}
}
