package integration

// Tests of "ccski validate": the binary on every rule tree of
// validate/testdata, in every format and profile, and --fix end to end.
// They run the binary TestMain builds (see main_test.go).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// validateCases is validate/testdata: one folder per rule with fail/,
// pass/ and their golden findings.
const validateCases = "../validate/testdata"

var (
	validateOnce sync.Once
	validateErr  error
)

// checkValidateCommand checks, once, that the binary TestMain built has
// the validate command, and registers the sources (see registerSources).
func checkValidateCommand(t *testing.T) {
	t.Helper()
	registerSourcesOnce(t)
	validateOnce.Do(func() {
		if out, err := exec.Command(binary, "validate", "--help").CombinedOutput(); err != nil {
			validateErr = errors.New("the binary has no validate command (newValidate must be added to newRoot " +
				"in cmd/ccski/app.go): " + string(out))
		}
	})
	if validateErr != nil {
		t.Fatal(validateErr)
	}
}

// runValidate runs "ccski validate args..." in dir with a clean
// environment.
func runValidate(t *testing.T, dir string, args ...string) result {
	t.Helper()
	checkValidateCommand(t)
	vars := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TMPDIR=" + os.TempDir()}
	return runBinary(t, dir, vars, append([]string{"validate"}, args...)...)
}

// copyValidateCase copies validate/testdata/<code> into a temporary
// folder and creates the symlinks its symlinks.txt lists.
func copyValidateCase(t *testing.T, code string) string {
	t.Helper()
	src := filepath.Join(validateCases, code)
	dst := filepath.Join(t.TempDir(), code)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(filepath.Join(dst, "symlinks.txt")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			link, target, _ := strings.Cut(line, " -> ")
			p := filepath.Join(dst, filepath.FromSlash(link))
			os.Remove(p)
			if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}

// goldenValidate is one finding of a golden file, with its severity under
// each profile.
type goldenValidate struct {
	Code, File   string
	Line, Column int
	Message      string
	Suggestion   string
	Severity     map[string]string
}

func readGoldenValidate(t *testing.T, code, kind string) []goldenValidate {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(validateCases, code, kind+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenValidate
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// reportJSON is the --format json document.
type reportJSON struct {
	Version  int
	Profile  string
	Summary  struct{ Files, Skills, Errors, Warnings int }
	Findings []struct {
		Code, Severity, File string
		Line, Column         int
		Message, Suggestion  string
	}
}

var (
	githubLine = regexp.MustCompile(`^::(error|warning|notice) file=[^,:]+(,line=\d+(,col=\d+)?)?,title=ccski [a-z0-9-]+::.+$`)
	summaryRe  = regexp.MustCompile(`(\d+) errors?, (\d+) warnings? in (\d+) files? \((\d+) skills? checked\)`)
)

// TestValidateRuleTrees runs the binary on the fail/ and pass/ tree of
// every rule, in every format under the default profile and in JSON under
// every profile, and checks the exit code and the findings against the
// golden files.
func TestValidateRuleTrees(t *testing.T) {
	checkValidateCommand(t)
	ents, err := os.ReadDir(validateCases)
	if err != nil {
		t.Fatal(err)
	}
	rules := 0
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(validateCases, e.Name(), "fail.json")); err != nil {
			continue // not a rule folder (fuzz/ holds go test -fuzz inputs)
		}
		rules++
		code := e.Name()
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			dir := copyValidateCase(t, code)
			for _, kind := range []string{"fail", "pass"} {
				golden := readGoldenValidate(t, code, kind)
				for _, profile := range []string{"spec", "claude", "codex", "strict"} {
					checkProfile(t, dir, kind, profile, golden)
				}
				checkFormats(t, dir, kind, golden)
			}
		})
	}
	if rules < 50 {
		t.Errorf("only %d rule folders in %s", rules, validateCases)
	}
}

// expected returns the golden findings reported under profile and the
// exit code they give.
func expected(golden []goldenValidate, profile string) ([]goldenValidate, int) {
	var out []goldenValidate
	code := 0
	for _, g := range golden {
		switch g.Severity[profile] {
		case "off":
			continue
		case "error":
			code = 1
		}
		out = append(out, g)
	}
	return out, code
}

