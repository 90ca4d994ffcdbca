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
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// validateCases is validate/testdata: one folder per rule with fail/,
// pass/ and their golden findings.
const validateCases = "../internal/validate/testdata"

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
	Summary  struct{ Files, Skills, Commands, Errors, Warnings int }
	Findings []struct {
		Code, Severity, File string
		Line, Column         int
		Message, Suggestion  string
	}
}

var (
	githubLine = regexp.MustCompile(`^::(error|warning|notice) file=[^,:]+(,line=\d+(,col=\d+)?)?,title=ccski [a-z0-9-]+::.+$`)
	summaryRe  = regexp.MustCompile(`(\d+) errors?, (\d+) warnings? in (\d+) files? \((\d+) skills?(, \d+ commands?)? checked\)`)
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
			extra := caseArgs(t, code)
			for _, kind := range []string{"fail", "pass"} {
				golden := readGoldenValidate(t, code, kind)
				for _, profile := range []string{"spec", "claude", "codex", "strict"} {
					checkProfile(t, dir, kind, profile, golden, extra)
				}
				checkFormats(t, dir, kind, golden, extra)
			}
		})
	}
	if rules < 50 {
		t.Errorf("only %d rule folders in %s", rules, validateCases)
	}
}

// caseArgs returns the flags in the case's args.txt (such as --kind
// command for the command rules), or none.
func caseArgs(t *testing.T, code string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(validateCases, code, "args.txt"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return slices.Clip(strings.Fields(string(b))) // callers append to it
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

func checkProfile(t *testing.T, dir, kind, profile string, golden []goldenValidate, extra []string) {
	t.Helper()
	want, wantCode := expected(golden, profile)
	r := runValidate(t, dir, append(extra, "--format", "json", "--profile", profile, kind)...)
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
	if rep.Summary.Errors != errs || rep.Summary.Warnings != warns || rep.Summary.Skills+rep.Summary.Commands == 0 && kind == "pass" {
		t.Errorf("summary %+v for %d errors, %d warnings", rep.Summary, errs, warns)
	}
}

func checkFormats(t *testing.T, dir, kind string, golden []goldenValidate, extra []string) {
	t.Helper()
	want, wantCode := expected(golden, "spec")

	r := runValidate(t, dir, append(extra, kind)...)
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

	r = runValidate(t, dir, append(extra, "--format", "github", kind)...)
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

	r = runValidate(t, dir, append(extra, "--format", "sarif", kind)...)
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

// validateIn runs "ccski validate args..." in dir with home as HOME and a
// clean environment (no CLAUDE_CONFIG_DIR, CODEX_HOME or CCSKI_ variable).
func validateIn(t *testing.T, dir, home string, args ...string) result {
	t.Helper()
	checkValidateCommand(t)
	vars := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TMPDIR=" + os.TempDir(),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	return runBinary(t, dir, vars, append([]string{"validate"}, args...)...)
}

// validateReport runs validate with --format json and decodes the report.
func validateReport(t *testing.T, dir, home string, args ...string) (reportJSON, result) {
	t.Helper()
	r := validateIn(t, dir, home, append([]string{"--format", "json"}, args...)...)
	var rep reportJSON
	decodeOnly(t, r, &rep)
	return rep, r
}

func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\nInstructions for " + name + ".\n"
}

// TestValidateHiddenFolders runs validate on a tree shaped like the
// openai/skills repository, whose skills all sit in hidden folders
// (skills/.system, .curated, .experimental): every skill is found, and
// nothing in .git or node_modules is.
func TestValidateHiddenFolders(t *testing.T) {
	root := testfs.TempDir(t)
	testfs.Write(t, root, map[string]string{
		"openai-skills/README.md":                                          "# Skills\n",
		"openai-skills/.github/workflows/ci.yml":                           "on: push\n",
		"openai-skills/.git/HEAD":                                          "ref: refs/heads/main\n",
		"openai-skills/.git/old-skill/SKILL.md":                            "not a skill: no frontmatter\n",
		"openai-skills/node_modules/pkg/skills/dep/SKILL.md":               "not a skill either\n",
		"openai-skills/skills/.system/skill-creator/SKILL.md":              skillMD("skill-creator", "Create a skill."),
		"openai-skills/skills/.system/skill-creator/scripts/init_skill.py": "print('init')\n",
		"openai-skills/skills/.system/skill-installer/SKILL.md":            skillMD("skill-installer", "Install skills."),
		"openai-skills/skills/.system/skill-installer/agents/openai.yaml":  "interface:\n  display_name: Skill installer\n",
		"openai-skills/skills/.curated/gh-fix-ci/SKILL.md":                 skillMD("gh-fix-ci", "Fix failing CI."),
		"openai-skills/skills/.curated/notion-knowledge-capture/SKILL.md":  skillMD("notion-knowledge-capture", "Capture knowledge in Notion."),
		"openai-skills/skills/.experimental/create-plan/SKILL.md":          skillMD("create-plan", "Write a plan."),
	})
	for _, tt := range []struct {
		path   string
		skills int
	}{
		{"openai-skills", 5},
		{"openai-skills/skills", 5},
		{"openai-skills/skills/.curated", 2},
	} {
		rep, r := validateReport(t, root, root, tt.path)
		if r.code != 0 || rep.Summary.Skills != tt.skills || len(rep.Findings) != 0 {
			t.Errorf("%s: want %d skills and no finding\n%s", tt.path, tt.skills, r)
		}
	}
}

// commandsHome writes a home shaped like a real Claude Code and Codex
// install, with slash commands everywhere they are read and sound skills:
// personal commands (one namespaced by a folder), a project's commands
// and skills, a plugin installed in the cache with commands and skills
// (installed_plugins.json, known_marketplaces.json, settings.json), and
// Codex prompts. It returns the home and the project folder.
func commandsHome(t *testing.T) (string, string) {
	t.Helper()
	root := testfs.TempDir(t)
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "work", "app")
	install := filepath.Join(home, ".claude", "plugins", "cache", "claude-code-plugins", "commit-commands", "1.0.0")
	clone := filepath.Join(home, ".claude", "plugins", "marketplaces", "claude-code-plugins")
	testfs.Write(t, root, map[string]string{
		"home/.claude/settings.json": `{"enabledPlugins": {"commit-commands@claude-code-plugins": true}}`,
		"home/.claude/plugins/installed_plugins.json": `{"version": 2, "plugins": {"commit-commands@claude-code-plugins": [` +
			`{"scope": "user", "installPath": "` + install + `", "version": "1.0.0", ` +
			`"installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}]}}`,
		"home/.claude/plugins/known_marketplaces.json": `{"claude-code-plugins": {"source": {"source": "github", ` +
			`"repo": "anthropics/claude-code"}, "installLocation": "` + clone + `", "lastUpdated": "2025-01-01T00:00:00.000Z"}}`,
		"home/.claude/plugins/marketplaces/claude-code-plugins/.claude-plugin/marketplace.json": `{"name": "claude-code-plugins", ` +
			`"owner": {"name": "Anthropic"}, "plugins": [{"name": "commit-commands", "source": "./plugins/commit-commands"}]}`,
		"home/.claude/plugins/marketplaces/claude-code-plugins/plugins/commit-commands/commands/commit.md": "---\n" +
			"allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)\ndescription: Create a git commit\n---\n\nCommit.\n",
		"home/.claude/plugins/cache/claude-code-plugins/commit-commands/1.0.0/.claude-plugin/plugin.json": `{"name": "commit-commands", "version": "1.0.0"}`,
		"home/.claude/plugins/cache/claude-code-plugins/commit-commands/1.0.0/commands/commit.md": "---\n" +
			"allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)\ndescription: Create a git commit\n---\n\nCommit.\n",
		"home/.claude/plugins/cache/claude-code-plugins/commit-commands/1.0.0/commands/commit-push-pr.md": "---\n" +
			"allowed-tools:\n  - Bash(git checkout --branch:*)\n  - Bash(gh pr create:*)\ndescription: Commit, push, and open a PR\n---\n\nShip it.\n",
		"home/.claude/plugins/cache/claude-code-plugins/commit-commands/1.0.0/commands/clean_gone.md": "---\n" +
			"description: Cleans up all git branches marked as [gone]\n---\n\nClean.\n",
		"home/.claude/plugins/cache/claude-code-plugins/commit-commands/1.0.0/skills/commit-style/SKILL.md": skillMD("commit-style", "Write commit messages in the house style."),
		"home/.claude/commands/dedupe.md":          "---\nallowed-tools: Bash(gh issue view:*), Bash(gh search:*)\ndescription: Find duplicate GitHub issues\n---\n\nFind duplicates of $ARGUMENTS.\n",
		"home/.claude/commands/triage-issue.md":    "---\nargument-hint: [issue-number]\ndescription: Triage an issue\n---\n\nTriage #$1.\n",
		"home/.claude/commands/frontend/review.md": "# Review the frontend\n\nReview $ARGUMENTS.\n",
		"home/.claude/skills/notes/SKILL.md":       skillMD("notes", "Take meeting notes."),
		"home/.codex/prompts/sp.plan.md":           "---\ndescription: Plan the feature.\nargument-hint: <feature>\n---\nPlan: $ARGUMENTS\n",
		"home/.codex/skills/pdf/SKILL.md":          skillMD("pdf", "Read PDF files."),
		"work/app/.git/HEAD":                       "ref: refs/heads/main\n",
		"work/app/.claude/commands/deploy.md":      "---\ndescription: Deploy the service.\nargument-hint: \"<env> [tag]\"\n---\nDeploy $1 at $2.\n",
		"work/app/.claude/skills/release/SKILL.md": skillMD("release", "Cut a release."),
	})
	return home, proj
}

// TestValidateCommandsTree checks, on a machine with commands everywhere,
// that validate with no PATH checks skills only (commands once gave 218
// of 249 errors and a duplicate-name "commands" listing every command),
// that --kind command and all check the commands against their own rules
// and pass when they are sound, and that a broken command fails only the
// runs that check commands.
func TestValidateCommandsTree(t *testing.T) {
	home, proj := commandsHome(t)
	isCommand := func(f string) bool {
		return strings.Contains(filepath.ToSlash(f), "/commands/") || strings.Contains(filepath.ToSlash(f), "/prompts/")
	}
	for _, tt := range []struct {
		args             []string
		skills, commands int
	}{
		{nil, 4, 0},
		{[]string{"--kind", "skill"}, 4, 0},
		{[]string{"--kind", "command"}, 0, 8},
		{[]string{"--kind", "all"}, 4, 8},
		{[]string{"--kind", "all", "."}, 1, 1},
		{[]string{"--kind", "all", filepath.Join(home, ".claude", "plugins", "marketplaces", "claude-code-plugins")}, 0, 1},
		{[]string{"--kind", "all", filepath.Join(home, ".claude", "plugins", "cache")}, 1, 3},
		{[]string{"--kind", "command", filepath.Join(home, ".claude", "commands")}, 0, 3},
	} {
		rep, r := validateReport(t, proj, home, tt.args...)
		if r.code != 0 || rep.Summary.Skills != tt.skills || rep.Summary.Commands != tt.commands || len(rep.Findings) != 0 {
			t.Errorf("validate %v: want exit 0, %d skills, %d commands, no finding\n%s", tt.args, tt.skills, tt.commands, r)
		}
	}

	testfs.Write(t, home, map[string]string{".claude/commands/broken.md": "---\ndescription: [never closed\n---\nBody\n"})
	for _, tt := range []struct {
		args []string
		code int
	}{
		{nil, 0},
		{[]string{"--kind", "command"}, 1},
		{[]string{"--kind", "all"}, 1},
	} {
		rep, r := validateReport(t, proj, home, tt.args...)
		if r.code != tt.code {
			t.Errorf("validate %v with a broken command: want exit %d\n%s", tt.args, tt.code, r)
		}
		for _, f := range rep.Findings {
			if f.Code != "command-yaml-syntax" || !strings.HasSuffix(f.File, "broken.md") || !isCommand(f.File) {
				t.Errorf("validate %v: unexpected finding %+v", tt.args, f)
			}
		}
		if tt.code == 1 && len(rep.Findings) != 1 {
			t.Errorf("validate %v: want the broken command reported\n%s", tt.args, r)
		}
	}
}

// TestValidateFixManagedTrees checks that --fix never writes in the trees
// Claude Code and Codex manage: a plugin installed in the cache, a
// marketplace clone reached through a symlink from ~/.claude/skills, and
// Codex's bundled .system skills. Each is left byte for byte as it was,
// with a managed-tree info and a "left alone" line, both with no PATH
// (discovery) and with one; the exit status follows the findings that
// remain (a byte order mark is an error under spec, a warning under
// claude, and with no PATH and no --profile at most a warning in a managed
// tree), never the refusal.
func TestValidateFixManagedTrees(t *testing.T) {
	home, proj := commandsHome(t)
	bom := "\ufeff"
	cached := filepath.Join(home, ".claude", "plugins", "cache", "claude-code-plugins", "commit-commands", "1.0.0",
		"skills", "commit-style", "SKILL.md")
	testfs.Write(t, home, map[string]string{
		".claude/plugins/cache/claude-code-plugins/commit-commands/1.0.0/skills/commit-style/SKILL.md": bom +
			skillMD("commit-style", "Write commit messages in the house style."),
		".claude/plugins/marketplaces/claude-code-plugins/skills/pr-style/SKILL.md": "\n\n" +
			skillMD("pr-style", "Write pull requests in the house style."),
		".claude/skills/pr-style":                      "-> ../plugins/marketplaces/claude-code-plugins/skills/pr-style",
		".codex/skills/.system/skill-creator/SKILL.md": bom + skillMD("skill-creator", "Create a skill."),
	})
	managed := map[string]string{
		cached: "the Claude Code plugin cache",
		filepath.Join(home, ".claude", "skills", "pr-style", "SKILL.md"):                "a Claude Code marketplace clone",
		filepath.Join(home, ".codex", "skills", ".system", "skill-creator", "SKILL.md"): "Codex's bundled system skills",
	}
	before := snapshotFiles(t, home)

	linked := filepath.Join(home, ".claude", "skills", "pr-style", "SKILL.md")
	system := filepath.Join(home, ".codex", "skills", ".system", "skill-creator", "SKILL.md")
	for _, tt := range []struct {
		name    string
		args    []string
		refused []string // files with a managed-tree finding
		code    int
	}{
		// Discovery lists Codex's .system skills as Codex's system skills.
		{"discovery", []string{"--fix"}, []string{cached, linked, system}, 0},
		{"discovery, dry run", []string{"--fix", "--dry-run"}, []string{cached, linked, system}, 0},
		{"discovery, spec profile", []string{"--fix", "--profile", "spec"}, []string{cached, linked, system}, 1},
		{"discovery, claude profile", []string{"--fix", "--profile", "claude"}, []string{cached, linked, system}, 0},
		{"the plugin cache", []string{"--fix", filepath.Join(home, ".claude", "plugins", "cache")}, []string{cached}, 1},
		{"the user's skills", []string{"--fix", filepath.Join(home, ".claude", "skills")}, []string{linked}, 1},
		{"Codex's skills", []string{"--fix", filepath.Join(home, ".codex", "skills")}, []string{system}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, r := validateReport(t, proj, home, tt.args...)
			if d := diffFiles(before, snapshotFiles(t, home)); d != "" {
				t.Fatalf("--fix wrote in a managed tree: %s\n%s", d, r)
			}
			var refused []string
			for _, f := range rep.Findings {
				if f.Code == "managed-tree" {
					refused = append(refused, f.File)
					if f.Severity != "info" || !strings.Contains(f.Message, managed[f.File]) {
						t.Errorf("finding %+v, want an info naming %q", f, managed[f.File])
					}
				}
			}
			slices.Sort(refused)
			want := slices.Sorted(slices.Values(tt.refused))
			if !slices.Equal(want, refused) {
				t.Errorf("managed-tree findings on %v, want %v\n%s", refused, want, r)
			}
			for _, f := range tt.refused {
				if !strings.Contains(r.stderr, "left alone "+f+": it lies in "+managed[f]) {
					t.Errorf("stderr does not say why %s was left alone\n%s", f, r)
				}
			}
			if r.code != tt.code {
				t.Errorf("want exit %d\n%s", tt.code, r)
			}
		})
	}
}

