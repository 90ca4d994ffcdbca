package validate

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/report"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// copyCase copies testdata/<code> into a temporary folder, creates the
// symlinks its symlinks.txt lists, and returns the copy's path.
func copyCase(t testing.TB, code string) string {
	t.Helper()
	src := filepath.Join("testdata", code)
	dst := filepath.Join(t.TempDir(), code)
	if err := copyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	if err := makeSymlinks(dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// copyTree copies the regular files and folders of src into dst, byte for
// byte.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// makeSymlinks creates the "LINK -> TARGET" lines of dir/symlinks.txt.
func makeSymlinks(dir string) error {
	f, err := os.Open(filepath.Join(dir, "symlinks.txt"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		link, target, _ := strings.Cut(line, " -> ")
		p := filepath.Join(dir, filepath.FromSlash(link))
		os.Remove(p) // a placeholder file, if any
		if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
			return err
		}
	}
	return sc.Err()
}

// goldenFinding is a finding with its severity under every profile ("off"
// where the profile does not report it).
type goldenFinding struct {
	Code       string     `json:"code"`
	File       string     `json:"file"`
	Line       int        `json:"line"`
	Column     int        `json:"column"`
	Message    string     `json:"message"`
	Suggestion string     `json:"suggestion,omitempty"`
	Severity   severities `json:"severity"`
}

// severities holds a finding's severity under each profile, in profile
// order.
type severities struct {
	Spec   report.Severity `json:"spec"`
	Claude report.Severity `json:"claude"`
	Codex  report.Severity `json:"codex"`
	Strict report.Severity `json:"strict"`
}

func (s *severities) at(p Profile) *report.Severity {
	switch p {
	case ProfileClaude:
		return &s.Claude
	case ProfileCodex:
		return &s.Codex
	case ProfileStrict:
		return &s.Strict
	}
	return &s.Spec
}

// caseArgs reads the flags a rule case needs from args.txt in the current
// folder (the case's copy), when there is one: --kind KIND, --fix and
// --dry-run, as the integration tests pass them to the binary. The
// current folder is the home there, so its .claude and .codex hold the
// managed trees.
func caseArgs(t testing.TB) (Kind, Options) {
	t.Helper()
	kind, opt := KindSkill, Options{}
	b, err := os.ReadFile("args.txt")
	if os.IsNotExist(err) {
		return kind, opt
	}
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(string(b))
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--kind":
			if i++; i == len(args) {
				t.Fatal("args.txt: --kind needs a value")
			}
			if kind, err = ParseKind(args[i]); err != nil {
				t.Fatal(err)
			}
		case "--fix":
			opt.Fix = true
		case "--dry-run":
			opt.DryRun = true
		default:
			t.Fatalf("args.txt: unknown flag %q", args[i])
		}
	}
	home, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	opt.Managed = ManagedTrees(filepath.Join(home, ".claude"), filepath.Join(home, ".codex"))
	return kind, opt
}

// validateAll validates path (relative to the current folder) under every
// profile, with the flags of the case's args.txt, and merges the findings
// into one list.
func validateAll(t testing.TB, path string) []goldenFinding {
	t.Helper()
	kind, opt := caseArgs(t)
	targets, pre, err := Collect(context.Background(), []string{path}, kind)
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenFinding
	index := map[report.Finding]int{}
	for _, p := range Profiles {
		opt.Profile = p
		rep, _ := Run(context.Background(), targets, pre, opt)
		for _, f := range rep.Findings {
			f.File = filepath.ToSlash(f.File)
			sev := f.Severity
			f.Severity, f.Fixable = "", false
			i, ok := index[f]
			if !ok {
				i = len(out)
				index[f] = i
				out = append(out, goldenFinding{Code: f.Code, File: f.File, Line: f.Line, Column: f.Column,
					Message: f.Message, Suggestion: f.Suggestion})
			}
			*out[i].Severity.at(p) = sev
		}
	}
	for i := range out {
		for _, p := range Profiles {
			if s := out[i].Severity.at(p); *s == "" {
				*s = report.SeverityOff
			}
		}
	}
	slices.SortStableFunc(out, func(a, b goldenFinding) int {
		return report.CompareFindings(report.Finding{File: a.File, Line: a.Line, Column: a.Column, Code: a.Code, Message: a.Message},
			report.Finding{File: b.File, Line: b.Line, Column: b.Column, Code: b.Code, Message: b.Message})
	})
	if out == nil {
		out = []goldenFinding{}
	}
	return out
}

// checkGolden compares got with the JSON golden file, or rewrites it with
// -update.
func checkGolden(t *testing.T, file string, got any) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/validate/ -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(b)); d != "" {
		t.Errorf("%s differs (-want +got; go test ./internal/validate/ -update rewrites it):\n%s", file, d)
	}
}