func checkProfile(t *testing.T, dir, kind, profile string, golden []goldenValidate) {
	t.Helper()
	want, wantCode := expected(golden, profile)
	r := runValidate(t, dir, "--format", "json", "--profile", profile, kind)
	if r.code != wantCode {
		t.Fatalf("want exit %d\n%s", wantCode, r)
	}
	var rep reportJSON
	decodeOnly(t, r, &rep)
	if rep.Version != 1 || rep.Profile != profile || len(rep.Findings) != len(want) {
		t.Fatalf("want %d findings under %s, got %+v\n%s", len(want), profile, rep, r)
	}
	errs, warns := 0, 0
	for i, f := range rep.Findings {
		g := want[i]
		if f.Code != g.Code || filepath.ToSlash(f.File) != g.File || f.Line != g.Line || f.Column != g.Column ||
			f.Severity != g.Severity[profile] || f.Message != g.Message || f.Suggestion != g.Suggestion {
			t.Errorf("%s finding %d = %+v, want %+v", profile, i, f, g)
		}
		switch f.Severity {
		case "error":
			errs++
		case "warning":
			warns++
		}
	}
	if rep.Summary.Errors != errs || rep.Summary.Warnings != warns || rep.Summary.Skills == 0 && kind == "pass" {
		t.Errorf("summary %+v for %d errors, %d warnings", rep.Summary, errs, warns)
	}
}

func checkFormats(t *testing.T, dir, kind string, golden []goldenValidate) {
	t.Helper()
	want, wantCode := expected(golden, "spec")

	r := runValidate(t, dir, kind)
	if r.code != wantCode {
		t.Fatalf("text: want exit %d\n%s", wantCode, r)
	}
	m := summaryRe.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("text: no summary line\n%s", r)
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("text: colour on a pipe\n%s", r)
	}
	for _, g := range want {
		if !strings.Contains(r.stdout, g.Message) {
			t.Errorf("text: lacks %q\n%s", g.Message, r)
		}
	}
	if (r.code == 1) != (r.stderr != "") {
		t.Errorf("text: stderr should explain a failure, and only a failure\n%s", r)
	}

	r = runValidate(t, dir, "--format", "github", kind)
	if r.code != wantCode {
		t.Fatalf("github: want exit %d\n%s", wantCode, r)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != len(want)+1 || !summaryRe.MatchString(lines[len(lines)-1]) {
		t.Fatalf("github: want %d annotations and a summary\n%s", len(want), r)
	}
	for i, l := range lines[:len(want)] {
		if !githubLine.MatchString(l) || !strings.Contains(l, "title=ccski "+want[i].Code+"::") {
			t.Errorf("github: bad annotation %q for %s", l, want[i].Code)
		}
	}

	r = runValidate(t, dir, "--format", "sarif", kind)
	if r.code != wantCode {
		t.Fatalf("sarif: want exit %d\n%s", wantCode, r)
	}
	var log struct {
		Version string
		Runs    []struct {
			Tool    struct{ Driver struct{ Name string } }
			Results []struct {
				RuleID    string
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	decodeOnly(t, r, &log)
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "ccski" ||
		len(log.Runs[0].Results) != len(want) {
		t.Fatalf("sarif: bad log\n%s", r)
	}
	levels := map[string]string{"error": "error", "warning": "warning", "info": "note"}
	for i, res := range log.Runs[0].Results {
		g := want[i]
		loc := res.Locations[0].PhysicalLocation
		if res.RuleID != g.Code || res.Level != levels[g.Severity["spec"]] ||
			strings.HasPrefix(loc.ArtifactLocation.URI, "/") || strings.HasPrefix(loc.ArtifactLocation.URI, "file:") ||
			(g.Line > 0) != (loc.Region != nil) || loc.Region != nil && loc.Region.StartLine != g.Line {
			t.Errorf("sarif: result %d = %+v, want %+v", i, res, g)
		}
	}
}

// TestValidateFix runs --fix --dry-run, --fix and --fix again on the fail
// trees of the fixable rules: the dry run writes nothing, the fix clears
// the fixable findings without touching a byte of any body, and the
// second fix changes nothing.
func TestValidateFix(t *testing.T) {
	checkValidateCommand(t)
	for _, code := range []string{"byte-order-mark", "leading-blank-line", "crlf-line-endings",
		"delimiter-trailing-space", "unquoted-colon", "unknown-key"} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			dir := copyValidateCase(t, code)
			before := snapshotFiles(t, filepath.Join(dir, "fail"))

			// The dry run reports what would remain; the diff goes to
			// stderr so that stdout stays JSON.
			r := runValidate(t, dir, "--fix", "--dry-run", "--format", "json", "fail")
			checkFixed(t, r, code)
			if !strings.Contains(r.stderr, "would fix fail/") || !strings.Contains(r.stderr, "\n--- a/fail/") {
				t.Errorf("dry run: no diff on stderr\n%s", r)
			}
			if d := diffFiles(before, snapshotFiles(t, filepath.Join(dir, "fail"))); d != "" {
				t.Fatalf("--dry-run wrote %s", d)
			}

			r = runValidate(t, dir, "--fix", "--format", "json", "fail")
			checkFixed(t, r, code)
			if !strings.Contains(r.stderr, "fixed fail/") {
				t.Errorf("the fix report is not on stderr\n%s", r)
			}
			after := snapshotFiles(t, filepath.Join(dir, "fail"))
			for name, b := range before {
				if !bytes.Equal(bodyAfterFrontmatter(b), bodyAfterFrontmatter(after[name])) {
					t.Errorf("%s: the body changed:\n%q\n%q", name, b, after[name])
				}
			}

			r = runValidate(t, dir, "--fix", "fail")
			if strings.Contains(r.stdout, "fixed ") {
				t.Errorf("a second --fix changed something\n%s", r)
			}
			if d := diffFiles(after, snapshotFiles(t, filepath.Join(dir, "fail"))); d != "" {
				t.Errorf("a second --fix changed %s", d)
			}
		})
	}
}