// TestValidateExamples is the done-when: the repository's own
// examples pass, as skills and with commands included.
func TestValidateExamples(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{dir}, {"--kind", "all", dir}, {"--profile", "strict", "--kind", "all", dir}} {
		rep, r := validateReport(t, t.TempDir(), t.TempDir(), args...)
		if r.code != 0 || rep.Summary.Skills == 0 || rep.Summary.Errors != 0 {
			t.Errorf("validate %v: want exit 0 with skills checked\n%s", args, r)
		}
	}
}

// TestValidateDiscoveredNamespaces checks that with no PATH, duplicate-name
// compares names as discovery keeps them apart: a plugin's skill
// (commit-commands:commit-style) and a project skill of the same short
// name are two skills, both checked, and neither is reported as hiding
// the other (Codex's copy is one discovery itself hides behind the
// project's).
func TestValidateDiscoveredNamespaces(t *testing.T) {
	home, proj := commandsHome(t)
	testfs.Write(t, proj, map[string]string{
		".claude/skills/commit-style/SKILL.md": skillMD("commit-style", "The project's own commit style."),
	})
	testfs.Write(t, home, map[string]string{
		".codex/skills/commit-style/SKILL.md": skillMD("commit-style", "Codex's commit style."),
	})
	rep, r := validateReport(t, proj, home)
	if r.code != 0 || rep.Summary.Skills != 5 || len(rep.Findings) != 0 {
		t.Errorf("want exit 0, 5 skills and no finding\n%s", r)
	}
	// Given as PATHs, the same files are compared by name alone.
	rep, r = validateReport(t, proj, home, ".claude/skills", filepath.Join(home, ".codex", "skills"))
	if r.code != 1 || len(rep.Findings) != 2 || rep.Findings[0].Code != "duplicate-name" {
		t.Errorf("want the two same-named skills reported\n%s", r)
	}
}

// bigFolder creates dir with more folders below it than a walk's folder
// budget (20,000), shaped like a virtualenv's site-packages.
func bigFolder(t *testing.T, dir string) {
	t.Helper()
	site := filepath.Join(dir, "lib", "python3.12", "site-packages")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 150 { // one mkdir per folder: this is most of the test's time
		pkg := filepath.Join(site, "pkg"+strconv.Itoa(i))
		if err := os.Mkdir(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := range 140 {
			if err := os.Mkdir(filepath.Join(pkg, "mod"+strconv.Itoa(j)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestValidateLargeHiddenFolders runs validate on repositories holding a
// hidden folder larger than the walk's folder budget. A .venv is not
// entered at all; any other large hidden folder is searched after the rest
// of the tree, under a budget of its own, and a warning names it. Each
// case once gave no-skill-found (or no-command-found) with exit 1: the
// hidden folder sorts before skills/ and used up the one budget first,
// and with --kind command that happened silently.
func TestValidateLargeHiddenFolders(t *testing.T) {
	t.Parallel() // making 21,000 folders is slow on some file systems
	root := testfs.TempDir(t)
	testfs.Write(t, root, map[string]string{
		"repo/README.md":                      "# Repo\n",
		"repo/skills/good/SKILL.md":           skillMD("good", "A good skill."),
		"other/skills/good/SKILL.md":          skillMD("good", "A good skill."),
		"other/tools/commands/build.md":       "---\ndescription: Build it.\n---\nBuild $ARGUMENTS.\n",
		"other/.data":                         "-> ../repo/.venv", // as large, under another name
		"commands-only/.claude/commands/a.md": "---\ndescription: Do a.\n---\nDo a.\n",
	})
	bigFolder(t, filepath.Join(root, "repo", ".venv"))
	hiddenLimit := "the search of hidden folders stopped in this one after 20000 of them"
	for _, tt := range []struct {
		args             []string
		skills, commands int
		warning          string // the file of the one walk-problem warning, or ""
	}{
		{[]string{"repo"}, 1, 0, ""},
		{[]string{"--kind", "all", "repo"}, 1, 0, ""},
		{[]string{"other"}, 1, 0, "other/.data"},
		{[]string{"--kind", "all", "other"}, 1, 1, "other/.data"},
		{[]string{"--kind", "command", "other"}, 0, 1, "other/.data"},
	} {
		rep, r := validateReport(t, root, root, tt.args...)
		if r.code != 0 || rep.Summary.Skills != tt.skills || rep.Summary.Commands != tt.commands {
			t.Errorf("validate %v: want exit 0, %d skills, %d commands\n%s", tt.args, tt.skills, tt.commands, r)
			continue
		}
		var warnings []string
		for _, f := range rep.Findings {
			if f.Code != "walk-problem" || f.Severity != "warning" || !strings.Contains(f.Message, hiddenLimit) {
				t.Errorf("validate %v: unexpected finding %+v", tt.args, f)
			}
			warnings = append(warnings, filepath.ToSlash(f.File))
		}
		if want := []string{tt.warning}; tt.warning != "" && !slices.Equal(warnings, want) ||
			tt.warning == "" && len(warnings) != 0 {
			t.Errorf("validate %v: walk-problem warnings on %v, want %q\n%s", tt.args, warnings, tt.warning, r)
		}
	}
}

// TestValidateCommandsHint checks that validating, as skills (the
// default), a folder that holds only slash commands fails with a message
// that points at --kind command, and that --kind command then passes.
func TestValidateCommandsHint(t *testing.T) {
	home, _ := commandsHome(t)
	cmds := filepath.Join(home, ".claude", "plugins", "cache", "claude-code-plugins", "commit-commands", "1.0.0",
		"commands")
	for _, tt := range []struct {
		args []string
		code int
		want string // in stdout
	}{
		{[]string{cmds}, 1, "no skill was found in this folder, but it holds 3 slash commands (such as " +
			"clean_gone.md), which are checked only with --kind command or --kind all"},
		{[]string{filepath.Join(home, ".claude")}, 0, "0 errors"}, // it holds a skill
		{[]string{"--kind", "command", cmds}, 0, "(0 skills, 3 commands checked)"},
	} {
		r := validateIn(t, home, home, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("validate %v: want exit %d and %q\n%s", tt.args, tt.code, tt.want, r)
		}
	}
}