// checkFixed checks that the report r printed has no finding of code left
// but unknown keys that are likely typos, which --fix leaves to a person.
func checkFixed(t *testing.T, r result, code string) {
	t.Helper()
	var rep reportJSON
	decodeOnly(t, r, &rep)
	for _, f := range rep.Findings {
		if f.Code == code && !(code == "unknown-key" && strings.Contains(f.Message, "did you mean")) {
			t.Errorf("still reported after the fix: %+v", f)
		}
	}
}

// snapshotFiles reads every regular file below dir.
func snapshotFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out[p], _ = os.ReadFile(p)
		}
		return err
	})
	return out
}

func diffFiles(a, b map[string][]byte) string {
	var changed []string
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			changed = append(changed, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			changed = append(changed, k+" (new)")
		}
	}
	slices.Sort(changed)
	return strings.Join(changed, ", ")
}

// bodyAfterFrontmatter returns what follows the line closing the
// frontmatter (the second line that is --- once trailing white space is
// removed), or the whole file when there is none.
func bodyAfterFrontmatter(b []byte) []byte {
	seen, off := 0, 0
	for off < len(b) {
		end := bytes.IndexByte(b[off:], '\n')
		next := len(b)
		if end >= 0 {
			next = off + end + 1
		}
		line := bytes.TrimPrefix(bytes.TrimRight(b[off:next], " \t\r\n"), []byte("\ufeff"))
		if string(line) == "---" {
			if seen++; seen == 2 {
				return b[next:]
			}
		}
		off = next
	}
	return b
}

// TestValidateCLI covers the command-line contract: usage errors (with a
// JSON error object under --format json), --max-warnings, the --json
// alias and a PATH given as a file.
func TestValidateCLI(t *testing.T) {
	dir := copyValidateCase(t, "crlf-line-endings") // fail/: one warning
	bad := copyValidateCase(t, "name-uppercase")    // fail/: errors

	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"--profile", "nope", "fail"}, 2},
		{[]string{"--format", "nope", "fail"}, 2},
		{[]string{"--dry-run", "fail"}, 2},
		{[]string{"missing"}, 2},
		{[]string{"--max-warnings", "x", "fail"}, 2},
		{[]string{"--skill-dir", "pass", "fail"}, 2},
		{[]string{"fail"}, 0},
		{[]string{"--max-warnings", "1", "fail"}, 0},
		{[]string{"--max-warnings", "0", "fail"}, 1},
		{[]string{"--profile", "strict", "--max-warnings", "0", "pass"}, 0},
		{[]string{"fail/windows-notes/SKILL.md"}, 0},
		{[]string{"fail", "fail/windows-notes"}, 0}, // one skill, checked once
	} {
		if r := runValidate(t, dir, tt.args...); r.code != tt.code {
			t.Errorf("want exit %d\n%s", tt.code, r)
		}
	}

	// A usage error under --format json is a JSON object on stdout.
	for _, args := range [][]string{{"--format", "json", "missing"}, {"--json", "--profile", "nope", "fail"}} {
		r := runValidate(t, dir, args...)
		var je struct{ Error, Code string }
		decodeOnly(t, r, &je)
		if r.code != 2 || je.Code != "usage" || je.Error == "" {
			t.Errorf("want a JSON usage error\n%s", r)
		}
	}

	// A failing run prints one JSON document, the report, under --json
	// as under --format json.
	for _, args := range [][]string{{"--json", "fail"}, {"--format", "json", "fail"}} {
		r := runValidate(t, bad, args...)
		var rep reportJSON
		decodeOnly(t, r, &rep)
		if r.code != 1 || rep.Summary.Errors == 0 || !strings.Contains(r.stderr, "validation failed") {
			t.Errorf("want exit 1 with a report\n%s", r)
		}
	}

	// A file PATH and its folder give the same findings.
	a := runValidate(t, bad, "--format", "json", "fail/Release-Notes/SKILL.md")
	b := runValidate(t, bad, "--format", "json", "fail/Release-Notes")
	if a.stdout != b.stdout || a.code != 1 {
		t.Errorf("file and folder differ:\n%s\n%s", a, b)
	}
}
